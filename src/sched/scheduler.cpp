// The one place that knows which scheduling variants exist.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/runtime_impl.hpp"
#include "core/scheduler.hpp"
#include "sched/dfdeques/dfdeques.hpp"
#include "sched/places/placed_stealing.hpp"
#include "sched/work_stealing.hpp"

namespace slaw::detail {

void scheduler::give_up(worker&) noexcept {
  std::fputs("slaw: internal error: a give-up under a scheduler that never asks for one\n", stderr);
  std::abort();
}

void scheduler::post(worker&, promise_base*, bool) noexcept {
  std::fputs("slaw: internal error: a task posted to a place under a scheduler without places\n", stderr);
  std::abort();
}

bool scheduler::work_visible_to(const worker&, const std::vector<std::unique_ptr<worker>>& workers) const noexcept {
  if (holds_work()) return true;
  for (const auto& w : workers)
    if (w->has_visible_work()) return true;
  return false;
}

std::unique_ptr<scheduler> make_scheduler(const config& cfg, runtime_impl& rt) {
  const bool placed = rt.deployment.tree.size() > 1;
  if (placed && cfg.scheduler != scheduler_kind::ws)
    throw config_error(std::string("SLAW_SCHEDULER=") + to_string(cfg.scheduler) + " with " + rt.deployment.source +
                       ": places (more than one place) work with the ws scheduler only; use SLAW_SCHEDULER=ws or the flat "
                       "deployment (SLAW_PLACES unset or flat)");
  switch (cfg.scheduler) {
    case scheduler_kind::ws:
      if (placed) return std::make_unique<placed_stealing>(rt, cfg);
      return std::make_unique<work_stealing>(rt.workers, cfg.steal_preempted_first);
    case scheduler_kind::dfdeques:
      return std::make_unique<dfdeques>(cfg.workers, cfg.quota);
  }
  std::abort();  // config::validate rejects other values
}

}  // namespace slaw::detail
