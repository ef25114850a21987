// Quota give-ups at a scheduling point (docs/design/space.md): the stopped chain and its deque are handed to
// the scheduler, which asked for them through the allocator's preempt flag.
#include "core/scheduler.hpp"
#include "slaw/detail/worker.hpp"
#include "trace/timeline_recorder.hpp"

namespace slaw::detail {

// The running chain stops at a scheduling point: its innermost work-first child is detached (W1, as
// for a suspension), `below` and `top` are pushed, and the whole deque is handed to the scheduler,
// which keeps it ownerless and pops it only at its bottom: every frame of the stopped chain resumes
// after the entries below it were stolen, and so counted (D1, docs/design/space.md).
std::coroutine_handle<> worker::give_up(split_deque::entry below, split_deque::entry top, bool for_allotment) noexcept {
  sync_mirrors();
  detach_bottom();
  // Pushed without answering a request: the scheduler counts the give-up when it takes the deque
  // (under R's lock), and an entry published here could be stolen and end the run before that count
  // (stats() read after run() then showed one give-up more in quota_giveups than in dfd_giveups).
  if (below != split_deque::none) push_back_unanswered(below);
  push_back_unanswered(top);
  // Counted before the hand-over: once the deque is the scheduler's, a thief may finish the run
  // before this worker runs another instruction, and stats() read after run() must see the count.
  // Under a variant that yields by giving up (DFDeques), the allotment may be the reason.
  if (for_allotment) {
    alloc_->cancel_yield();
    c_.allotment_yields.bump();
  } else {
    c_.quota_giveups.bump();
  }
  sched_->give_up(*this);
  on_exposed();  // wake a sleeper for the work handed over
  return std::noop_coroutine();
}

// Fork with the quota spent: "both the parent and the child go on the deque" (Narlikar, SPAA 1999, Fig. 5). The
// child becomes a counted (queued) task above its parent's continuation; it pays for its own frame.
std::coroutine_handle<> worker::give_up_at_spawn(promise_base* parent, promise_base* child) noexcept {
  if (!alloc_->quota_preempt_pending() && !sched_->yields_by_give_up()) return yield_at_spawn(parent, child);
  c_.spawns_wf.bump();  // a work-first spawn all the same; its child is started elsewhere
  if (tl_) trace_give_up(give_up_at::spawn);
  child->kind = task_kind::queued;
  child->join->add_unit();
  child->start_charge = static_cast<std::uint32_t>(alloc_->quota_take_deferred());
  return give_up(reinterpret_cast<split_deque::entry>(parent) | parent_tag,
                 reinterpret_cast<split_deque::entry>(child) | start_tag, !alloc_->quota_preempt_pending());
}

std::coroutine_handle<> worker::give_up_at_call(promise_base* callee) noexcept {
  // A yield for the allotment waits for the next spawn, where the chain stops without a handed-over
  // task (an owned deque holds no start_tag entry).
  if (!alloc_->quota_preempt_pending() && !sched_->yields_by_give_up()) return callee->self();
  if (tl_) trace_give_up(give_up_at::call);
  callee->start_charge = static_cast<std::uint32_t>(alloc_->quota_take_deferred());
  return give_up(split_deque::none, reinterpret_cast<split_deque::entry>(callee) | start_tag,
                 !alloc_->quota_preempt_pending());
}

std::coroutine_handle<> worker::give_up_here(promise_base* self) noexcept {
  if (tl_) trace_give_up(give_up_at::reserve);
  (void)alloc_->quota_take_deferred();  // a frame made and not yet started: nobody starts it from here
  return give_up(split_deque::none, reinterpret_cast<split_deque::entry>(self) | parent_tag, false);
}

}  // namespace slaw::detail

namespace slaw::detail {

// The job's allotment shrank below this worker's rank (docs/design/multijob.md § The job side): the child is
// queued help-first (counted in its finish, on the fresh deque), the parent's continuation goes on the
// preempted deque tagged (its work-first children are all counted: W1), and the chain stops. The
// scheduler loop then parks the worker with both deques exposed.
std::coroutine_handle<> worker::yield_at_spawn(promise_base* parent, promise_base* child) noexcept {
  alloc_->cancel_yield();
  c_.allotment_yields.bump();
  if (tl_) trace_give_up(give_up_at::spawn);
  child->kind = task_kind::queued;
  child->join->add_unit();
  // Counted before anything is published (not by push_fresh, which counts after its push): this worker
  // stops here, and thieves that take the parent and the child may end the run before it runs another
  // instruction, while stats() read after run() must see the spawn.
  c_.spawns_hf.bump();
  sync_mirrors();
  detach_bottom();
  push_back(reinterpret_cast<split_deque::entry>(parent) | parent_tag);
  queue_fresh(reinterpret_cast<split_deque::entry>(child));
  return std::noop_coroutine();
}

}  // namespace slaw::detail
