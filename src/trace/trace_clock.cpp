#include "trace/trace_clock.hpp"

#include <cstdio>
#include <cstring>

namespace slaw::detail {

namespace {
// Whether the kernel stamps CLOCK_MONOTONIC with the TSC (it then vouches for the TSC's rate and sync).
bool kernel_uses_tsc() noexcept {
#if defined(__x86_64__)
  std::FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return false;
  char buf[32] = {};
  const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
  std::fclose(f);
  return ok && std::strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == '\0');
#else
  return false;
#endif
}
}  // namespace

trace_clock::trace_clock() noexcept : tsc_(kernel_uses_tsc()) {
  ns0_ = steady_ns();
  ticks0_ = now();
}

void trace_clock::calibrate_end() noexcept {
  if (!tsc_) return;  // steady readings are nanoseconds already
  const std::uint64_t ns1 = steady_ns();
  const std::uint64_t ticks1 = now();
  if (ticks1 > ticks0_ && ns1 > ns0_)
    ns_per_tick_ = static_cast<double>(ns1 - ns0_) / static_cast<double>(ticks1 - ticks0_);
}

}  // namespace slaw::detail
