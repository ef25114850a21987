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
  // Memory of this worker's allocator: coroutine frames and user memory (slaw::allocate). Live bytes
  // (a block freed by another worker is credited to its allocator), peak live bytes and bytes
  // allocated in total since the last reset.
  std::int64_t frame_bytes_live = 0, frame_bytes_peak = 0;
  std::uint64_t frame_bytes_total = 0;
  std::int64_t user_bytes_live = 0, user_bytes_peak = 0;
  std::uint64_t user_bytes_total = 0;
  std::uint64_t frame_chunk_bytes = 0;  // memory the allocator holds from the system
  std::int64_t fresh_bytes_live = 0;    // frames of queued (help-first, unstarted) tasks
  std::uint64_t fresh_bytes_peak = 0;
  // DFDeques: the largest net allocation of one quota period (<= K), bytes allocated beyond the quota
  // by synchronous slaw::allocate, deques given up, dummy tasks run.
  std::int64_t quota_max_used = 0;
  std::uint64_t quota_overrun_bytes = 0, quota_giveups = 0, dummy_tasks = 0;
  std::string policy;  // the worker's current ADP policy: "wf" or "hf"
  // SLAW_TRACE=policy: the worker's spawn-decision changes as (spawn index, wf depth, "wf"|"hf", reason).
  struct decision_change {
    std::uint64_t spawn;
    std::int32_t depth;
    bool to_wf;
    char reason;  // 'i' interval heuristic, 's' stack bound S, 'f' fresh bound F, 'c' clause/fixed mode,
                  // 'u' back to the interval's policy after a forced choice
  };
  std::vector<decision_change> policy_trace;
};

struct runtime_stats {
  std::vector<worker_stats> workers;
  worker_stats total;  // sums; maxima for max_* and quota_max_used; per-worker peaks summed (an upper bound)
  // Process-wide figures (all runtimes and threads; exact to within `gauge_error_bytes`/`_tasks`):
  std::int64_t memory_live = 0, memory_peak = 0;    // frames + user memory
  std::int64_t active_tasks = 0, active_tasks_peak = 0;  // spawned and not finished
  std::int64_t gauge_error_bytes = 0, gauge_error_tasks = 0;
  // DFDeques only.
  std::string scheduler = "ws";
  std::uint64_t quota = 0;  // K; 0 = infinite
  std::uint64_t dfd_steals = 0, dfd_failed_attempts = 0, dfd_giveups = 0, dfd_deletions = 0, dfd_max_deques = 0;
  std::string to_json() const;
};

worker_stats sum_stats(const std::vector<worker_stats>& ws);

struct config;
// Writes `s.to_json()` as configured: to stderr, or to the file (truncated by the first runtime of the
// process that uses it, appended to by later ones: one JSON object per line).
void write_stats(const runtime_stats& s, const config& cfg);
// Called when a runtime is built: with stats_output::file, opens the file (truncating it if this is
// the process's first runtime to use it), so that a bad path fails now and not silently at exit.
// Throws config_error naming the path and the reason.
void open_stats_output(const config& cfg);

}  // namespace slaw
