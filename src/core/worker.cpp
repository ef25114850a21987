// Worker slow paths and the scheduler loop (Routine 1 of digest slaw.md §3.3).
#include "slaw/core/worker.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <thread>

#include "core/runtime_impl.hpp"

namespace slaw::core {

constinit thread_local worker* tls_worker = nullptr;

namespace {
bool is_noop(std::coroutine_handle<> h) noexcept { return h.address() == std::noop_coroutine().address(); }
promise_base* as_promise(split_deque::entry e) noexcept {
  return reinterpret_cast<promise_base*>(e & ~parent_tag);
}
}  // namespace

worker::worker(runtime_impl* rt, unsigned index, const config& cfg)
    : mode_(cfg.policy),
      adp_params_(cfg.adp),
      alloc_(frame_allocator::acquire()),
      rt_(rt),
      index_(index),
      rng_(0x9E3779B97F4A7C15ull * (index + 1)) {
  adp_.reset(adp_params_, 0);
}

worker::~worker() { frame_allocator::release(alloc_); }

void worker::reset_counters() noexcept {
  for (counter* c : {&c_.spawns_wf, &c_.spawns_hf, &c_.steals_pre, &c_.steals_fresh, &c_.failed_steals,
                     &c_.context_switches, &c_.local_takes, &c_.max_wf_depth, &c_.max_fresh, &c_.parks, &c_.wakes,
                     &c_.tasks_run})
    c->v.store(0, std::memory_order_relaxed);
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

void worker::help_until_body_only(finish_node* f) noexcept {
  detach_bottom();
  unsigned idle_rounds = 0;
  while (!f->only_body_left()) {
    std::coroutine_handle<> h = take_own();
    if (!h) {
      if (promise_base* r = rt_->take_injected()) h = r->self;
    }
    if (!h) h = try_steal();
    if (h) {
      idle_rounds = 0;
      begin_strand();
      c_.tasks_run.bump();
      h.resume();
    } else if (++idle_rounds < 64) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  begin_strand();
}

void worker::on_exposed() noexcept {
  parking_lot& park = rt_->park;
  if (park.sleepers.load(std::memory_order_seq_cst) > 0 && park.searching.load(std::memory_order_seq_cst) == 0)
    park.wake_one();
}

// Routine 1, step 1: own tasks, deepest in the sync tree first, preempted before fresh on a tie.
std::coroutine_handle<> worker::take_own() noexcept {
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
  if (p == split_deque::none && f == split_deque::none) return {};
  c_.local_takes.bump();
  if (p != split_deque::none && f != split_deque::none) {
    std::uint32_t dp = as_promise(p)->cur->depth;
    std::uint32_t df = as_promise(f)->join->depth;
    if (df > dp) {
      pre_.push(p);
      p = split_deque::none;
    } else {
      fresh_.push(f);
      f = split_deque::none;
    }
  }
  if (f != split_deque::none) return as_promise(f)->self;
  // By W1 an entry found here is tagged: its work-first child is already counted.
  assert(p & parent_tag);
  return as_promise(p)->self;
}

// Routine 1, step 2: steal the earliest entry of a random victim's deque.
std::coroutine_handle<> worker::try_steal() noexcept {
  auto& ws = rt_->workers;
  const std::size_t n = ws.size();
  if (n <= 1) return {};
  std::size_t start = next_random() % n;
  for (std::size_t i = 0; i < n; ++i) {
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
          return resume->self;
        }
      } else {
        split_deque::entry e = v->fresh_.steal();
        if (e != split_deque::none) {
          v->stolen_fresh_.fetch_add(1, std::memory_order_relaxed);
          c_.steals_fresh.bump();
          return as_promise(e)->self;
        }
      }
    }
  }
  c_.failed_steals.bump();
  return {};
}

std::coroutine_handle<> worker::find_work(bool& stop) {
  if (std::coroutine_handle<> h = take_own()) return h;
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
    if (promise_base* r = rt_->take_injected()) {
      h = r->self;
      break;
    }
    if ((h = try_steal())) break;
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
