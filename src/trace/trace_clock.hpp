// The clock of timeline traces (docs/guide/tracing.md).
//
// On x86-64, when the kernel itself bases CLOCK_MONOTONIC on the TSC (clocksource `tsc`: the kernel
// found it invariant and synchronised across cores), events are stamped with rdtsc: about 8 ns a
// reading against 17-27 ns for steady_clock::now() on the development machine, and a traced fib pays
// two readings per spawn. Ticks become nanoseconds through two steady_clock readings, one when the
// runtime is built and one when the trace is written (the longer the run, the finer the rate). On other
// machines, or with another clocksource (a VM's kvm-clock, hpet), events use steady_clock directly.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace slaw::detail {

class trace_clock {
 public:
  trace_clock() noexcept;
  std::uint64_t now() const noexcept {
#if defined(__x86_64__)
    if (tsc_) return __rdtsc();
#endif
    return steady_ns();
  }
  // The second calibration point: call once, after the last event and before converting.
  void calibrate_end() noexcept;
  // Nanoseconds from the clock's construction to `ticks` (a reading of now()).
  std::int64_t to_ns(std::uint64_t ticks) const noexcept {
    const double d = static_cast<double>(static_cast<std::int64_t>(ticks - ticks0_));
    return static_cast<std::int64_t>(d * ns_per_tick_ + 0.5);
  }
  const char* source() const noexcept { return tsc_ ? "tsc" : "steady_clock"; }
  double ns_per_tick() const noexcept { return ns_per_tick_; }

 private:
  static std::uint64_t steady_ns() noexcept {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  }
  bool tsc_ = false;
  std::uint64_t ticks0_ = 0, ns0_ = 0;
  double ns_per_tick_ = 1.0;
};

}  // namespace slaw::detail
