#include "arbiter/client.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "arbiter/cores.hpp"

namespace slaw::arbiter {

namespace {
constexpr auto rlx = std::memory_order_relaxed;

std::atomic<std::uint32_t> next_runtime_id{1};

// Each message once per process: several runtimes of one process would repeat it.
void warn_stderr_once(const std::string& msg) {
  static std::mutex m;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> g(m);
  if (said.insert(msg).second) std::fprintf(stderr, "slaw: warning: %s\n", msg.c_str());
}

std::string as_if_alone() { return "; ignored: this job runs as if alone (SLAW_ARBITER=off)"; }
}  // namespace

client::client(const settings& s, client_options o)
    : settings_(s), options_(std::move(o)), me_(own_identity()), runtime_id_(next_runtime_id.fetch_add(1, rlx)) {
  if (s.arbiter == policy::arbiter::off) {
    off_reason_ = "SLAW_ARBITER=off";
    detached_.store(true, rlx);
    return;
  }
  params_.cores = s.cores ? s.cores : default_cores();
  params_.policy = !s.arbiter                              ? policy_setting::automatic
                   : *s.arbiter == policy::arbiter::equi ? policy_setting::equi
                                                          : policy_setting::deq;
  params_.quantum_ns = s.quantum_ns;
  params_.stale_quanta = options_.stale_quanta;
  const std::string name = s.segment_name();
  if (std::string why = segment_name_problem(name); !why.empty()) {
    detach("arbiter segment name '" + name + "': " + why + as_if_alone());
    return;
  }
  attach_result r = open_or_create(name, params_, options_.attach_wait_ns);
  if (!r.map) {
    detach("arbiter: " + r.error + as_if_alone() +
           (r.bad_object ? ". Remove " + shm_file(name) + " if no slaw job uses it, or choose another name with SLAW_ARBITER_NAME"
                         : std::string()));
    return;
  }
  if (r.reinitialised) warn("arbiter: " + shm_file(name) + " was left half-initialised by a process that died; initialised it again");
  map_ = std::move(r.map);
  created_ = r.created;
}

client::~client() { unregister(); }

void client::warn(const std::string& msg) const {
  if (options_.warn) options_.warn(msg);
  else warn_stderr_once(msg);
}

void client::detach(const std::string& why) {
  {
    std::lock_guard<std::mutex> g(reason_m_);
    off_reason_ = why;
  }
  detached_.store(true, rlx);
  warn(why);
}

std::string client::off_reason() const {
  std::lock_guard<std::mutex> g(reason_m_);
  return off_reason_;
}

bool client::register_job(std::uint32_t workers, double desire) {
  std::lock_guard<std::mutex> g(reg_m_);
  workers_.store(workers, rlx);
  if (!attached()) return false;
  if (slot_.load(rlx) >= 0) return true;
  return register_locked(desire);
}

bool client::register_locked(double desire) {
  segment& s = map_->seg();
  segment_header& h = s.header;
  table_lock lk(s, me_, -1, monotonic_ns() + options_.lock_wait_ns);
  if (!lk.held()) {
    detach("arbiter: " + shm_file(map_->name()) + ": " +
           (lk.status() == lock_status::busy ? std::string("its mutex stayed busy for longer than ") +
                                                   std::to_string(options_.lock_wait_ns / 1'000'000) + " ms"
                                             : std::string("its mutex cannot be used (unrecoverable); remove the file")) +
           as_if_alone());
    return false;
  }
  const std::uint64_t q = h.quantum.load(rlx);
  reap(s, me_, q);
  bool empty = true;
  for (const job_slot& j : s.slots) empty = empty && j.state.load(rlx) != slot_active;
  if (empty) {
    // A new busy period: its first job's settings are the segment's (segment.hpp creation_params).
    apply_settings(s, params_);
    h.settings_pid.store(me_.pid, rlx);
    h.quantum_start_ns.store(monotonic_ns(), rlx);
  } else {
    const std::string who = " set by pid " + std::to_string(h.settings_pid.load(rlx)) + ", the first job of this busy period";
    if (settings_.cores && settings_.cores != cores_of(h))
      warn("SLAW_CORES=" + std::to_string(settings_.cores) + " is ignored: the arbiter manages " +
           std::to_string(cores_of(h)) + " cores," + who);
    if (settings_.quantum_set && settings_.quantum_ns != quantum_ns_of(h))
      warn("SLAW_QUANTUM_MS=" + std::to_string(settings_.quantum_ns / 1e6) + " is ignored: the arbiter's quantum is " +
           std::to_string(quantum_ns_of(h) / 1e6) + " ms," + who);
    if (settings_.arbiter && params_.policy != policy_of(h))
      warn(std::string("SLAW_ARBITER=") + std::string(policy::arbiter_name(*settings_.arbiter)) +
           " is ignored: the arbiter's policy is " + policy_name(policy_of(h)) + "," + who);
  }
  job_entry e{me_, runtime_id_, workers_.load(rlx), desire, own_command()};
  std::uint64_t ticket = 0;
  const int slot = claim_slot(s, e, ticket);
  if (slot < 0) {
    detach("arbiter: " + shm_file(map_->name()) + ": its table is full (" + std::to_string(slot_count) + " jobs)" +
           as_if_alone());
    return false;
  }
  recompute(s, q);
  ticket_.store(ticket, rlx);
  slot_.store(slot, std::memory_order_release);
  return true;
}

void client::unregister() {
  std::lock_guard<std::mutex> g(reg_m_);
  const int slot = slot_.load(rlx);
  if (slot < 0 || !map_) return;
  segment& s = map_->seg();
  {
    table_lock lk(s, me_, slot, monotonic_ns() + options_.lock_wait_ns);
    // If the mutex cannot be had, the slot is dropped later (pid gone, or a stale heartbeat).
    if (lk.held() && free_slot(s, slot, ticket_.load(rlx))) recompute(s, s.header.quantum.load(rlx));
  }
  slot_.store(-1, rlx);
  ticket_.store(0, rlx);
}

void client::reregister() {
  std::unique_lock<std::mutex> g(reg_m_, std::try_to_lock);
  if (!g.owns_lock() || detached_.load(rlx)) return;  // another thread of the job is at it
  const int slot = slot_.load(rlx);
  if (slot < 0) return;
  const job_slot& j = map_->view().slots[slot];
  if (j.ticket.load(rlx) == ticket_.load(rlx) && j.state.load(rlx) == slot_active) return;
  warn("arbiter: this job was dropped from " + shm_file(map_->name()) +
       " (its heartbeat was stale, or a holder of the mutex died in its place); registering again");
  slot_.store(-1, rlx);
  register_locked(1.0);
}

void client::report(double desire, const job_stats& st) {
  const int slot = slot_.load(std::memory_order_acquire);
  if (slot < 0 || !attached()) return;
  job_slot& j = map_->seg().slots[slot];
  if (j.ticket.load(rlx) != ticket_.load(rlx)) return;  // dropped: tick() registers again
  seq_write_begin(j.report_seq);
  j.desire_bits.store(double_to_bits(desire), rlx);
  j.utilization_bits.store(double_to_bits(st.utilization), rlx);
  j.queued.store(st.queued, rlx);
  j.reports.store(j.reports.load(rlx) + 1, rlx);
  seq_write_end(j.report_seq);
}

bool client::tick(std::uint64_t now_ns) {
  const int slot = slot_.load(std::memory_order_acquire);
  if (slot < 0 || !attached()) return false;
  segment& s = map_->seg();
  segment_header& h = s.header;
  job_slot& j = s.slots[slot];
  if (j.ticket.load(rlx) != ticket_.load(rlx)) {
    reregister();
    return false;
  }
  j.heartbeat.store(h.quantum.load(rlx), rlx);
  // The early exit, without the lock: almost every call ends here.
  if (now_ns < h.quantum_start_ns.load(rlx) + quantum_ns_of(h)) return false;
  table_lock lk(s, me_, slot, 0);
  if (!lk.held()) {
    if (lk.status() == lock_status::unrecoverable || lk.status() == lock_status::failed)
      detach("arbiter: " + shm_file(map_->name()) + ": its mutex cannot be used (unrecoverable); remove the file" +
             as_if_alone());
    return false;  // busy: another job is running the boundary (or registering)
  }
  // Checked again under the lock: another job may have run this boundary since the early check.
  if (now_ns < h.quantum_start_ns.load(rlx) + quantum_ns_of(h)) return false;
  run_boundary(s, me_, now_ns, options_.hook);
  return true;
}

std::uint32_t client::allotment() const noexcept {
  const std::uint32_t workers = workers_.load(rlx);
  const int slot = slot_.load(std::memory_order_acquire);
  if (slot < 0 || !attached()) return workers;
  const job_slot& j = map_->view().slots[slot];
  const std::uint32_t a = j.allotment.load(rlx);
  // Dropped from the table (the slot may be someone else's now): one core until tick() registers again.
  if (j.ticket.load(rlx) != ticket_.load(rlx)) return 1;
  return a < workers ? a : workers;
}

std::uint64_t client::quantum() const noexcept {
  return map_ ? map_->view().header.quantum.load(rlx) : 0;
}

std::uint64_t client::quantum_ns() const noexcept {
  return attached() ? quantum_ns_of(map_->view().header) : settings_.quantum_ns;
}

std::uint32_t client::jobs() const noexcept {
  return registered() ? std::max<std::uint32_t>(map_->view().header.jobs.load(rlx), 1) : 1;
}

std::string client::policy() const {
  return attached() ? policy_name(policy_of(map_->view().header)) : "off";
}

}  // namespace slaw::arbiter
