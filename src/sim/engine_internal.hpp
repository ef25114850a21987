// Constants shared by the engine's files (engine.cpp, engine_tasks.cpp, engine_quota.cpp,
// engine_idle.cpp): task owners and the phases of a task that waits for DFDeques' quota.
#pragma once

#include <cstdint>

namespace slaw::sim::engine_detail {

constexpr std::uint16_t no_owner = 0xFFFF;  // the root's frame: made by the thread calling run
constexpr std::uint32_t dummy_frame_bytes = 64;
// Phases of an allocation larger than K (reserve(): a finish around floor(m/K) dummy tasks).
constexpr std::uint8_t retry_alloc = 1, retry_dummy = 2, big_spawn = 3, big_wait = 4, big_alloc = 5;

}  // namespace slaw::sim::engine_detail
