// The worker's timeline hooks (SLAW_TRACE=timeline:PATH, docs/design/tracing.md). Every call site tests
// `tl_` first; the fast paths reach these functions only through an [[unlikely]] branch, so that with
// no trace a spawn or a return pays that one test.
#include <cassert>

#include "slaw/detail/worker.hpp"
#include "trace/dag_recorder.hpp"
#include "trace/timeline_recorder.hpp"

namespace slaw::detail {

namespace {
// The name of the task a frame belongs to. A call or a finish body runs as part of the task that
// awaits it: walk up to the spawned or queued frame, which holds the name. Every frame on the way is
// suspended in an await, so nothing read here changes meanwhile.
const char* task_name(const promise_base* f) noexcept {
  while (!(static_cast<unsigned>(f->kind) & 1)) f = promise_of(f->parent);
  return f->name;
}
}  // namespace

void worker::trace_segment(segment_kind k, const char* name, std::uint64_t flow) noexcept {
  tl_->current_name = name;
  if (tl_event* e = tl_->append(tl_event::segment)) {
    e->a = reinterpret_cast<std::uintptr_t>(name);
    e->b = flow;
    e->sub = static_cast<std::uint8_t>(k);
  }
  if (tl_->sample_due()) trace_sample(tl_->now());
}

void worker::trace_queued(promise_base* child, const char* name, policy::schedule clause) noexcept {
  child->name = name;
  if (rec_)  // the parent goes on
    rec_->note(dag::dag_op::spawn, promise_of(child->parent), promise_of(child->parent), reinterpret_cast<std::uintptr_t>(child),
               static_cast<std::uint32_t>(frame_bytes(child)), static_cast<std::uint8_t>(clause),
               name == dag_internal_task);
}

void worker::trace_work_first(promise_base* child, const char* name, policy::schedule clause) noexcept {
  child->name = name;
  if (rec_)  // the child starts
    rec_->note(dag::dag_op::spawn, promise_of(child->parent), child, reinterpret_cast<std::uintptr_t>(child),
               static_cast<std::uint32_t>(frame_bytes(child)), static_cast<std::uint8_t>(clause),
               name == dag_internal_task);
  // With the quota spent the spawn gives up instead, and the child starts elsewhere (trace_give_up).
  if (!preempt_pending()) trace_segment(segment_kind::wf, name, 0);
}

void worker::trace_resumed(promise_base* frame) noexcept {
  if (rec_) rec_->resume(frame);
  trace_segment(segment_kind::resumed, task_name(frame), 0);
}

void worker::trace_returned(promise_base* p) noexcept {
  if (rec_) rec_->note(dag::dag_op::ret, p, nullptr);  // what runs next says so (trace_resumed, a strand)
}

void worker::trace_child_returned(promise_base* p, promise_base* par) noexcept {
  trace_returned(p);
  trace_resumed(par);
}

void worker::trace_steal(steal_from from, int victim) noexcept {
  const std::uint64_t flow = tl_->next_flow();
  if (tl_event* e = tl_->append(tl_event::steal)) {
    e->a = static_cast<std::uint64_t>(victim + 1);
    e->b = flow;
    e->sub = static_cast<std::uint8_t>(from);
  }
  tl_->pending = segment_kind::stolen;
  tl_->pending_flow = flow;
}

std::uint64_t worker::trace_hand_over() noexcept {
  const std::uint64_t note = tl_->pending_flow;
  tl_->pending = segment_kind::none;
  tl_->pending_flow = 0;
  return note;
}

void worker::trace_took_handed_over(std::uint64_t note) noexcept {
  tl_->pending = segment_kind::stolen;
  tl_->pending_flow = note;
}

void worker::trace_mailbox_take() noexcept { trace_next_start(segment_kind::mailbox); }

void worker::trace_next_start(segment_kind k) noexcept {
  tl_->pending = k;
  tl_->pending_flow = 0;
}

void worker::trace_strand_begins(promise_base* p) noexcept {
  assert(tl_->pending != segment_kind::none && "a strand starts with a task the trace did not see being taken");
  if (rec_) rec_->resume(p);
  trace_segment(tl_->pending, task_name(p), tl_->pending_flow);
  tl_->pending = segment_kind::none;
  tl_->pending_flow = 0;
}

void worker::trace_strand_ends() noexcept {
  tl_->append(tl_event::idle);
  tl_->current_name = nullptr;
}

const char* worker::trace_wait_begins() noexcept {
  if (rec_) rec_->wait_begins();
  const char* waiting = tl_->current_name;
  tl_->append(tl_event::idle);
  return waiting;
}

void worker::trace_wait_ends(const char* name) noexcept {
  if (rec_) rec_->wait_ends();
  trace_segment(segment_kind::resumed, name, 0);
}

std::uint64_t worker::trace_now() const noexcept { return tl_->now(); }

void worker::trace_parked(std::uint64_t since) noexcept {
  trace_sample(since);  // what the worker leaves behind when it sleeps (its deques are empty then)
  tl_->append_at(tl_event::park, since);
  tl_->append(tl_event::wake);
}

void worker::trace_give_up(give_up_at where) noexcept {
  if (tl_event* e = tl_->append(tl_event::give_up)) e->sub = static_cast<std::uint8_t>(where);
}

// Owner reads of the owner's own fields: the deque sizes are the owner's estimates (an upper bound
// where thieves took entries since it last looked).
void worker::trace_sample(std::uint64_t t) noexcept {
  if (tl_event* e = tl_->append_at(tl_event::sample, t)) {
    e->a = (std::uint64_t{pre_.size_estimate()} << 32) | fresh_.size_estimate();
    const std::int64_t frames = alloc_->live_bytes(mem_kind::frame);
    e->b = static_cast<std::uint64_t>(frames > 0 ? frames : 0);
    const auto depth = static_cast<std::int32_t>(pre_.head() - base_);
    e->c = static_cast<std::uint32_t>(depth > 0 ? depth : 0);
  }
}

}  // namespace slaw::detail
