// Worker slow paths and the scheduler loop (Routine 1 of digest slaw.md §3.3).
#include "slaw/core/worker.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <thread>

#include "core/dfdeques.hpp"
#include "slaw/core/order_labels.hpp"
#include "core/runtime_impl.hpp"

namespace slaw::core {

constinit thread_local worker* tls_worker = nullptr;

namespace {
bool is_noop(std::coroutine_handle<> h) noexcept { return h.address() == std::noop_coroutine().address(); }
promise_base* as_promise(split_deque::entry e) noexcept { return entry_promise(e); }

policy::adp_params params_for(const config& cfg) {
  policy::adp_params p = cfg.adp;
  // DFDeques is work-first by definition (Fig. 5: a fork pushes the parent and runs the child); its
  // space bound comes from the quota, so ADP's stack condition is off.
  if (cfg.scheduler == scheduler_kind::dfdeques) p.S = std::numeric_limits<std::uint32_t>::max() / 2;
  return p;
}
}  // namespace

memory_gauge& process_task_gauge() noexcept {
  static memory_gauge g;
  return g;
}

worker::worker(runtime_impl* rt, unsigned index, const config& cfg)
    : mode_(cfg.scheduler == scheduler_kind::dfdeques ? policy::mode::wf : cfg.policy),
      adp_params_(params_for(cfg)),
      alloc_(frame_allocator::acquire()),
      dfd_(cfg.scheduler == scheduler_kind::dfdeques),
      trace_limit_(cfg.policy_trace),
      rt_(rt),
      index_(index),
      rng_(0x9E3779B97F4A7C15ull * (index + 1)) {
  adp_.reset(adp_params_, 0);
  alloc_->reset_peaks();  // a pooled allocator: its figures start with this runtime
  if (dfd_ && cfg.quota != quota_infinite) alloc_->quota_enable(static_cast<std::int64_t>(cfg.quota));
  else alloc_->quota_disable();
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

// ---------------- DFDeques give-ups (docs/space.md) ----------------
// The running chain stops at a scheduling point: its innermost work-first child is detached (W1, as
// for a suspension), `below` and `top` are pushed, and the whole deque is handed to R as ownerless.
// An ownerless deque is only popped at its bottom, so its entries resume bottom-first: every frame
// of the stopped chain resumes after the entries below it were stolen, and so counted (D1).
std::coroutine_handle<> worker::give_up(split_deque::entry below, split_deque::entry top) noexcept {
  assert(in_r_ && "DFDeques: a worker running a task owns a deque");
  sync_mirrors();
  detach_bottom();
  if (below != split_deque::none) pre_.push(below);
  pre_.push(top);
  rt_->dfd->give_up(*this);
  c_.quota_giveups.bump();
  on_exposed();  // wake a sleeper for the work now in R
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
  if (e & parent_tag) {
    pre_.push(e);
    return;
  }
  promise_base* child = as_promise(e);
  child->join->add_unit();
  pre_.push(reinterpret_cast<split_deque::entry>(child->parent) | parent_tag);
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
// queue; DFDeques: left in R where it was). No injected roots.
void worker::wait_in_place(finish_node* f) noexcept {
  detach_bottom();  // our chain stops here for a while: no untagged entry of it may stay behind (W1)
  deque_list::wait_anchor anchor{};
  if (dfd_) anchor = rt_->dfd->begin_wait(*this, f);  // our entries stay in R, ownerless
  auto is_inside = [f](promise_base* p) { return p->cur->is_inside(f); };
  unsigned idle_rounds = 0;
  while (!f->units_left_only_body()) {
    promise_base* p = take_own(f);
    if (!p && !dfd_) p = rt_->set_aside.take_first(is_inside);
    if (!p) {
      p = steal_task(f);
      if (p && !dfd_ && !is_inside(p)) {
        rt_->set_aside.put(p);
        rt_->park.wake_one();  // a free worker may be asleep
        p = nullptr;
      }
    }
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
  if (dfd_) rt_->dfd->end_wait(*this, anchor);
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

// Routine 1, step 2: steal the earliest entry of a random victim's deque. A round probes at most
// `max_probes` victims, so that an idle worker's search (and a large runtime's start-up) costs O(1)
// per round instead of O(p); the parking re-check still looks at every worker.
promise_base* worker::steal_task(const finish_node* inside) noexcept {
  if (dfd_) {
    split_deque::entry e = rt_->dfd->steal(*this, next_random(), inside);
    if (e == split_deque::none) {
      c_.failed_steals.bump();
      return nullptr;
    }
    alloc_->quota_new_period();  // steal() resets the quota (Fig. 5)
    promise_base* p = entry_promise(e);
    if (e & start_tag) alloc_->quota_charge(p->start_charge);
    c_.steals_pre.bump();
    return p;
  }
  constexpr std::size_t max_probes = 16;
  auto& ws = rt_->workers;
  const std::size_t n = ws.size();
  if (n <= 1) return nullptr;
  const std::size_t start = next_random() % n;
  const std::size_t probes = std::min(n, max_probes);
  for (std::size_t i = 0; i < probes; ++i) {
    worker* v = ws[(start + i) % n].get();
    if (v == this) continue;
    for (int d = 0; d < 2; ++d) {
      bool preempted = (d == 0) == rt_->cfg.steal_preempted_first;
      if (preempted) {
        if (v->pre_.looks_empty()) {
          v->pre_.request_split();
          continue;
        }
        if (!v->pre_.try_lock_steal()) continue;
        split_deque::entry e = v->pre_.steal();
        promise_base* resume = nullptr;
        if (e != split_deque::none) {
          if (e & parent_tag) {
            resume = as_promise(e);
          } else {
            promise_base* child = as_promise(e);
            child->join->add_unit();  // the child is detached from its parent's continuation
            resume = child->parent;
          }
        }
        v->pre_.unlock_steal();
        if (resume) {
          v->stolen_pre_.fetch_add(1, std::memory_order_relaxed);
          c_.steals_pre.bump();
          // Where one continuation was stolen the next is likely wanted too (a flat work-first loop
          // migrates this way): publish our first push at once instead of waiting for a request.
          pre_.request_split();
          return resume;
        }
      } else {
        split_deque::entry e = v->fresh_.steal();
        if (e != split_deque::none) {
          v->stolen_fresh_.fetch_add(1, std::memory_order_relaxed);
          v->fresh_bytes_stolen_.fetch_add(frame_bytes(as_promise(e)), std::memory_order_relaxed);
          c_.steals_fresh.bump();
          return as_promise(e);
        }
      }
    }
  }
  c_.failed_steals.bump();
  return nullptr;
}

// An injected root task: a new task (counted active); under DFDeques the worker's new deque goes to
// the right end of R (roots of later runs have lower priority) and a new quota period starts.
std::coroutine_handle<> worker::take_root() noexcept {
  promise_base* r = rt_->take_injected();
  if (!r) return {};
  if (dfd_) {
    rt_->dfd->enter_root(*this);
    alloc_->quota_new_period();
#ifndef NDEBUG
    order_note_root(r);
#endif
  }
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
    if (promise_base* p = rt_->set_aside.take_first([](promise_base*) { return true; })) {
      h = p->self;
      break;
    }
    if (promise_base* p = steal_task()) {
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
