// Recorded timeline events as Chrome Trace Event JSON, which Perfetto's UI and chrome://tracing load
// (docs/guide/tracing.md lists what each recorded event becomes).
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "trace/timeline_recorder.hpp"
#include "trace/trace_clock.hpp"

namespace slaw::detail {

struct timeline_meta {
  const char* process_name;
  const char* scheduler;
  const char* policy;
  std::size_t events_per_worker;
};

struct timeline_json_result {
  std::uint64_t events = 0;  // JSON events written
  bool io_error = false;     // a write failed (errno tells why)
};

// Streams the JSON to `f` (through a buffer of its own; it allocates only the steal index, O(steals)).
// `clock` must be calibrated (calibrate_end). Throws std::bad_alloc if the steal index cannot be had.
timeline_json_result write_timeline_json(std::FILE* f, const std::vector<timeline_recorder>& workers,
                                         const trace_clock& clock, const timeline_meta& meta);

}  // namespace slaw::detail
