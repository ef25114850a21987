// The engine's event loop, the operations of a running task, and the finish protocol
// (docs/simulation.md, "Engine"; the runtime's counterparts are named at each function).
#include "sim/engine.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <optional>
#include <stdexcept>

#include "sim/checks.hpp"
#include "sim/core_sharing.hpp"
#include "sim/scheduler.hpp"
#include "sim/workloads.hpp"
#include "slaw/policy/local_order.hpp"
#include "slaw/policy/quota.hpp"

namespace slaw::sim {

namespace {
constexpr std::uint16_t no_owner = 0xFFFF;  // the root's frame: made by the thread calling run
constexpr std::uint32_t dummy_frame_bytes = 64;
// Phases of an allocation larger than K (reserve(): a finish around floor(m/K) dummy tasks).
constexpr std::uint8_t retry_alloc = 1, retry_dummy = 2, big_spawn = 3, big_wait = 4, big_alloc = 5;

// xorshift64 is linear over GF(2): `steps` steps are the step's 64x64 bit matrix to that power, by
// squaring (a matrix as the images of the 64 unit vectors). Microseconds for any count.
std::uint64_t xorshift_jump(std::uint64_t x, std::uint64_t steps) {
  using matrix = std::array<std::uint64_t, 64>;
  auto apply = [](const matrix& m, std::uint64_t v) {
    std::uint64_t r = 0;
    for (int j = 0; v; ++j, v >>= 1)
      if (v & 1) r ^= m[j];
    return r;
  };
  auto compose = [&](const matrix& a, const matrix& b) {  // a after b
    matrix c;
    for (int j = 0; j < 64; ++j) c[j] = apply(a, b[j]);
    return c;
  };
  matrix step;
  for (int j = 0; j < 64; ++j) step[j] = worker::xorshift_step(std::uint64_t{1} << j);
  for (; steps; steps >>= 1) {
    if (steps & 1) x = apply(step, x);
    step = compose(step, step);
  }
  return x;
}
}  // namespace

engine::engine(dag_source& source, const costs& c, const run_config& cfg) : cfg_(cfg), c_(c), q_(cfg.workers) {
  if (cfg_.workers < 1 || cfg_.workers > max_workers)
    throw std::invalid_argument("workers=" + std::to_string(cfg_.workers) + ": expected 1.." + std::to_string(max_workers));
  if (cfg_.quota > max_quota)
    throw std::invalid_argument("K=" + std::to_string(cfg_.quota) + ": expected 1..2^62 bytes, or 0 for inf");
  jobs_.resize(1);
  jobs_[0].src = &source;
  setup_workers();
}

// The jobs' runtimes: each job's workers, schedulers and victims (one job: workers 0..W-1).
void engine::setup_workers() {
  if (cfg_.adp.INT == 0 || cfg_.adp.S == 0 || cfg_.adp.F == 0)
    throw std::invalid_argument("ADP parameters S, F and INT must be >= 1");
  const auto n = static_cast<std::uint32_t>(jobs_.size());
  nworkers_ = cfg_.workers * n;
  for (std::uint32_t j = 0; j < n; ++j) {
    job& J = jobs_[j];
    J.base = j * cfg_.workers;
    J.count = cfg_.workers;
    J.sched = cfg_.scheduler == scheduler_kind::ws ? make_ws(*this, j) : make_dfdeques(*this, j, cfg_.quota);
  }
  jobs_[0].sched->configure(cfg_);  // the same settings for every job
  if (cfg_.checks) checks_ = std::make_unique<checker>(*this, cfg_.scheduler == scheduler_kind::dfdeques);
  w_ = std::make_unique<worker[]>(nworkers_);
  ticket_.assign(nworkers_, 0);
  for (std::uint32_t j = 0; j < n; ++j) {
    for (std::uint32_t i = 0; i < cfg_.workers; ++i) {
      const std::uint32_t g = jobs_[j].base + i;
      worker& w = w_[g];
      w.index = g;
      w.job = j;
      w.slot = i;
      w.rng = 0x9E3779B97F4A7C15ull * (i + 1);  // the runtime's per-worker seed (worker::worker)
      if (cfg_.seed) w.rng ^= mix64(cfg_.seed * 0x100000001B3ull + i);
      if (j) w.rng ^= mix64(0xC2B2AE3D27D4EB4Full * j);  // another process: other victims
      if (w.rng == 0) w.rng = 1;                        // xorshift's fixed point
      w.jitter_state = mix64(cfg_.seed ^ (0xD1B54A32D192ED03ull * (i + 1)));
      if (j) w.jitter_state ^= mix64(0x9FB21C651E98DF25ull + j);
      w.adp.reset(cfg_.adp, 0);
      // As a runtime's worker begins find_work: a worker woken from its first sleep polls from the
      // first backoff on, not with none (which made the last searcher poll without pause).
      w.backoff_ns = cfg_.idle.backoff_first_ns;
      if (cfg_.scheduler == scheduler_kind::dfdeques && cfg_.quota != 0)
        w.quota.enable(static_cast<std::int64_t>(cfg_.quota), 0);
      jobs_[j].victims.push_back(g);
    }
  }
}

engine::~engine() = default;

// ---------------------------------------------------------------- records

// A fresh task record: a freed one reused, or a new one.
task_id engine::take_task_record() {
  if (!free_tasks_.empty()) {
    const task_id id = free_tasks_.back();
    free_tasks_.pop_back();
    tasks_[id] = task{};
    return id;
  }
  const auto id = static_cast<task_id>(tasks_.size());
  if (id >= (task_id{1} << 30)) throw std::length_error("more than 2^30 live simulated tasks");
  tasks_.emplace_back();
  return id;
}

// A fresh finish record, likewise.
finish_id engine::take_finish_record() {
  if (!free_fins_.empty()) {
    const finish_id g = free_fins_.back();
    free_fins_.pop_back();
    fins_[g] = finish{};
    return g;
  }
  const auto g = static_cast<finish_id>(fins_.size());
  fins_.emplace_back();
  return g;
}

task_id engine::new_task(worker& w, task_id parent, const step& s, task_kind kind) {
  const task_id id = take_task_record();
  task& c = tasks_[id];
  const task& p = tasks_[parent];
  c.state = s.child;
  c.parent = parent;
  c.cur = p.cur;
  c.join = kind == task_kind::called ? none : p.cur;
  c.bytes = s.dummy ? dummy_frame_bytes : s.child_bytes;
  c.owner = static_cast<std::uint16_t>(w.index);
  c.job = p.job;
  c.kind = kind;
  c.builtin = s.dummy ? 1 : 0;
  if (s.dummy) {
    ++dummies_made_;
  } else {
    ++tasks_made_;
    ++jobs_[c.job].tasks;
  }
  if (++live_tasks_ > peak_live_tasks_) peak_live_tasks_ = live_tasks_;
  alloc_bytes(w, c.bytes, policy::memory_kind::frame);
  if (checks_) {
    checks_->created(id);
    checks_->note_child(parent, id);
    if (kind != task_kind::called) ++fins_[c.join].live;
  }
  return id;
}

void engine::release_task(task_id id) {
  --live_tasks_;
  free_tasks_.push_back(id);
}

void engine::advance(task& t, time_ps d) noexcept {
  t.span += d;
  t.bspan += d;
  jobs_[t.job].dag.work += d;
}

void engine::alloc_bytes(worker& w, std::int64_t bytes, policy::memory_kind kind) {
  if (kind == policy::memory_kind::frame) {
    frames_live_ += bytes;
    peak_frames_ = std::max(peak_frames_, frames_live_);
  } else {
    user_live_ += bytes;
    peak_user_ = std::max(peak_user_, user_live_);
  }
  peak_all_ = std::max(peak_all_, frames_live_ + user_live_);
  w.live += bytes;
  // The allocator calls the quota once the live bytes pass its watch (frame_allocator's watermark).
  if (w.quota.enabled() && w.live > w.quota.watch_above()) {
    policy::quota::outcome o = w.quota.after_allocation(bytes, kind, w.live);
    note_quota_used(w, o.used);
    w.c.quota_overrun_bytes += static_cast<std::uint64_t>(o.overrun);
  }
}

void engine::free_bytes(std::uint32_t owner, std::int64_t bytes, bool user) {
  (user ? user_live_ : frames_live_) -= bytes;
  // A free on another worker is credited to the allocating worker (the runtime: when its owner drains
  // its remote list, after its current strand).
  if (owner != no_owner) w_[owner].live -= bytes;
}

void engine::note_quota_used(worker& w, std::int64_t used) {
  if (used > w.c.quota_max_used) w.c.quota_max_used = used;
}

void engine::trace(std::uint32_t w, std::uint32_t what, std::uint32_t id) noexcept {
  hash_ = mix64(hash_ ^ (static_cast<std::uint64_t>(now_) * 0x9E3779B97F4A7C15ull) ^
                (static_cast<std::uint64_t>(w) << 52) ^ (static_cast<std::uint64_t>(what) << 32) ^ id);
}

void engine::penalize(worker& victim) {
  if (c_.victim == 0) return;
  if (q_.scheduled(victim.index)) q_.schedule(victim.index, q_.time_of(victim.index) + c_.victim);
  else victim.penalty += c_.victim;
}

// ---------------------------------------------------------------- the event loop

run_result engine::run() {
  const auto wall0 = std::chrono::steady_clock::now();
  // One job: its root task in an implicit root finish, injected at time 0 (runtime::run).
  jobs_left_ = 1;
  start_job(0);
  // Every worker starts asleep (an idle runtime); the root wakes one (inject -> wake_one).
  job& J = jobs_[0];
  for (std::uint32_t i = 0; i < cfg_.workers; ++i) {
    w_[i].state = wstate::sleeping;
    J.sleep_queue.emplace_back(i, ticket_[i]);
  }
  J.sleepers = J.idle = J.awake = cfg_.workers;
  wake_one(J, nullptr);
  loop();
  run_result r = totals();
  r.makespan = J.end;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

// Job j's root task in an implicit root finish, injected now (runtime::run).
void engine::start_job(std::uint32_t j) {
  job& J = jobs_[j];
  J.src->reset();
  const finish_id g = take_finish_record();
  finish& rf = fins_[g];
  rf.count = 1;  // the root task
  rf.depth = 0;
  rf.job = j;
  const task_id id = take_task_record();
  task& root = tasks_[id];
  root.state = J.src->root();
  root.kind = task_kind::queued;
  root.join = root.cur = g;
  root.bytes = J.src->root_bytes();
  root.owner = no_owner;
  root.job = static_cast<std::uint16_t>(j);
  frames_live_ += root.bytes;
  peak_frames_ = std::max(peak_frames_, frames_live_);
  peak_all_ = std::max(peak_all_, frames_live_ + user_live_);
  ++tasks_made_;
  ++J.tasks;
  if (++live_tasks_ > peak_live_tasks_) peak_live_tasks_ = live_tasks_;
  J.root_finish = g;
  J.arrived = true;
  J.arrival = now_;
  if (checks_) {
    checks_->created(id);
    checks_->note_root(id, j);
    rf.live = 1;
  }
  J.injected.push_back(id);
}

void engine::loop() {
  while (!done_) {
    if (q_.empty()) throw std::logic_error("simulation stalled: no worker has an event and the job is not done");
    now_ = q_.top_time();
    const std::uint32_t wi = q_.pop();
    if (wi >= nworkers_) {  // the arbiter's clock, or the OS's time slices
      on_machine_event(wi);
      continue;
    }
    if (cores_ && !cores_->holds(wi) && !need_core(wi)) continue;  // off: it waits for a core
    worker& w = w_[wi];
    job& J = jobs_[w.job];
    for (;;) {
      time_ps next = on_event(w);
      ++events_;
      ++w.events;
      if (checks_) J.sched->check();  // DFDeques: Lemma 3.1 after every operation
      if (done_ || next == never || J.done) break;
      next += w.penalty;
      w.penalty = 0;
      if (q_.before_all(next, wi) && (!cores_ || cores_->holds(wi))) {  // off: a sleeper left its core
        now_ = next;
        continue;
      }
      q_.schedule(wi, next);
      break;
    }
  }
}

// The totals over every worker and job, and the end-of-run checks.
run_result engine::totals() {
  run_result r;
  for (std::uint32_t i = 0; i < nworkers_; ++i) {
    w_[i].c.policy_switches = w_[i].adp.switches;
    r.total.add(w_[i].c);
  }
  for (const job& J : jobs_) {
    r.dag.work += J.dag.work;
    r.dag.span = std::max(r.dag.span, J.dag.span);
    r.dag.burdened_span = std::max(r.dag.burdened_span, J.dag.burdened_span);
    const sim_scheduler::tallies t = J.sched->tally();
    r.dfd_steals += t.steals;
    r.dfd_failed_attempts += t.failed_attempts;
    r.dfd_giveups += t.giveups;
    r.dfd_deletions += t.deletions;
    r.dfd_max_deques = std::max<std::uint64_t>(r.dfd_max_deques, t.max_deques);
  }
  r.tasks = tasks_made_;
  r.peak_bytes = peak_all_;
  r.peak_frame_bytes = peak_frames_;
  r.peak_user_bytes = peak_user_;
  r.peak_live_tasks = peak_live_tasks_;
  r.schedule_hash = hash_;
  r.events = events_;
  if (checks_) {
    if (checks_->tasks_created() != checks_->tasks_ended())
      checks_->fail(std::to_string(checks_->tasks_created()) + " tasks created but " +
                    std::to_string(checks_->tasks_ended()) + " ended");
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const job& J = jobs_[j];
      const std::string who = jobs_.size() > 1 ? "job " + std::to_string(j) + ": " : "";
      if (!J.done) checks_->fail(who + "its root finish never completed");
      if (J.src->expected_tasks() && J.src->expected_tasks() != J.tasks)
        checks_->fail(who + "the workload has " + std::to_string(J.src->expected_tasks()) +
                      " tasks, the run created " + std::to_string(J.tasks));
    }
    if (!saved_.empty()) checks_->fail(std::to_string(saved_.size()) + " captured tasks were never resumed");
    r.violations = checks_->violations();
    r.order_checks = checks_->order_checks();
  }
  return r;
}

time_ps engine::on_event(worker& w) {
  if (w.draining) [[unlikely]] return drain(w);  // it lost its core: this event is its safe point
  switch (w.state) {
    case wstate::running: return apply(w);
    case wstate::find_work: return find_work(w);
    case wstate::searching: return search(w);
    case wstate::sleeping: return wake_up(w);
    case wstate::parked: return unpark(w);
  }
  return never;
}

// ---------------------------------------------------------------- running tasks

step engine::fetch(task_id id) {
  task& t = tasks_[id];
  if (t.saved) [[unlikely]] {  // captured when its worker parked: the rest of its strand, then the operation
    t.saved = 0;
    const auto it = saved_.find(id);
    const step s = it->second;
    saved_.erase(it);
    return s;
  }
  step s;
  switch (t.retry) {
    case retry_alloc:  // the allocation that gave up the deque, now after a steal
      t.retry = 0;
      s.what = op::alloc;
      s.bytes = t.retry_bytes;
      return s;
    case big_spawn:  // reserve(m > K): floor(m/K) dummy tasks in a finish (src/core/memory.cpp)
      t.retry = big_wait;
      s.what = op::spawn;
      s.dummy = true;
      s.clause = policy::schedule::wf;
      s.child.a = static_cast<std::uint64_t>(t.retry_bytes) / std::max<std::uint64_t>(1, cfg_.quota);
      return s;
    case big_wait:
      t.retry = big_alloc;
      s.what = op::end_finish;
      return s;
    case big_alloc:
      s.what = op::alloc;
      s.bytes = t.retry_bytes;
      return s;
    case retry_dummy:
      t.retry = 0;
      break;
    default:
      break;
  }
  if (t.builtin) {  // dummy_tree(n): give up, then fork the rest as a binary tree
    const std::uint64_t rest = t.state.a - 1;
    switch (t.state.pc++) {
      case 0: s.what = op::give_up; return s;
      case 1:
        if (rest > 0) {
          s.what = op::spawn;
          s.dummy = true;
          s.clause = policy::schedule::wf;
          s.child.a = rest - rest / 2;
          return s;
        }
        [[fallthrough]];
      case 2:
        t.state.pc = 3;
        if (rest > 1) {
          s.what = op::spawn;
          s.dummy = true;
          s.clause = policy::schedule::wf;
          s.child.a = rest / 2;
          return s;
        }
        return s;
      default:
        return s;
    }
  }
  return jobs_[t.job].src->next(t.state);
}

time_ps engine::run_task(worker& w, task_id id) {
  w.cur = id;
  w.state = wstate::running;
  w.pending = fetch(id);
  return w.pending.work;
}

void engine::begin_strand(worker& w) {
  w.base = w.pre.head();
  ++w.c.tasks_run;
}

time_ps engine::go_idle(worker& w, time_ps cost) {
  w.cur = none;
  w.state = wstate::find_work;
  return now_ + cost;
}

time_ps engine::apply(worker& w) {
  const task_id id = w.cur;
  const step s = w.pending;
  advance(tasks_[id], s.work);
  w.c.busy += s.work;
  trace(w.index, static_cast<std::uint32_t>(s.what), id);
  switch (s.what) {
    case op::start_finish: return op_start_finish(w, id);
    case op::end_finish: return op_end_finish(w, id);
    case op::spawn: return op_spawn(w, id, s);
    case op::call: return op_call(w, id, s);
    case op::ret: return op_ret(w, id);
    case op::alloc: return op_alloc(w, id, s.bytes);
    case op::free: return op_free(w, id, s.bytes);
    case op::give_up:
      ++w.c.dummy_tasks;
      tasks_[id].retry = retry_dummy;
      return give_up_here(w, id);
  }
  return never;
}

// finish_node::open
time_ps engine::op_start_finish(worker& w, task_id id) {
  const finish_id g = take_finish_record();
  task& t = tasks_[id];
  finish& F = fins_[g];
  F.count = 1;
  F.parent = t.cur;
  F.depth = fins_[t.cur].depth + 1;
  F.job = t.job;
  F.span = t.span;
  F.bspan = t.bspan;
  t.cur = g;
  advance(t, c_.finish);
  ++w.c.finishes;
  w.c.busy += c_.finish;
  return now_ + c_.finish + run_task(w, id);
}

void engine::exit_finish(task_id id, finish_id g) {
  task& t = tasks_[id];
  finish& F = fins_[g];
  if (checks_ && F.live != 0)
    checks_->fail("a finish continued with " + std::to_string(F.live) + " of its tasks still running");
  t.cur = F.parent;
  t.span = std::max(t.span, F.span);
  t.bspan = std::max(t.bspan, F.bspan);
  free_fins_.push_back(g);
}

void engine::join_edge(const task& done) {
  finish& F = fins_[done.join];
  F.span = std::max(F.span, done.span);
  // Cilkscale's burden on a spawned task's join (not on the root's).
  F.bspan = std::max(F.bspan, done.bspan + (done.parent != none ? c_.burden : 0));
  if (checks_) --F.live;
}

// end_finish: the fast path when only the body is left, else worker::suspend_at_end.
time_ps engine::op_end_finish(worker& w, task_id id) {
  const finish_id g = tasks_[id].cur;
  finish& F = fins_[g];
  if (F.count == 1) {
    exit_finish(id, g);
    return now_ + run_task(w, id);
  }
  F.waiter = id;
  detach_bottom(w);  // before the release below: afterwards the waiter may run anywhere
  ++w.c.suspensions;
  w.cur = none;
  w.c.busy += c_.suspend;
  return end_unit(w, g, c_.suspend);
}

time_ps engine::end_unit(worker& w, finish_id g, time_ps cost) {
  finish& F = fins_[g];
  if (--F.count != 0) {
    ++w.c.context_switches;
    return go_idle(w, cost);
  }
  if (F.depth == 0) {  // a job's root finish: the run is over
    job_done(F.job, now_ + cost);
    free_fins_.push_back(g);
    return go_idle(w, cost);
  }
  const task_id waiter = F.waiter;
  exit_finish(waiter, g);
  return now_ + cost + run_task(w, waiter);
}

void engine::job_done(std::uint32_t j, time_ps at) {
  job& J = jobs_[j];
  J.done = true;
  J.end = at;
  const finish& rf = fins_[J.root_finish];
  J.dag.span = rf.span;
  J.dag.burdened_span = rf.bspan;
  if (sharing_) retire(J);  // its workers leave; its cores are free at the next boundary
  if (--jobs_left_ == 0) done_ = true;
}

time_ps engine::op_spawn(worker& w, task_id id, const step& s) {
  const task_id cid = new_task(w, id, s, task_kind::spawned);
  task& t = tasks_[id];
  task& c = tasks_[cid];
  advance(t, c_.spawn_wf);  // the serial work-first cost: the DAG's weight, whatever the policy
  c.span = t.span;
  c.bspan = t.bspan;
  t.bspan += c_.burden;  // Cilkscale's burden on the continuation
  const auto depth = static_cast<std::int32_t>(w.pre.head() - w.base);
  const policy::decision d = policy::decide(
      cfg_.adp, w.adp, cfg_.mode, s.clause, depth, w.fresh.size_estimate(), [&w] { return w.fresh.refresh_size(); },
      [&w] { return w.stolen_pre + w.stolen_fresh; });
  w.last_decision = d.policy;
  if (d.policy == policy::spawn_policy::hf) {
    c.kind = task_kind::queued;
    ++fins_[c.join].count;
    if (w.fresh.push(make_entry(cid))) on_exposed(w);
    ++w.c.spawns_hf;
    w.c.max_fresh = std::max<std::uint64_t>(w.c.max_fresh, w.fresh.size_estimate());
    w.c.busy += c_.spawn_hf;
    return now_ + c_.spawn_hf + run_task(w, id);
  }
  if (w.quota.preempt_pending()) return give_up_at_spawn(w, id, cid);
  if (w.pre.push(make_entry(cid))) on_exposed(w);
  ++w.c.spawns_wf;
  const auto after = static_cast<std::int32_t>(w.pre.head() - w.base);
  if (after > 0) w.c.max_wf_depth = std::max<std::uint64_t>(w.c.max_wf_depth, static_cast<std::uint64_t>(after));
  w.c.busy += c_.spawn_wf;
  return now_ + c_.spawn_wf + run_task(w, cid);
}

time_ps engine::op_call(worker& w, task_id id, const step& s) {
  const task_id cid = new_task(w, id, s, task_kind::called);
  task& t = tasks_[id];
  task& c = tasks_[cid];
  advance(t, c_.call);
  c.span = t.span;
  c.bspan = t.bspan;
  ++w.c.calls;
  if (w.quota.preempt_pending()) return give_up_at_call(w, cid);
  w.c.busy += c_.call;
  return now_ + c_.call + run_task(w, cid);
}

time_ps engine::op_ret(worker& w, task_id id) {
  task& t = tasks_[id];
  if (checks_) checks_->ended(id);
  free_bytes(t.owner, t.bytes, false);
  switch (t.kind) {
    case task_kind::called: {  // back to the caller, sequentially
      const task_id p = t.parent;
      tasks_[p].span = t.span;
      tasks_[p].bspan = t.bspan;
      release_task(id);
      return now_ + run_task(w, p);
    }
    case task_kind::spawned: return complete_spawned(w, id);
    case task_kind::queued: return complete_queued(w, id);
  }
  return never;
}

// worker::complete_spawned and complete_spawned_slow.
time_ps engine::complete_spawned(worker& w, task_id id) {
  const entry me = make_entry(id);
  bool mine = false;
  if (w.pre.private_bottom_is(me)) {
    w.pre.drop_private_bottom();
    mine = true;
  } else if (w.pre.private_empty()) {
    entry got = no_entry;
    const std::uint32_t head_before = w.pre.head();
    if (w.pre.pop_shared(me, got) == sim_deque::shared_pop::got) {
      if (w.pre.head() == head_before) ++w.base;  // taken by advancing tail: keep depth = head - base
      mine = true;
    }
  }
  if (!mine) return complete_queued(w, id);  // detached: end the unit it was counted as
  const task& t = tasks_[id];
  join_edge(t);
  const task_id p = t.parent;
  release_task(id);
  return now_ + run_task(w, p);
}

// worker::complete_queued: a counted unit ends.
time_ps engine::complete_queued(worker& w, task_id id) {
  const task& t = tasks_[id];
  join_edge(t);
  const finish_id g = t.join;
  const bool root = t.parent == none;
  release_task(id);
  ++w.c.arrivals;
  w.c.busy += c_.arrive;
  w.cur = none;
  finish& F = fins_[g];
  if (F.count == 1 || root) return end_unit(w, g, c_.arrive);
  --F.count;
  ++w.c.context_switches;
  return go_idle(w, c_.arrive);
}

// worker::detach_bottom: the chain stops here; its innermost work-first child, if its entry is still
// at the bottom, is counted in its finish and the entry becomes its parent's tagged continuation (W1).
void engine::detach_bottom(worker& w) {
  entry e = no_entry;
  if (!w.pre.private_empty()) {
    e = w.pre.pop();
  } else if (w.pre.pop_shared(no_entry, e) == sim_deque::shared_pop::stolen) {
    return;
  }
  if (e == no_entry) return;
  w.pre.push(make_entry(detach_entry(e), parent_tag));
}

task_id engine::detach_entry(entry e) {
  if (e & entry_tags) return entry_task(e);
  const task& child = tasks_[entry_task(e)];
  ++fins_[child.join].count;
  return child.parent;
}

task_id engine::yield_continuation(worker& v) {
  const entry e = v.pre.steal();
  if (e == no_entry) return none;
  ++v.stolen_pre;
  ++v.c.stolen_preempted;
  return detach_entry(e);
}

task_id engine::yield_fresh(worker& v) {
  const entry e = v.fresh.steal();
  if (e == no_entry) return none;
  ++v.stolen_fresh;
  ++v.c.stolen_fresh;
  return entry_task(e);
}

// ---------------------------------------------------------------- memory (slaw::make_buffer)

time_ps engine::op_alloc(worker& w, task_id id, std::int64_t bytes) {
  task& t = tasks_[id];
  if (w.quota.enabled()) {
    if (t.retry == big_alloc) {  // the dummies paid for it: reserved, not charged
      t.retry = 0;
      w.quota.reserve_large(bytes);
    } else {
      const policy::reservation_plan plan = policy::plan_reservation(
          static_cast<std::uint64_t>(bytes), w.quota.k(), [] { return std::numeric_limits<std::int64_t>::max(); });
      if (plan.step == policy::reservation_step::run_dummy_tasks && plan.dummy_tasks > max_dummy_tasks)
        throw std::invalid_argument(
            jobs_[t.job].src->name() + ": a task allocates " + std::to_string(bytes) + " bytes; under DFDeques with K = " +
            std::to_string(w.quota.k()) + " its reservation runs floor(m/K) = " + std::to_string(plan.dummy_tasks) +
            " dummy tasks, more than the simulator's limit of " + std::to_string(max_dummy_tasks) +
            " per allocation; give a --K of at least " + std::to_string(static_cast<std::uint64_t>(bytes) / max_dummy_tasks + 1) +
            " (or inf)");
      if (plan.step == policy::reservation_step::run_dummy_tasks) {
        t.retry = big_spawn;
        t.retry_bytes = bytes;
        const time_ps more = op_start_finish(w, id);  // fetches the spawn of the dummies next
        return more;
      }
      if (!w.quota.fits(bytes, w.live)) {  // wait for quota: give up the deque, retry after a steal
        t.retry = retry_alloc;
        t.retry_bytes = bytes;
        return give_up_here(w, id);
      }
      note_quota_used(w, w.quota.reserve(bytes, w.live));
    }
    w.quota.consume_reservation(bytes);
  }
  t.user_owner = static_cast<std::uint16_t>(w.index);
  alloc_bytes(w, bytes, policy::memory_kind::user);
  return now_ + run_task(w, id);
}

time_ps engine::op_free(worker& w, task_id id, std::int64_t bytes) {
  free_bytes(tasks_[id].user_owner, bytes, true);
  return now_ + run_task(w, id);
}

// ---------------------------------------------------------------- DFDeques give-ups (give_up.cpp)

time_ps engine::give_up(worker& w, entry below, entry top) {
  detach_bottom(w);
  if (below != no_entry) w.pre.push(below);
  w.pre.push(top);
  const time_ps took = job_of(w).sched->give_up(w);
  ++w.c.quota_giveups;
  on_exposed(w);  // wake a sleeper for the work handed over
  job_of(w).sched->check();
  return go_idle(w, took);
}

// Fork with the quota spent: both the parent and the child go on the deque (Narlikar Fig. 5).
time_ps engine::give_up_at_spawn(worker& w, task_id parent, task_id child) {
  ++w.c.spawns_wf;
  task& c = tasks_[child];
  c.kind = task_kind::queued;
  ++fins_[c.join].count;
  c.start_charge = static_cast<std::uint32_t>(w.quota.take_deferred());
  return give_up(w, make_entry(parent, parent_tag), make_entry(child, start_tag));
}

time_ps engine::give_up_at_call(worker& w, task_id callee) {
  tasks_[callee].start_charge = static_cast<std::uint32_t>(w.quota.take_deferred());
  return give_up(w, no_entry, make_entry(callee, start_tag));
}

time_ps engine::give_up_here(worker& w, task_id self) {
  (void)w.quota.take_deferred();
  return give_up(w, no_entry, make_entry(self, parent_tag));
}

// ---------------------------------------------------------------- the idle routine (find_work)

// Routine 1 step 1 (worker::take_own): the bottoms of both deques, the deepest in the sync tree first,
// preempted first on a tie (policy::pick_own_task); the other goes back.
task_id engine::take_own(worker& w) {
  bool exposed = false;
  if (w.pre.split_requested()) {
    w.pre.expose();
    exposed = true;
  }
  if (w.fresh.split_requested()) {
    w.fresh.expose();
    exposed = true;
  }
  if (exposed) on_exposed(w);
  const entry p = w.pre.pop();
  const entry f = w.fresh.pop();
  std::optional<std::uint32_t> pre_depth, fresh_depth;
  if (p != no_entry) pre_depth = fins_[tasks_[entry_task(p)].cur].depth;
  if (f != no_entry) fresh_depth = fins_[tasks_[entry_task(f)].join].depth;
  const policy::own_task pick = policy::pick_own_task(pre_depth, fresh_depth);
  if (pick == policy::own_task::none) return none;
  ++w.c.local_takes;
  if (pick == policy::own_task::fresh) {
    if (p != no_entry) w.pre.push(p);
    return entry_task(f);
  }
  if (f != no_entry) w.fresh.push(f);
  if (checks_ && !(p & parent_tag)) checks_->fail("W1: an untagged entry at the bottom of an idle worker's deque");
  return entry_task(p);
}

time_ps engine::find_work(worker& w) {
  task_id own = take_own(w);
  time_ps mugging = 0;
  if (own == none && sharing_ && mug(w)) {  // several jobs: a parked worker's deques before stealing
    own = take_own(w);
    mugging = vary(w, c_.probe) + vary(w, c_.steal);
  }
  if (own != none) {
    begin_strand(w);
    w.c.busy += c_.take + mugging;
    trace(w.index, 1000, own);
    return now_ + c_.take + mugging + run_task(w, own);
  }
  start_searching(w);
  return search(w);
}

void engine::start_searching(worker& w) {
  job& J = job_of(w);
  ++J.idle;
  ++J.searching;
  w.state = wstate::searching;
  w.rounds = 0;
  w.round.reset();
  w.backoff_ns = cfg_.idle.backoff_first_ns;
}

// One event of the search loop: a round's start (a root task, else the scheduler's round), one probe,
// or, after spin_rounds fruitless rounds, an attempt to sleep.
time_ps engine::search(worker& w) {
  job& J = job_of(w);
  if (!w.round) {
    if (!J.injected.empty()) {  // take_root
      const task_id r = J.injected.front();
      J.injected.pop_front();
      found_work(w);
      J.sched->begin_root(w);
      begin_strand(w);
      w.c.busy += c_.take;
      trace(w.index, 1001, r);
      if (checks_) J.sched->check();
      return now_ + c_.take + run_task(w, r);
    }
    if (sharing_ && !J.muggable.empty() && mug(w)) {  // several jobs: mug before stealing
      const task_id own = take_own(w);
      found_work(w);
      begin_strand(w);
      const time_ps cost = vary(w, c_.probe) + vary(w, c_.steal) + c_.take;
      w.c.busy += cost;
      trace(w.index, 1002, own);
      return now_ + cost + run_task(w, own);
    }
    if (w.rounds > 0 && !policy::keep_spinning(w.rounds, cfg_.idle)) return try_sleep(w);
    if (!J.sched->begin_round(w)) {  // nobody to steal from
      if (sharing_) count_self_pick(w);  // its only possible victim is itself
      ++w.c.failed_steals;
      ++w.rounds;
      ++w.c.spins;
      return now_ + vary(w, c_.probe) + vary(w, c_.spin);
    }
  }
  const probe_result r = J.sched->probe(w);
  const time_ps probe = vary(w, c_.probe);
  if (r.task != none) {
    w.round.reset();
    found_work(w);
    begin_strand(w);
    const time_ps steal = vary(w, c_.steal);
    w.c.busy += steal;
    if (checks_) J.sched->check();
    return now_ + probe + steal + run_task(w, r.task);
  }
  if (!r.round_over) return now_ + probe;
  w.round.reset();
  ++w.c.failed_steals;
  ++w.rounds;
  if (policy::keep_spinning(w.rounds, cfg_.idle)) {
    ++w.c.spins;
    return now_ + probe + vary(w, c_.spin);
  }
  return now_ + probe;  // the next event tries to sleep
}

// parking_lot::sleep: register as a sleeper, re-check the visible work, then sleep (timed if this was
// the last searcher while someone works).
time_ps engine::try_sleep(worker& w) {
  job& J = job_of(w);
  w.rounds = 0;
  ++J.sleepers;
  const std::uint32_t left = --J.searching;
  if (work_visible(J)) {
    --J.sleepers;
    ++J.searching;
    return now_ + c_.probe;
  }
  const bool timed = policy::timed_sleep(left, J.idle, J.awake);
  w.state = wstate::sleeping;
  J.sleep_queue.emplace_back(w.index, ++ticket_[w.index]);
  if (cores_) give_core(w);  // off: a sleeper leaves its core to the next runnable worker
  if (!timed) {
    w.poll.at = -1;
    return never;
  }
  const time_ps at = now_ + c_.park + w.backoff_ns * 1000;
  const bool capped = policy::next_backoff(w.backoff_ns, cfg_.idle) == w.backoff_ns;
  w.backoff_ns = policy::next_backoff(w.backoff_ns, cfg_.idle);
  if (!capped) {
    w.poll.at = -1;
    return at;
  }
  return at + skip_quiet_polls(w, J);
}

// The last searcher polls with a timed sleep while a worker is busy, every backoff_max_ns at the cap
// (2 ms): one strand of 2^52 ns made 2^41 polls, each a wake-up and spin_rounds steal rounds, which
// the engine ran one by one for ever. A poll that finds nothing changes nothing but counters and the
// worker's random streams; so if w's previous poll (from its last timed sleep at the cap to this one)
// saw no event of any other worker, nothing can change what it sees before the next such event, and
// every poll until then repeats that one. k of them are skipped: their counters (and the engine's
// event count) are added, the worker's random streams advanced as far as they would have gone, and the
// sleep ends k polls later. k leaves at least one whole poll before the next event, which is then
// simulated as before. Without cost jitter this is exact (tested against
// run_config::fast_forward_polls = false: same time, counters, events and schedule hash); with jitter
// the skipped polls each take the last one's length. Not with several jobs, whose machine events
// (quanta, time slices) interleave. Returns the time added to the sleep.
time_ps engine::skip_quiet_polls(worker& w, job& J) {
  time_ps extra = 0;
  const worker::poll_mark& m = w.poll;
  const sim_scheduler::tallies t = J.sched->tally();
  if (cfg_.fast_forward_polls && !sharing_ && !cores_ && m.at >= 0 && !q_.empty()) {
    const std::uint64_t all = events_ - m.events, own = w.events - m.own_events;
    // Quiet: only its own events, one sleep and one wake-up, and only the idle counters moved.
    worker_counters rest = w.c;
    rest.parks = m.c.parks;
    rest.wakes = m.c.wakes;
    rest.failed_steals = m.c.failed_steals;
    rest.probes = m.c.probes;
    rest.spins = m.c.spins;
    const bool quiet = all == own && rest == m.c && w.c.parks == m.c.parks + 1 && w.c.wakes == m.c.wakes + 1 &&
                       t.steals == m.dfd_steals && t.giveups == m.dfd_giveups;
    const time_ps cycle = now_ - m.at;
    if (quiet && cycle > 0) {
      const time_ps room = q_.top_time() - now_;  // until another worker's next event
      const time_ps k = room / cycle - 1;
      if (k >= 1) {
        const auto n = static_cast<std::uint64_t>(k);
        w.c.parks += n;
        w.c.wakes += n;
        w.c.failed_steals += n * (w.c.failed_steals - m.c.failed_steals);
        w.c.probes += n * (w.c.probes - m.c.probes);
        w.c.spins += n * (w.c.spins - m.c.spins);
        J.sched->add_failed_attempts(n * (t.failed_attempts - m.dfd_failed));
        events_ += n * all;
        w.events += n * all;
        // The random streams where the skipped polls would have left them: the victims' xorshift
        // jumped, the jitter's counter advanced.
        const std::uint64_t draws = n * (w.draws - m.draws);
        w.rng = xorshift_jump(w.rng, draws);
        w.draws += draws;
        w.jitter_state += n * (w.jitter_state - m.jitter_state);
        extra = k * cycle;  // <= room
      }
    }
  }
  w.poll.at = now_ + extra;
  w.poll.events = events_;
  w.poll.own_events = w.events;
  w.poll.c = w.c;
  const sim_scheduler::tallies after = J.sched->tally();
  w.poll.dfd_steals = after.steals;
  w.poll.dfd_failed = after.failed_attempts;
  w.poll.dfd_giveups = after.giveups;
  w.poll.draws = w.draws;
  w.poll.jitter_state = w.jitter_state;
  return extra;
}

// The sleeper runs again (woken, or its timeout passed): it searches.
time_ps engine::wake_up(worker& w) {
  job& J = job_of(w);
  ++ticket_[w.index];  // leaves the sleepers' queue, if still in it
  --J.sleepers;
  ++J.searching;
  ++w.c.parks;
  ++w.c.wakes;
  w.state = wstate::searching;
  w.round.reset();
  w.rounds = 0;
  return search(w);
}

void engine::wake_one(job& J, worker* waker) {
  while (!J.sleep_queue.empty()) {
    const auto [i, ticket] = J.sleep_queue.front();
    J.sleep_queue.pop_front();
    if (ticket != ticket_[i]) continue;  // stale: it woke on its own
    ++ticket_[i];
    if (waker) waker->penalty += c_.wake_call;
    // off: a sleeper already waiting for a core wakes when it gets one (its event is due then).
    if (!(cores_ && cores_->waiting(i))) q_.schedule(i, now_ + (waker ? c_.wake_call : 0) + c_.wake);
    return;
  }
}

void engine::found_work(worker& w) {
  job& J = job_of(w);
  const std::uint32_t before = J.searching--;
  --J.idle;
  if (policy::wake_on_found(before, J.sleepers)) wake_one(J, &w);
}

void engine::on_exposed(worker& waker) {
  job& J = job_of(waker);
  if (policy::wake_on_exposed(J.sleepers, J.searching)) wake_one(J, &waker);
}

time_ps engine::vary(worker& w, time_ps c) {
  if (c_.jitter == 0 || c == 0) return c;
  const double u = unit_interval(mix64(++w.jitter_state));
  return static_cast<time_ps>(static_cast<double>(c) * (1.0 - c_.jitter + 2.0 * c_.jitter * u));
}

bool engine::work_visible(const job& J) const {
  if (!J.injected.empty() || J.sched->holds_work() || !J.muggable.empty()) return true;
  for (std::uint32_t i = J.base; i < J.base + J.count; ++i)
    if (!w_[i].pre.looks_empty() || !w_[i].fresh.looks_empty()) return true;
  return false;
}

// ---------------------------------------------------------------- counters and the entry point

void worker_counters::add(const worker_counters& o) {
  spawns_wf += o.spawns_wf;
  spawns_hf += o.spawns_hf;
  calls += o.calls;
  finishes += o.finishes;
  steals_preempted += o.steals_preempted;
  steals_fresh += o.steals_fresh;
  stolen_preempted += o.stolen_preempted;
  stolen_fresh += o.stolen_fresh;
  failed_steals += o.failed_steals;
  probes += o.probes;
  context_switches += o.context_switches;
  suspensions += o.suspensions;
  arrivals += o.arrivals;
  local_takes += o.local_takes;
  tasks_run += o.tasks_run;
  policy_switches += o.policy_switches;
  max_wf_depth = std::max(max_wf_depth, o.max_wf_depth);
  max_fresh = std::max(max_fresh, o.max_fresh);
  parks += o.parks;
  wakes += o.wakes;
  spins += o.spins;
  quota_giveups += o.quota_giveups;
  dummy_tasks += o.dummy_tasks;
  quota_max_used = std::max(quota_max_used, o.quota_max_used);
  quota_overrun_bytes += o.quota_overrun_bytes;
  busy += o.busy;
  mugs += o.mugs;
  drains += o.drains;
  preemptions += o.preemptions;
  overrun += o.overrun;
}

run_result simulate(dag_source& source, const costs& c, const run_config& cfg) {
  engine e(source, c, cfg);
  return e.run();
}

}  // namespace slaw::sim
