// The segment's mutex: process-shared and ROBUST. When the thread holding it dies (a job killed with
// SIGKILL inside the critical section), the kernel hands it to the next locker with EOWNERDEAD instead of
// leaving everyone blocked. That locker owns it, repairs what the dead owner may have half-written
// (table.cpp: repair), then marks it consistent. A holder that unlocked without marking it consistent
// would leave it ENOTRECOVERABLE for good; we always repair and mark it before unlocking, and a locker
// that dies during the repair leaves it EOWNERDEAD again, so the next one repairs again.
//
// Nobody blocks on it without a deadline: jobs try-lock (a quantum boundary that finds the mutex busy
// is being run by someone else) or poll a try-lock until a deadline (registering), so a holder stopped
// with SIGSTOP delays others by the deadline at most. slaw-top never takes it.
#pragma once

#include <pthread.h>

#include <cstdint>

namespace slaw::arbiter {

// 0, or the errno of the pthread call that failed.
int init_robust_mutex(pthread_mutex_t* m) noexcept;

enum class lock_status : std::uint8_t {
  acquired,        // held, consistent
  owner_died,      // held, but the previous owner died holding it: repair, then mark_consistent
  busy,            // someone else holds it (try_lock), or the deadline passed (lock_until)
  unrecoverable,   // ENOTRECOVERABLE: the segment cannot be used any more
  failed,          // another error (EINVAL: not a valid mutex)
};

lock_status try_lock(pthread_mutex_t* m) noexcept;
// Polls try_lock every 50 µs until CLOCK_MONOTONIC `deadline_ns`.
lock_status lock_until(pthread_mutex_t* m, std::uint64_t deadline_ns) noexcept;
void mark_consistent(pthread_mutex_t* m) noexcept;
void unlock(pthread_mutex_t* m) noexcept;

// CLOCK_MONOTONIC in nanoseconds: the clock of the quantum, the same in every process of the machine.
std::uint64_t monotonic_ns() noexcept;

}  // namespace slaw::arbiter
