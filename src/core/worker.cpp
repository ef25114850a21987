// Worker slow paths and the scheduler loop (Routine 1 of SLAW, Guo et al. IPDPS 2010, §3.3). What a
// variant decides (where to steal, what a give-up or a wait does to its structures) is behind the
// scheduler interface (src/core/scheduler.hpp).
#include "slaw/core/worker.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <thread>

#include "core/runtime_impl.hpp"
#include "core/scheduler.hpp"

namespace slaw::core {

constinit thread_local worker* tls_worker = nullptr;

namespace {
bool is_noop(std::coroutine_handle<> h) noexcept { return h.address() == std::noop_coroutine().address(); }
promise_base* as_promise(split_deque::entry e) noexcept { return entry_promise(e); }
}  // namespace

memory_gauge& process_task_gauge() noexcept {
  static memory_gauge g;
  return g;
}

worker::worker(runtime_impl* rt, scheduler* sched, unsigned index, const config& cfg)
    : mode_(cfg.policy),
      adp_params_(cfg.adp),
      alloc_(frame_allocator::acquire()),
      trace_limit_(cfg.policy_trace),
      rt_(rt),
      sched_(sched),
      index_(index),
      rng_(0x9E3779B97F4A7C15ull * (index + 1)) {
  adp_.reset(adp_params_, 0);
  alloc_->reset_peaks();  // a pooled allocator: its figures start with this runtime
  alloc_->quota_disable();  // until a variant switches it on (scheduler::attach)
}

worker::~worker() {
  publish_tasks();  // tasks begun here and ended elsewhere (or the reverse) balance out in the gauge
  alloc_->flush_remote_freed();
  alloc_->quota_disable();
  frame_allocator::release(alloc_);
}

void worker::reset_counters() noexcept {
  for (counter* c : {&c_.spawns_wf, &c_.spawns_hf, &c_.steals_pre, &c_.steals_fresh, &c_.failed_steals,
                     &c_.context_switches, &c_.local_takes, &c_.max_wf_depth, &c_.max_fresh, &c_.parks, &c_.wakes,
                     &c_.tasks_run, &c_.quota_giveups, &c_.dummy_tasks, &c_.fresh_bytes_peak})
    c->v.store(0, std::memory_order_relaxed);
  // Thief-written and read by ADP as differences: not zeroed, only re-based.
  at_reset_.stolen_pre.v.store(stolen_pre_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  at_reset_.stolen_fresh.v.store(stolen_fresh_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  at_reset_.switches.v.store(adp_switches_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  std::lock_guard<std::mutex> g(trace_mutex_);
  trace_.clear();
}

void worker::decision_changed(policy::spawn_policy d, std::int32_t depth) noexcept {
  last_decision_ = d;
  char reason = 'i';  // the interval heuristic changed adp_.current
  if (mode_ != policy::mode::dyn) reason = 'c';
  else if (depth >= static_cast<std::int64_t>(adp_params_.S)) reason = 's';
  else if (d == policy::spawn_policy::wf && adp_.current == policy::spawn_policy::hf) reason = 'f';
  else if (d != adp_.current) reason = 'c';
  else if (last_reason_ == 's' || last_reason_ == 'f' || last_reason_ == 'c') reason = 'u';  // a forced choice ended
  last_reason_ = reason;
  if (trace_limit_ == 0) return;
  std::lock_guard<std::mutex> g(trace_mutex_);
  if (trace_.size() < trace_limit_) trace_.push_back(policy_event{c_.spawns_wf.get() + c_.spawns_hf.get(), depth, d, reason});
}

void worker::publish_tasks() noexcept {
  process_task_gauge().add(tasks_local_ - tasks_published_);
  tasks_published_ = tasks_local_;
  tasks_hi_ = tasks_published_ + task_step;
  tasks_lo_ = tasks_published_ - task_step;
}

// ---------------- quota give-ups (docs/space.md) ----------------
// The running chain stops at a scheduling point: its innermost work-first child is detached (W1, as
// for a suspension), `below` and `top` are pushed, and the whole deque is handed to the scheduler,
// which keeps it ownerless and pops it only at its bottom: every frame of the stopped chain resumes
// after the entries below it were stolen, and so counted (D1, docs/space.md).
std::coroutine_handle<> worker::give_up(split_deque::entry below, split_deque::entry top) noexcept {
  sync_mirrors();
  detach_bottom();
  if (below != split_deque::none) pre_.push(below);
  pre_.push(top);
  sched_->give_up(*this);
  c_.quota_giveups.bump();
  on_exposed();  // wake a sleeper for the work handed over
  return std::noop_coroutine();
}

// Fork with the quota spent: "both the parent and the child go on the deque" (digest §2.3). The
// child becomes a counted (queued) task above its parent's continuation; it pays for its own frame.
std::coroutine_handle<> worker::give_up_at_spawn(promise_base* parent, promise_base* child) noexcept {
  c_.spawns_wf.bump();  // a work-first spawn all the same; its child is started elsewhere
  child->kind = task_kind::queued;
  child->join->add_unit();
  child->start_charge = static_cast<std::uint32_t>(alloc_->quota_take_deferred());
  return give_up(reinterpret_cast<split_deque::entry>(parent) | parent_tag,
                 reinterpret_cast<split_deque::entry>(child) | start_tag);
}

std::coroutine_handle<> worker::give_up_at_call(promise_base* callee) noexcept {
  callee->start_charge = static_cast<std::uint32_t>(alloc_->quota_take_deferred());
  return give_up(split_deque::none, reinterpret_cast<split_deque::entry>(callee) | start_tag);
}

std::coroutine_handle<> worker::give_up_here(promise_base* self) noexcept {
  (void)alloc_->quota_take_deferred();  // a frame made and not yet started: nobody starts it from here
  return give_up(split_deque::none, reinterpret_cast<split_deque::entry>(self) | parent_tag);
}

// A spawned task ended and its entry is not the private bottom. Either its entry is the bottom of the
// shared region (reclaim it and return to the parent), or it was detached: end its unit.
std::coroutine_handle<> worker::complete_spawned_slow(promise_base* p) noexcept {
  auto me = reinterpret_cast<split_deque::entry>(p);
  if (pre_.private_empty()) {
    split_deque::entry got = split_deque::none;
    std::uint32_t head_before = pre_.head();
    switch (pre_.pop_shared(me, got)) {
      case split_deque::shared_pop::got: {
        task_ends();
        if (pre_.head() == head_before) ++base_;  // taken by advancing tail: keep depth = head - base
        promise_base* par = p->parent;
        p->self.destroy();
        return par->self;
      }
      case split_deque::shared_pop::stolen:
      case split_deque::shared_pop::not_mine:
        break;
    }
  }
  // A thief that took an entry from this deque counts the detached child while it holds the steal
  // lock. Our entry may have been taken by such a thief, also long ago on this worker while our
  // chain went on: wait until no thief is inside, so its increment happens-before our decrement.
  // (Had our chain moved to another worker since, that move itself went through the lock or
  // through a suspension, which waits here too.)
  pre_.wait_for_thieves();
  return complete_queued(p);  // detached: end the unit it was counted as
}

std::coroutine_handle<> worker::complete_queued(promise_base* p) noexcept {
  task_ends();
  sync_mirrors();
  finish_node* f = p->join;
  bool root = p->parent == nullptr;
  p->self.destroy();
  std::coroutine_handle<> next = f->arrive();
  if (is_noop(next) && !root) c_.context_switches.bump();
  return next;
}

void worker::detach_bottom() noexcept {
  pre_.wait_for_thieves();  // see complete_spawned_slow: in-flight thief increments come first
  split_deque::entry e = split_deque::none;
  if (!pre_.private_empty()) {
    e = pre_.pop();
  } else {
    if (pre_.pop_shared(split_deque::none, e) == split_deque::shared_pop::stolen) {
      pre_.wait_for_thieves();  // a thief that emptied the deque may still be counting
      return;
    }
  }
  if (e == split_deque::none) return;
  // An owned deque holds no start_tag entries: the entry resumes its own frame, or its parent's.
  pre_.push(reinterpret_cast<split_deque::entry>(detach_entry(e)) | parent_tag);
}

std::coroutine_handle<> worker::suspend_at_end(finish_node* f, std::coroutine_handle<> h) noexcept {
  f->waiter = h;
  sync_mirrors();
  detach_bottom();  // before the release below: afterwards `h` may run anywhere
  std::coroutine_handle<> next = f->arrive();
  if (is_noop(next)) c_.context_switches.bump();
  return next;
}


// Waiting in place (docs/finish.md). The frame below us on this thread's stack waits for `f`; running
// a task outside `f` here could make that task wait for this frame (it lies below it on the same
// stack): a deadlock. Tasks inside `f` only wait for finishes nested in `f`, which never need a frame
// below the wait. So it runs only tasks inside `f`: own bottom entries inside f; set-aside tasks
// inside f; steals, where a stolen task outside f is handed to others (work stealing: the set-aside
// queue; the space-efficient variant: left in its ordered list). No injected roots.
void worker::wait_in_place(finish_node* f) noexcept {
  detach_bottom();  // our chain stops here for a while: no untagged entry of it may stay behind (W1)
  void* anchor = sched_->begin_wait(*this, f);
  unsigned idle_rounds = 0;
  while (!f->units_left_only_body()) {
    promise_base* p = take_own(f);
    if (!p) p = steal(f);
    if (p) {
      idle_rounds = 0;
      run_strand(p);
      continue;
    }
    // Nothing to run: the scope's tasks run elsewhere. Nobody wakes a waiter in place (its finish
    // does not complete while the body unit is held), so back off by polling.
    if (++idle_rounds < 64) {
      cpu_relax();
    } else if (idle_rounds < 128) {
      std::this_thread::yield();
    } else {
      long ns = 1000L << std::min(idle_rounds - 128, 10u);  // 1 us .. 1 ms
      std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
    }
  }
  sched_->end_wait(*this, anchor);
  begin_strand();
}

void worker::run_strand(promise_base* p) noexcept {
  begin_strand();
  c_.tasks_run.bump();
  p->self.resume();
}

void worker::on_exposed() noexcept {
  parking_lot& park = rt_->park;
  if (park.sleepers.load(std::memory_order_seq_cst) > 0 && park.searching.load(std::memory_order_seq_cst) == 0)
    park.wake_one();
}

promise_base* worker::take_own(const finish_node* waiting_for) noexcept {
  // Between tasks is when a worker that does not push (it runs queued children) answers thieves.
  bool exposed = false;
  if (pre_.split_requested()) {
    pre_.expose();
    exposed = true;
  }
  if (fresh_.split_requested()) {
    fresh_.expose();
    exposed = true;
  }
  if (exposed) on_exposed();
  split_deque::entry p = pre_.pop();
  split_deque::entry f = fresh_.pop();
  if (waiting_for) {  // popped entries are ours: their frames can be read
    if (p != split_deque::none && !as_promise(p)->cur->is_inside(waiting_for)) {
      pre_.push(p);
      p = split_deque::none;
    }
    if (f != split_deque::none && !as_promise(f)->cur->is_inside(waiting_for)) {
      fresh_.push(f);
      f = split_deque::none;
    }
  }
  if (p == split_deque::none && f == split_deque::none) return nullptr;
  if (f != split_deque::none) fresh_bytes_out_ += frame_bytes(as_promise(f));
  c_.local_takes.bump();
  if (p != split_deque::none && f != split_deque::none) {
    std::uint32_t dp = as_promise(p)->cur->depth;
    std::uint32_t df = as_promise(f)->join->depth;
    if (df > dp) {
      pre_.push(p);
      p = split_deque::none;
    } else {
      fresh_.push(f);
      fresh_bytes_out_ -= frame_bytes(as_promise(f));
      f = split_deque::none;
    }
  }
  if (f != split_deque::none) return as_promise(f);
  // By W1 an entry found here is tagged: its work-first child is already counted.
  assert(p & parent_tag);
  return as_promise(p);
}

promise_base* worker::steal(const finish_node* inside) noexcept {
  promise_base* p = sched_->steal(*this, inside);
  if (!p) c_.failed_steals.bump();
  return p;
}

promise_base* worker::yield_continuation() noexcept {
  if (!pre_.try_lock_steal()) return nullptr;
  split_deque::entry e = pre_.steal();
  promise_base* resume = e != split_deque::none ? detach_entry(e) : nullptr;  // counted under the lock
  pre_.unlock_steal();
  if (resume) stolen_pre_.fetch_add(1, std::memory_order_relaxed);
  return resume;
}

promise_base* worker::yield_fresh() noexcept {
  split_deque::entry e = fresh_.steal();
  if (e == split_deque::none) return nullptr;
  stolen_fresh_.fetch_add(1, std::memory_order_relaxed);
  fresh_bytes_stolen_.fetch_add(frame_bytes(as_promise(e)), std::memory_order_relaxed);
  return as_promise(e);
}

// An injected root task: a new task (counted active).
std::coroutine_handle<> worker::take_root() noexcept {
  promise_base* r = rt_->take_injected();
  if (!r) return {};
  sched_->begin_root(*this, r);
  task_begins();
  return r->self;
}

std::coroutine_handle<> worker::find_work(bool& stop) {
  if (promise_base* p = take_own()) return p->self;
  parking_lot& park = rt_->park;
  const unsigned n = static_cast<unsigned>(rt_->workers.size());
  park.idle.fetch_add(1, std::memory_order_seq_cst);
  park.searching.fetch_add(1, std::memory_order_seq_cst);
  unsigned rounds = 0;
  long backoff_ns = 50'000;
  std::coroutine_handle<> h;
  for (;;) {
    if (rt_->stopping.load(std::memory_order_acquire)) {
      park.searching.fetch_sub(1, std::memory_order_seq_cst);
      park.idle.fetch_sub(1, std::memory_order_seq_cst);
      stop = true;
      return {};
    }
    if ((h = take_root())) break;
    if (promise_base* p = steal(nullptr)) {
      h = p->self;
      break;
    }
    if (++rounds < rt_->cfg.spin_rounds) {
      for (int i = 0; i < 32; ++i) cpu_relax();
      continue;
    }
    // Prepare to sleep (see core/parking.hpp).
    std::uint32_t e = park.event.load(std::memory_order_seq_cst);
    park.sleepers.fetch_add(1, std::memory_order_seq_cst);
    std::uint32_t searchers_left = park.searching.fetch_sub(1, std::memory_order_seq_cst) - 1;
    if (rt_->work_visible() || rt_->stopping.load(std::memory_order_seq_cst)) {
      park.sleepers.fetch_sub(1, std::memory_order_seq_cst);
      park.searching.fetch_add(1, std::memory_order_seq_cst);
      rounds = 0;
      continue;
    }
    bool someone_busy = park.idle.load(std::memory_order_seq_cst) < n;
    bool timed = searchers_left == 0 && someone_busy;
    c_.parks.bump();
    futex_wait(&park.event, e, timed ? backoff_ns : -1);
    if (timed) backoff_ns = std::min(backoff_ns * 2, 2'000'000L);
    park.sleepers.fetch_sub(1, std::memory_order_seq_cst);
    park.searching.fetch_add(1, std::memory_order_seq_cst);
    c_.wakes.bump();
    rounds = 0;
  }
  std::uint32_t before = park.searching.fetch_sub(1, std::memory_order_seq_cst);
  park.idle.fetch_sub(1, std::memory_order_seq_cst);
  if (before == 1 && park.sleepers.load(std::memory_order_seq_cst) > 0) park.wake_one();
  return h;
}

void worker::main_loop() {
  tls_worker = this;
  tls_allocator = alloc_;
  bool stop = false;
  for (;;) {
    std::coroutine_handle<> h = find_work(stop);
    if (stop) break;
    begin_strand();
    c_.tasks_run.bump();
    h.resume();
    alloc_->drain_remote();
    sync_mirrors();
  }
  alloc_->drain_remote();
  tls_worker = nullptr;
  tls_allocator = nullptr;
}

}  // namespace slaw::core
