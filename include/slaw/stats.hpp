// Runtime counters, per worker and in total (digest slaw.md §9.1 "Instrumentation").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slaw {

struct worker_stats {
  std::uint64_t spawns_wf = 0, spawns_hf = 0;
  std::uint64_t steals_preempted = 0, steals_fresh = 0;      // taken by this worker from others
  std::uint64_t stolen_preempted = 0, stolen_fresh = 0;      // taken from this worker by others
  std::uint64_t failed_steals = 0;                           // steal attempts that found nothing
  std::uint64_t context_switches = 0;                        // returns to the scheduler (digest §2.2)
  std::uint64_t local_takes = 0;                             // own deque entries taken by the scheduler
  std::uint64_t tasks_run = 0;                               // tasks started or resumed by the scheduler
  std::uint64_t policy_switches = 0;
  std::uint64_t max_wf_depth = 0, max_fresh = 0;
  std::uint64_t parks = 0, wakes = 0;
  std::int64_t frame_bytes_live = 0, frame_bytes_peak = 0;
  std::uint64_t frame_chunk_bytes = 0;
  std::string policy;  // the worker's current ADP policy: "wf" or "hf"
};

struct runtime_stats {
  std::vector<worker_stats> workers;
  worker_stats total;  // sums; maxima for max_* and frame_bytes_peak is the sum of per-worker peaks
  std::string to_json() const;
};

worker_stats sum_stats(const std::vector<worker_stats>& ws);

struct config;
// Writes `s.to_json()` as configured: to stderr, or to the file (truncated by the first runtime of the
// process that writes it, appended to by later ones: one JSON object per line).
void write_stats(const runtime_stats& s, const config& cfg);

}  // namespace slaw
