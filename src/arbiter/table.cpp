#include "arbiter/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arbiter/settings.hpp"
#include "slaw/policy/allotment.hpp"

namespace slaw::arbiter {

namespace {
constexpr auto rlx = std::memory_order_relaxed;

double sane_desire(double d) noexcept {
  if (std::isnan(d)) return 1.0;
  return std::clamp(d, 0.0, 1e9);
}

void clear_slot(job_slot& j) noexcept {
  j.state.store(slot_free, std::memory_order_release);
  j.ticket.store(0, rlx);
  j.allotment.store(0, rlx);
  j.pid.store(0, rlx);
}
}  // namespace

std::uint32_t cores_of(const segment_header& h) noexcept { return std::clamp<std::uint32_t>(h.cores.load(rlx), 1, max_cores); }

std::uint64_t quantum_ns_of(const segment_header& h) noexcept {
  return std::clamp<std::uint64_t>(h.quantum_ns.load(rlx), 100'000, 10'000'000'000ull);
}

std::uint64_t stale_quanta_of(const segment_header& h) noexcept {
  return std::clamp<std::uint64_t>(h.stale_quanta.load(rlx), 2, 1'000'000);
}

bool quantum_due(const segment_header& h, std::uint64_t now_ns) noexcept {
  const std::uint64_t start = h.quantum_start_ns.load(rlx);
  const std::uint64_t length = quantum_ns_of(h);
  if (start <= now_ns) return now_ns - start >= length;
  return start - now_ns > length;
}

policy_setting policy_of(const segment_header& h) noexcept {
  const std::uint32_t p = h.policy.load(rlx);
  return p == static_cast<std::uint32_t>(policy_setting::equi)  ? policy_setting::equi
         : p == static_cast<std::uint32_t>(policy_setting::deq) ? policy_setting::deq
                                                                : policy_setting::automatic;
}

const char* policy_name(policy_setting p) noexcept {
  switch (p) {
    case policy_setting::equi: return "equi";
    case policy_setting::deq: return "deq";
    default: return "auto";
  }
}

table_lock::table_lock(segment& s, const process_identity& me, int my_slot, std::uint64_t deadline_ns)
    : s_(s), status_(deadline_ns == 0 ? try_lock(&s.header.mutex) : lock_until(&s.header.mutex, deadline_ns)) {
  segment_header& h = s_.header;
  if (status_ == lock_status::owner_died) {
    seq_write_begin(h.table_seq);
    repair(s_, me);  // reads the dead holder's owner_pid/owner_slot before they are overwritten below
    mark_consistent(&h.mutex);
    status_ = lock_status::acquired;
    repaired_ = true;
  } else if (status_ == lock_status::acquired) {
    seq_write_begin(h.table_seq);
  }
  if (status_ == lock_status::acquired) {
    h.owner_pid.store(me.pid, rlx);
    h.owner_slot.store(my_slot, rlx);
  }
}

table_lock::~table_lock() {
  if (status_ != lock_status::acquired) return;
  segment_header& h = s_.header;
  h.owner_slot.store(-1, rlx);
  h.owner_pid.store(0, rlx);
  seq_write_end(h.table_seq);
  unlock(&h.mutex);
}

int claim_slot(segment& s, const job_entry& e, std::uint64_t& ticket) {
  const std::uint64_t q = s.header.quantum.load(rlx);
  for (std::uint32_t i = 0; i < slot_count; ++i) {
    job_slot& j = s.slots[i];
    if (j.state.load(rlx) != slot_free) continue;
    j.pid.store(e.who.pid, rlx);
    j.start_time.store(e.who.start_time, rlx);
    j.pid_ns.store(e.who.pid_ns, rlx);
    j.runtime_id.store(e.runtime_id, rlx);
    j.workers.store(e.workers, rlx);
    j.registered_quantum.store(q, rlx);
    j.allotment.store(0, rlx);
    char name[command_chars] = {};
    std::memcpy(name, e.command.data(), std::min(e.command.size(), command_chars - 1));
    for (std::size_t w = 0; w < command_chars / 8; ++w) {
      std::uint64_t word;
      std::memcpy(&word, name + 8 * w, 8);
      j.command[w].store(word, rlx);
    }
    j.heartbeat.store(q, rlx);
    // No owner writes the report fields yet (L3's exception); a dead owner may have left report_seq odd.
    const std::uint64_t rs = j.report_seq.load(rlx);
    j.report_seq.store((rs | 1) + 1, rlx);
    j.desire_bits.store(double_to_bits(sane_desire(e.desire)), rlx);
    j.utilization_bits.store(double_to_bits(0.0), rlx);
    j.queued.store(0, rlx);
    j.reports.store(0, rlx);
    ticket = s.header.next_ticket.load(rlx);
    s.header.next_ticket.store(ticket + 1, rlx);
    j.ticket.store(ticket, rlx);
    j.state.store(slot_active, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

bool free_slot(segment& s, int i, std::uint64_t ticket) {
  if (i < 0 || static_cast<std::uint32_t>(i) >= slot_count) return false;
  job_slot& j = s.slots[i];
  if (j.state.load(rlx) != slot_active || j.ticket.load(rlx) != ticket) return false;
  clear_slot(j);
  return true;
}

std::uint32_t reap(segment& s, const process_identity& me, std::uint64_t quantum_after) {
  segment_header& h = s.header;
  const std::uint64_t q = h.quantum.load(rlx);
  const std::uint64_t stale = stale_quanta_of(h);
  std::uint32_t dropped = 0;
  for (job_slot& j : s.slots) {
    if (j.state.load(rlx) != slot_active) continue;
    process_identity who{j.pid.load(rlx), j.start_time.load(rlx), j.pid_ns.load(rlx)};
    bool dead = false;
    if (who.pid != me.pid || who.start_time != me.start_time || who.pid_ns != me.pid_ns) {
      const liveness l = check_liveness(who, me.pid_ns);
      dead = l == liveness::gone || l == liveness::reused;
    }
    // The fallback, for what /proc cannot tell: a runtime leaked by a live process, a job of another
    // pid namespace, a stopped process (it registers again when it runs: client.cpp).
    const std::uint64_t hb = j.heartbeat.load(rlx);
    if (!dead && q > hb && q - hb >= stale) dead = true;
    if (!dead) continue;
    clear_slot(j);
    ++dropped;
  }
  if (dropped) {
    h.reaped.store(h.reaped.load(rlx) + dropped, rlx);
    h.last_reap_quantum.store(quantum_after, rlx);
  }
  return dropped;
}

void recompute(segment& s, std::uint64_t rotation, const critical_hook& hook) {
  segment_header& h = s.header;
  std::uint32_t idx[slot_count];
  policy::job_demand demand[slot_count];
  std::uint32_t out[slot_count];
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < slot_count; ++i) {
    job_slot& j = s.slots[i];
    if (j.state.load(rlx) != slot_active) continue;
    idx[n] = i;
    demand[n].desire = sane_desire(bits_to_double(j.desire_bits.load(rlx)));
    demand[n].workers = std::min<std::uint32_t>(j.workers.load(rlx), 1u << 16);
    ++n;
  }
  const std::span<const policy::job_demand> jobs(demand, n);
  const std::span<std::uint32_t> allotments(out, n);
  switch (policy_of(h)) {
    case policy_setting::equi: policy::allot(policy::arbiter::equi, jobs, cores_of(h), allotments, rotation); break;
    case policy_setting::deq: policy::allot(policy::arbiter::deq, jobs, cores_of(h), allotments, rotation); break;
    case policy_setting::automatic: policy::allot_automatic(jobs, cores_of(h), allotments, rotation); break;
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    s.slots[idx[k]].allotment.store(out[k], rlx);
    if (k == 0 && hook) hook("boundary");
  }
  h.jobs.store(n, rlx);
}

void run_boundary(segment& s, const process_identity& me, std::uint64_t now_ns, const critical_hook& hook) {
  segment_header& h = s.header;
  const std::uint64_t q = h.quantum.load(rlx);
  reap(s, me, q + 1);
  recompute(s, q + 1, hook);
  h.quantum.store(q + 1, rlx);
  h.quantum_start_ns.store(now_ns, rlx);
  h.boundaries.store(h.boundaries.load(rlx) + 1, rlx);
}

void apply_settings(segment& s, const creation_params& p) {
  segment_header& h = s.header;
  h.cores.store(p.cores, rlx);
  h.policy.store(static_cast<std::uint32_t>(p.policy), rlx);
  h.quantum_ns.store(p.quantum_ns, rlx);
  h.stale_quanta.store(p.stale_quanta, rlx);
}

void repair(segment& s, const process_identity& me) {
  segment_header& h = s.header;
  const std::int32_t dead_pid = h.owner_pid.load(rlx);
  const std::int32_t dead_slot = h.owner_slot.load(rlx);
  // The dead holder's own slot: its process (or at least its thread) is gone. A live process whose
  // thread died finds its ticket gone and registers again (client.cpp).
  if (dead_slot >= 0 && static_cast<std::uint32_t>(dead_slot) < slot_count) {
    job_slot& j = s.slots[dead_slot];
    if (j.state.load(rlx) == slot_active && j.pid.load(rlx) == dead_pid) {
      clear_slot(j);
      h.reaped.store(h.reaped.load(rlx) + 1, rlx);
      h.last_reap_quantum.store(h.quantum.load(rlx), rlx);
    }
  }
  h.recoveries.store(h.recoveries.load(rlx) + 1, rlx);
  const std::uint64_t q = h.quantum.load(rlx);
  reap(s, me, q);
  recompute(s, q);  // the dead holder may have written only some of the allotments
}

}  // namespace slaw::arbiter
