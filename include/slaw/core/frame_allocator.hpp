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
// Accounting (owner-written, read racily by stats): live frame bytes of this allocator's blocks, their
// peak, and the chunk bytes held.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace slaw::core {

class frame_allocator;

inline constexpr std::size_t chunk_size = 64 * 1024;
inline constexpr std::size_t max_small = 4096;
inline constexpr unsigned num_classes = 32 + 28;  // 16-byte steps to 512, 128-byte steps to 4096

struct alignas(64) chunk_header {
  frame_allocator* local_owner;  // == owner for size-class chunks; `large_chunk` otherwise (one compare on free)
  frame_allocator* owner;
  std::uint32_t size_class;  // num_classes for a large chunk
  std::uint32_t block_size;
  std::size_t chunk_bytes;
  chunk_header* next_chunk;
};

constexpr unsigned size_class_of(std::size_t n) noexcept {
  return n <= 512 ? static_cast<unsigned>((n + 15) / 16 - (n != 0)) : 32 + static_cast<unsigned>((n - 512 + 127) / 128) - 1;
}
constexpr std::size_t class_block_size(unsigned c) noexcept { return c < 32 ? (c + 1) * 16 : 512 + (c - 31) * 128; }

inline frame_allocator* const large_chunk = reinterpret_cast<frame_allocator*>(std::uintptr_t{1});

inline chunk_header* header_of(void* p) noexcept {
  return reinterpret_cast<chunk_header*>(reinterpret_cast<std::uintptr_t>(p) & ~(chunk_size - 1));
}

struct frame_stats {
  std::atomic<std::int64_t> live{0};
  std::atomic<std::int64_t> peak{0};
  std::atomic<std::uint64_t> chunk_bytes{0};
};

class frame_allocator {
 public:
  frame_allocator() = default;
  frame_allocator(const frame_allocator&) = delete;
  frame_allocator& operator=(const frame_allocator&) = delete;

  void* allocate(std::size_t n) {
    if (n <= max_small) [[likely]] {
      unsigned c = size_class_of(n);
      void* p = free_[c];
      if (p) [[likely]] {
        free_[c] = *static_cast<void**>(p);
        account_alloc(n);
        return p;
      }
    }
    return allocate_slow(n);
  }
  void deallocate_local(void* p, std::size_t n, unsigned c) noexcept {
    *static_cast<void**>(p) = free_[c];
    free_[c] = p;
    account_free(n);
  }
  // A free of one of this allocator's blocks from another thread.
  void remote_free(void* p, std::size_t n) noexcept;
  // Takes back blocks freed remotely (owner only).
  void drain_remote() noexcept {
    if (remote_.load(std::memory_order_relaxed)) drain_remote_slow();
  }

  const frame_stats& stats() const noexcept { return stats_; }

  // Process-wide pool of allocators (never freed) and the allocator for non-worker threads.
  static frame_allocator* acquire();
  static void release(frame_allocator* a) noexcept;
  static frame_allocator& global() noexcept;
  std::mutex& lock() noexcept { return mutex_; }  // used only for the global allocator

 private:
  void account_alloc(std::size_t n) noexcept {
    std::int64_t l = stats_.live.load(std::memory_order_relaxed) + static_cast<std::int64_t>(n);
    stats_.live.store(l, std::memory_order_relaxed);
    if (l > stats_.peak.load(std::memory_order_relaxed)) [[unlikely]] stats_.peak.store(l, std::memory_order_relaxed);
  }
  void account_free(std::size_t n) noexcept {
    stats_.live.store(stats_.live.load(std::memory_order_relaxed) - static_cast<std::int64_t>(n),
                      std::memory_order_relaxed);
  }
  void* allocate_slow(std::size_t n);
  void drain_remote_slow() noexcept;

  void* free_[num_classes] = {};
  char* bump_[num_classes] = {};
  char* bump_end_[num_classes] = {};
  chunk_header* chunks_ = nullptr;
  frame_stats stats_;
  std::mutex mutex_;
  frame_allocator* next_in_pool_ = nullptr;
  alignas(64) std::atomic<void*> remote_{nullptr};
};

// The allocator of the calling thread: its worker's, or null on other threads.
extern constinit thread_local frame_allocator* tls_allocator;

void* frame_alloc_slow(std::size_t n);
void frame_free_slow(void* p, std::size_t n, chunk_header* h) noexcept;

inline void* frame_alloc(std::size_t n) {
  if (frame_allocator* a = tls_allocator) [[likely]] return a->allocate(n);
  return frame_alloc_slow(n);
}

inline void frame_free(void* p, std::size_t n) noexcept {
  chunk_header* h = header_of(p);
  if (h->local_owner == tls_allocator) [[likely]] {  // never equal for large chunks or on non-worker threads
    h->owner->deallocate_local(p, n, h->size_class);
    return;
  }
  frame_free_slow(p, n, h);
}

}  // namespace slaw::core
