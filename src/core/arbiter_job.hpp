// The job side of the machine-wide arbiter (docs/design/multijob.md § The job side). A runtime is one
// job: it registers in the user's segment (src/arbiter/client.hpp) and a thread of its own ends each
// quantum: it sums the workers' steal-path counters into a policy::quantum_sample, computes the desire
// with policy::next_desire (A-Deque or A-Steal, the functions the simulator runs), reports it, ticks the
// leaderless quantum, and applies the allotment it reads back.
//
// Applying an allotment a: workers of rank < a run, the others are surplus. A surplus worker running a
// chain is asked to yield through its allocator's preempt byte, which the spawn fast path already
// tests (so neither parking nor waking adds work there); it stops at its next spawn, goes back to its
// loop and parks with its deques exposed and muggable (worker::park_for_allotment). An idle surplus
// worker parks at its next look for work. When the allotment grows, the thread stores it and wakes the
// parked workers (the `allot_event` futex, runtime_impl). Ranks keep one worker per leaf place first,
// so with places no place is left without a worker: the allotment applied is at least the leaf count.
//
// While the runtime is idle the thread wakes only every idle_stride_quanta quanta (below); once the
// client runs as if alone for good (client::detached) it only waits for the runtime to stop.
//
// Threads: the constructor and destructor run on the runtime's owner; everything else on the quantum
// thread, except add_stats/reset_stats (any thread; the summary has its own mutex).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "slaw/config.hpp"
#include "slaw/policy/desire.hpp"

namespace slaw {
struct runtime_stats;
}

namespace slaw::arbiter {
class client;
}

namespace slaw::detail {

class runtime_impl;

// The cost of one failed steal attempt, for S_max = a·L / t_steal (desire.hpp I2) and for counting time
// asleep as failed attempts (an idle worker of the paper's model keeps stealing; ours sleeps).
inline constexpr double steal_attempt_ns = 1000.0;

// The idle stride. An idle runtime (no run in progress) reports desire 0, which cannot change until a run
// begins, and a run wakes the quantum thread at once (run_begins). So while idle the thread ends a
// quantum only every idle_stride_quanta(L) quanta, L being the segment's heartbeat limit (a job without
// a heartbeat for L quanta is dropped): a quarter of it keeps the heartbeat four times inside the limit,
// while another job runs a boundary every quantum. The idle thread's CPU cost falls by the same factor
// (docs/design/multijob.md § What the quantum costs). What waits for the next idle tick: registering a pending
// job and noticing a removed segment, neither of which matters before a run (whose first report ticks).
inline std::uint64_t idle_stride_quanta(std::uint64_t stale_quanta) noexcept {
  return stale_quanta / 4 > 1 ? stale_quanta / 4 : 1;
}

class arbiter_job {
 public:
  // Registers the runtime (unless SLAW_ARBITER=off) and starts the quantum thread. `min_allotment`:
  // the fewest workers it keeps running (one per leaf place).
  arbiter_job(runtime_impl& rt, const arbiter_settings& s, std::uint32_t min_allotment);
  ~arbiter_job();  // stops the thread, leaves the table, lets every worker run again
  arbiter_job(const arbiter_job&) = delete;
  arbiter_job& operator=(const arbiter_job&) = delete;

  // runtime::run calls this as a run begins (any thread). A job that reported itself idle reports its
  // desire again at once instead of at its quantum's end, so that the others give up cores sooner.
  void run_begins();

  // The "arbiter" object of the stats JSON; reset between runs with the other counters.
  std::string stats_json() const;
  void reset_stats();

 private:
  void loop();
  void end_quantum(std::uint64_t now_ns);
  void report_busy();
  void rebase(std::uint64_t now_ns);  // a quantum starts now: the workers' counters are marked, not summed
  void apply(std::uint32_t allotment);

  runtime_impl& rt_;
  std::unique_ptr<arbiter::client> client_;
  policy::desire_rule rule_;
  policy::desire_params params_;
  policy::desire_state state_;
  std::uint32_t min_allotment_;
  std::uint32_t allotment_;  // a(q): the allotment applied during the quantum being measured
  std::uint64_t quantum_start_ns_ = 0;

  struct worker_marks {  // each worker's counters at the last quantum's end
    std::uint64_t attempts = 0, purely = 0, length = 0, mugs = 0, slept = 0;
  };
  std::vector<worker_marks> marks_;

  struct summary {
    std::uint64_t quanta = 0, idle_quanta = 0;  // quanta counts the busy ones only
    double desire_last = 1, desire_sum = 0, desire_max = 0;
    std::uint32_t allotment_last = 0, allotment_min = 0, allotment_max = 0;
    double allotment_sum = 0, utilization_sum = 0;
    std::uint32_t jobs_max = 0;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> changes;  // (quantum, allotment), the first 256
  };
  mutable std::mutex summary_m_;
  summary summary_;

  // Idle quanta: a quantum in which no run was in progress (no run at its end, and none began in it) is
  // idle: the job reports desire 0 and leaves state_ as it was, so an idle runtime takes no cores
  // (policy::automatic_policy) and resumes with the desire it had.
  std::atomic<bool> run_began_{false};  // set by run_begins, taken by end_quantum
  std::atomic<bool> idle_{true};        // the last report said desire 0 (written by the quantum thread)

  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool report_now_ = false;  // run_begins on an idle job: report the desire without ending the quantum
  std::thread thread_;
};

}  // namespace slaw::detail
