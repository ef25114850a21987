// User memory through slaw and the DFDeques scheduling point reserve() (include/slaw/memory.hpp).
#include "slaw/memory.hpp"

#include "slaw/async.hpp"
#include "slaw/finish.hpp"

namespace slaw {

void* allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (core::frame_allocator* a = core::tls_allocator) {
    a->quota_consume_reservation(static_cast<std::int64_t>(bytes));
    return a->allocate(bytes, core::mem_kind::user);
  }
  return core::frame_alloc_slow(bytes, core::mem_kind::user);
}

void deallocate(void* p, std::size_t bytes) noexcept {
  if (p) core::frame_free(p, bytes ? bytes : 1, core::mem_kind::user);
}

namespace {

// DFDeques: this task goes back on top of the worker's deque, the deque is given up, and the task
// continues after some worker's next steal (with a fresh quota).
struct give_up_point {
  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) const noexcept {
    return core::tls_worker->give_up_here(&h.promise());
  }
  void await_resume() const noexcept {}
};

// n no-op dummy tasks forked as a binary tree, each forcing a give-up and a steal (digest
// space_efficient.md §2.4): they pay for an allocation larger than K.
task<void> dummy_tree(std::uint64_t n) {
  core::tls_worker->count_dummy_task();
  co_await give_up_point{};
  std::uint64_t rest = n - 1;
  if (rest > 0) co_await async(wf, dummy_tree, rest - rest / 2);
  if (rest > 1) co_await async(wf, dummy_tree, rest / 2);
}

}  // namespace

task<void> reserve(std::size_t bytes) {
  core::worker* w = core::tls_worker;
  if (!w || !w->dfdeques() || !core::tls_allocator->quota().enabled) co_return;
  const auto b = static_cast<std::int64_t>(bytes);
  const std::int64_t k = core::tls_allocator->quota().k;
  if (b <= k) {
    // After a give-up the task resumes right after a steal, where the quota is fresh and b fits.
    while (!core::tls_allocator->quota_fits(b)) co_await give_up_point{};
    core::tls_allocator->quota_reserve(b);
    co_return;
  }
  {
    auto f = co_await start_finish();
    co_await async(wf, dummy_tree, static_cast<std::uint64_t>(b / k));
    co_await end_finish(f);
  }
  core::tls_allocator->quota_reserve_large(b);  // paid for by the dummies: not charged to a period
}

}  // namespace slaw
