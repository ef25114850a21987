// SLAW's adaptive work stealing, thief side, as src/sched/work_stealing.cpp does it: a round probes
// the victims of policy::victim_order (a random start, consecutive indices, at most
// policy::steal_probes, the thief skipped), each victim's two deques in the configured order, and
// takes the oldest entry. A thief that takes a continuation asks for its own next push to be published
// (a flat work-first loop migrates this way).
#include "sim/engine.hpp"
#include "sim/scheduler.hpp"
#include "slaw/policy/victims.hpp"

namespace slaw::sim {

namespace {

class ws_scheduler final : public sim_scheduler {
 public:
  explicit ws_scheduler(engine& e) : e_(e) {}

  bool begin_round(worker& thief) override {
    const std::uint32_t n = e_.workers();
    if (n <= 1) return false;  // the runtime returns before drawing a random number
    thief.round.emplace(thief.index, n, thief.next_random(), policy::steal_probes);
    thief.probe_at = thief.round->begin();
    return thief.probe_at != thief.round->end();
  }

  probe_result probe(worker& thief) override {
    probe_result r;
    worker& v = e_.at(static_cast<std::uint32_t>(*thief.probe_at));
    ++thief.c.probes;
    for (int d = 0; d < 2 && r.task == none; ++d) {
      const bool preempted = (d == 0) == e_.config().preempted_first;
      if (preempted) {
        if (v.pre.looks_empty()) {
          v.pre.request_split();  // the owner exposes part of its private region
          continue;
        }
        r.task = e_.yield_continuation(v);
        if (r.task != none) {
          ++thief.c.steals_preempted;
          thief.pre.request_split();  // publish_next_push
        }
      } else {
        r.task = e_.yield_fresh(v);
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
};

}  // namespace

std::unique_ptr<sim_scheduler> make_ws(engine& e) { return std::make_unique<ws_scheduler>(e); }

}  // namespace slaw::sim
