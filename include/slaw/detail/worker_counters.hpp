// A worker's own counters (the `event` lines of include/slaw/counters.def), written by the worker only
// and read racily by stats(), and the process-wide gauge of tasks spawned and not finished.
#pragma once

#include <atomic>
#include <cstdint>

#include "slaw/detail/codegen.hpp"
#include "slaw/detail/frame_allocator.hpp"
#include "slaw/export.hpp"

namespace slaw::detail {

// Counters written by the owner only (relaxed, read racily by stats()).
struct counter {
  std::atomic<std::uint64_t> v{0};
  void bump(std::uint64_t d = 1) noexcept { owner_add(v, d); }
  void max(std::uint64_t x) noexcept {
    if (x > v.load(std::memory_order_relaxed)) v.store(x, std::memory_order_relaxed);
  }
  std::uint64_t get() const noexcept { return v.load(std::memory_order_relaxed); }
};


// The worker's own event counters (the `event` lines of include/slaw/counters.def).
struct worker_counters {
#define SLAW_COUNTER_event(name) counter name;
#define SLAW_COUNTER_derived(name)
#define SLAW_COUNTER(type, name, total, source) SLAW_COUNTER_##source(name)
#include "slaw/counters.def"
#undef SLAW_COUNTER
#undef SLAW_COUNTER_event
#undef SLAW_COUNTER_derived
};

// Tasks spawned and not finished, process-wide, published in steps like the memory gauge: a worker
// counts starts and ends locally and adds the difference to the shared gauge every `task_step`.
inline constexpr std::int64_t task_step = 16;
SLAW_EXPORT memory_gauge& process_task_gauge() noexcept;

}  // namespace slaw::detail
