// The job table's operations that run under the segment's robust mutex (layout.hpp L2), and the lock
// that runs them: claiming and freeing slots, reaping dead jobs, recomputing every allotment with
// policy::allot, the quantum boundary, and the repair after a holder died (EOWNERDEAD).
//
// Every hold of the lock is one table_seq write window (odd from acquire to release), so lock-free
// readers (slaw-top) never accept a copy taken while a holder was writing, and a holder that dies leaves
// the window odd until the next holder closes it.
//
// Registration is never lost (client.cpp): a job that cannot take the lock within its wait, or finds no
// free slot, holds no slot and retries, with one try-lock, at every tick, until it registers or leaves.
// It runs as if alone meanwhile (all its workers), as it would without the arbiter; L4 holds for the
// registered jobs only. The quantum boundary re-reads the clock under the lock (a caller's `now` may be
// late: preempted after reading it) and runs only if quantum_due, so that a late `now` never runs a
// boundary early, and a start in the future (layout.hpp L6) never stops them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "arbiter/layout.hpp"
#include "arbiter/process_identity.hpp"
#include "arbiter/robust_mutex.hpp"
#include "arbiter/segment.hpp"

namespace slaw::arbiter {

// Test hook: called inside the critical section with the stage's name ("boundary": the quantum
// boundary, after the first allotment was written and before the rest), so a test can die there holding
// the mutex with the table half-written.
using critical_hook = std::function<void(const char* stage)>;

class table_lock {
 public:
  // Takes the mutex: one try if `deadline_ns` is 0, else polls until then. If the previous holder died
  // holding it, repairs the table (repair below) and marks the mutex consistent first. `my_slot` (-1 if
  // none) is recorded as the holder's, so that whoever repairs after this process dies frees it.
  table_lock(segment& s, const process_identity& me, int my_slot, std::uint64_t deadline_ns);
  ~table_lock();
  table_lock(const table_lock&) = delete;
  table_lock& operator=(const table_lock&) = delete;

  bool held() const noexcept { return status_ == lock_status::acquired; }
  lock_status status() const noexcept { return status_; }  // acquired (also after a repair), busy, unrecoverable, failed
  bool repaired() const noexcept { return repaired_; }

 private:
  segment& s_;
  lock_status status_;
  bool repaired_ = false;
};

// A job's registration, as written into its slot.
struct job_entry {
  process_identity who;
  std::uint32_t runtime_id = 0;
  std::uint32_t workers = 1;
  double desire = 1.0;
  std::string command;
};

// --- Under the lock only ---

// The first free slot, filled with `e` and a fresh ticket; -1 if the table is full. `ticket` receives it.
int claim_slot(segment& s, const job_entry& e, std::uint64_t& ticket);
// Frees slot `i` if it still holds `ticket` (a reaped and reclaimed slot is someone else's now).
bool free_slot(segment& s, int i, std::uint64_t ticket);
// Drops the jobs whose process is gone (or the pid now names another process: a different start time;
// or a zombie), and those whose heartbeat is stale_quanta quanta old. Records `quantum_after` as the
// last reap's quantum. Returns how many it dropped.
std::uint32_t reap(segment& s, const process_identity& me, std::uint64_t quantum_after);
// Recomputes every active job's allotment with policy::allot (the segment's policy, `rotation` for
// the odd cores) and the job count. Calls `hook` after the first allotment is written.
void recompute(segment& s, std::uint64_t rotation, const critical_hook& hook = {});
// The quantum boundary: reap, recompute, q ← q + 1, the quantum starts at `now_ns`.
void run_boundary(segment& s, const process_identity& me, std::uint64_t now_ns, const critical_hook& hook = {});
// The settings of a new busy period (the first job registering into an empty table).
void apply_settings(segment& s, const creation_params& p);
// After EOWNERDEAD: frees the dead holder's slot, drops dead jobs, recomputes all allotments (the dead
// holder may have written only some). Idempotent: if the repairer dies too, the next one repeats it.
void repair(segment& s, const process_identity& me);

// The segment's settings, clamped (values from shared memory are not trusted).
std::uint32_t cores_of(const segment_header& h) noexcept;
std::uint64_t quantum_ns_of(const segment_header& h) noexcept;
std::uint64_t stale_quanta_of(const segment_header& h) noexcept;  // in [2, 1e6]

// Whether the quantum in force has expired at `now_ns` (CLOCK_MONOTONIC), so that a boundary is due. A
// start more than one quantum ahead of `now_ns` is one no job's clock could have written (a buggy or
// hostile writer, or a job in another time namespace): it counts as expired, so the next boundary
// restarts the clock at a real time. Taken at face value it stopped every boundary, and with them all
// reaping, for good. A start less than a quantum ahead is the ordinary skew of a `now_ns` read just
// before another job ran the boundary.
bool quantum_due(const segment_header& h, std::uint64_t now_ns) noexcept;
policy_setting policy_of(const segment_header& h) noexcept;
const char* policy_name(policy_setting p) noexcept;

}  // namespace slaw::arbiter
