// Per-worker allocator for coroutine frames.
//
// Frames are carved from 64 KiB chunks, one size class per chunk; each chunk's header names its owning
// allocator. Allocation pops a per-class free list (no atomics, no malloc); a free by the owner pushes
// it back. Escaping asyncs and stolen continuations free frames out of order and on other workers:
// such a free goes to the owner's remote list (an MPSC Treiber stack, one CAS) and the owner takes the
// whole list back with one exchange. Frames larger than `max_small` get a chunk of their own.
//
// Allocators are never destroyed: a runtime's workers borrow them from a process-wide pool and give
// them back, so a chunk's owner pointer always names a live allocator and frames may outlive the
// runtime that made them. Threads that are not workers use the shared `global` allocator (mutex).
//
// Accounting. Two kinds of blocks: coroutine frames and user memory (slaw::allocate). Per kind the
// allocator keeps live bytes, their peak and the total ever allocated (owner-written, read racily by
// stats; a remote free is credited when the owner drains it). The live bytes of both kinds, L, feed
// slow-path hooks when L leaves its band [low, high]:
//  - the process-wide gauge (memory_gauge): each allocator publishes its live bytes in steps of
//    `gauge_step`, so the global live figure and its peak are exact to within p * gauge_step without an
//    atomic RMW per allocation;
//  - the DFDeques quota (docs/design/space.md): net bytes allocated since the worker's last steal.
// `high` (the watermark) is the lowest of the next gauge step up, the quota's limit and the frame peak
// (so a new peak is seen); `low` is the gauge step down. L itself is kept as the room left under the
// watermark, up_ = high - L: an allocation subtracts from it and branches when it falls below 0 (one
// `sub` on memory and a branch, against a load, an add, a store, a compare and a branch for L tested
// against high); a free adds to it and compares it with span_ = high - low. A second room for the low
// side (down_ = L - low, as the task gauge has) took two more instructions off a fib node but made
// fib(35) 2-3 % slower under clang: two read-modify-write chains through memory instead of one
// (bench/results/fastpath/).
//
// AddressSanitizer builds (of the library and of the program: detail/sanitizers.hpp) poison free blocks
// and the unused tail of every block (a block is addressable for exactly the n bytes asked for), so
// overflows, uses after free and double frees in pooled memory are reported. Other builds compile the
// hooks to nothing.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

#include "slaw/export.hpp"
#include "slaw/detail/codegen.hpp"
#include "slaw/policy/quota.hpp"

#include "slaw/detail/sanitizers.hpp"
#ifdef SLAW_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace slaw::detail {

#ifdef SLAW_ASAN
inline void asan_poison(void* p, std::size_t n) noexcept { __asan_poison_memory_region(p, n); }
inline void asan_unpoison(void* p, std::size_t n) noexcept { __asan_unpoison_memory_region(p, n); }
// A block being freed must be live: its first byte is addressable. Otherwise it is already free.
SLAW_EXPORT void asan_check_live(void* p, std::size_t n) noexcept;
#else
inline void asan_poison(void*, std::size_t) noexcept {}
inline void asan_unpoison(void*, std::size_t) noexcept {}
inline void asan_check_live(void*, std::size_t) noexcept {}
#endif

class frame_allocator;

inline constexpr std::size_t chunk_size = 64 * 1024;
inline constexpr std::size_t max_small = 4096;
inline constexpr unsigned num_classes = 32 + 28;  // 16-byte steps to 512, 128-byte steps to 4096
// The largest block: a chunk's size (n + header, rounded up to chunk_size) cannot wrap, and the two
// flag bits of a block's size on the remote-free list stay free. Larger requests throw bad_alloc.
inline constexpr std::size_t max_block = (std::size_t{1} << 62) - 2 * chunk_size;

struct alignas(64) chunk_header {
  frame_allocator* local_owner;  // == owner for size-class chunks; `large_chunk` otherwise (one compare on free)
  frame_allocator* owner;
  std::size_t block_size;  // 64 bits: the free path adds it to the 64-bit room without widening it
  std::uint32_t size_class;  // num_classes for a large chunk
  std::size_t chunk_bytes;
  chunk_header* next_chunk;
};

constexpr unsigned size_class_of(std::size_t n) noexcept {
  return n <= 512 ? static_cast<unsigned>((n + 15) / 16 - (n != 0)) : 32 + static_cast<unsigned>((n - 512 + 127) / 128) - 1;
}
constexpr std::size_t class_block_size(unsigned c) noexcept { return c < 32 ? (c + 1) * 16 : 512 + (c - 31) * 128; }

// The block a small request gets (its size class's size); large requests get what they ask for.
constexpr std::size_t frame_block_bytes(std::size_t n) noexcept { return n <= max_small ? class_block_size(size_class_of(n)) : n; }

inline frame_allocator* const large_chunk = reinterpret_cast<frame_allocator*>(std::uintptr_t{1});

inline chunk_header* header_of(void* p) noexcept {
  return reinterpret_cast<chunk_header*>(reinterpret_cast<std::uintptr_t>(p) & ~(chunk_size - 1));
}

enum class mem_kind : unsigned { frame = 0, user = 1 };

// The fast path's calls of its slow paths (include/slaw/detail/codegen.hpp), defined below the class.
SLAW_COLD_ENTRY void* cold_allocate(frame_allocator* a, std::size_t n, mem_kind k) noexcept;
SLAW_COLD_ENTRY void cold_publish_gauge(frame_allocator* a) noexcept;
[[noreturn]] SLAW_EXPORT void throw_bad_alloc();

struct kind_stats {
  std::atomic<std::int64_t> live{0};  // user memory only (frame live = all_live - user live)
  std::atomic<std::int64_t> peak{0};
  std::atomic<std::uint64_t> total{0};
};

struct frame_stats {
  kind_stats kind[2];  // indexed by mem_kind
  std::atomic<std::uint64_t> chunk_bytes{0};
};

// Process-wide live bytes (frames + user memory of all allocators) and its peak since the last reset,
// published in steps: each allocator adds its own live bytes when they moved by gauge_step, and takes
// out, also in steps, the bytes it freed of other allocators (whose owners credit them only when they
// drain, perhaps much later). Exact to within 2 * (number of allocators in use) * gauge_step.
inline constexpr std::int64_t gauge_step = 16 * 1024;
struct SLAW_EXPORT memory_gauge {
  std::atomic<std::int64_t> live{0};
  std::atomic<std::int64_t> peak{0};
  void add(std::int64_t d) noexcept;
  // The published live figure may lag below the truth (frees are taken out at once, allocations in
  // steps), even below 0; the true peak is never negative, so neither is this one.
  void reset_peak() noexcept {
    std::int64_t l = live.load(std::memory_order_relaxed);
    peak.store(l > 0 ? l : 0, std::memory_order_relaxed);
  }
};
SLAW_EXPORT memory_gauge& process_gauge() noexcept;

// The DFDeques quota's counters (owner-written, read racily by stats); its arithmetic is policy::quota.
struct quota_counters {
  std::atomic<std::int64_t> max_used{0};
  std::atomic<std::uint64_t> overrun_bytes{0};
};

class SLAW_EXPORT frame_allocator {
 public:
  frame_allocator() = default;
  frame_allocator(const frame_allocator&) = delete;
  frame_allocator& operator=(const frame_allocator&) = delete;

  void* allocate(std::size_t n, mem_kind k = mem_kind::frame) {
    if (k == mem_kind::frame) {
      if (void* p = pop_frame(n)) [[likely]] return p;
    }
    void* p = cold_allocate(this, n, k);
    if (!p) [[unlikely]] throw_bad_alloc();
    return p;
  }
  // A frame's fast path: a block from n's size-class free list, accounted, if the list has one and the
  // live bytes stay at or under the watermark; null otherwise (the room given back), and allocate_slow
  // does the rest (the crossing included). One slow call for every exception: each further call site
  // in a coroutine's ramp raised its inline cost over clang's threshold (codegen.hpp).
  void* pop_frame(std::size_t n) noexcept {
    if (n > max_small) return nullptr;
    const unsigned c = size_class_of(n);
    void* p = free_[c];
    const auto d = static_cast<std::int64_t>(n);
    if (!p) [[unlikely]] return nullptr;
    if (owner_sub_below_zero(up_, d)) [[unlikely]] {
      owner_add(up_, d);
      return nullptr;
    }
    asan_unpoison(p, sizeof(void*));
    free_[c] = *static_cast<void**>(p);
    asan_hand_out(p, n, class_block_size(c));
    kind_stats& fs = stats_.kind[0];
    owner_add(fs.total, n);
    return p;
  }
  void deallocate_local(void* p, std::size_t n, unsigned c, mem_kind k = mem_kind::frame) noexcept {
    asan_check_live(p, n);
    asan_unpoison(p, sizeof(void*));
    *static_cast<void**>(p) = free_[c];
    asan_poison(p, class_block_size(c));
    free_[c] = p;
    account_free(n, k);
  }
  // A free of one of this allocator's blocks from another thread. `gauged`: the freer has taken the
  // bytes out of the process gauge already (then the drain moves this allocator's baseline instead).
  void remote_free(void* p, std::size_t n, mem_kind k, bool gauged) noexcept;
  // This allocator's thread freed n bytes of another allocator: counted out of the process gauge in
  // steps of gauge_step (flush_remote_freed publishes the rest).
  void note_remote_free(std::int64_t n) noexcept;
  void flush_remote_freed() noexcept;
  // Takes back blocks freed remotely (owner only).
  void drain_remote() noexcept {
    if (remote_.load(std::memory_order_relaxed)) drain_remote_slow();
  }

  const frame_stats& stats() const noexcept { return stats_; }
  // The live bytes of both kinds (owner only; other threads: live_bytes).
  std::int64_t all_live() const noexcept { return high_.load(std::memory_order_relaxed) - up_.load(std::memory_order_relaxed); }
  // Racy reads for stats, from any thread.
  std::int64_t live_bytes(mem_kind k) const noexcept {
    std::int64_t u = stats_.kind[1].live.load(std::memory_order_relaxed);
    return k == mem_kind::user ? u : all_live_seen() - u;
  }
  // Any thread (between runs, docs/guide/counters.md): the peaks restart from the live bytes. The owner's
  // watermark, which folds the old frame peak, is re-derived by the owner at its next spawn, call or
  // scheduling point (take_peak_reset): left alone, frames could grow past the new peak unseen.
  void reset_peaks() noexcept;
  // The owner: re-derives the watermark if reset_peaks asked for it.
  void take_peak_reset() noexcept {
    if (preempt_.load(std::memory_order_relaxed) & preempt_rewatch) take_peak_reset_slow();
  }

  // ---- DFDeques quota (owner only) ----
  void quota_enable(std::int64_t k) noexcept;
  void quota_disable() noexcept;
  // A steal: a new period with nothing used.
  void quota_new_period() noexcept;
  // Charges bytes allocated elsewhere to this period (a frame handed over by a give-up).
  void quota_charge(std::int64_t bytes) noexcept;
  // Whether `bytes` more fit in this period.
  bool quota_fits(std::int64_t bytes) const noexcept { return quota_.fits(bytes, all_live()); }
  // Pre-charges `bytes` that the next allocations consume without being charged again.
  void quota_reserve(std::int64_t bytes) noexcept;
  // Reserves `bytes` without charging them (an allocation larger than K, paid for by dummy tasks).
  void quota_reserve_large(std::int64_t bytes) noexcept { quota_.reserve_large(bytes); }
  // The part of `bytes` covered by the current reservation (consumed; not charged again).
  std::int64_t quota_consume_reservation(std::int64_t bytes) noexcept;
  std::int64_t quota_used() const noexcept { return quota_.used(all_live()); }
  // Frame bytes allocated over the limit since the last take_deferred() (handed to the started task).
  std::int64_t quota_take_deferred() noexcept { return quota_.take_deferred(); }
  bool quota_preempt_pending() const noexcept { return (preempt_.load(std::memory_order_relaxed) & preempt_quota) != 0; }

  // ---- the fast path's one test ----
  // Whether the next work-first spawn or call must leave the fast path: the running chain must stop
  // (preempt_pending), the worker runs the fast path's hooks (a timeline trace or a DAG recording), or
  // the peaks were reset (take_peak_reset). One relaxed byte load for all of them.
  bool fast_path_blocked() const noexcept { return flag_nonzero(preempt_); }
  // Whether the next spawn or call must stop the running chain: the quota is spent (DFDeques), or the
  // job's allotment shrank and this worker must yield its core (docs/design/multijob.md).
  bool preempt_pending() const noexcept {
    return (preempt_.load(std::memory_order_relaxed) & (preempt_quota | preempt_yield)) != 0;
  }
  // The owner: its spawns and calls run the hooks (set for the life of a worker that records).
  void set_hooks(bool on) noexcept {
    if (on) preempt_.fetch_or(preempt_hooks, std::memory_order_relaxed);
    else preempt_.fetch_and(static_cast<std::uint8_t>(~preempt_hooks), std::memory_order_relaxed);
  }
  // Any thread (the job's quantum thread): ask the owner to yield at its next spawn; or take it back.
  void request_yield() noexcept { preempt_.fetch_or(preempt_yield, std::memory_order_relaxed); }
  void cancel_yield() noexcept { preempt_.fetch_and(static_cast<std::uint8_t>(~preempt_yield), std::memory_order_relaxed); }
  bool yield_requested() const noexcept { return (preempt_.load(std::memory_order_relaxed) & preempt_yield) != 0; }
  const policy::quota& quota() const noexcept { return quota_; }
  const quota_counters& quota_stats() const noexcept { return quota_stats_; }

  // ---- slow paths (the fast path reaches them through the cold entries below the class) ----
  // A block from the drained remote frees, a new chunk, or a large chunk; null if the memory cannot be
  // had (n > max_block, or malloc failed).
  void* allocate_slow(std::size_t n, mem_kind k) noexcept;
  // all_live_ rose above the watermark: a new peak, a gauge step or the DFDeques quota (k: the kind
  // whose n bytes crossed it).
  void crossed_watermark(std::int64_t n, mem_kind k) noexcept;
  // all_live_ fell a gauge step below what the process gauge holds of it.
  void publish_gauge() noexcept;

  // Process-wide pool of allocators (never freed) and the allocator for non-worker threads.
  static frame_allocator* acquire();
  static void release(frame_allocator* a) noexcept;
  static frame_allocator& global() noexcept;
  std::mutex& lock() noexcept { return mutex_; }  // used only for the global allocator

 private:
  // Frames: the hot path keeps only the combined live bytes and the frame total; frame live bytes are
  // all_live_ - user live, and the frame peak is tracked behind the watermark (frame_peak + user_live
  // is one of its terms). User memory is accounted out of line (account_user). pop_frame does the
  // same as account_alloc for a frame that stays under the watermark; the slow path does the rest.
  void account_alloc(std::size_t n, mem_kind k) noexcept {
    auto d = static_cast<std::int64_t>(n);
    if (k == mem_kind::user) return account_user(d);
    add_live(d);
    kind_stats& fs = stats_.kind[0];
    owner_add(fs.total, n);
    if (up_.load(std::memory_order_relaxed) < 0) [[unlikely]] crossed_watermark(d, k);
  }
  // A free of an owned block, on the fast path (deallocate_local): see the class comment for the room.
  void account_free(std::size_t n, mem_kind k) noexcept {
    auto d = static_cast<std::int64_t>(n);
    if (k == mem_kind::user) return account_user(-d);
    const std::int64_t u = up_.load(std::memory_order_relaxed) + d;
    up_.store(u, std::memory_order_relaxed);
    if (u > span_) [[unlikely]] cold_publish_gauge(this);
  }
  void add_live(std::int64_t d) noexcept { owner_add(up_, -d); }
  bool below_low() const noexcept { return up_.load(std::memory_order_relaxed) > span_; }
  // Any thread: L as high_ - up_, read under band_seq_ so that a move of the band (set_band, which
  // changes both) is not seen half done.
  std::int64_t all_live_seen() const noexcept;
  // The owner moves the band: a new watermark (`high`) and gauge baseline, with L (= l) unchanged.
  void set_band(std::int64_t high, std::int64_t l) noexcept;
  void take_peak_reset_slow() noexcept;
  // ASan: a block of `block` bytes given out for n bytes is addressable for exactly n.
  static void asan_hand_out(void* p, std::size_t n, std::size_t block) noexcept {
    asan_poison(p, block);
    asan_unpoison(p, n);
  }
  void account_user(std::int64_t d) noexcept;
  void note_quota_used(std::int64_t used) noexcept {
    if (used > quota_stats_.max_used.load(std::memory_order_relaxed))
      quota_stats_.max_used.store(used, std::memory_order_relaxed);
  }
  void update_watermark() noexcept;
  void drain_remote_slow() noexcept;

  void* free_[num_classes] = {};
  char* bump_[num_classes] = {};
  char* bump_end_[num_classes] = {};
  chunk_header* chunks_ = nullptr;
  frame_stats stats_;
  // L, frames + user memory, as the room up_ = high_ - L (see the class comment). Owner-written, read
  // by stats (live_bytes); band_seq_ is odd while set_band moves high_ and up_ together (a seqlock: the
  // owner is the only writer).
  std::atomic<std::int64_t> up_{0};
  std::atomic<std::int64_t> high_{0};  // the watermark
  std::int64_t span_ = gauge_step;  // high_ - (gauge_published_ - gauge_step); owner only
  std::atomic<std::uint32_t> band_seq_{0};
  std::int64_t gauge_published_ = 0;  // the part of L included in the process gauge
  std::int64_t other_limit_ = gauge_step;  // the watermark without its frame-peak term
  // Bit preempt_quota mirrors quota_.preempt_pending() (owner-written, by sync_quota_preempt after every
  // quota operation that may change it); bit preempt_yield is set by another thread; bit preempt_hooks
  // by the owner (set_hooks); bit preempt_rewatch by reset_peaks (any thread), cleared by the owner.
  // All bits change by RMW, so no writer loses another's bit; the fast path only loads the byte.
  static constexpr std::uint8_t preempt_quota = 1, preempt_yield = 2, preempt_hooks = 4, preempt_rewatch = 8;
  std::atomic<std::uint8_t> preempt_{0};
  void sync_quota_preempt() noexcept {
    const bool q = quota_.preempt_pending();
    if (q == quota_preempt_pending()) return;
    if (q) preempt_.fetch_or(preempt_quota, std::memory_order_relaxed);
    else preempt_.fetch_and(static_cast<std::uint8_t>(~preempt_quota), std::memory_order_relaxed);
  }
  policy::quota quota_;
  quota_counters quota_stats_;
  std::int64_t remote_freed_ = 0;  // bytes of other allocators freed here, not yet out of the gauge
  std::mutex mutex_;
  frame_allocator* next_in_pool_ = nullptr;
  alignas(64) std::atomic<void*> remote_{nullptr};
};

// The allocator of threads that are not workers: it never holds a block (its free lists stay empty, so
// its pop_frame always fails) and its slow path is the global allocator's (cold_frame_alloc). Standing
// in for "no allocator" it spares every coroutine ramp a null test of tls_allocator.
SLAW_EXPORT extern frame_allocator no_worker_allocator;

// The allocator of the calling thread: its worker's, or &no_worker_allocator on other threads.
SLAW_EXPORT extern constinit thread_local SLAW_TLS_MODEL frame_allocator* tls_allocator;
// The calling worker's allocator, or null on other threads (for code off the fast path).
inline frame_allocator* worker_allocator() noexcept {
  frame_allocator* a = tls_allocator;
  return a == &no_worker_allocator ? nullptr : a;
}

// A thread that is not a worker allocates from the global allocator (null if the memory cannot be had);
// a block that is not the calling worker's own is freed here.
SLAW_EXPORT void* frame_alloc_slow(std::size_t n, mem_kind k) noexcept;
SLAW_EXPORT void frame_free_slow(void* p, std::size_t n, chunk_header* h, mem_kind k) noexcept;

SLAW_COLD_ENTRY void* cold_allocate(frame_allocator* a, std::size_t n, mem_kind k) noexcept { return a->allocate_slow(n, k); }
SLAW_COLD_ENTRY void cold_publish_gauge(frame_allocator* a) noexcept { a->publish_gauge(); }
// `a`: tls_allocator (the calling worker's allocator, or &no_worker_allocator on other threads).
SLAW_COLD_ENTRY void* cold_frame_alloc(frame_allocator* a, std::size_t n, mem_kind k) noexcept {
  return a != &no_worker_allocator ? a->allocate_slow(n, k) : frame_alloc_slow(n, k);
}
SLAW_COLD_ENTRY void cold_frame_free(void* p, std::size_t n, chunk_header* h, mem_kind k) noexcept {
  frame_free_slow(p, n, h, k);
}

// No exception may unwind through a preserve_most function (codegen.hpp).
static_assert(noexcept(cold_allocate(nullptr, 0, mem_kind::frame)) && noexcept(cold_publish_gauge(nullptr)) &&
              noexcept(cold_frame_alloc(nullptr, 0, mem_kind::frame)) &&
              noexcept(cold_frame_free(nullptr, 0, nullptr, mem_kind::frame)));

// One slow call and one throw in each ramp: every extra call site raised the ramp's inline cost over
// clang's threshold (then the ramp of a small coroutine is no longer inlined into its caller).
inline void* frame_alloc(std::size_t n, mem_kind k = mem_kind::frame) {
  frame_allocator* a = tls_allocator;  // never null: no_worker_allocator's pop_frame fails
  if (k == mem_kind::frame) {
    if (void* p = a->pop_frame(n)) [[likely]] return p;
  }
  void* p = cold_frame_alloc(a, n, k);
  if (!p) [[unlikely]] throw_bad_alloc();
  return p;
}

inline void frame_free(void* p, std::size_t n, mem_kind k = mem_kind::frame) noexcept {
  chunk_header* h = header_of(p);
  frame_allocator* a = tls_allocator;
  // Never equal for large chunks or on non-worker threads (no chunk is no_worker_allocator's). When
  // equal, the owner is `a` and the block's class is that of n (blocks are freed with the size they
  // were allocated with, a constant for a coroutine frame): nothing more is loaded from the header.
  if (h->local_owner == a) [[likely]] {
    assert(h->size_class == size_class_of(n));
    a->deallocate_local(p, n, size_class_of(n), k);
    return;
  }
  cold_frame_free(p, n, h, k);
}

}  // namespace slaw::detail
