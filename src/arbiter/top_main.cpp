// slaw-top: the jobs sharing the machine's cores through the arbiter, refreshed (docs/design/arbiter.md § slaw-top).
// It maps the segment read-only and copies it through the seqlocks: it never creates the segment, never
// takes its locks, never writes it, so it cannot slow a job down or disturb the table. It refuses what
// the jobs refuse (another user's object, one other users may write, a FIFO, a bad header), opens the
// name without blocking, and survives a truncation under its copy (read_segment, the SIGBUS guard).
//
//   slaw-top [--name /NAME] [--interval SECONDS] [--once] [--json]
// Exit status: 0; 1 if the segment cannot be read (with --once); 2 for a bad argument.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "arbiter/robust_mutex.hpp"
#include "arbiter/segment.hpp"
#include "arbiter/settings.hpp"
#include "arbiter/snapshot.hpp"
#include "arbiter/top_format.hpp"
#include "slaw/config.hpp"

namespace {

const char* usage =
    "usage: slaw-top [--name /NAME] [--interval SECONDS] [--once] [--json]\n"
    "  Shows the slaw jobs sharing this machine's cores: each job's pid, command, desire, allotment,\n"
    "  workers, utilization and queued work, the cores managed and the quantum.\n"
    "  --name /NAME        the segment (default: SLAW_ARBITER_NAME, else /slaw-arbiter-<uid>)\n"
    "  --interval SECONDS  time between refreshes (default 1)\n"
    "  --once              print once and exit (status 1 if the segment cannot be read)\n"
    "  --json              one JSON object per refresh, on one line\n";

int bad_argument(const std::string& what) {
  std::fprintf(stderr, "slaw-top: %s\n%s", what.c_str(), usage);
  return 2;
}

// One refresh: true if the segment could be read.
bool show(const std::string& name, bool json, bool clear) {
  using namespace slaw::arbiter;
  const read_result r = read_segment(name);
  if (!r.error.empty()) {
    if (json) std::printf("{\"segment\": \"%s\", \"error\": \"unreadable\"}\n", name.c_str());
    std::fprintf(stderr, "slaw-top: %s\n", r.error.c_str());
    std::fflush(stdout);
    return false;
  }
  const segment_view& v = r.view;
  const std::string text = json ? format_json(name, v) + "\n" : format_text(name, v, monotonic_ns());
  if (clear) std::fputs("\033[H\033[2J", stdout);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name;
  double interval = 1.0;
  bool once = false, json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--once") once = true;
    else if (a == "--json") json = true;
    else if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (a == "--name") {
      const char* v = value();
      if (!v) return bad_argument("--name needs a value");
      if (std::string why = slaw::arbiter::segment_name_problem(v); !why.empty())
        return bad_argument(std::string("--name '") + v + "': " + why + "; expected /NAME (A-Z a-z 0-9 . _ -)");
      name = v;
    } else if (a == "--interval") {
      const char* v = value();
      if (!v) return bad_argument("--interval needs a value");
      char* end = nullptr;
      errno = 0;
      interval = std::strtod(v, &end);
      if (!*v || *end || errno || !std::isfinite(interval) || interval < 0.05 || interval > 3600)
        return bad_argument(std::string("--interval '") + v + "': expected seconds in [0.05, 3600]");
    } else {
      return bad_argument("unknown argument '" + a + "'");
    }
  }
  if (name.empty()) {
    try {
      name = slaw::arbiter::settings::from_env().segment_name();
    } catch (const slaw::config_error& e) {
      std::fprintf(stderr, "slaw-top: %s\n", e.what());
      return 2;
    }
  }
  if (once) return show(name, json, false) ? 0 : 1;
  const bool clear = !json && isatty(STDOUT_FILENO);
  for (;;) {
    show(name, json, clear);
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
  }
}
