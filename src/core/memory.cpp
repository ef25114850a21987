// User memory through slaw and the DFDeques scheduling point reserve() (include/slaw/memory.hpp).
#include "slaw/memory.hpp"

#include <sys/resource.h>
#include <sys/sysinfo.h>

#include <algorithm>

#include "slaw/async.hpp"
#include "slaw/finish.hpp"
#include "slaw/policy/quota.hpp"
#include "trace/dag_recorder.hpp"

namespace slaw {

void* allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > detail::max_block) throw std::bad_alloc();  // before the quota sees it as a negative count
  if (detail::recording()) [[unlikely]] detail::record_memory(true, bytes);
  if (detail::frame_allocator* a = detail::worker_allocator()) {
    a->quota_consume_reservation(static_cast<std::int64_t>(bytes));
    return a->allocate(bytes, detail::mem_kind::user);
  }
  void* p = detail::frame_alloc_slow(bytes, detail::mem_kind::user);
  if (!p) throw std::bad_alloc();
  return p;
}

void deallocate(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (detail::recording()) [[unlikely]] detail::record_memory(false, bytes ? bytes : 1);
  detail::frame_free(p, bytes ? bytes : 1, detail::mem_kind::user);
}

namespace {

// DFDeques: this task goes back on top of the worker's deque, the deque is given up, and the task
// continues after some worker's next steal (with a fresh quota).
struct give_up_point {
  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) const noexcept {
    return detail::transfer(detail::tls_worker->give_up_here(&h.promise()));
  }
  void await_resume() const noexcept {}
};

// n no-op dummy tasks forked as a binary tree, each forcing a give-up and a steal (Narlikar,
// SPAA 1999, §3.3): they pay for an allocation larger than K.
task<void> dummy_tree(std::uint64_t n) {
  detail::tls_worker->count_dummy_task();
  co_await give_up_point{};
  std::uint64_t rest = n - 1;
  // Named as the runtime's own: a recorded DAG leaves them out (src/trace/dag_recorder.hpp).
  if (rest > 0) co_await async(wf, named(detail::dag_internal_task), dummy_tree, rest - rest / 2);
  if (rest > 1) co_await async(wf, named(detail::dag_internal_task), dummy_tree, rest / 2);
}

// The most one task could ever allocate: the machine's memory and swap, RLIMIT_AS, the allocator's limit.
std::size_t reservable_bytes() noexcept {
  std::size_t lim = detail::max_block;
  struct sysinfo si;
  if (sysinfo(&si) == 0 && si.mem_unit != 0) {
    unsigned __int128 m = (static_cast<unsigned __int128>(si.totalram) + si.totalswap) * si.mem_unit;
    if (m < lim) lim = static_cast<std::size_t>(m);
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) lim = std::min<std::size_t>(lim, rl.rlim_cur);
  return lim;
}

task<void> reserve_task(std::size_t bytes) {
  detail::worker* w = detail::tls_worker;
  if (!w || !detail::tls_allocator->quota().enabled()) co_return;  // only DFDeques with a finite K enables it
  if (bytes > detail::max_block) throw std::bad_alloc();  // would be a negative count below
  const auto b = static_cast<std::int64_t>(bytes);
  const policy::reservation_plan plan =
      policy::plan_reservation(bytes, detail::tls_allocator->quota().k(), reservable_bytes);
  switch (plan.step) {
    case policy::reservation_step::impossible:
      throw std::bad_alloc();
    case policy::reservation_step::wait_for_quota:
      // After a give-up the task resumes right after a steal, where the quota is fresh and b fits.
      while (!detail::tls_allocator->quota_fits(b)) co_await give_up_point{};
      detail::tls_allocator->quota_reserve(b);
      co_return;
    case policy::reservation_step::run_dummy_tasks:
      break;
  }
  {
    auto f = co_await start_finish();
    co_await async(wf, named(detail::dag_internal_task), dummy_tree, plan.dummy_tasks);
    co_await end_finish(f);
  }
  detail::tls_allocator->quota_reserve_large(b);  // paid for by the dummies: not charged to a period
}

}  // namespace

std::coroutine_handle<detail::promise<void>> detail::reserve_frame(std::size_t bytes) {
  return reserve_task(bytes).release();
}

}  // namespace slaw
