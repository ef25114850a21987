// The arbiter's shared-memory segment (docs/design/arbiter.md § The segment): a header and a
// fixed table of job slots, mapped by every job of the user's processes and, read-only, by slaw-top.
//
// Layout, version 1 (the whole segment is one `segment`, sizeof(segment) bytes):
//   segment_prefix   magic, layout version, ABI tag, total size, header and slot sizes, slot count,
//                    `ready`. Its first 40 bytes keep this meaning in every future version, so that any
//                    slaw can tell a segment it must not trust (segment.cpp checks it with pread before
//                    mapping anything).
//   settings         cores managed, policy, quantum length, heartbeat limit: set by the job that starts
//                    a busy period (the first to register into an empty table).
//   quantum clock    the quantum number q and the CLOCK_MONOTONIC time it began.
//   table control    table_seq (a seqlock for lock-free readers), next_ticket, the job count, the
//                    mutex's current owner, statistics (recoveries, reaped jobs).
//   mutex            a process-shared ROBUST pthread mutex.
//   slots[256]       one per registered job (a process, or one slaw::runtime in a process).
//
// Who writes what (the invariants):
//   L1 `ready` goes 0 → 1 once, with release, after everything else was initialised; a segment whose
//      `ready` never became 1 is re-initialised only by a process holding the creation flock (segment.cpp).
//   L2 Under the mutex only, inside a table_seq write window (odd while writing): every header field
//      below `table_seq` and, in the slots, state, pid, start_time, pid_ns, runtime_id, workers, ticket,
//      registered_quantum, command and allotment. Settings are rewritten under the mutex too.
//   L3 By the slot's owner only (the job holding the slot's ticket), without the mutex: heartbeat, and
//      desire, utilization, queued and reports inside the slot's own report_seq window. The one
//      exception: a job claiming a free slot (under the mutex) writes the initial desire there, when no
//      owner exists.
//   L4 At every even table_seq, the allotments of the active slots were all computed by one call of
//      policy::allot over the same set of active jobs, so Σ allotment ≤ cores under deq and equi, and each
//      allotment ≤ that job's workers.
//   L5 A slot's ticket is unique over the segment's life (next_ticket only grows) and is 0 while the slot
//      is free: a job that finds another ticket in its slot knows it was reaped. A segment's life is
//      named by its creation stamp (created_unix_ns, written once by its initialiser): a job that finds
//      another stamp (its user truncated the segment to 0 and a job created it anew) holds no slot there
//      and registers again (client.cpp, check_segment).
//   L6 The quantum's start is a CLOCK_MONOTONIC time written by a job at a boundary, so it is never more
//      than one quantum ahead of a clock read after that boundary: a start further ahead is a wrong value,
//      and counts as an expired quantum (table.hpp quantum_due) so that the next boundary writes a real
//      one. Trusted as written, a start in the future stopped every boundary, and all reaping, for good.
//
// Memory ordering:
//   * Writers serialise on the mutex, which orders their accesses (lock = acquire, unlock = release).
//   * A job reads its own allotment with one atomic load and no lock: a single word needs no seqlock;
//     it is the value of some quantum, at most one quantum old.
//   * Lock-free readers of many fields (slaw-top, the tick's early exit) use the seqlocks: the writer
//     stores seq+1 (odd), a release fence, the data (relaxed atomic stores), then seq+2 with release; the
//     reader loads seq with acquire, copies (relaxed atomic loads), an acquire fence, reloads seq, and
//     retries if it was odd or changed. Every shared field is an atomic, so a torn copy is only ever
//     discarded, never undefined behaviour.
//   * All atomics here are lock-free and address-free (static_asserts below), as they must be in memory
//     that several processes map at different addresses.
// Nothing in a mapped segment is trusted blindly: the object's type, owner and mode, its sizes and the
// version are checked before mapping, and values read from it (cores, quantum length and start, heartbeat
// limit, policy, desires, slot indices) are clamped before use. Nor is the mapping itself: the segment is
// a file its user may truncate while jobs use it, and an access past the new end would raise SIGBUS.
// The SIGBUS guard (segment.hpp) turns such a fault into private zero pages under the whole mapping, so
// any access may read zeros from then on; every reader copes with zeros as with any other value, and the
// job runs as if alone from its next tick. The invariants above hold for the shared table; a job whose
// mapping was lost no longer takes part in it (its slot is reaped when its heartbeat goes stale).
#pragma once

#include <pthread.h>

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace slaw::arbiter {

inline constexpr std::uint64_t segment_magic = 0x5442524157414c53ull;  // "SLAWARBT" in little-endian bytes
inline constexpr std::uint32_t layout_version = 1;
inline constexpr std::uint32_t slot_count = 256;
inline constexpr std::size_t command_chars = 32;  // slaw-top's command column, NUL-padded

// The ABI tag: processes of another word size or libc (another pthread_mutex_t) must not share a mutex.
inline constexpr std::uint32_t abi_tag =
    static_cast<std::uint32_t>(sizeof(pthread_mutex_t) << 16 | sizeof(void*) << 8 | alignof(std::max_align_t));

// The segment's policy. Stored as a word, checked on every read (an unknown value reads as automatic).
enum class policy_setting : std::uint32_t { automatic = 0, equi = 1, deq = 2 };

enum slot_state : std::uint32_t { slot_free = 0, slot_active = 1 };

// Stable in every layout version: the first fields a reader checks.
struct segment_prefix {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t abi;
  std::uint64_t total_bytes;   // sizeof(segment) of the version that wrote it
  std::uint32_t header_bytes;
  std::uint32_t slot_bytes;
  std::uint32_t slots;
  std::uint32_t ready;         // L1: accessed with std::atomic_ref once mapped
};
static_assert(sizeof(segment_prefix) == 40);

struct alignas(64) segment_header {
  segment_prefix prefix;
  // Settings (L2).
  std::atomic<std::uint32_t> cores;
  std::atomic<std::uint32_t> policy;         // policy_setting
  std::atomic<std::uint64_t> quantum_ns;
  std::atomic<std::uint64_t> stale_quanta;   // a job whose heartbeat is this many quanta old is dropped
  std::atomic<std::int32_t> creator_pid;
  std::atomic<std::int32_t> settings_pid;    // the job whose settings are in force
  std::atomic<std::uint64_t> created_unix_ns;
  // The quantum clock (L2).
  std::atomic<std::uint64_t> quantum;
  std::atomic<std::uint64_t> quantum_start_ns;  // CLOCK_MONOTONIC
  // Table control (L2; table_seq is the seqlock itself).
  std::atomic<std::uint64_t> table_seq;
  std::atomic<std::uint64_t> next_ticket;
  std::atomic<std::uint32_t> jobs;              // active slots
  std::atomic<std::int32_t> owner_pid;          // who holds the mutex (0: nobody), for recovery
  std::atomic<std::int32_t> owner_slot;         // the holder's slot, -1 if it has none (yet)
  std::atomic<std::uint32_t> reserved1;
  // Statistics, for slaw-top and the tests (L2).
  std::atomic<std::uint64_t> recoveries;        // EOWNERDEAD repairs
  std::atomic<std::uint64_t> reaped;            // dead or stale jobs dropped
  std::atomic<std::uint64_t> last_reap_quantum; // the quantum number in force after the latest drop
  std::atomic<std::uint64_t> boundaries;        // quantum boundaries run
  alignas(64) pthread_mutex_t mutex;
};

struct alignas(64) job_slot {
  // Under the mutex (L2).
  std::atomic<std::uint32_t> state;            // slot_state
  std::atomic<std::int32_t> pid;
  std::atomic<std::uint64_t> start_time;       // /proc/<pid>/stat field 22
  std::atomic<std::uint64_t> pid_ns;           // inode of /proc/<pid>/ns/pid
  std::atomic<std::uint32_t> runtime_id;       // several runtimes of one process are separate jobs
  std::atomic<std::uint32_t> workers;
  std::atomic<std::uint64_t> ticket;           // L5
  std::atomic<std::uint64_t> registered_quantum;
  std::atomic<std::uint32_t> allotment;        // read lock-free by the owner
  std::atomic<std::uint32_t> reserved;
  std::atomic<std::uint64_t> command[command_chars / 8];
  // By the owner (L3).
  std::atomic<std::uint64_t> heartbeat;        // the latest quantum number the owner saw
  std::atomic<std::uint64_t> report_seq;       // seqlock over the four fields below
  std::atomic<std::uint64_t> desire_bits;      // double
  std::atomic<std::uint64_t> utilization_bits; // double, in [0, 1]
  std::atomic<std::uint64_t> queued;
  std::atomic<std::uint64_t> reports;
};

struct segment {
  segment_header header;
  job_slot slots[slot_count];
};

static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::uint32_t>::is_always_lock_free &&
                  std::atomic<std::int32_t>::is_always_lock_free,
              "the segment's atomics must be lock-free to work across processes");
static_assert(std::is_standard_layout_v<segment>);
static_assert(offsetof(segment, header) == 0 && offsetof(segment_header, prefix) == 0);

// ---- seqlock helpers (see "Memory ordering" above) ----

inline void seq_write_begin(std::atomic<std::uint64_t>& seq) noexcept {
  const std::uint64_t s = seq.load(std::memory_order_relaxed);
  seq.store(s | 1, std::memory_order_relaxed);  // odd (also after a writer died mid-write: stays odd)
  std::atomic_thread_fence(std::memory_order_release);
}

inline void seq_write_end(std::atomic<std::uint64_t>& seq) noexcept {
  const std::uint64_t s = seq.load(std::memory_order_relaxed);
  seq.store((s | 1) + 1, std::memory_order_release);  // even again
}

// Runs `copy` until it saw one consistent version, at most `tries` times; false if it never did (a
// writer is slow, or died mid-write and nobody repaired yet): the last copy is then inconsistent.
template <class Copy>
bool seq_read(const std::atomic<std::uint64_t>& seq, Copy&& copy, int tries) {
  for (int i = 0; i < tries; ++i) {
    const std::uint64_t s1 = seq.load(std::memory_order_acquire);
    copy();
    std::atomic_thread_fence(std::memory_order_acquire);
    const std::uint64_t s2 = seq.load(std::memory_order_relaxed);
    if (s1 == s2 && (s1 & 1) == 0) return true;
  }
  return false;
}

inline double bits_to_double(std::uint64_t b) noexcept { return std::bit_cast<double>(b); }
inline std::uint64_t double_to_bits(double d) noexcept { return std::bit_cast<std::uint64_t>(d); }

}  // namespace slaw::arbiter
