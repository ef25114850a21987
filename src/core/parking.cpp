#include "core/parking.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace slaw::detail {

void futex_wait(std::atomic<std::uint32_t>* addr, std::uint32_t expected, long timeout_ns) noexcept {
  struct timespec ts;
  struct timespec* tp = nullptr;
  if (timeout_ns >= 0) {
    ts.tv_sec = timeout_ns / 1000000000L;
    ts.tv_nsec = timeout_ns % 1000000000L;
    tp = &ts;
  }
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(addr), FUTEX_WAIT_PRIVATE, expected, tp, nullptr, 0);
}

void futex_wake(std::atomic<std::uint32_t>* addr, int n) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(addr), FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0);
}

}  // namespace slaw::detail
