#include "trace/timeline.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "trace/timeline_json.hpp"

namespace slaw::detail {

namespace {

// A process may build several runtimes with the same SLAW_TRACE: the first writes PATH, the n-th
// PATH with "-n" before its extension (fib.json, fib-2.json, ...), so that none overwrites another.
// A path that is not a file of its own (/dev/stderr, a FIFO, /dev/null) is a stream: each runtime
// writes to it again.
std::string claim_path(const std::string& path) {
  static std::mutex m;
  static std::map<std::string, unsigned> uses;
  std::lock_guard<std::mutex> g(m);
  const unsigned n = ++uses[path];
  if (n == 1) return path;
  struct stat st {};
  if (path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0 ||
      (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)))
    return path;
  const std::size_t slash = path.rfind('/');
  std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1) dot = path.size();
  return path.substr(0, dot) + "-" + std::to_string(n) + path.substr(dot);
}

const char* process_name() noexcept {
#if defined(__GLIBC__)
  return program_invocation_short_name;
#else
  return "slaw";
#endif
}

}  // namespace

timeline::timeline(const config& cfg, unsigned workers)
    : path_(cfg.timeline_path.empty() ? std::string() : claim_path(cfg.timeline_path)),
      scheduler_(to_string(cfg.scheduler)),
      policy_(cfg.scheduler == scheduler_kind::dfdeques ? "wf" : to_string(cfg.policy)),
      per_worker_(cfg.timeline_path.empty() ? 0 : cfg.timeline_events) {
  recorders_.resize(workers);
  if (path_.empty()) {  // only the hooks (SLAW_RECORD): every recorder is full from the start, and no file
    for (unsigned i = 0; i < workers; ++i) recorders_[i].attach(nullptr, 0, &clock_, i);
    return;
  }
  const std::size_t total = per_worker_ * workers;
  // Not value-initialised: the pages are touched only as events are recorded.
  events_.reset(new (std::nothrow) tl_event[total]);
  if (!events_)
    throw config_error("SLAW_TRACE_EVENTS=" + std::to_string(per_worker_) + ": cannot allocate the timeline buffers (" +
                       std::to_string(per_worker_) + " events of " + std::to_string(sizeof(tl_event)) + " bytes for each of " +
                       std::to_string(workers) + " workers); expected fewer events per worker");
  out_ = output_file::open("SLAW_TRACE='timeline:" + cfg.timeline_path + "'", path_, true, false);
  for (unsigned i = 0; i < workers; ++i) recorders_[i].attach(events_.get() + i * per_worker_, per_worker_, &clock_, i);
}

timeline::~timeline() = default;

std::string timeline::write() {
  if (!out_.is_open()) return {};
  clock_.calibrate_end();
  const auto start = std::chrono::steady_clock::now();
  timeline_json_result r;
  std::string failure;
  if (std::FILE* f = out_.stream()) {
    try {
      r = write_timeline_json(f, recorders_, clock_, {process_name(), scheduler_.c_str(), policy_.c_str(), per_worker_});
      if (r.io_error) out_.failed(errno);
    } catch (const std::bad_alloc&) {
      (void)out_.close("the timeline trace");
      return out_.setting() + ": the timeline trace could not be written to '" + path_ +
             "': out of memory for the steal index";
    }
  }
  failure = out_.close("the timeline trace");
  if (!failure.empty()) return failure;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t dropped = 0;
  for (const timeline_recorder& w : recorders_) dropped += w.dropped();
  std::fprintf(stderr, "slaw: timeline trace written to %s: %llu events from %zu worker%s in %.2f s\n", path_.c_str(),
               static_cast<unsigned long long>(r.events), recorders_.size(), recorders_.size() == 1 ? "" : "s", secs);
  if (dropped) {
    std::string which;
    for (std::size_t i = 0; i < recorders_.size(); ++i)
      if (recorders_[i].dropped())
        which += (which.empty() ? "" : ", ") + std::string("worker ") + std::to_string(i) + ": " +
                 std::to_string(recorders_[i].dropped());
    std::fprintf(stderr,
                 "slaw: the timeline trace is incomplete: %llu events dropped because a worker's buffer of %zu events "
                 "was full (%s); raise SLAW_TRACE_EVENTS (config::timeline_events) to keep them\n",
                 static_cast<unsigned long long>(dropped), per_worker_, which.c_str());
  }
  return {};
}

}  // namespace slaw::detail
