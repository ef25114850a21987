// The idle routine (worker::find_work, src/core/parking.hpp): a worker out of work takes its own
// deques' bottoms, else a root task, else runs steal rounds through its scheduler; after spin_rounds
// fruitless rounds it sleeps (timed if it was the last searcher while someone works) and is woken by
// the runtime's rules (policy/idle.hpp). Also the fast-forwarding of quiet timed polls.
#include <algorithm>
#include <array>
#include <optional>

#include "sim/checks.hpp"
#include "sim/core_sharing.hpp"
#include "sim/engine.hpp"
#include "sim/scheduler.hpp"
#include "sim/workloads.hpp"
#include "slaw/policy/local_order.hpp"

namespace slaw::sim {

namespace {

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
    const time_ps line = touch(w.dq, w, mugging);  // its deques' words, which thieves may have touched
    w.c.busy += c_.take + mugging + line;
    trace(w.index, 1000, own);
    return now_ + c_.take + mugging + line + run_task(w, own);
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
  const time_ps probe = vary(w, c_.probe) + r.wait;  // wait: the victim's lines (contention.hpp)
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

}  // namespace slaw::sim
