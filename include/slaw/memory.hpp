// User memory through slaw: accounted per worker (live, peak, total allocated) and charged to the
// DFDeques memory quota K (docs/guide/memory.md; how it works: docs/design/space.md).
//
//   double* t = static_cast<double*>(slaw::allocate(n * sizeof(double)));   // plain, synchronous
//   slaw::deallocate(t, n * sizeof(double));
//   std::vector<int, slaw::allocator<int>> v;                               // containers
//
//   co_await slaw::reserve(bytes);                 // a scheduling point: the next `bytes` fit the quota
//   slaw::buffer<double> b = co_await slaw::make_buffer<double>(n);        // reserve + allocate, RAII
//
// Under the work-stealing scheduler reserve() is free and only the accounting happens. Under DFDeques
// (config::scheduler == dfdeques) a task that would exceed its worker's quota is preempted *before*
// the allocation: the worker gives up its deque and steals, and the task allocates after some worker's
// next steal. An allocation larger than K first runs floor(m/K) dummy tasks (Narlikar,
// SPAA 1999, §3.3). Plain allocate() cannot preempt: if it crosses the quota the worker gives
// up its deque at the task's next spawn or call, and the excess is counted as `quota_overrun_bytes`.
//
// Blocks are aligned to 16 bytes (64 above 4096 bytes). They may be freed on any thread.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "slaw/export.hpp"
#include "slaw/task.hpp"

namespace slaw {

inline constexpr std::size_t max_user_align = 16;

// Throws std::bad_alloc if the memory cannot be had (also for sizes near SIZE_MAX, e.g. a negative
// length converted to size_t).
SLAW_EXPORT void* allocate(std::size_t bytes);
SLAW_EXPORT void deallocate(void* p, std::size_t bytes) noexcept;

// co_await slaw::reserve(bytes): see above. A reservation is consumed by the allocations that follow
// it on the same worker, or dropped at the worker's next steal. Under DFDeques, a size no allocation
// could satisfy (more than the machine's memory, RLIMIT_AS or the address space) throws std::bad_alloc
// at once, before any dummy task runs.
namespace detail {
// reserve's frame, exported as a handle: libslaw's interface holds no task, whose passing differs
// between compilers (codegen.hpp).
SLAW_EXPORT std::coroutine_handle<promise<void>> reserve_frame(std::size_t bytes);
}  // namespace detail
inline task<void> reserve(std::size_t bytes) { return task<void>(detail::reserve_frame(bytes)); }

namespace detail {
// n * sizeof(T), or std::bad_array_new_length if that overflows.
template <class T>
std::size_t array_bytes(std::size_t n) {
  if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
  return n * sizeof(T);
}
}  // namespace detail

template <class T>
struct allocator {
  static_assert(alignof(T) <= max_user_align, "slaw::allocator: over-aligned types are not supported");
  using value_type = T;
  allocator() noexcept = default;
  template <class U>
  allocator(const allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(slaw::allocate(detail::array_bytes<T>(n))); }
  void deallocate(T* p, std::size_t n) noexcept { slaw::deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const allocator<U>&) const noexcept {
    return true;
  }
};

// An owning array of n trivially copyable T, uninitialised, allocated through slaw. An n whose byte
// size overflows throws std::bad_array_new_length.
template <class T>
class buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "slaw::buffer holds trivially copyable, trivially destructible elements");
  static_assert(alignof(T) <= max_user_align, "slaw::buffer: over-aligned types are not supported");

 public:
  buffer() noexcept = default;
  explicit buffer(std::size_t n)
      : p_(n ? static_cast<T*>(slaw::allocate(detail::array_bytes<T>(n))) : nullptr), n_(n) {}
  buffer(buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  buffer& operator=(buffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~buffer() { release(); }

  T* data() noexcept { return p_; }
  const T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  T& operator[](std::size_t i) noexcept { return p_[i]; }
  const T& operator[](std::size_t i) const noexcept { return p_[i]; }
  T* begin() noexcept { return p_; }
  T* end() noexcept { return p_ + n_; }

 private:
  void release() noexcept {
    if (p_) slaw::deallocate(p_, n_ * sizeof(T));
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// co_await slaw::make_buffer<T>(n): reserve, then allocate (a DFDeques scheduling point).
template <class T>
task<buffer<T>> make_buffer(std::size_t n) {
  co_await reserve(detail::array_bytes<T>(n));
  co_return buffer<T>(n);
}

}  // namespace slaw
