// The one place that knows which scheduling variants exist.
#include <cstdio>
#include <cstdlib>

#include "core/runtime_impl.hpp"
#include "core/scheduler.hpp"
#include "sched/dfdeques/dfdeques.hpp"
#include "sched/work_stealing.hpp"

namespace slaw::detail {

void scheduler::give_up(worker&) noexcept {
  std::fputs("slaw: internal error: a give-up under a scheduler that never asks for one\n", stderr);
  std::abort();
}

std::unique_ptr<scheduler> make_scheduler(const config& cfg, runtime_impl& rt) {
  switch (cfg.scheduler) {
    case scheduler_kind::ws:
      return std::make_unique<work_stealing>(rt.workers, cfg.steal_preempted_first);
    case scheduler_kind::dfdeques:
      return std::make_unique<dfdeques>(cfg.workers, cfg.quota);
  }
  std::abort();  // config::validate rejects other values
}

}  // namespace slaw::detail
