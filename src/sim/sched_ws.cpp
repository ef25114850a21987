// SLAW's adaptive work stealing, thief side, as src/sched/work_stealing.cpp does it: a round probes
// the victims of policy::victim_order (a random start, consecutive indices, at most
// policy::steal_probes, the thief skipped), each victim's two deques in the configured order, and
// takes the oldest entry. A thief that takes a continuation asks for its own next push to be published
// (a flat work-first loop migrates this way). The victims are the job's (engine::victims): all its
// workers, or under two-level scheduling its active ones, the window's own slot counted as a self-pick.
#include "sim/engine.hpp"
#include "sim/scheduler.hpp"
#include "slaw/policy/victims.hpp"

namespace slaw::sim {

namespace {

class ws_scheduler final : public sim_scheduler {
 public:
  ws_scheduler(engine& e, std::uint32_t job) : e_(e), job_(job) {}

  bool begin_round(worker& thief) override {
    const auto n = static_cast<std::uint32_t>(e_.victims(job_).size());
    if (n <= 1) return false;  // the runtime returns before drawing a random number
    thief.round.emplace(thief.slot, n, thief.next_random(), policy::steal_probes);
    thief.probe_at = thief.round->begin();
    if (e_.sharing()) {  // the window covers the thief's own slot: a self-pick, purely unsuccessful
      const policy::victim_order& o = *thief.round;
      if ((thief.slot + n - o.at(0)) % n < o.window()) e_.count_self_pick(thief);
    }
    return thief.probe_at != thief.round->end();
  }

  probe_result probe(worker& thief) override {
    probe_result r;
    worker& v = e_.at(e_.victims(job_)[*thief.probe_at]);
    ++thief.c.probes;
    // The probe reads the victim's indices and writes its split request or steals (a CAS): the
    // victim's deque line moves to the thief, after the accesses queued on it.
    r.wait = e_.touch(v.dq, thief);
    if (e_.sharing()) e_.count_attempt(thief, v.state != wstate::running, v.pre.size() + v.fresh.size());
    for (int d = 0; d < 2 && r.task == none; ++d) {
      const bool preempted = (d == 0) == e_.config().preempted_first;
      if (preempted) {
        if (v.pre.looks_empty()) {
          v.pre.request_split(thief.index);  // the owner exposes part of its private region
          continue;
        }
        r.task = e_.yield_continuation(v, thief.index);
        if (r.task != none) {
          ++thief.c.steals_preempted;
          thief.pre.request_split();  // publish_next_push: not a thief's request
        }
      } else {
        r.task = e_.yield_fresh(v, thief.index);
        if (r.task != none) ++thief.c.steals_fresh;
      }
    }
    if (r.task != none) {
      e_.penalize(v);
      e_.trace(thief.index, 100 + v.index % 1000, r.task);
      r.round_over = true;
      return r;
    }
    ++thief.probe_at;
    r.round_over = thief.probe_at == thief.round->end();
    return r;
  }

 private:
  engine& e_;
  std::uint32_t job_;
};

}  // namespace

std::unique_ptr<sim_scheduler> make_ws(engine& e, std::uint32_t job) { return std::make_unique<ws_scheduler>(e, job); }

}  // namespace slaw::sim
