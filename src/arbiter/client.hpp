// A job's side of the machine-wide arbiter (docs/design/arbiter.md § The segment). A job is a
// process using slaw, or one slaw::runtime in it: each registers in the user's segment, reports its
// desire every quantum, and reads its allotment with one atomic load. There is no daemon: whichever
// registered job calls tick() and finds the quantum expired takes the mutex, drops dead jobs,
// recomputes every allotment with policy::allot and starts the next quantum (leaderless).
//
// The arbiter never takes a program down. Whenever it cannot be used (SLAW_ARBITER=off, a foreign or
// corrupt segment, no room for it, an unrecoverable mutex, a segment truncated or overwritten while the
// job uses it) the client says why once on stderr and runs "as if alone" for good: allotment() is the
// job's worker count, as slaw without an arbiter. What may pass is not given up: a registration that
// finds the mutex busy or the table full runs as if alone only until a later tick() registers it
// (pending()), and a segment removed while the job uses it is left for the one now at its name, which
// tick() joins (creating it if need be), so that the jobs never split into two tables.
//
// tick() checks the segment every check_every_ns (the name still refers to the mapped object, which
// still has its size, magic and creation stamp): a stat(2) and a few loads.
//
// Threads: tick(), report() and allotment() may be called from any thread, concurrently; report() by
// one thread at a time (the one that computed the desire). register_job() and unregister() are called
// by one thread at a time (the runtime's start and stop). A client belongs to the process that made it:
// after fork(), the child makes its own. What tick() changes (joining another segment, registering)
// happens under reg_m_, tried without waiting: a tick that finds another thread at it skips it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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
  std::uint64_t check_every_ns = 10'000'000;     // tick() checks the segment's name and header this often
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
  // recomputed at once, so the job has one before the next quantum. false: it runs as if alone, for good
  // (!attached()) or until a tick() registers it (pending(): the mutex stayed busy for lock_wait_ns, or
  // the table was full).
  bool register_job(std::uint32_t workers, double desire = 1.0);
  // Leaves the table; the others' allotments are recomputed at once (its cores go to them).
  void unregister();
  // The desire for the next quantum (from policy::next_desire) and the statistics slaw-top shows.
  void report(double desire, const job_stats& stats = {});
  // Call every so often (at least once a quantum) with monotonic_ns(): records the heartbeat, and runs
  // the quantum boundary if the quantum has expired and no other job is running it. true if it ran it.
  // Registers again if the job was dropped (its heartbeat had gone stale, e.g. the process was stopped).
  // Also: registers a pending job, checks the segment (see above), and rejoins a removed one.
  bool tick(std::uint64_t now_ns);

  // The cores this job may use now: one atomic load. Its worker count when running as if alone.
  std::uint32_t allotment() const noexcept;

  // A usable segment is mapped (not detached, its memory not lost).
  bool attached() const noexcept;
  // Runs as if alone for good: nothing will attach it again.
  bool detached() const noexcept { return detached_.load(std::memory_order_relaxed); }
  bool registered() const noexcept { return attached() && slot_.load(std::memory_order_relaxed) >= 0; }
  // Wants a slot and has none yet: runs as if alone until a tick() registers it.
  bool pending() const noexcept { return attached() && wanted_.load(std::memory_order_relaxed) && slot_.load(std::memory_order_relaxed) < 0; }
  int slot() const noexcept { return slot_.load(std::memory_order_relaxed); }
  std::uint64_t quantum() const noexcept;
  // The segment's quantum length (its first job's setting), or this job's own when running as if alone.
  std::uint64_t quantum_ns() const noexcept;
  // The segment's heartbeat limit in quanta (clamped), or this job's own when running as if alone.
  std::uint64_t stale_quanta() const noexcept;
  // Jobs registered now (1 when running as if alone).
  std::uint32_t jobs() const noexcept;
  // The policy in force: "deq", "equi", "automatic" (deq once two jobs want cores), or "off" when running as if alone.
  std::string policy() const;
  bool created_segment() const noexcept { return created_.load(std::memory_order_relaxed); }
  std::uint32_t runtime_id() const noexcept { return runtime_id_; }
  // Why the job runs as if alone ("" while attached).
  std::string off_reason() const;
  // The mapping in use (tests, slaw-top's tests); null if none was ever attached. Valid for the client's
  // life: a mapping left for another (a rejoin) is kept until the client ends.
  mapping* map() const noexcept { return cur_.load(std::memory_order_acquire); }

 private:
  // All under reg_m_.
  bool register_locked(std::uint64_t deadline_ns);  // one try if deadline_ns is 0
  void reregister();                                // after the job found its slot taken from it
  void check_segment();                             // the name, the size, the header (tick, every check_every_ns)
  void rejoin();                                    // the name refers to another object, or none
  void adopt(std::shared_ptr<mapping> m);           // makes `m` the mapping in use
  void warn_pending(const std::string& why);

  void detach(const std::string& why);
  void lose();  // the mapping's memory was lost (the SIGBUS guard): detach, saying what happened
  void warn(const std::string& msg) const;

  settings settings_;
  client_options options_;
  creation_params params_;
  std::string name_;
  process_identity me_;
  std::uint32_t runtime_id_;
  std::atomic<mapping*> cur_{nullptr};  // the mapping in use; owned by maps_
  std::atomic<bool> created_{false};

  std::atomic<std::uint32_t> workers_{1};
  std::atomic<int> slot_{-1};
  std::atomic<std::uint64_t> ticket_{0};
  std::atomic<bool> detached_{false};
  std::atomic<bool> wanted_{false};             // register_job was called, unregister was not
  std::atomic<std::uint64_t> desire_bits_{0};   // the latest desire reported (for registering again)
  std::atomic<std::uint64_t> next_check_ns_{0};
  std::mutex reg_m_;  // register, unregister, reregister, check_segment, rejoin, and the members below
  std::vector<std::shared_ptr<mapping>> maps_;  // every mapping this client used, kept for its life
  std::uint64_t created_stamp_ = 0;             // the segment's created_unix_ns when this client joined it
  int rejoins_ = 0;
  bool warned_pending_ = false;
  mutable std::mutex reason_m_;  // off_reason_ (detach() runs with or without reg_m_)
  std::string off_reason_;
};

}  // namespace slaw::arbiter
