// The engine's frame: construction, the event loop, task and finish records, memory accounting and
// the run's totals (docs/simulation.md, "Engine"). What an event does lives by mechanism beside it:
//   engine_tasks.cpp    a running task's operations and the finish protocol (docs/design/finish.md)
//   engine_quota.cpp    DFDeques' quota at allocations: reservations and give-ups
//   engine_idle.cpp     the idle routine: own work, steal rounds, sleeping, waking, quiet polls
//   engine_sharing.cpp  several jobs under two-level scheduling
#include "sim/engine.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "sim/checks.hpp"
#include "sim/core_sharing.hpp"
#include "sim/engine_internal.hpp"
#include "sim/scheduler.hpp"
#include "sim/workloads.hpp"

namespace slaw::sim {

using namespace engine_detail;

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
      w.pre.set_expose_after_request(cfg_.what.expose_after_request, cfg_.what.expose_min_thieves);
      w.fresh.set_expose_after_request(cfg_.what.expose_after_request, cfg_.what.expose_min_thieves);
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
