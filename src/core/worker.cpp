// Worker slow paths and the scheduler loop (Routine 1 of SLAW, Guo et al. IPDPS 2010, §3.3). What a
// variant decides (where to steal, what a give-up or a wait does to its structures) is behind the
// scheduler interface (src/core/scheduler.hpp).
#include "slaw/detail/worker.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <optional>
#include <thread>

#include "core/runtime_impl.hpp"
#include "core/scheduler.hpp"
#include "slaw/detail/record_hooks.hpp"
#include "slaw/detail/transfer.hpp"
#include "slaw/policy/local_order.hpp"
#include "trace/policy_trace.hpp"
#include "trace/timeline.hpp"

namespace slaw::detail {

constinit thread_local worker* tls_worker = nullptr;
constinit thread_local void* tls_next_transfer = nullptr;

namespace {
promise_base* as_promise(split_deque::entry e) noexcept { return entry_promise(e); }
}  // namespace

memory_gauge& process_task_gauge() noexcept {
  static memory_gauge g;
  return g;
}

worker::worker(runtime_impl* rt, scheduler* sched, unsigned index, const worker_settings& settings)
    : mode_(settings.mode),
      adp_params_(settings.adp),
      alloc_(frame_allocator::acquire()),
      tl_(rt->trace_timeline ? &rt->trace_timeline->recorder(index) : nullptr),
      rec_(rt->recorder ? &rt->recorder->log(index) : nullptr),
      trace_(settings.trace_limit ? std::make_unique<policy_trace>(settings.trace_limit) : nullptr),
      loop_params_(settings.loop),
      rt_(rt),
      sched_(sched),
      index_(index),
      rng_(0x9E3779B97F4A7C15ull * (index + 1)) {
  adp_.reset(adp_params_, 0);
  last_decision_ = adp_.current;
  if (mode_ != policy::mode::dyn)  // a fixed mode's decision never changes: record it here
    decision_changed({mode_ == policy::mode::wf ? policy::spawn_policy::wf : policy::spawn_policy::hf, policy::reason::clause}, 0);
  if (policy::wf_until_interval_end(mode_, adp_, last_decision_)) arm();  // wf, or dyn's first interval
  alloc_->reset_peaks();  // a pooled allocator: its figures start with this runtime
  alloc_->set_hooks(tl_ != nullptr);  // both ways: a pooled allocator may come from a recording worker
  tasks_up_ = tasks_down_ = task_band();
  alloc_->quota_disable();  // until a variant switches it on (scheduler::attach)
}

worker::~worker() {
  publish_tasks();  // tasks begun here and ended elsewhere (or the reverse) balance out in the gauge
  alloc_->flush_remote_freed();
  alloc_->quota_disable();
  alloc_->cancel_yield();  // the allocator goes back to the pool: no request may outlive this runtime
  frame_allocator::release(alloc_);
}

void worker::reset_counters() noexcept {
#define SLAW_COUNTER_event(name) c_.name.v.store(0, std::memory_order_relaxed);
#define SLAW_COUNTER_derived(name)
#define SLAW_COUNTER(type, name, total, source) SLAW_COUNTER_##source(name)
#include "slaw/counters.def"
#undef SLAW_COUNTER
#undef SLAW_COUNTER_event
#undef SLAW_COUNTER_derived
  // Thief-written and read by ADP as differences: not zeroed, only re-based.
  at_reset_.stolen_pre.v.store(stolen_pre_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  at_reset_.stolen_fresh.v.store(stolen_fresh_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  at_reset_.switches.v.store(adp_switches_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  if (trace_) trace_->clear();
}

void worker::decision_changed(policy::decision d, std::int32_t depth) noexcept {
  last_decision_ = d.policy;
  last_reason_ = policy::change_reason(last_reason_, d.why);
  if (trace_)
    trace_->record({c_.spawns_wf.get() + c_.spawns_hf.get(), depth, d.policy == policy::spawn_policy::wf,
                    policy::reason_code(last_reason_)});
}

// The slow path of choose: the spawn is decided by policy::decide, with the countdown handed back to
// adp_ first. Then the worker arms again if the decision allows (see choose).
policy::spawn_policy worker::choose_slow(policy::schedule clause) noexcept {
  if (armed_) {
    // A dyn-clause spawn got here by counting fast_left_ down to 0; decide() counts it once more.
    if (clause == policy::schedule::dyn) ++fast_left_;
    disarm();
  }
  const auto depth = static_cast<std::int32_t>(pre_.head() - base_);
  policy::decision d = policy::decide(
      adp_params_, adp_, mode_, clause, depth, [this] { return fresh_.size_estimate(); },
      [this] { return fresh_.refresh_size(); },
      [this] { return stolen_pre_.load(std::memory_order_relaxed) + stolen_fresh_.load(std::memory_order_relaxed); });
  if (d.policy != last_decision_) [[unlikely]] decision_changed(d, depth);
  // In dyn mode this decision was work-first (last_decision_), so the depth is below S.
  if (policy::wf_until_interval_end(mode_, adp_, last_decision_)) arm();
  else fast_left_ = 1;  // disarmed: the next spawn comes here too
  return d.policy;
}

std::coroutine_handle<> worker::start_work_first_slow(promise_base* parent, promise_base* child, const char* name,
                                                      policy::schedule clause) noexcept {
  alloc_->take_peak_reset();
  if (tl_) trace_work_first(child, name, clause);
  if (preempt_pending()) return give_up_at_spawn(parent, child);
  std::coroutine_handle<> run = child->self();
  push_preempted(child);  // a thief may now resume the parent and free the child: read `run` before
  return run;
}

std::coroutine_handle<> worker::start_call_slow(promise_base* caller, promise_base* callee) noexcept {
  alloc_->take_peak_reset();
  if (recording()) record_call(caller, callee);
  if (preempt_pending()) return give_up_at_call(callee);
  return callee->self();
}

void worker::arm() noexcept {
  armed_ = true;
  // Fixed wf mode: the countdown only brings a spawn here once in 2^32, and then it arms again.
  fast_left_ = mode_ == policy::mode::wf ? UINT32_MAX : adp_.left;
  watch_depth();
}

void worker::publish_tasks() noexcept {
  const std::int64_t band = task_band();
  const std::int64_t local = tasks_published_ + band - tasks_up_;  // task_begins' definitions
  process_task_gauge().add(local - tasks_published_);
  tasks_published_ = local;
  tasks_up_ = tasks_down_ = band;
}

void worker::spawned_returned_slow(promise_base* p) noexcept {
  publish_tasks();
  if (tl_) trace_child_returned(p, promise_of(p->parent));
}

void worker::pushed_preempted(unsigned r) noexcept {
  if (r & split_deque::pushed_watch) {
    // A depth below 0 (frames re-entered after a context switch) never exceeds the recorded maximum.
    const std::int64_t depth = static_cast<std::int32_t>(pre_.head() - base_);
    if (depth > 0) c_.max_wf_depth.max(static_cast<std::uint64_t>(depth));
    // The stack bound (see choose): the next spawn is help-first, which choose_slow decides.
    if (armed_ && mode_ == policy::mode::dyn && depth >= static_cast<std::int64_t>(adp_params_.S)) disarm();
  }
  if (r & split_deque::pushed_exposed) on_exposed();
}

void worker::run_strand(promise_base* p) noexcept {
  begin_strand(p->place);
  c_.tasks_run.bump();
  if (tl_) trace_strand_begins(p);
  resume_chain(p->self());
  if (tl_) trace_strand_ends();
}

void worker::on_exposed() noexcept { rt_->park.wake_if_nobody_searches(); }

void worker::answer_at_join() noexcept {
  fresh_.expose();
  if (pre_.split_requested()) pre_.expose();
  on_exposed();
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
  // With places, everything in this worker's deques while it waits in place was made on top of the
  // wait (its older entries were handed off when the wait began), and may run here (docs/design/finish.md).
  if (waiting_for && !wait_runs_unstarted_) {  // popped entries are ours: their frames can be read
    if (p != split_deque::none && !as_promise(p)->cur->is_inside(waiting_for)) {
      push_back(p);
      p = split_deque::none;
    }
    if (f != split_deque::none && !as_promise(f)->cur->is_inside(waiting_for)) {
      fresh_.push(f);  // back where it was: its bytes never left fresh_bytes_net_
      f = split_deque::none;
    }
  }
  std::optional<std::uint32_t> pre_depth, fresh_depth;  // sync-tree depths of the two bottoms
  if (p != split_deque::none) pre_depth = as_promise(p)->cur->depth;
  if (f != split_deque::none) fresh_depth = as_promise(f)->join->depth;
  const policy::own_task pick = policy::pick_own_task(pre_depth, fresh_depth);
  if (pick == policy::own_task::none) return nullptr;
  c_.local_takes.bump();
  if (pick == policy::own_task::fresh) {
    if (p != split_deque::none) push_back(p);  // the other bottom goes back
    fresh_bytes_net_ -= frame_bytes(as_promise(f));
    if (tl_) trace_next_start(segment_kind::hf);
    return as_promise(f);
  }
  if (f != split_deque::none) fresh_.push(f);
  // By W1 an entry found here is tagged: its work-first child is already counted.
  assert(p & parent_tag);
  if (tl_) trace_next_start(segment_kind::resumed);
  return as_promise(p);
}

promise_base* worker::steal(const finish_node* inside) noexcept {
  promise_base* p = sched_->steal(*this, inside);
  qc_.steal_attempts.bump();
  if (!p) {
    c_.failed_steals.bump();
    // The desire's sample (A-Deque §IV-B): the attempt is purely unsuccessful if its victim was out of
    // work too. The variant may have probed several victims; one other worker drawn at random stands
    // for them (alone, the worker picked itself: purely unsuccessful, the digest's §3.2 fix).
    const auto n = static_cast<unsigned>(rt_->workers.size());
    if (n <= 1) {
      qc_.purely_unsuccessful.bump();
    } else {
      auto j = static_cast<unsigned>(next_random() % (n - 1));
      if (j >= index_) ++j;
      const worker& v = *rt_->workers[j];
      if (v.idle()) qc_.purely_unsuccessful.bump();
      qc_.sampled_length.bump(v.stealable());
    }
  }
  return p;
}

void worker::sample_victim(int victim, std::uint32_t taken) noexcept {
  if (victim < 0 || static_cast<std::size_t>(victim) >= rt_->workers.size()) return;
  qc_.sampled_length.bump(rt_->workers[static_cast<std::size_t>(victim)]->stealable() + taken);
}

// ---- the job's allotment (docs/design/multijob.md § The job side) ----

bool worker::surplus(std::memory_order order) const noexcept { return rank_ >= rt_->allowed.load(order); }

// Parking by allotment, outside the parking lot's eventcount: the quantum thread stores the new
// allotment and then bumps `allot_event` (both seq_cst); this worker reads `allot_event`, then the
// allotment, and waits only if the event is unchanged. Either it reads the new allotment, or the bump
// came after its read and futex_wait returns at once (the eventcount argument of core/parking.hpp).
// Its deques are exposed whole first, so no work hides in a parked worker: thieves take them entry by
// entry, muggers whole (mug), and the parking re-check of the others sees them.
void worker::park_for_allotment() noexcept {
  alloc_->cancel_yield();  // it is yielding now; a request left over would stop its next chain
  c_.allotment_parks.bump();
  idle_.store(true, std::memory_order_relaxed);
  pre_.expose_all();
  fresh_.expose_all();
  if (rt_->mugging) {
    muggable_.store(true, std::memory_order_release);
    rt_->muggable_count.fetch_add(1, std::memory_order_seq_cst);
  }
  // Counted idle, so that the others' sleep policy does not wait on it as on a busy worker.
  rt_->park.idle.fetch_add(1, std::memory_order_seq_cst);
  // Pass the wake-up on: this worker may have been woken (from the parking lot) for work it will not
  // take now, or leave work in its deques; a running worker must take it. The re-check reads seq_cst
  // after the exposing CAS: work published later comes with its publisher's own wake-up, which goes to
  // a sleeper of the parking lot (this worker is none).
  if (rt_->work_visible_to(*this)) rt_->park.wake_one();
  const std::uint64_t since = tl_ ? trace_now() : 0;
  for (;;) {
    const std::uint32_t e = rt_->allot_event.load(std::memory_order_seq_cst);
    if (!surplus() || rt_->stopping.load(std::memory_order_seq_cst)) break;
    futex_wait(&rt_->allot_event, e, -1);
  }
  if (tl_) trace_parked(since);
  rt_->park.idle.fetch_sub(1, std::memory_order_seq_cst);
  if (rt_->mugging) {
    muggable_.store(false, std::memory_order_release);
    rt_->muggable_count.fetch_sub(1, std::memory_order_seq_cst);
  }
  idle_.store(false, std::memory_order_relaxed);
}

// Mugging (A-Deque §II; docs/design/multijob.md § Mugging): with SLAW's two deques, the mugger takes every
// entry of the parked worker's preempted deque, oldest first, through the locked continuation steal
// (each comes back detached and tagged, so it goes on the mugger's own preempted deque in the same
// order, W1 holding), then every queued task of its fresh deque, oldest first, onto its own fresh
// deque. Its own deques are empty (it found no work of its own), so the bottom-most entry, the one
// the parked worker would have resumed next, is what take_own resumes. Thieves may take entries of
// the same deque meanwhile: each entry goes to exactly one of them (the deque's CAS), and the mug is
// whatever was left.
promise_base* worker::mug() noexcept {
  if (!rt_->mugging || rt_->muggable_count.load(std::memory_order_relaxed) == 0) return nullptr;
  const std::size_t n = rt_->workers.size();
  const std::size_t start = next_random() % n;
  for (std::size_t i = 0; i < n; ++i) {
    worker& v = *rt_->workers[(start + i) % n];
    if (&v == this || !v.muggable()) continue;
    std::uint32_t taken = 0;
    while (promise_base* p = v.yield_continuation(index())) {
      push_back(reinterpret_cast<split_deque::entry>(p) | parent_tag);
      ++taken;
    }
    while (promise_base* p = v.yield_fresh(index())) {
      queue_fresh(reinterpret_cast<split_deque::entry>(p));
      ++taken;
    }
    if (taken == 0) continue;
    c_.mugs.bump();
    qc_.mugs.bump();
    qc_.sampled_length.bump(taken);
    if (promise_base* p = take_own()) return p;
  }
  return nullptr;
}

promise_base* worker::yield_continuation(unsigned thief) noexcept {
  if (!pre_.try_lock_steal()) return nullptr;
  split_deque::entry e = pre_.steal(thief);
  promise_base* resume = e != split_deque::none ? detach_entry(e) : nullptr;  // counted under the lock
  pre_.unlock_steal();
  if (resume) stolen_pre_.fetch_add(1, std::memory_order_relaxed);
  return resume;
}

promise_base* worker::yield_fresh(unsigned thief) noexcept {
  split_deque::entry e = fresh_.steal(thief);
  if (e == split_deque::none) return nullptr;
  stolen_fresh_.fetch_add(1, std::memory_order_relaxed);
  fresh_bytes_stolen_.fetch_add(frame_bytes(as_promise(e)), std::memory_order_relaxed);
  return as_promise(e);
}

// An injected root task: a new task (counted active).
promise_base* worker::take_root() noexcept {
  promise_base* r = rt_->take_injected();
  if (!r) return nullptr;
  sched_->begin_root(*this, r);
  task_begins();
  if (tl_) {
    r->name = nullptr;  // a queued task: its name field is read when it is resumed
    trace_next_start(segment_kind::root);
  }
  return r;
}

// A frame whose wait on an external event ended off the workers (include/slaw/external.hpp). Its task
// is still counted active (a suspended frame's is). Under DFDeques it starts a deque at the right end
// of R, as a run's root does: its place in the serial order is not kept across the wait (the variant's
// begin_resumed).
// Taken only by an idle worker (its deques empty) or one waiting in place, never at the end of a strand
// on top of queued tasks of its own: the frame's chain would push its entries below those, and a wait
// in place inside it, which takes only its deque's bottom entry, could not reach older entries of its
// scope (with one worker, a hang: tried, and tests/api/test_external.cpp caught it).
promise_base* worker::take_resumed(const finish_node* inside) noexcept {
  promise_base* r = rt_->take_resumed(*this, inside);
  if (!r) return nullptr;
  sched_->begin_resumed(*this, r);
  c_.external_resumes.bump();
  if (tl_) trace_next_start(segment_kind::resumed);
  return r;
}

namespace {
std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
}  // namespace

promise_base* worker::find_work(bool& stop) {
  if (promise_base* p = take_own()) return p;
  parking_lot& park = rt_->park;
  const auto n = static_cast<unsigned>(rt_->workers.size());
  idle_.store(true, std::memory_order_relaxed);
  park.start_searching();
  const policy::idle_params idle{rt_->cfg.spin_rounds};
  std::uint32_t rounds = 0;
  std::int64_t backoff_ns = idle.backoff_first_ns;
  for (;;) {
    if (rt_->stopping.load(std::memory_order_acquire)) {
      park.stop_searching();
      idle_.store(false, std::memory_order_relaxed);
      stop = true;
      return nullptr;
    }
    if (surplus()) [[unlikely]] {
      park.stop_searching();
      park_for_allotment();
      idle_.store(true, std::memory_order_relaxed);
      park.start_searching();
      if (promise_base* p = take_own()) {  // not mugged or stolen while it was parked
        park.found_work();
        idle_.store(false, std::memory_order_relaxed);
        return p;
      }
      continue;
    }
    promise_base* p = take_root();
    if (!p) p = take_resumed(nullptr);
    if (!p) p = mug();
    if (!p) p = steal(nullptr);
    if (p) {
      park.found_work();
      idle_.store(false, std::memory_order_relaxed);
      return p;
    }
    if (policy::keep_spinning(++rounds, idle)) {
      for (int i = 0; i < 32; ++i) cpu_relax();
      continue;
    }
    rounds = 0;
    // A worker that became surplus must not sleep here: it would take wake-ups meant for the workers
    // still allotted. The allotment's shrink stores `allowed` and then wakes this lot (arbiter_job::apply),
    // so by the eventcount argument (parking.hpp) either this seq_cst re-read sees the new allotment or
    // the wake comes after this worker read the event and its wait returns at once.
    auto visible = [this] {
      return rt_->work_visible_to(*this) || rt_->stopping.load(std::memory_order_seq_cst) ||
             surplus(std::memory_order_seq_cst);
    };
    const std::uint64_t since = tl_ ? trace_now() : 0;
    // Time asleep is time idle for the desire (the quantum thread counts it as failed attempts).
    const std::uint64_t asleep = steady_ns();
    qc_.asleep_since.store(asleep, std::memory_order_relaxed);
    const bool slept = park.sleep(visible, n, backoff_ns, idle, sched_->every_sleeper_polls());
    qc_.sleep_ns.bump(steady_ns() - asleep);
    qc_.asleep_since.store(0, std::memory_order_relaxed);
    if (slept) {
      c_.parks.bump();
      c_.wakes.bump();
      if (tl_) trace_parked(since);
    }
  }
}

void worker::main_loop() {
  tls_worker = this;
  tls_allocator = alloc_;
  bool stop = false;
  for (;;) {
    promise_base* p = find_work(stop);
    if (stop) break;
    alloc_->take_peak_reset();
    rebase();
    new_fresh_bytes_peak();  // reset_counters (between runs, while this loop looks for work) may have lowered it
    begin_strand(p->place);
    c_.tasks_run.bump();
    if (tl_) trace_strand_begins(p);
    resume_chain(p->self());
    if (tl_) trace_strand_ends();
    alloc_->drain_remote();
    sync_mirrors();
    if (surplus()) [[unlikely]] park_for_allotment();
  }
  alloc_->drain_remote();
  tls_worker = nullptr;
  tls_allocator = &no_worker_allocator;
}

}  // namespace slaw::detail
