// slaw-bench's JSON: one record per configuration (benchmark, variant, worker count) and the file
//   {"machine": {...}, "size": ..., "reps": ..., "runs": [record, ...]}.
// A record holds each repetition's seconds, the median, the oracle's verdict, the peak RSS (peak_rss_kb:
// the largest over the repetitions of the child's VmHWM during the run, reset before each run; the
// instance's inputs are resident and count, its construction does not; each repetition's in
// peak_rss_kb_reps), the child's peak over its whole life (process_peak_rss_kb, from wait4: building
// included), the instance's build time, "process" when the child did not end normally and, for slaw
// variants, the runtime's counters (last repetition). "interrupted" says where a run stopped by Ctrl-C
// was (struct interruption), null when it completed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/options.hpp"
#include "harness/variants.hpp"

namespace slawbench {

struct record {
  std::string bench;
  std::map<std::string, std::string> params;
  const variant* row = nullptr;
  unsigned workers = 0;
  std::vector<double> seconds;
  std::vector<long> peak_rss_reps;
  bool oracle_ok = true;
  std::string oracle;
  std::string counters;  // JSON object or empty
  double build_seconds = -1;
  long process_peak_rss_kb = -1;
  std::string process_failure;  // how the child ended, when not normally

  void fail(const std::string& why) {
    oracle_ok = false;
    oracle = why;
  }
  double median() const;
  long peak_rss_kb() const;  // -1: no repetition completed
  std::string to_json() const;
};

// Where a run stopped by SIGINT or SIGTERM was: the file's "interrupted" (null for a run that completed).
// "runs" then holds only the configurations whose repetitions all ran; those of the benchmark and worker
// count in progress are left out (their variants alternate, so none of them had all its repetitions).
struct interruption {
  int signal = 0;
  double after_seconds = 0;
  int benchmarks = 0;            // selected
  int benchmark_index = 0;       // the one in progress, from 1
  std::string bench;
  unsigned workers = 0;
  int repetitions_done = 0;      // by every variant of that benchmark and worker count (0: still building)
  int configurations_dropped = 0;
  std::string to_json(std::size_t completed) const;
};

// Writes the file; false if it cannot be written.
bool write_json(const std::string& path, const options& opt, const std::vector<record>& records,
                const interruption* stopped = nullptr);

std::string json_escape(const std::string& s);  // the inside of a JSON string

}  // namespace slawbench
