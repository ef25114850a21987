// Internals of slaw::runtime shared by runtime.cpp and worker.cpp.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/arbiter_job.hpp"
#include "core/parking.hpp"
#include "core/scheduler.hpp"
#include "places/deployment.hpp"
#include "slaw/config.hpp"
#include "slaw/detail/worker.hpp"
#include "trace/dag_recorder.hpp"
#include "trace/output_file.hpp"
#include "trace/timeline.hpp"

namespace slaw::detail {

struct external_waiter {
  std::atomic<std::uint32_t> done{0};
};

class runtime_impl {
 public:
  explicit runtime_impl(config c);
  ~runtime_impl();
  // Waits for runs in progress, stops and joins the workers. Idempotent.
  void shutdown();

  void inject(promise_base* root);
  promise_base* take_injected() noexcept;
  // A frame whose wait on an external event ended off the workers (src/core/external.cpp): queued for
  // a worker of its place, and a sleeping worker woken. Any thread.
  void resume_external(promise_base* frame);
  // The oldest queued frame that worker `w` may run (its place) and, with `inside`, that lies inside
  // that finish (a wait in place); null if none.
  promise_base* take_resumed(const worker& w, const finish_node* inside) noexcept;
  // Roots and resumed frames queued (seq_cst: the parking re-check).
  bool injected_nonempty() const noexcept { return injected_size_.load(std::memory_order_seq_cst) != 0; }
  std::uint32_t injected_size() const noexcept { return injected_size_.load(std::memory_order_relaxed); }
  // The parking re-check of worker `w`: work it could take (seq_cst reads).
  bool work_visible_to(const worker& w) const noexcept;

  config cfg;
  places::deployment deployment;  // the place tree, each worker's place and binding (docs/design/places.md)
  output_file stats_out;                     // SLAW_STATS=PATH, opened when the runtime is built
  bool closed = false;                        // runtime::close (or the destructor) ended it
  std::unique_ptr<timeline> trace_timeline;  // also made (without a buffer or file) when SLAW_RECORD is set
  std::unique_ptr<dag_recorder> recorder;    // SLAW_RECORD=PATH, else null; the workers point into it
  std::unique_ptr<scheduler> sched;  // declared before the workers, which point to it
  std::vector<std::unique_ptr<worker>> workers;
  parking_lot park;
  std::atomic<bool> stopping{false};
  std::atomic<int> active_runs{0};
  // The job's allotment (docs/design/multijob.md): workers of rank < `allowed` run, the others park on
  // `allot_event` (worker::park_for_allotment states the protocol). All workers without an arbiter.
  std::atomic<std::uint32_t> allowed{~0u};
  std::atomic<std::uint32_t> allot_event{0};
  std::atomic<std::uint32_t> muggable_count{0};  // workers parked with their deques muggable
  bool mugging = true;  // whether parked workers' deques are mugged (not with places, nor under DFDeques)
  std::unique_ptr<arbiter_job> job;  // null with SLAW_ARBITER=off, and after shutdown
  std::string job_final_json;        // the job's stats JSON at shutdown (the stats written at the end)

 private:
  std::vector<std::thread> threads_;
  std::mutex injected_mutex_;
  std::deque<promise_base*> injected_;
  std::deque<promise_base*> resumed_;  // under injected_mutex_; counted in injected_size_ too
  std::atomic<std::uint32_t> injected_size_{0};
};

}  // namespace slaw::detail
