#include "arbiter/client.hpp"

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>

#include "arbiter/cores.hpp"

namespace slaw::arbiter {

namespace {
constexpr auto rlx = std::memory_order_relaxed;

// A job whose segment is removed again and again stops following it (each rejoin keeps one more mapping
// of 48 KiB until the client ends: client.hpp, map()).
constexpr int max_rejoins = 16;

std::atomic<std::uint32_t> next_runtime_id{1};

// Each message once per process: several runtimes of one process would repeat it.
void warn_stderr_once(const std::string& msg) {
  static std::mutex m;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> g(m);
  if (said.insert(msg).second) std::fprintf(stderr, "slaw: warning: %s\n", msg.c_str());
}

std::string as_if_alone() { return "; ignored: this job runs as if alone (SLAW_ARBITER=off)"; }

std::uint64_t load_prefix_word(const std::uint64_t& w) noexcept {
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w)).load(rlx);
}
std::uint32_t load_prefix_word(const std::uint32_t& w) noexcept {
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(w)).load(rlx);
}
}  // namespace

client::client(const settings& s, client_options o)
    : settings_(s), options_(std::move(o)), me_(own_identity()), runtime_id_(next_runtime_id.fetch_add(1, rlx)) {
  desire_bits_.store(double_to_bits(1.0), rlx);
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
  name_ = s.segment_name();
  if (std::string why = segment_name_problem(name_); !why.empty()) {
    detach("arbiter segment name '" + name_ + "': " + why + as_if_alone());
    return;
  }
  attach_result r = open_or_create(name_, params_, options_.attach_wait_ns);
  if (!r.map) {
    detach("arbiter: " + r.error + as_if_alone() +
           (r.bad_object ? ". Remove " + shm_file(name_) + " if no slaw job uses it, or choose another name with SLAW_ARBITER_NAME"
                         : std::string()));
    return;
  }
  if (r.reinitialised) warn("arbiter: " + shm_file(name_) + " was left half-initialised by a process that died; initialised it again");
  created_.store(r.created, rlx);
  std::lock_guard<std::mutex> g(reg_m_);
  adopt(std::move(r.map));
}

client::~client() { unregister(); }

void client::warn(const std::string& msg) const {
  if (options_.warn) options_.warn(msg);
  else warn_stderr_once(msg);
}

void client::detach(const std::string& why) {
  {
    std::lock_guard<std::mutex> g(reason_m_);
    if (detached_.load(rlx)) return;  // one reason, one warning
    off_reason_ = why;
    detached_.store(true, rlx);
  }
  warn(why);
}

void client::lose() {
  const std::string file = shm_file(name_);
  struct stat st {};
  std::string what = "its memory was taken away while this job used it (SIGBUS)";
  if (::stat(file.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) < sizeof(segment))
    what = "it was truncated to " + std::to_string(st.st_size) + " bytes while this job used it";
  else if (::stat(file.c_str(), &st) == 0)
    what = "it was truncated, or a page of it could not be provided, while this job used it (SIGBUS)";
  detach("arbiter: " + file + ": " + what + as_if_alone());
}

std::string client::off_reason() const {
  std::lock_guard<std::mutex> g(reason_m_);
  return off_reason_;
}

bool client::attached() const noexcept {
  const mapping* m = cur_.load(std::memory_order_acquire);
  return m != nullptr && !detached_.load(rlx) && !m->lost();
}

void client::adopt(std::shared_ptr<mapping> m) {
  created_stamp_ = m->view().header.created_unix_ns.load(rlx);
  cur_.store(m.get(), std::memory_order_release);
  maps_.push_back(std::move(m));
}

void client::warn_pending(const std::string& why) {
  if (warned_pending_) return;
  warned_pending_ = true;
  warn("arbiter: " + shm_file(name_) + ": " + why +
       "; this job runs as if alone until it registers (tried again every quantum)");
}

bool client::register_job(std::uint32_t workers, double desire) {
  std::lock_guard<std::mutex> g(reg_m_);
  workers_.store(workers, rlx);
  desire_bits_.store(double_to_bits(desire), rlx);
  if (!attached()) return false;
  wanted_.store(true, rlx);
  if (slot_.load(rlx) >= 0) return true;
  return register_locked(monotonic_ns() + options_.lock_wait_ns);
}

bool client::register_locked(std::uint64_t deadline_ns) {
  mapping& m = *cur_.load(rlx);
  segment& s = m.seg();
  segment_header& h = s.header;
  table_lock lk(s, me_, -1, deadline_ns);
  if (!lk.held()) {
    if (lk.status() == lock_status::busy) {
      warn_pending(deadline_ns == 0 ? std::string("its mutex was busy")
                                    : "its mutex stayed busy for longer than " +
                                          std::to_string(options_.lock_wait_ns / 1'000'000) + " ms");
      return false;
    }
    detach("arbiter: " + shm_file(name_) + ": its mutex cannot be used (unrecoverable); remove the file" + as_if_alone());
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
  job_entry e{me_, runtime_id_, workers_.load(rlx), bits_to_double(desire_bits_.load(rlx)), own_command()};
  std::uint64_t ticket = 0;
  const int slot = claim_slot(s, e, ticket);
  if (slot < 0) {
    warn_pending("its table is full (" + std::to_string(slot_count) + " jobs)");
    return false;
  }
  recompute(s, q);
  ticket_.store(ticket, rlx);
  slot_.store(slot, std::memory_order_release);
  return true;
}

void client::unregister() {
  std::lock_guard<std::mutex> g(reg_m_);
  wanted_.store(false, rlx);
  const int slot = slot_.load(rlx);
  mapping* m = cur_.load(rlx);
  if (slot < 0 || !m) return;
  if (!m->lost()) {
    segment& s = m->seg();
    table_lock lk(s, me_, slot, monotonic_ns() + options_.lock_wait_ns);
    // If the mutex cannot be had, the slot is dropped later (pid gone, or a stale heartbeat).
    if (lk.held() && free_slot(s, slot, ticket_.load(rlx))) recompute(s, s.header.quantum.load(rlx));
  }
  slot_.store(-1, rlx);
  ticket_.store(0, rlx);
}

void client::reregister() {
  std::unique_lock<std::mutex> g(reg_m_, std::try_to_lock);
  if (!g.owns_lock() || !attached()) return;  // another thread of the job is at it
  const int slot = slot_.load(rlx);
  if (slot < 0) return;
  const job_slot& j = cur_.load(rlx)->view().slots[slot];
  if (j.ticket.load(rlx) == ticket_.load(rlx) && j.state.load(rlx) == slot_active) return;
  warn("arbiter: this job was dropped from " + shm_file(name_) +
       " (its heartbeat was stale, or a holder of the mutex died in its place); registering again");
  slot_.store(-1, rlx);
  ticket_.store(0, rlx);
  register_locked(0);  // one try; a busy mutex leaves it pending, for the next tick
}

// Every check_every_ns, from tick(): is the segment at the name still the one mapped, whole, and ours?
//   * the name is gone, or names another object: the segment was removed (shm_unlink) while jobs used
//     it. Staying would split the jobs into two tables, each sharing all the cores: rejoin the one at
//     the name (every job of the orphan does the same within check_every_ns);
//   * its size is not the segment's: truncated (the SIGBUS guard catches the accesses; this notices a
//     truncation that the job's accesses have not hit yet), or grown: as if alone;
//   * its magic or version is not ours (truncated and grown again: zeros), or its mode or owner changed
//     (object_problem): as if alone;
//   * its creation stamp changed: another job initialised it again (it found it truncated to 0 and
//     created it anew): this job's slot and ticket mean nothing there; register again.
void client::check_segment() {
  mapping* m = cur_.load(rlx);
  const std::string file = shm_file(name_);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) rejoin();
    return;  // another error (EACCES, ...) says nothing about the segment
  }
  if (st.st_dev != m->dev() || st.st_ino != m->ino()) {
    rejoin();
    return;
  }
  if (m->lost()) return lose();
  if (std::string why = object_problem(st); !why.empty()) return detach("arbiter: " + file + ": " + why + as_if_alone());
  if (static_cast<std::uint64_t>(st.st_size) < sizeof(segment))
    return detach("arbiter: " + file + ": it was truncated to " + std::to_string(st.st_size) +
                  " bytes while this job used it" + as_if_alone());
  if (static_cast<std::uint64_t>(st.st_size) != sizeof(segment))
    return detach("arbiter: " + file + ": its size became " + std::to_string(st.st_size) + " bytes while this job used it" +
                  as_if_alone());
  const segment_header& h = m->view().header;
  const std::uint64_t magic = load_prefix_word(h.prefix.magic);
  const std::uint32_t version = load_prefix_word(h.prefix.version);
  if (m->lost()) return lose();
  if (magic != segment_magic || version != layout_version) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%016" PRIx64, magic);
    return detach("arbiter: " + file + ": not a slaw arbiter segment any more (magic number " + hex + ", version " +
                  std::to_string(version) + "): it was overwritten while this job used it" + as_if_alone());
  }
  if (h.created_unix_ns.load(rlx) != created_stamp_) {
    created_stamp_ = h.created_unix_ns.load(rlx);
    if (slot_.load(rlx) >= 0)
      warn("arbiter: " + file + " was initialised again by another job while this job used it; registering again");
    slot_.store(-1, rlx);
    ticket_.store(0, rlx);
  }
}

void client::rejoin() {
  mapping* old = cur_.load(rlx);
  const int slot = slot_.load(rlx);
  if (slot >= 0 && !old->lost()) {
    // Leave the orphan at once: its other jobs get the cores back until they leave it too.
    segment& s = old->seg();
    table_lock lk(s, me_, slot, 0);
    if (lk.held() && free_slot(s, slot, ticket_.load(rlx))) recompute(s, s.header.quantum.load(rlx));
  }
  slot_.store(-1, rlx);
  ticket_.store(0, rlx);
  const std::string file = shm_file(name_);
  if (++rejoins_ > max_rejoins) {
    detach("arbiter: " + file + " was removed " + std::to_string(rejoins_) + " times while this job used it" + as_if_alone());
    return;
  }
  attach_result r = open_or_create(name_, params_, options_.attach_wait_ns);
  if (!r.map) {
    detach("arbiter: " + file + " was removed while this job used it, and the object now at that name cannot be used: " +
           r.error + as_if_alone());
    return;
  }
  if (r.created) created_.store(true, rlx);
  warn("arbiter: " + file + " was removed while this job used it; this job joins the segment now at that name");
  adopt(std::move(r.map));
}

void client::report(double desire, const job_stats& st) {
  desire_bits_.store(double_to_bits(desire), rlx);
  const int slot = slot_.load(std::memory_order_acquire);
  if (slot < 0 || !attached()) return;
  job_slot& j = cur_.load(std::memory_order_acquire)->seg().slots[slot];
  if (j.ticket.load(rlx) != ticket_.load(rlx)) return;  // dropped: tick() registers again
  seq_write_begin(j.report_seq);
  j.desire_bits.store(double_to_bits(desire), rlx);
  j.utilization_bits.store(double_to_bits(st.utilization), rlx);
  j.queued.store(st.queued, rlx);
  j.reports.store(j.reports.load(rlx) + 1, rlx);
  seq_write_end(j.report_seq);
}

bool client::tick(std::uint64_t now_ns) {
  if (detached_.load(rlx)) return false;
  mapping* m = cur_.load(std::memory_order_acquire);
  if (!m) return false;
  if (m->lost()) {
    lose();  // needs none of reg_m_'s members
    return false;
  }
  const bool check_due = now_ns >= next_check_ns_.load(rlx);
  if (check_due || (wanted_.load(rlx) && slot_.load(rlx) < 0)) {
    std::unique_lock<std::mutex> g(reg_m_, std::try_to_lock);
    if (g.owns_lock()) {
      if (check_due) {
        next_check_ns_.store(now_ns + options_.check_every_ns, rlx);
        check_segment();
      }
      if (attached() && wanted_.load(rlx) && slot_.load(rlx) < 0) register_locked(0);
    }
  }
  const int slot = slot_.load(std::memory_order_acquire);
  m = cur_.load(std::memory_order_acquire);
  if (slot < 0 || !attached()) return false;
  segment& s = m->seg();
  segment_header& h = s.header;
  job_slot& j = s.slots[slot];
  if (j.ticket.load(rlx) != ticket_.load(rlx)) {
    reregister();
    return false;
  }
  j.heartbeat.store(h.quantum.load(rlx), rlx);
  // The early exit, without the lock: almost every call ends here.
  if (!quantum_due(h, now_ns)) return false;
  table_lock lk(s, me_, slot, 0);
  if (!lk.held()) {
    if (lk.status() == lock_status::unrecoverable || lk.status() == lock_status::failed)
      detach("arbiter: " + shm_file(name_) + ": its mutex cannot be used (unrecoverable); remove the file" + as_if_alone());
    return false;  // busy: another job is running the boundary (or registering)
  }
  // Checked again under the lock: another job may have run this boundary since the early check. With
  // the clock read again: `now_ns` may be late (its thread was preempted since it read it), and a start
  // that a late `now_ns` sees ahead by more than a quantum would look like a clock in the future
  // (quantum_due) and run a boundary early. A caller's `now_ns` ahead of the clock (the tests') stands.
  const std::uint64_t now = std::max(now_ns, monotonic_ns());
  if (!quantum_due(h, now)) return false;
  run_boundary(s, me_, now, options_.hook);
  return true;
}

std::uint32_t client::allotment() const noexcept {
  const std::uint32_t workers = workers_.load(rlx);
  const int slot = slot_.load(std::memory_order_acquire);
  if (slot < 0 || !attached()) return workers;  // as if alone, for good or until registered
  const mapping* m = cur_.load(std::memory_order_acquire);
  const job_slot& j = m->view().slots[slot];
  const std::uint32_t a = j.allotment.load(rlx);
  const bool mine = j.ticket.load(rlx) == ticket_.load(rlx);
  if (m->lost()) return workers;  // what was just read may be the guard's zeros
  // Dropped from the table (the slot may be someone else's now): one core until tick() registers again.
  if (!mine) return 1;
  return a < workers ? a : workers;
}

std::uint64_t client::quantum() const noexcept {
  const mapping* m = cur_.load(std::memory_order_acquire);
  return m ? m->view().header.quantum.load(rlx) : 0;
}

std::uint64_t client::quantum_ns() const noexcept {
  return attached() ? quantum_ns_of(cur_.load(std::memory_order_acquire)->view().header) : settings_.quantum_ns;
}

std::uint64_t client::stale_quanta() const noexcept {
  return attached() ? stale_quanta_of(cur_.load(std::memory_order_acquire)->view().header)
                    : std::max<std::uint64_t>(options_.stale_quanta, 2);
}

std::uint32_t client::jobs() const noexcept {
  return registered() ? std::max<std::uint32_t>(cur_.load(std::memory_order_acquire)->view().header.jobs.load(rlx), 1) : 1;
}

std::string client::policy() const {
  return attached() ? policy_name(policy_of(cur_.load(std::memory_order_acquire)->view().header)) : "off";
}

}  // namespace slaw::arbiter
