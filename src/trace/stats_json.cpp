#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>

#include "slaw/config.hpp"
#include "slaw/runtime.hpp"
#include "slaw/stats.hpp"
#include "trace/output_file.hpp"

namespace slaw {

worker_stats sum_stats(const std::vector<worker_stats>& ws) {
  worker_stats t;
  for (const auto& w : ws) {
#define SLAW_COMBINE_sum(name) t.name += w.name;
#define SLAW_COMBINE_max(name) t.name = std::max(t.name, w.name);
#define SLAW_COUNTER(type, name, total, source) SLAW_COMBINE_##total(name)
#include "slaw/counters.def"
#undef SLAW_COUNTER
#undef SLAW_COMBINE_sum
#undef SLAW_COMBINE_max
  }
  return t;
}

namespace {
void put(std::ostringstream& o, const worker_stats& w, bool with_policy) {
  const char* sep = "{";
#define SLAW_COUNTER(type, name, total, source) \
  o << sep << "\"" #name "\":" << w.name;       \
  sep = ",";
#include "slaw/counters.def"
#undef SLAW_COUNTER
  if (with_policy) o << ",\"policy\":\"" << w.policy << "\"";
  if (!w.policy_trace.empty()) {
    o << ",\"policy_trace\":[";
    for (std::size_t i = 0; i < w.policy_trace.size(); ++i) {
      const auto& e = w.policy_trace[i];
      o << (i ? "," : "") << "[" << e.spawn << "," << e.depth << ",\"" << (e.to_wf ? "wf" : "hf") << "\",\"" << e.reason
        << "\"]";
    }
    o << "]";
  }
  o << "}";
}
}  // namespace

std::string runtime_stats::to_json() const {
  std::ostringstream o;
  o << "{\"workers\":" << workers.size() << ",\"scheduler\":\"" << scheduler << "\",\"quota\":" << quota
    << ",\"memory_live\":" << memory_live << ",\"memory_peak\":" << memory_peak
    << ",\"active_tasks\":" << active_tasks << ",\"active_tasks_peak\":" << active_tasks_peak
    << ",\"gauge_error_bytes\":" << gauge_error_bytes << ",\"gauge_error_tasks\":" << gauge_error_tasks;
  if (!places_json.empty()) o << ",\"places\":" << places_json;
  if (!place_counters_json.empty()) o << ",\"place_counters\":" << place_counters_json;
  if (!arbiter_json.empty()) o << ",\"arbiter\":" << arbiter_json;
  if (scheduler == "dfdeques")
    o << ",\"dfd\":{\"steals\":" << dfd_steals << ",\"failed_attempts\":" << dfd_failed_attempts
      << ",\"giveups\":" << dfd_giveups << ",\"deletions\":" << dfd_deletions << ",\"max_deques\":" << dfd_max_deques
      << ",\"batched\":" << dfd_batched << ",\"splits\":" << dfd_splits
      << "}";
  o << ",\"total\":";
  put(o, total, false);
  o << ",\"per_worker\":[";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    if (i) o << ",";
    put(o, workers[i], true);
  }
  o << "]}";
  return o.str();
}

namespace detail {

namespace {
std::mutex stats_files_mutex;
std::set<std::string> stats_files_opened;  // paths truncated by this process already
}  // namespace

// The first runtime of the process to name a file truncates it; every runtime appends its line, so
// that runtimes that end in any order each leave theirs.
output_file open_stats_file(const config& cfg) {
  std::lock_guard<std::mutex> g(stats_files_mutex);
  const bool first = stats_files_opened.count(cfg.stats_path) == 0;
  output_file f = output_file::open("SLAW_STATS='" + cfg.stats_path + "'", cfg.stats_path, first, true);
  stats_files_opened.insert(cfg.stats_path);
  return f;
}

std::string write_stats(const runtime_stats& s, const config& cfg, output_file& file) {
  const std::string json = s.to_json() + "\n";
  if (cfg.stats == stats_output::stderr_stream) {
    if (std::fputs(json.c_str(), stderr) < 0 || std::fflush(stderr) != 0)
      return std::string("SLAW_STATS=1: the counters could not be written to stderr: ") + std::strerror(errno);
    return {};
  }
  (void)file.write(json.data(), json.size());
  return file.close("the counters");
}

}  // namespace detail

void open_stats_output(const config& cfg) {
  if (cfg.stats != stats_output::file) return;
  (void)detail::open_stats_file(cfg);
}

void write_stats(const runtime_stats& s, const config& cfg) {
  if (cfg.stats == stats_output::off) return;
  detail::output_file file;
  if (cfg.stats == stats_output::file) file = detail::open_stats_file(cfg);
  const detail::sigpipe_blocked quiet;
  const std::string failure = detail::write_stats(s, cfg, file);
  if (!failure.empty()) throw output_error(failure);
}

}  // namespace slaw
