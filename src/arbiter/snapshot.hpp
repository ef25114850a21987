// A consistent copy of the segment, taken without any lock (slaw-top, tests): the table through the
// table_seq seqlock, each job's report fields through its report_seq (layout.hpp, "Memory ordering").
// The reader never writes the segment and never waits for a job, so it cannot slow one down.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arbiter/layout.hpp"

namespace slaw::arbiter {

struct job_view {
  int slot = -1;
  std::int32_t pid = 0;
  std::uint32_t runtime_id = 0;
  std::uint64_t start_time = 0;
  std::uint64_t ticket = 0;
  std::string command;
  std::uint32_t workers = 0;
  std::uint32_t allotment = 0;
  double desire = 0;
  double utilization = 0;
  std::uint64_t queued = 0;
  std::uint64_t reports = 0;
  std::uint64_t heartbeat = 0;
  std::uint64_t registered_quantum = 0;
  bool report_consistent = true;  // desire, utilization and queued are from one report
};

struct segment_view {
  std::uint32_t cores = 0;
  policy_setting policy = policy_setting::automatic;
  std::uint64_t quantum_ns = 0;
  std::uint64_t quantum = 0;
  std::uint64_t quantum_start_ns = 0;
  std::uint64_t stale_quanta = 0;
  std::int32_t creator_pid = 0;
  std::int32_t settings_pid = 0;
  std::uint64_t recoveries = 0;
  std::uint64_t reaped = 0;
  std::uint64_t last_reap_quantum = 0;
  std::uint64_t boundaries = 0;
  std::uint64_t table_seq = 0;
  bool consistent = true;  // false: a writer held the table through every try (or died mid-write)
  std::vector<job_view> jobs;  // the active slots, in slot order
};

// Copies `s`, retrying up to `tries` times while a writer is mid-update.
segment_view take_snapshot(const segment& s, int tries = 1000);

// slaw-top's read of segment `name`: maps it read-only (open_readonly: it refuses what the jobs refuse,
// and never blocks), copies it, and unmaps it. `error` says why there is no view: the object at the
// name, or a truncation that the copy ran into (the SIGBUS guard turned it into zeros: segment.hpp).
struct read_result {
  segment_view view;
  std::string error;  // "" if `view` is a copy of the segment
};
read_result read_segment(const std::string& name);

}  // namespace slaw::arbiter
