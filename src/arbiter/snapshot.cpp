#include "arbiter/snapshot.hpp"

#include <sched.h>

#include <sys/stat.h>

#include <cstring>

#include "arbiter/segment.hpp"
#include "arbiter/table.hpp"

namespace slaw::arbiter {

namespace {
constexpr auto rlx = std::memory_order_relaxed;

std::string command_of(const job_slot& j) {
  char name[command_chars + 1] = {};
  for (std::size_t w = 0; w < command_chars / 8; ++w) {
    const std::uint64_t word = j.command[w].load(rlx);
    std::memcpy(name + 8 * w, &word, 8);
  }
  std::string out;
  for (std::size_t i = 0; i < command_chars && name[i]; ++i)
    out += (name[i] >= 0x20 && name[i] < 0x7f) ? name[i] : '?';  // never trust bytes from shared memory
  return out;
}
}  // namespace

segment_view take_snapshot(const segment& s, int tries) {
  const segment_header& h = s.header;
  segment_view v;
  std::vector<job_view> jobs;
  jobs.reserve(16);
  int attempts = 0;
  // Yields between bursts of tries: a writer holds the table for microseconds, unless it was preempted.
  auto copy_table = [&] {
    if (++attempts % 16 == 0) sched_yield();
    v.cores = cores_of(h);
    v.policy = policy_of(h);
    v.quantum_ns = quantum_ns_of(h);
    v.quantum = h.quantum.load(rlx);
    v.quantum_start_ns = h.quantum_start_ns.load(rlx);
    v.stale_quanta = h.stale_quanta.load(rlx);
    v.creator_pid = h.creator_pid.load(rlx);
    v.settings_pid = h.settings_pid.load(rlx);
    v.recoveries = h.recoveries.load(rlx);
    v.reaped = h.reaped.load(rlx);
    v.last_reap_quantum = h.last_reap_quantum.load(rlx);
    v.boundaries = h.boundaries.load(rlx);
    v.table_seq = h.table_seq.load(rlx);
    jobs.clear();
    for (std::uint32_t i = 0; i < slot_count; ++i) {
      const job_slot& j = s.slots[i];
      if (j.state.load(rlx) != slot_active) continue;
      job_view x;
      x.slot = static_cast<int>(i);
      x.pid = j.pid.load(rlx);
      x.runtime_id = j.runtime_id.load(rlx);
      x.start_time = j.start_time.load(rlx);
      x.ticket = j.ticket.load(rlx);
      x.workers = j.workers.load(rlx);
      x.allotment = j.allotment.load(rlx);
      x.registered_quantum = j.registered_quantum.load(rlx);
      x.heartbeat = j.heartbeat.load(rlx);
      x.command = command_of(j);
      jobs.push_back(std::move(x));
    }
  };
  v.consistent = seq_read(h.table_seq, copy_table, tries);
  for (job_view& x : jobs) {
    const job_slot& j = s.slots[x.slot];
    x.report_consistent = seq_read(
        j.report_seq,
        [&] {
          x.desire = bits_to_double(j.desire_bits.load(rlx));
          x.utilization = bits_to_double(j.utilization_bits.load(rlx));
          x.queued = j.queued.load(rlx);
          x.reports = j.reports.load(rlx);
        },
        tries);
  }
  v.jobs = std::move(jobs);
  return v;
}

read_result read_segment(const std::string& name) {
  read_result r;
  const attach_result a = open_readonly(name);
  if (!a.map) {
    r.error = a.error;
    return r;
  }
  r.view = take_snapshot(a.map->view());
  if (a.map->lost()) {
    struct stat st {};
    const std::string file = shm_file(name);
    r.error = "shared-memory segment " + name + " (" + file + "): truncated while it was being read";
    if (::stat(file.c_str(), &st) == 0) r.error += " (" + std::to_string(st.st_size) + " bytes now)";
    r.view = {};
  }
  return r;
}

}  // namespace slaw::arbiter
