#include "arbiter/robust_mutex.hpp"

#include <errno.h>
#include <time.h>

namespace slaw::arbiter {

int init_robust_mutex(pthread_mutex_t* m) noexcept {
  pthread_mutexattr_t a;
  int rc = pthread_mutexattr_init(&a);
  if (rc) return rc;
  if (!(rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED)))
    if (!(rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST))) rc = pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
  return rc;
}

namespace {
lock_status status_of(int rc) noexcept {
  switch (rc) {
    case 0: return lock_status::acquired;
    case EOWNERDEAD: return lock_status::owner_died;
    case EBUSY: return lock_status::busy;
    case ENOTRECOVERABLE: return lock_status::unrecoverable;
    default: return lock_status::failed;
  }
}
}  // namespace

lock_status try_lock(pthread_mutex_t* m) noexcept { return status_of(pthread_mutex_trylock(m)); }

lock_status lock_until(pthread_mutex_t* m, std::uint64_t deadline_ns) noexcept {
  for (;;) {
    const lock_status s = try_lock(m);
    if (s != lock_status::busy || monotonic_ns() >= deadline_ns) return s;
    const timespec pause{0, 50'000};
    nanosleep(&pause, nullptr);
  }
}

void mark_consistent(pthread_mutex_t* m) noexcept { pthread_mutex_consistent(m); }

void unlock(pthread_mutex_t* m) noexcept { pthread_mutex_unlock(m); }

std::uint64_t monotonic_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace slaw::arbiter
