// Runtime counters, per worker and in total.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "slaw/export.hpp"

namespace slaw {

// Each counter is defined in one sentence in docs/guide/counters.md; the list is include/slaw/counters.def.
struct worker_stats {
#define SLAW_COUNTER(type, name, total, source) type name = 0;
#include "slaw/counters.def"
#undef SLAW_COUNTER
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

struct SLAW_EXPORT runtime_stats {
  std::vector<worker_stats> workers;
  worker_stats total;  // sums; maxima for max_* and quota_max_used; per-worker peaks summed (an upper bound)
  // Process-wide figures (all runtimes and threads; exact to within `gauge_error_bytes`/`_tasks`):
  std::int64_t memory_live = 0, memory_peak = 0;    // frames + user memory
  std::int64_t active_tasks = 0, active_tasks_peak = 0;  // spawned and not finished
  std::int64_t gauge_error_bytes = 0, gauge_error_tasks = 0;
  std::string scheduler = "ws";
  std::string places_json;  // the resolved deployment: places, their CPUs, workers and binding (a JSON object)
  // With more than one place: per place, its mailbox's posts, takes and overflows; per worker, its steals
  // by tree distance to the victim; the remote setting and idle order (a JSON object; empty when flat).
  std::string place_counters_json;
  // The job's side of the machine-wide arbiter (docs/guide/several_programs.md § Statistics): policy,
  // quanta, desire and allotment summaries, the allotment's changes (a JSON object; empty with
  // SLAW_ARBITER=off).
  std::string arbiter_json;
  // DFDeques only.
  std::uint64_t quota = 0;  // K; 0 = infinite
  std::uint64_t dfd_steals = 0, dfd_failed_attempts = 0, dfd_giveups = 0, dfd_deletions = 0, dfd_max_deques = 0;
  std::uint64_t dfd_batched = 0;  // entries moved onto thieves' deques by batch steals (docs/design/space.md)
  std::uint64_t dfd_splits = 0;   // batch steals capped at max_batch, which left a new ownerless deque
  std::string to_json() const;
};

SLAW_EXPORT worker_stats sum_stats(const std::vector<worker_stats>& ws);

struct config;
// Writes `s.to_json()` as configured: to stderr, or to the file (truncated by the first runtime of the
// process that uses it, appended to by later ones: one JSON object per line), which is opened by the
// rules of the runtime's output files (docs/guide/tracing.md, "Output files"). Throws config_error for a path
// those rules refuse, output_error (slaw/runtime.hpp) naming the path and the reason if the write fails.
SLAW_EXPORT void write_stats(const runtime_stats& s, const config& cfg);
// Checks cfg's counters file as a runtime does when it is built (and truncates it if this is the
// process's first runtime to use it): throws config_error naming the path and the reason.
SLAW_EXPORT void open_stats_output(const config& cfg);

}  // namespace slaw
