// A job's side of the machine-wide arbiter (issue 13 item 3; docs/arbiter.md § The segment). A job is a
// process using slaw, or one slaw::runtime in it: each registers in the user's segment, reports its
// desire every quantum, and reads its allotment with one atomic load. There is no daemon: whichever
// registered job calls tick() and finds the quantum expired takes the mutex, drops dead jobs,
// recomputes every allotment with policy::allot and starts the next quantum (leaderless).
//
// Whenever the arbiter cannot be used (SLAW_ARBITER=off, a foreign or corrupt segment, a full table, an
// unrecoverable mutex) the client says why once on stderr and runs "as if alone": allotment() is the
// job's worker count, as slaw without an arbiter.
//
// Threads: tick(), report() and allotment() may be called from any thread, concurrently; report() by
// one thread at a time (the one that computed the desire). register_job() and unregister() are called
// by one thread at a time (the runtime's start and stop). A client belongs to the process that made it:
// after fork(), the child makes its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "arbiter/process_identity.hpp"
#include "arbiter/segment.hpp"
#include "arbiter/settings.hpp"
#include "arbiter/table.hpp"

namespace slaw::arbiter {

// What a job shows in slaw-top besides its desire.
struct job_stats {
  double utilization = 1.0;  // u(q) of the quantum that ended, in [0, 1]
  std::uint64_t queued = 0;  // Q'(q): stealable entries at its end
};

struct client_options {
  std::uint64_t stale_quanta = 100;             // drop a job whose heartbeat is this old (the fallback)
  std::uint64_t attach_wait_ns = 2'000'000'000;  // for a concurrent creator
  std::uint64_t lock_wait_ns = 1'000'000'000;    // for the mutex, when registering or leaving
  std::function<void(const std::string&)> warn;  // default: "slaw: warning: MESSAGE" on stderr, once each
  critical_hook hook;                            // tests: runs inside the quantum boundary's critical section
};

class client {
 public:
  // Attaches to (or creates) the segment `s` names, unless SLAW_ARBITER=off. Never throws for a bad
  // segment: it warns and runs as if alone.
  explicit client(const settings& s, client_options o = {});
  ~client();  // unregister()
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // Registers the job with `workers` workers and its first desire (d(1) = 1). Every allotment is
  // recomputed at once, so the job has one before the next quantum. false: it runs as if alone.
  bool register_job(std::uint32_t workers, double desire = 1.0);
  // Leaves the table; the others' allotments are recomputed at once (its cores go to them).
  void unregister();
  // The desire for the next quantum (from policy::next_desire) and the statistics slaw-top shows.
  void report(double desire, const job_stats& stats = {});
  // Call every so often (at least once a quantum) with monotonic_ns(): records the heartbeat, and runs
  // the quantum boundary if the quantum has expired and no other job is running it. true if it ran it.
  // Registers again if the job was dropped (its heartbeat had gone stale, e.g. the process was stopped).
  bool tick(std::uint64_t now_ns);

  // The cores this job may use now: one atomic load. Its worker count when running as if alone.
  std::uint32_t allotment() const noexcept;

  bool attached() const noexcept { return map_ != nullptr && !detached_.load(std::memory_order_relaxed); }
  bool registered() const noexcept { return attached() && slot_.load(std::memory_order_relaxed) >= 0; }
  int slot() const noexcept { return slot_.load(std::memory_order_relaxed); }
  std::uint64_t quantum() const noexcept;
  // The segment's quantum length (its first job's setting), or this job's own when running as if alone.
  std::uint64_t quantum_ns() const noexcept;
  // Jobs registered now (1 when running as if alone).
  std::uint32_t jobs() const noexcept;
  // The policy in force: "deq", "equi", "automatic" (deq once two jobs want cores), or "off" when running as if alone.
  std::string policy() const;
  bool created_segment() const noexcept { return created_; }
  std::uint32_t runtime_id() const noexcept { return runtime_id_; }
  // Why the job runs as if alone ("" while attached).
  std::string off_reason() const;
  // The mapping (tests, slaw-top's tests); null when running as if alone.
  const std::shared_ptr<mapping>& map() const noexcept { return map_; }

 private:
  bool register_locked(double desire);  // under reg_m_
  void reregister();                    // after the job found its slot taken from it
  void detach(const std::string& why);
  void warn(const std::string& msg) const;

  settings settings_;
  client_options options_;
  creation_params params_;
  process_identity me_;
  std::uint32_t runtime_id_;
  std::shared_ptr<mapping> map_;
  bool created_ = false;

  std::atomic<std::uint32_t> workers_{1};
  std::atomic<int> slot_{-1};
  std::atomic<std::uint64_t> ticket_{0};
  std::atomic<bool> detached_{false};
  std::mutex reg_m_;            // register, unregister, reregister
  mutable std::mutex reason_m_;  // off_reason_ (detach() runs with or without reg_m_)
  std::string off_reason_;
};

}  // namespace slaw::arbiter
