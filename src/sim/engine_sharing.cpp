// Several jobs under two-level scheduling (sharing.hpp; docs/simulation.md, "Several jobs"): arrivals,
// the quantum boundaries where desires become allotments, a job's side of an allotment (parking,
// waking, mugging, capturing a task at a safe point or preempting it a quantum later), and the cores'
// time-sharing under off. The decisions are the runtime's policy functions: policy::next_desire
// (desire.hpp) and policy::allot (allotment.hpp).
#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

#include "sim/checks.hpp"
#include "sim/core_sharing.hpp"
#include "sim/engine.hpp"
#include "sim/scheduler.hpp"

namespace slaw::sim {

namespace {
// Task owners are 16-bit (0xFFFF: the thread calling run), so all jobs' workers together stay below.
constexpr std::uint32_t max_all_workers = 0xFFFF;
}  // namespace

engine::engine(std::span<const job_input> jobs, const costs& c, const run_config& cfg, const sharing_config& s)
    : cfg_(cfg), c_(c), q_(0) {
  if (jobs.empty()) throw std::invalid_argument("no jobs to run");
  if (cfg_.workers < 1 || cfg_.workers > max_workers)
    throw std::invalid_argument("workers=" + std::to_string(cfg_.workers) + ": expected 1.." + std::to_string(max_workers));
  if (cfg_.quota > max_quota)
    throw std::invalid_argument("K=" + std::to_string(cfg_.quota) + ": expected 1..2^62 bytes, or 0 for inf");
  if (s.cores < 1 || s.cores > max_workers)
    throw std::invalid_argument("cores=" + std::to_string(s.cores) + ": expected 1.." + std::to_string(max_workers));
  if (static_cast<std::uint64_t>(cfg_.workers) * jobs.size() >= max_all_workers)
    throw std::invalid_argument(std::to_string(jobs.size()) + " jobs of " + std::to_string(cfg_.workers) +
                                " workers: at most " + std::to_string(max_all_workers - 1) + " workers in all");
  if (s.quantum <= 0) throw std::invalid_argument("the quantum must be > 0");
  if (s.timeslice <= 0) throw std::invalid_argument("the time slice must be > 0");
  if (const std::string_view why = policy::invalid_reason(s.desire); !why.empty())
    throw std::invalid_argument("desire parameters: " + std::string(why));
  jobs_.resize(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (!jobs[j].source) throw std::invalid_argument("job " + std::to_string(j) + " has no workload");
    if (jobs[j].arrival < 0) throw std::invalid_argument("job " + std::to_string(j) + " arrives before time 0");
    jobs_[j].src = jobs[j].source;
    jobs_[j].arrival = jobs[j].arrival;
  }
  sharing_ = true;
  share_ = s;
  setup_workers();
  q_ = event_queue(nworkers_ + 2);  // + the arbiter's clock and the OS's time slices
  if (s.arbiter == policy::arbiter::off) cores_ = std::make_unique<core_sharing>(s.cores, s.timeslice, nworkers_);
  arrival_order_.resize(jobs.size());
  std::iota(arrival_order_.begin(), arrival_order_.end(), 0u);
  std::sort(arrival_order_.begin(), arrival_order_.end(), [this](std::uint32_t a, std::uint32_t b) {
    return jobs_[a].arrival != jobs_[b].arrival ? jobs_[a].arrival < jobs_[b].arrival : a < b;
  });
  dparams_ = s.desire;
  dparams_.max_desire = std::min(dparams_.max_desire, static_cast<double>(cfg_.workers));  // I6
  dparams_.initial = std::min(dparams_.initial, dparams_.max_desire);
  dparams_.min_desire = std::min(dparams_.min_desire, dparams_.initial);
  // S_max = a·L / t_steal (I2): a fruitless attempt costs a probe and its share of the round's spin.
  steal_ns_ = to_ns(c_.probe) + to_ns(c_.spin) / static_cast<double>(policy::steal_probes);
}

sharing_result simulate_jobs(std::span<const job_input> jobs, const costs& c, const run_config& cfg,
                             const sharing_config& s) {
  engine e(jobs, c, cfg, s);
  return e.run_jobs();
}

sharing_result engine::run_jobs() {
  const auto wall0 = std::chrono::steady_clock::now();
  jobs_left_ = static_cast<std::uint32_t>(jobs_.size());
  for (std::uint32_t i = 0; i < nworkers_; ++i) {  // nobody runs before its job arrives
    w_[i].state = wstate::parked;
    w_[i].active = false;
  }
  for (job& J : jobs_) J.victims.clear();
  schedule_machine();
  loop();
  sharing_result out;
  out.run = totals();
  out.first_arrival = jobs_[arrival_order_.front()].arrival;
  time_ps last = 0;
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    const job& J = jobs_[j];
    job_result r;
    r.arrival = J.arrival;
    r.end = J.end;
    r.dag = J.dag;
    r.tasks = J.tasks;
    for (std::uint32_t i = J.base; i < J.base + J.count; ++i) r.total.add(w_[i].c);
    out.busy += r.total.busy;
    last = std::max(last, J.end);
    out.jobs.push_back(r);
  }
  out.run.makespan = last - out.first_arrival;
  out.quanta = std::move(quanta_);
  out.allotted = allotted_;
  out.allotment_rounds = allotment_rounds_;
  out.run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

void engine::count_attempt(const worker& thief, bool purely_unsuccessful, std::uint64_t victim_queued) noexcept {
  quantum_counters& q = jobs_[thief.job].qc;
  ++q.attempts;
  if (purely_unsuccessful) ++q.purely;
  q.length += victim_queued;
}

void engine::count_self_pick(const worker& thief) noexcept {
  if (share_.self_picks) count_attempt(thief, true, 0);
}

std::uint32_t engine::present_jobs() const {
  std::uint32_t n = 0;
  for (const job& J : jobs_) n += J.arrived && !J.done;
  return n;
}

// ---------------------------------------------------------------- the arbiter's clock

void engine::schedule_machine() {
  time_ps t = never;
  if (next_arrival_ < arrival_order_.size()) t = jobs_[arrival_order_[next_arrival_]].arrival;
  if (present_jobs() > 0) t = std::min(t, next_boundary_);
  if (t == never) q_.cancel(nworkers_);
  else q_.schedule(nworkers_, t);
}

void engine::on_machine_event(std::uint32_t which) {
  if (which == nworkers_ + 1) {
    on_slice_end();
  } else {
    while (next_arrival_ < arrival_order_.size() && jobs_[arrival_order_[next_arrival_]].arrival <= now_)
      arrive(arrival_order_[next_arrival_++]);
    if (now_ >= next_boundary_ && present_jobs() > 0) boundary();
    schedule_machine();
  }
  if (checks_)
    for (job& J : jobs_) J.sched->check();
}

// A job arrives: its root is injected; under off its runtime starts as slaw does (every worker asleep,
// the root wakes one); otherwise it gets a core now if one is free (d(1) = 1), else at the boundary.
void engine::arrive(std::uint32_t j) {
  job& J = jobs_[j];
  const bool first = present_jobs() == 0;
  account_allotted();
  start_job(j);
  J.desire.reset(dparams_);
  J.quantum = 1;
  J.quantum_start = now_;
  J.busy_at_start = 0;
  J.qc = {};
  if (first) next_boundary_ = (now_ / share_.quantum + 1) * share_.quantum;  // the arbiter's global grid
  if (share_.arbiter == policy::arbiter::off) {
    for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
      w_[i].state = wstate::sleeping;
      w_[i].active = true;
      J.sleep_queue.emplace_back(i, ticket_[i]);
    }
    J.sleepers = J.idle = J.awake = J.holders = J.allotment = J.count;
    rebuild_victims(J);
    wake_one(J, nullptr);
  } else {
    std::uint32_t used = 0;
    for (const job& K : jobs_)
      if (&K != &J && K.arrived && !K.done) used += K.allotment;
    const std::uint32_t free = used < share_.cores ? share_.cores - used : 0;
    set_allotment(j, std::min(free, policy::desire_want(J.desire.desire, share_.cores)));
  }
  J.allotment_q = J.allotment;
  account_allotted();
  check_allotments();
}

// The end of a quantum: each present job's desire from its counters, then the arbiter's allotments.
void engine::boundary() {
  account_allotted();
  ++allotment_rounds_;
  std::vector<std::uint32_t> present;
  std::vector<policy::job_demand> demand;
  std::vector<std::size_t> record;  // each present job's new quantum record, or none
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    job& J = jobs_[j];
    if (!J.arrived || J.done) continue;
    std::size_t rec = static_cast<std::size_t>(-1);
    if (now_ > J.quantum_start) {  // arrived on this boundary: no quantum yet, it keeps d(1)
      quantum_record q;
      q.job = j;
      q.quantum = J.quantum;
      q.start = J.quantum_start;
      q.end = now_;
      q.desire = J.desire.desire;
      q.sample = sample(J);
      q.terms = policy::adeque_estimate(q.sample, dparams_);
      const time_ps busy = busy_so_far(J);
      q.busy_measured = static_cast<double>(busy - J.busy_at_start) / static_cast<double>(now_ - J.quantum_start);
      q.next_desire = policy::next_desire(share_.rule, J.desire, q.sample, dparams_);
      ++J.quantum;
      J.quantum_start = now_;
      J.busy_at_start = busy;
      J.qc = {};
      rec = quanta_.size();
      quanta_.push_back(q);
    }
    present.push_back(j);
    demand.push_back({J.desire.desire, J.count});
    record.push_back(rec);
  }
  std::vector<std::uint32_t> out(present.size());
  const auto round = static_cast<std::uint64_t>(now_ / share_.quantum);  // the odd cores go round (D2)
  policy::allot(share_.arbiter, demand, share_.cores, out, round);
  for (std::size_t k = 0; k < present.size(); ++k) {
    set_allotment(present[k], out[k]);
    jobs_[present[k]].allotment_q = jobs_[present[k]].allotment;
    if (record[k] != static_cast<std::size_t>(-1)) quanta_[record[k]].next_allotment = out[k];
  }
  // A worker still draining since an earlier boundary is preempted now, mid-strand: a job never runs
  // past its allotment for more than one quantum.
  for (std::uint32_t j : present) {
    const job& J = jobs_[j];
    for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
      worker& w = w_[i];
      if (!w.draining || w.drain_since >= now_) continue;
      const time_ps at = q_.scheduled(i) ? q_.time_of(i) : now_;
      q_.cancel(i);
      if (w.state == wstate::running) {
        capture(w, at - now_);
        ++w.c.preemptions;
      }
      park(w);
    }
  }
  next_boundary_ = now_ + share_.quantum;
  account_allotted();
  check_allotments();
  // A present job with cores must have a worker that will run: otherwise the model lost its work.
  for (std::uint32_t j : present) {
    const job& J = jobs_[j];
    if (J.allotment == 0) continue;
    bool alive = false;
    for (std::uint32_t i = J.base; i < J.base + J.count && !alive; ++i)
      alive = q_.scheduled(i) || (cores_ && cores_->waiting(i));
    if (!alive)
      throw std::logic_error("simulation stalled: job " + std::to_string(j) + " has " + std::to_string(J.allotment) +
                             " cores and no worker with an event");
  }
}

// The digest's §IV-B counters of the quantum that ends now, with e and Q' seen now.
policy::quantum_sample engine::sample(job& J) const {
  policy::quantum_sample x;
  x.allotment = J.allotment_q;
  x.steal_attempts = J.qc.attempts;
  x.purely_unsuccessful = J.qc.purely;
  x.sampled_length = J.qc.length;
  x.mugs = J.qc.mugs;
  x.max_steal_attempts = policy::max_steal_attempts(J.allotment_q, to_ns(now_ - J.quantum_start), steal_ns_);
  std::uint32_t deques = J.holders;  // the active workers' deques
  std::uint64_t queued = 0;
  for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
    const worker& w = w_[i];
    const std::uint64_t n = w.pre.size() + w.fresh.size();
    queued += n;
    if (!w.active && n > 0) ++deques;  // a muggable deque (or a draining worker's)
  }
  const sim_scheduler::spare_work spare = J.sched->spare();
  x.active_deques = deques + spare.deques;
  x.queued = queued + spare.entries;
  return x;
}

// Core time J's workers have spent working by now: their counters, plus the strands under way.
time_ps engine::busy_so_far(const job& J) const {
  time_ps b = 0;
  for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
    const worker& w = w_[i];
    b += w.c.busy;
    if (w.state == wstate::running && q_.scheduled(i)) {
      const time_ps began = q_.time_of(i) - w.pending.work;
      if (now_ > began) b += std::min(now_ - began, w.pending.work);
    }
  }
  return b;
}

// ---------------------------------------------------------------- a job's side of its allotment

void engine::set_allotment(std::uint32_t j, std::uint32_t a) {
  job& J = jobs_[j];
  a = std::min(a, J.count);
  J.allotment = a;
  if (share_.arbiter == policy::arbiter::off) return;  // every worker runs
  std::vector<std::uint32_t> pick;
  if (J.holders > a) {
    // Cores are given up by idle workers first (nothing to capture), then by running ones, the highest
    // index first (the digest's §8 item 10).
    auto rank = [](const worker& w) {
      switch (w.state) {
        case wstate::parked: return 0;  // woken, not started yet
        case wstate::sleeping: return 1;
        case wstate::searching: return 2;
        case wstate::find_work: return 3;
        case wstate::running: return 4;
      }
      return 4;
    };
    for (std::uint32_t i = J.base; i < J.base + J.count; ++i)
      if (w_[i].active) pick.push_back(i);
    std::sort(pick.begin(), pick.end(), [&](std::uint32_t x, std::uint32_t y) {
      const int rx = rank(w_[x]), ry = rank(w_[y]);
      return rx != ry ? rx < ry : x > y;
    });
    pick.resize(J.holders - a);
    for (std::uint32_t i : pick) deactivate(w_[i]);
  } else if (J.holders < a) {
    // Cores go to workers still draining (they have not left yet), then to parked ones whose deques
    // hold work (they resume it), then the lowest index first.
    auto rank = [](const worker& w) {
      if (w.draining) return 0;
      return w.pre.size() + w.fresh.size() > 0 ? 1 : 2;
    };
    for (std::uint32_t i = J.base; i < J.base + J.count; ++i)
      if (!w_[i].active) pick.push_back(i);
    std::sort(pick.begin(), pick.end(), [&](std::uint32_t x, std::uint32_t y) {
      const int rx = rank(w_[x]), ry = rank(w_[y]);
      return rx != ry ? rx < ry : x < y;
    });
    pick.resize(a - J.holders);
    for (std::uint32_t i : pick) activate(w_[i]);
  }
  rebuild_victims(J);
}

void engine::activate(worker& w) {
  job& J = job_of(w);
  w.active = true;
  ++J.holders;
  if (w.draining) {  // it keeps its core and goes on
    w.draining = false;
    w.c.overrun += now_ - w.drain_since;
    return;
  }
  q_.schedule(w.index, now_ + c_.wake);  // woken like a futex sleeper; unpark() then finds work
}

void engine::deactivate(worker& w) {
  job& J = job_of(w);
  w.active = false;
  --J.holders;
  switch (w.state) {
    case wstate::parked:  // woken but not started: it stays parked
      q_.cancel(w.index);
      return;
    case wstate::sleeping:
      --J.sleepers;
      --J.idle;
      ++ticket_[w.index];  // leaves the sleepers' queue
      q_.cancel(w.index);
      park(w);
      return;
    case wstate::searching:
      --J.searching;
      --J.idle;
      q_.cancel(w.index);
      park(w);
      return;
    case wstate::find_work:
    case wstate::running:  // it parks at its next event, at the latest a quantum from now
      w.draining = true;
      w.drain_since = now_;
      return;
  }
}

// The job's victims are its active workers; thieves whose slots moved start a new round.
void engine::rebuild_victims(job& J) {
  J.victims.clear();
  for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
    worker& w = w_[i];
    if (!w.active) continue;
    w.slot = static_cast<std::uint32_t>(J.victims.size());
    J.victims.push_back(i);
  }
  for (std::uint32_t i = J.base; i < J.base + J.count; ++i)
    if (w_[i].state == wstate::searching) w_[i].round.reset();
}

void engine::park(worker& w) {
  job& J = job_of(w);
  if (w.draining) w.c.overrun += now_ - w.drain_since;
  w.state = wstate::parked;
  w.cur = none;
  w.draining = false;
  w.round.reset();
  w.rounds = 0;
  w.penalty = 0;
  --J.awake;
  J.sched->park(w);  // DFDeques: its deque goes to R
  const bool muggable = w.pre.size() + w.fresh.size() > 0;
  if (muggable) J.muggable.push_back(w.index);
  // Its work must be found: a sleeper of the job wakes if nobody searches, as for work handed over.
  if ((muggable || J.sched->holds_work()) && policy::wake_on_exposed(J.sleepers, J.searching)) wake_one(J, nullptr);
}

time_ps engine::drain(worker& w) {
  if (w.state == wstate::running) {
    capture(w, 0);
    ++w.c.drains;
  }
  park(w);
  return never;
}

// The chain stops here (detach_bottom: its innermost work-first child is counted in its finish), and
// the task goes on the deque as a continuation that resumes with the saved step.
void engine::capture(worker& w, time_ps left) {
  const task_id id = w.cur;
  task& t = tasks_[id];
  step s = w.pending;
  const time_ps rest = std::min(left, s.work);
  advance(t, s.work - rest);  // the part of the strand that ran
  w.c.busy += s.work - rest;
  s.work = rest;
  saved_.emplace(id, s);
  t.saved = 1;
  detach_bottom(w);
  w.pre.push(make_entry(id, parent_tag));
  w.cur = none;
  trace(w.index, 1003, id);
}

// An activated worker starts: its own deques first, then a muggable one, then steal rounds.
time_ps engine::unpark(worker& w) {
  ++job_of(w).awake;
  ++w.c.wakes;
  w.state = wstate::find_work;
  return find_work(w);
}

bool engine::mug(worker& w) {
  job& J = job_of(w);
  while (!J.muggable.empty()) {
    const std::uint32_t v = J.muggable.front();
    J.muggable.pop_front();
    worker& victim = w_[v];
    const std::uint64_t n = victim.pre.size() + victim.fresh.size();
    if (victim.active || victim.state != wstate::parked || n == 0) continue;  // taken back or emptied
    std::swap(w.pre, victim.pre);
    std::swap(w.fresh, victim.fresh);
    ++w.c.mugs;
    ++J.qc.mugs;
    J.qc.length += n;  // a successful mug adds a sample of the deque's length (I3)
    trace(w.index, 1004, v);
    return true;
  }
  return false;
}

// The job is done: its workers leave, and its cores count as free from now (the arbiter reassigns
// them at the next boundary).
void engine::retire(job& J) {
  account_allotted();
  for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
    worker& w = w_[i];
    if (w.draining) w.c.overrun += now_ - w.drain_since;
    q_.cancel(i);
    if (cores_) {
      if (cores_->holds(i)) give_core(w);
      else cores_->forget(i);
    }
    w.state = wstate::parked;
    w.active = false;
    w.draining = false;
  }
  J.holders = J.allotment = J.awake = 0;
  J.victims.clear();
  J.muggable.clear();
  account_allotted();
}

// Integrates the core time handed out up to now, then takes the current allotments.
void engine::account_allotted() {
  allotted_ += (now_ - allotted_since_) * static_cast<time_ps>(allotted_now_);
  allotted_since_ = now_;
  std::uint64_t sum = 0;
  for (const job& J : jobs_)
    if (J.arrived && !J.done) sum += J.allotment;
  allotted_now_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, share_.cores));
}

// The invariants of two-level scheduling (run_config::checks).
void engine::check_allotments() {
  if (!checks_) return;
  std::uint64_t sum = 0;
  for (std::uint32_t j = 0; j < jobs_.size(); ++j) {
    const job& J = jobs_[j];
    if (!J.arrived || J.done) continue;
    sum += J.allotment;
    std::uint32_t active = 0, running = 0;
    for (std::uint32_t i = J.base; i < J.base + J.count; ++i) {
      const worker& w = w_[i];
      active += w.active;
      if (w.state != wstate::parked && !w.draining) ++running;
      if (w.state != wstate::parked && !w.active && !w.draining)
        checks_->fail("job " + std::to_string(j) + ": worker " + std::to_string(i) + " runs without a core");
      if (w.draining && w.drain_since + share_.quantum < now_)
        checks_->fail("job " + std::to_string(j) + ": worker " + std::to_string(i) +
                      " ran past its allotment for more than a quantum");
    }
    if (active != J.holders || J.holders != std::min(J.allotment, J.count))
      checks_->fail("job " + std::to_string(j) + ": " + std::to_string(active) + " workers hold cores, allotment " +
                    std::to_string(J.allotment));
    if (running > J.allotment)
      checks_->fail("job " + std::to_string(j) + " runs " + std::to_string(running) + " workers on " +
                    std::to_string(J.allotment) + " cores");
  }
  if (share_.arbiter != policy::arbiter::off && sum > share_.cores)
    checks_->fail("the allotments sum to " + std::to_string(sum) + " > " + std::to_string(share_.cores) + " cores");
}

// ---------------------------------------------------------------- off: the OS shares the cores

bool engine::need_core(std::uint32_t wi) {
  const bool got = cores_->acquire(wi, now_);
  if (!got) cores_->wait(wi, 0);  // its event was due now: it runs as soon as it has a core
  schedule_os();
  return got;
}

void engine::give_core(worker& w) {
  const core_sharing::handoff h = cores_->release(w.index, now_);
  if (h.worker != core_sharing::nobody) q_.schedule(h.worker, now_ + h.left);
  schedule_os();
}

void engine::schedule_os() {
  const time_ps t = cores_->next_expiry();
  if (t == never) q_.cancel(nworkers_ + 1);
  else q_.schedule(nworkers_ + 1, std::max(t, now_));
}

// Slices that ended while others wait: the holder goes to the back of the queue, its event frozen.
void engine::on_slice_end() {
  for (;;) {
    const std::uint32_t h = cores_->expired(now_);
    if (h == core_sharing::nobody) break;
    if (!q_.scheduled(h)) throw std::logic_error("off: a worker holds a core without an event");
    const time_ps left = q_.time_of(h) - now_;
    q_.cancel(h);
    const core_sharing::handoff next = cores_->rotate(h, left, now_);
    if (next.worker != core_sharing::nobody) q_.schedule(next.worker, now_ + next.left);
  }
  schedule_os();
}

}  // namespace slaw::sim
