// slaw-top's two outputs of a snapshot: a table for people and one JSON object for scripts and tests.
#pragma once

#include <cstdint>
#include <string>

#include "arbiter/snapshot.hpp"

namespace slaw::arbiter {

// `now_ns` (CLOCK_MONOTONIC) gives the age of the quantum.
std::string format_text(const std::string& name, const segment_view& v, std::uint64_t now_ns);

// {"segment": ..., "cores": ..., "policy": ..., "quantum": ..., "quantum_ms": ..., "consistent": ...,
//  "recoveries": ..., "reaped": ..., "jobs": [{"pid", "runtime", "command", "desire", "allotment",
//  "workers", "utilization", "queued", "heartbeat", "slot"}, ...]}, on one line.
std::string format_json(const std::string& name, const segment_view& v);

}  // namespace slaw::arbiter
