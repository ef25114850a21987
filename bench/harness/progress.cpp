#include "harness/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace slawbench {

std::string format_duration(double seconds) {
  seconds = std::max(0.0, seconds);
  long s = std::lround(seconds);
  char buf[32];
  if (seconds < 9.95) std::snprintf(buf, sizeof buf, "%.1fs", seconds);  // short runs (tests, --size test)
  else if (s < 60) std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s % 3600 / 60);
  return buf;
}

progress::progress(progress_mode mode, int benchmarks, long runs)
    : mode_(mode), start_(std::chrono::steady_clock::now()), last_draw_(start_), benchmarks_(benchmarks),
      planned_(runs) {}

double progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string progress::estimate() const {
  if (finished_ == 0) return "estimating the time left";
  const long left = std::max(0L, planned_ - finished_);
  std::string e(1, '~');  // appended, not "~" + ...: GCC 12 warns falsely (-Wrestrict) about that
  e += format_duration(elapsed() / static_cast<double>(finished_) * static_cast<double>(left));
  e += " left";
  return e;
}

void progress::start_benchmark(int index, const std::string& name) {
  index_ = index;
  bench_ = name;
  if (mode_ == progress_mode::lines)
    std::fprintf(stderr, "slaw-bench: [%d/%d] %s: %s elapsed, %s\n", index, benchmarks_, name.c_str(),
                 format_duration(elapsed()).c_str(), estimate().c_str());
}

void progress::now(const std::string& variant, unsigned workers, int rep, int reps) {
  variant_ = variant;
  workers_ = workers;
  rep_ = rep;
  reps_ = reps;
  draw();
}

void progress::run_done() {
  ++finished_;
  draw();
}

void progress::unplan(long runs) { planned_ -= runs; }

void progress::tick() {
  if (mode_ == progress_mode::live && std::chrono::steady_clock::now() - last_draw_ >= std::chrono::seconds(1)) draw();
}

void progress::note(const std::string& line) {
  clear();
  std::fprintf(stderr, "%s\n", line.c_str());
  draw();
}

void progress::done(bool completed) {
  clear();
  if (mode_ == progress_mode::lines && completed)
    std::fprintf(stderr, "slaw-bench: %d benchmark%s in %s\n", benchmarks_, benchmarks_ == 1 ? "" : "s",
                 format_duration(elapsed()).c_str());
}

void progress::draw() {
  if (mode_ != progress_mode::live || bench_.empty()) return;
  last_draw_ = std::chrono::steady_clock::now();
  char what[160];
  if (rep_ > 0)
    std::snprintf(what, sizeof what, "[%d/%d] %s %s w=%u rep %d/%d", index_, benchmarks_, bench_.c_str(),
                  variant_.c_str(), workers_, rep_, reps_);
  else
    std::snprintf(what, sizeof what, "[%d/%d] %s %s w=%u building", index_, benchmarks_, bench_.c_str(),
                  variant_.c_str(), workers_);
  const std::string times = " | " + format_duration(elapsed()) + " elapsed, " + estimate();
  // Wider than the terminal, the line would wrap and the carriage return would no longer rewrite it; the
  // times are kept whole, what runs is cut.
  winsize ws{};
  const std::size_t width = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
  std::string line = what;
  if (line.size() + times.size() > width) line.resize(width > times.size() ? width - times.size() : 0);
  line += times;
  if (line.size() > width) line.resize(width);
  // Spaces over what is left of a longer previous line (no terminal escapes: TERM=dumb works too).
  const std::size_t pad = shown_ > line.size() ? shown_ - line.size() : 0;
  std::fprintf(stderr, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
  if (pad) std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
  shown_ = line.size();
}

void progress::clear() {
  if (mode_ != progress_mode::live || shown_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown_), "");
  shown_ = 0;
}

}  // namespace slawbench
