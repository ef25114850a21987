// One configuration (benchmark, variant, worker count) run in a child process of the driver, and the
// messages between the two.
//
// The child builds the instance (and the runtime, TBB arena or OpenMP team the variant needs), then says
//   "ready SECONDS"  (SECONDS: the time to build the instance)  or  "skip"  (the instance has no such
//   variant, e.g. pdfs without OpenMP at a size whose stacks it would overflow).
// Then for each "run" from the parent it runs one repetition (reset, timed run, oracle) and replies with
// a rep_result; at end of file it exits with status 0. A bad benchmark parameter makes it print the
// error and exit with status 2 before "ready". A runtime that cannot be built from valid settings (a
// deployment this machine cannot give: more bound workers than CPUs) makes it say "error MESSAGE" and
// exit with status 3: that configuration fails, the others go on.
#pragma once

#include <optional>
#include <string>

#include "harness/options.hpp"

namespace slawbench {

struct rep_result {
  double seconds = 0;
  long peak_rss_kb = -1;  // the child's VmHWM over this run, reset just before it (inputs included)
  bool ok = false;        // the oracle's verdict
  std::string oracle;     // what it checked, or what was wrong
  std::string counters;   // the runtime's counters as JSON (slaw variants), or empty

  std::string encode() const;
  static std::optional<rep_result> decode(const std::string& msg);
};

// The child's side; `o` names exactly one benchmark, variant and worker count. Returns the exit status.
int run_configuration(const options& o);

}  // namespace slawbench
