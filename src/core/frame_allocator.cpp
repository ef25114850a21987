#include "slaw/detail/frame_allocator.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace slaw::detail {

constinit frame_allocator no_worker_allocator;  // constant-initialized: usable before any constructor runs
constinit thread_local frame_allocator* tls_allocator = &no_worker_allocator;

namespace {
std::mutex pool_mutex;
frame_allocator* pool_head = nullptr;

// Null if malloc fails.
chunk_header* new_chunk(frame_allocator* owner, std::size_t bytes, std::uint32_t cls, std::size_t block) noexcept {
  void* mem = std::aligned_alloc(chunk_size, bytes);
  if (!mem) return nullptr;
  auto* h = static_cast<chunk_header*>(mem);
  h->owner = owner;
  h->local_owner = cls < num_classes ? owner : large_chunk;
  h->size_class = cls;
  h->block_size = block;
  h->chunk_bytes = bytes;
  h->next_chunk = nullptr;
  asan_poison(h + 1, bytes - sizeof(chunk_header));  // nothing handed out yet
  return h;
}
}  // namespace

#ifdef SLAW_ASAN
void asan_check_live(void* p, std::size_t n) noexcept {
  if (!__asan_address_is_poisoned(p)) return;
  std::fprintf(stderr, "slaw: double free (or free of a block never allocated) of %p, %zu bytes\n", p, n);
  (void)*static_cast<volatile char*>(p);  // let ASan report it, with the stack
  std::abort();
}
#endif

memory_gauge& process_gauge() noexcept {
  static memory_gauge g;
  return g;
}

void memory_gauge::add(std::int64_t d) noexcept {
  std::int64_t v = live.fetch_add(d, std::memory_order_relaxed) + d;
  if (d <= 0) return;
  std::int64_t p = peak.load(std::memory_order_relaxed);
  while (v > p && !peak.compare_exchange_weak(p, v, std::memory_order_relaxed)) {
  }
}

void frame_allocator::publish_gauge() noexcept {
  std::int64_t l = all_live();
  std::int64_t d = l - gauge_published_;
  gauge_published_ = l;
  process_gauge().add(d);
  update_watermark();
}

void frame_allocator::update_watermark() noexcept {
  std::int64_t w = gauge_published_ + gauge_step;
  w = std::min(w, quota_.watch_above());
  other_limit_ = w;
  std::int64_t user = stats_.kind[1].live.load(std::memory_order_relaxed);
  set_band(std::min(w, stats_.kind[0].peak.load(std::memory_order_relaxed) + user), all_live());
}

// The seqlock's writer (Boehm, "Can seqlocks get along with programming language memory models?",
// 2012): the odd count is ordered before the moved fields by the release fence, the fields before the
// even count by its release store. A reader that sees the same even count before (acquire) and after
// (behind an acquire fence) its loads read no field of a half-done move. Between moves the fast path
// changes only up_, one aligned store at a time: any up_ a reader sees is a true L for the high_ of its
// window.
void frame_allocator::set_band(std::int64_t high, std::int64_t l) noexcept {
  const std::uint32_t s = band_seq_.load(std::memory_order_relaxed);
  band_seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  high_.store(high, std::memory_order_relaxed);
  up_.store(high - l, std::memory_order_relaxed);
  span_ = high - (gauge_published_ - gauge_step);
  band_seq_.store(s + 2, std::memory_order_release);
}

std::int64_t frame_allocator::all_live_seen() const noexcept {
  for (;;) {
    const std::uint32_t s = band_seq_.load(std::memory_order_acquire);
    const std::int64_t l = high_.load(std::memory_order_relaxed) - up_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (!(s & 1) && band_seq_.load(std::memory_order_relaxed) == s) return l;
  }
}

void frame_allocator::take_peak_reset_slow() noexcept {
  // Acquire: the peaks reset_peaks stored before its release RMW are the ones update_watermark reads.
  preempt_.fetch_and(static_cast<std::uint8_t>(~preempt_rewatch), std::memory_order_acquire);
  update_watermark();
}

void frame_allocator::account_user(std::int64_t d) noexcept {
  kind_stats& us = stats_.kind[1];
  std::int64_t u = us.live.load(std::memory_order_relaxed) + d;
  us.live.store(u, std::memory_order_relaxed);
  if (u > us.peak.load(std::memory_order_relaxed)) us.peak.store(u, std::memory_order_relaxed);
  add_live(d);
  if (d > 0) {
    us.total.store(us.total.load(std::memory_order_relaxed) + static_cast<std::uint64_t>(d), std::memory_order_relaxed);
    if (up_.load(std::memory_order_relaxed) < 0) return crossed_watermark(d, mem_kind::user);
  } else if (below_low()) {
    return publish_gauge();
  }
  update_watermark();  // its frame-peak term moved with the user bytes
}

void frame_allocator::crossed_watermark(std::int64_t n, mem_kind k) noexcept {
  const std::int64_t l = all_live();
  if (l <= other_limit_) {  // only the frame-peak term (frames growing, e.g. help-first children queued)
    std::int64_t user = stats_.kind[1].live.load(std::memory_order_relaxed);
    std::int64_t peak = stats_.kind[0].peak.load(std::memory_order_relaxed);
    if (l - user > peak) stats_.kind[0].peak.store(peak = l - user, std::memory_order_relaxed);
    set_band(std::min(other_limit_, peak + user), l);
    return;
  }
  if (l > gauge_published_ + gauge_step) {
    process_gauge().add(l - gauge_published_);
    gauge_published_ = l;
  }
  kind_stats& fs = stats_.kind[0];
  std::int64_t frames = l - stats_.kind[1].live.load(std::memory_order_relaxed);
  if (frames > fs.peak.load(std::memory_order_relaxed)) fs.peak.store(frames, std::memory_order_relaxed);
  if (quota_.enabled()) {
    // DFDeques checks the quota before an allocation. A frame is allocated before the spawn or call
    // that starts it, so it is not charged here: the spawn/call gives up the deque instead of running
    // it, and the worker that later starts it pays for it (worker::give_up). User memory from the
    // synchronous slaw::allocate cannot wait: it is charged and the excess is counted.
    const policy::quota::outcome o =
        quota_.after_allocation(n, k == mem_kind::frame ? policy::memory_kind::frame : policy::memory_kind::user, l);
    if (o.overrun)
      quota_stats_.overrun_bytes.store(quota_stats_.overrun_bytes.load(std::memory_order_relaxed) + o.overrun,
                                       std::memory_order_relaxed);
    note_quota_used(o.used);
    sync_quota_preempt();
  }
  update_watermark();
}

void frame_allocator::reset_peaks() noexcept {
  stats_.kind[0].peak.store(std::max<std::int64_t>(live_bytes(mem_kind::frame), 0), std::memory_order_relaxed);
  stats_.kind[1].peak.store(std::max<std::int64_t>(live_bytes(mem_kind::user), 0), std::memory_order_relaxed);
  for (auto& ks : stats_.kind) ks.total.store(0, std::memory_order_relaxed);
  quota_stats_.max_used.store(0, std::memory_order_relaxed);
  quota_stats_.overrun_bytes.store(0, std::memory_order_relaxed);
  // The watermark folds in the old, higher frame peak; only the owner may move it (the room under it
  // is the owner's plain read-modify-write). Release: the owner that sees the bit reads the peaks
  // stored above.
  preempt_.fetch_or(preempt_rewatch, std::memory_order_release);
}

void frame_allocator::quota_enable(std::int64_t k) noexcept {
  quota_.enable(k, all_live());
  sync_quota_preempt();
  update_watermark();
}

void frame_allocator::quota_disable() noexcept {
  quota_.disable();
  sync_quota_preempt();
  update_watermark();
}

void frame_allocator::quota_new_period() noexcept {
  quota_.new_period(all_live());
  sync_quota_preempt();
  update_watermark();
}

void frame_allocator::quota_charge(std::int64_t bytes) noexcept {
  note_quota_used(quota_.charge(bytes, all_live()));
  update_watermark();
}

void frame_allocator::quota_reserve(std::int64_t bytes) noexcept {
  note_quota_used(quota_.reserve(bytes, all_live()));
  update_watermark();
}

std::int64_t frame_allocator::quota_consume_reservation(std::int64_t bytes) noexcept {
  if (quota_.reserved() == 0) return 0;
  const std::int64_t take = quota_.consume_reservation(bytes);
  update_watermark();
  return take;
}

void* frame_allocator::allocate_slow(std::size_t n, mem_kind k) noexcept {
  drain_remote();
  if (n > max_small) {
    if (n > max_block) return nullptr;  // the rounding below would wrap (e.g. a negative size)
    std::size_t bytes = (n + sizeof(chunk_header) + chunk_size - 1) / chunk_size * chunk_size;
    chunk_header* h = new_chunk(this, bytes, num_classes, n);
    if (!h) return nullptr;
    stats_.chunk_bytes.fetch_add(bytes, std::memory_order_relaxed);
    account_alloc(n, k);
    void* p = reinterpret_cast<char*>(h) + sizeof(chunk_header);
    asan_hand_out(p, n, bytes - sizeof(chunk_header));
    return p;
  }
  unsigned c = size_class_of(n);
  if (void* p = free_[c]) {  // refilled by the drain
    asan_unpoison(p, sizeof(void*));
    free_[c] = *static_cast<void**>(p);
    asan_hand_out(p, n, class_block_size(c));
    account_alloc(n, k);
    return p;
  }
  std::size_t bs = class_block_size(c);
  if (bump_[c] == nullptr || bump_[c] + bs > bump_end_[c]) {
    chunk_header* h = new_chunk(this, chunk_size, c, bs);
    if (!h) return nullptr;
    h->next_chunk = chunks_;
    chunks_ = h;
    stats_.chunk_bytes.fetch_add(chunk_size, std::memory_order_relaxed);
    bump_[c] = reinterpret_cast<char*>(h) + sizeof(chunk_header);
    bump_end_[c] = reinterpret_cast<char*>(h) + chunk_size;
  }
  void* p = bump_[c];
  bump_[c] += bs;
  asan_hand_out(p, n, bs);
  account_alloc(n, k);
  return p;
}

namespace {
constexpr std::size_t user_bit = std::size_t{1} << 63;
constexpr std::size_t gauged_bit = std::size_t{1} << 62;  // the freer already took it out of the process gauge
}

void frame_allocator::note_remote_free(std::int64_t n) noexcept {
  remote_freed_ += n;
  if (remote_freed_ >= gauge_step) flush_remote_freed();
}

void frame_allocator::flush_remote_freed() noexcept {
  if (remote_freed_) process_gauge().add(-remote_freed_);
  remote_freed_ = 0;
}

void frame_allocator::remote_free(void* p, std::size_t n, mem_kind k, bool gauged) noexcept {
  // Block layout while on the remote list: [next][size | user_bit | gauged_bit].
  asan_check_live(p, n);
  chunk_header* h = header_of(p);
  asan_poison(p, h->size_class == num_classes ? h->chunk_bytes - sizeof(chunk_header) : h->block_size);
  asan_unpoison(p, 2 * sizeof(std::size_t));
  static_cast<std::size_t*>(p)[1] = n | (k == mem_kind::user ? user_bit : 0) | (gauged ? gauged_bit : 0);
  void* head = remote_.load(std::memory_order_relaxed);
  do {
    *static_cast<void**>(p) = head;
  } while (!remote_.compare_exchange_weak(head, p, std::memory_order_release, std::memory_order_relaxed));
}

void frame_allocator::drain_remote_slow() noexcept {
  void* p = remote_.exchange(nullptr, std::memory_order_acquire);
  while (p) {
    void* next = *static_cast<void**>(p);
    std::size_t word = static_cast<std::size_t*>(p)[1];
    std::size_t n = word & ~(user_bit | gauged_bit);
    mem_kind k = word & user_bit ? mem_kind::user : mem_kind::frame;
    if (word & gauged_bit) {  // already out of the process gauge: move the baseline, publish nothing
      gauge_published_ -= static_cast<std::int64_t>(n);
      span_ += static_cast<std::int64_t>(n);  // the band's low end moved down with it
    }
    chunk_header* h = header_of(p);
    if (h->size_class == num_classes) {
      stats_.chunk_bytes.fetch_sub(h->chunk_bytes, std::memory_order_relaxed);
      account_free(n, k);
      std::free(h);
    } else {
      deallocate_local(p, n, h->size_class, k);
    }
    p = next;
  }
  update_watermark();
}

frame_allocator* frame_allocator::acquire() {
  std::lock_guard<std::mutex> g(pool_mutex);
  if (frame_allocator* a = pool_head) {
    pool_head = a->next_in_pool_;
    return a;
  }
  return new frame_allocator();  // pooled forever: chunk headers may point at it
}

void frame_allocator::release(frame_allocator* a) noexcept {
  std::lock_guard<std::mutex> g(pool_mutex);
  a->next_in_pool_ = pool_head;
  pool_head = a;
}

frame_allocator& frame_allocator::global() noexcept {
  static frame_allocator* g = new frame_allocator();
  return *g;
}

void* frame_alloc_slow(std::size_t n, mem_kind k) noexcept {
  frame_allocator& g = frame_allocator::global();
  std::lock_guard<std::mutex> lk(g.lock());
  try {
    return g.allocate(n, k);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void throw_bad_alloc() { throw std::bad_alloc(); }

void frame_free_slow(void* p, std::size_t n, chunk_header* h, mem_kind k) noexcept {
  frame_allocator* owner = h->owner;
  if (owner == &frame_allocator::global()) {
    std::lock_guard<std::mutex> lk(owner->lock());
    if (h->size_class == num_classes) {
      owner->remote_free(p, n, k, false);  // freed on the next drain under the lock
      owner->drain_remote();
      return;
    }
    owner->deallocate_local(p, n, h->size_class, k);
    return;
  }
  if (h->size_class == num_classes && owner == tls_allocator) {
    owner->remote_free(p, n, k, false);  // a large chunk: freed at the owner's next drain (here, soon)
    owner->drain_remote();
    return;
  }
  // A block of another allocator: its owner credits it at its next drain, which may be long after
  // (it may be parked). The process gauge learns of the free now, through the freer (batched).
  if (frame_allocator* me = worker_allocator()) me->note_remote_free(static_cast<std::int64_t>(n));
  else process_gauge().add(-static_cast<std::int64_t>(n));
  owner->remote_free(p, n, k, true);
}

}  // namespace slaw::detail
