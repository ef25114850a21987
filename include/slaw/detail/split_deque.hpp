// Split work-stealing deque: fence-free owner operations, all synchronisation on the thief side.
//
// Layout (indices are 32-bit, monotonic modulo 2^32, slot = index & mask):
//
//     tail ............ split ............ head
//     [ shared: thieves take tail ][ private: owner push/pop ]
//
// * `head` and `osplit` (the owner's copy of `split`) are plain fields touched by the owner only.
// * `ts` packs (tail, split) into one 64-bit atomic word. Thieves take index `tail` with
//   CAS (t,s)->(t+1,s). The owner moves `split` with CAS: up to expose work (`expose`) and down
//   to reclaim work (`pop_shared`).
// * The owner's push and its pop of a private entry are plain stores/loads: no RMW, no fence.
//   Thieves never read or write the private region, so there is nothing to synchronise with.
// * A thief that finds the shared region empty raises `want_split`; the owner checks it (one
//   relaxed load) on every push and then exposes half of its private region (release CAS).
// * The expose window: `want_split` holds a bit per asking thief (its index modulo 31; bit 31 is a
//   request from someone who is not a thief). When at least two thieves asked, the answering push
//   leaves `want_split` raised and the next `expose_window` pushes each publish their entry at once
//   (the slow path of push; the last one lowers the flag). Several idle thieves on one victim would
//   otherwise get at most one half-exposure per push of a worker inside a long leaf; one thief alone
//   (2 workers) never opens the window, so the release CAS per push and the owner's CAS to take the
//   entry back (pop_shared) are paid only where several thieves wait (docs/design/deques.md).
//
// Invariants
//   I1  tail <= split <= head (as 32-bit differences); only thieves and owner-steal advance tail;
//       only the owner moves split; only the owner moves head.
//   I2  The owner decrements split only to a value > tail (reclaims [ns, s) with ns >= t+1). It takes
//       the *last* shared entry (s == t+1) by advancing tail, exactly like a thief.
//   I3  A slot with index i is written only while i >= split (private) or i >= head (new push).
//
// Why a thief never returns a stale entry (the ABA argument): a thief reads (t,s), then slot t, then
// CASes (t,s)->(t+1,s). For the CAS to succeed the word must again be (t,s), so tail stayed t
// throughout (tail is monotonic). Slot t could only have been rewritten if index t became private,
// i.e. split <= t, but by I2 split never drops to a value <= tail while tail == t. So slot t still
// holds the value the thief read. (The word may have gone (t,s)->(t,s-1)->(t,s) in between; that only
// touched slot s-1 > t.)
//
// Memory ordering: the owner writes slots with relaxed stores and publishes them by the release CAS
// in `publish_to` (expose, the expose window, expose_all); thieves load `ts` with acquire before reading
// a slot. Growth publishes the new array with a release store before any later expose; a thief that
// sees a split covering index i therefore also sees an array holding index i. Old arrays are retired,
// not freed, until the deque dies (a thief may still read from one; the value at any index it can win
// is identical in every array).
// `want_split` is a hint and carries no data: relaxed loads, thieves' relaxed fetch_or, the owner's
// relaxed store of 0. A request that store overwrites is repeated by its thief at its next failed
// attempt; the window only changes when entries are published, never whether a published one is safe.
//
// Steal lock: the preempted deque's thieves must do bookkeeping (count the detached child in its
// finish) after winning an entry. `try_lock_steal`/`unlock_steal` bracket that; an owner that finds
// its deque emptied by thieves calls `wait_for_thieves` before it acts on that fact, so it observes
// the bookkeeping (happens-before through the lock's release/acquire).
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>

#include "slaw/detail/codegen.hpp"
#include "slaw/policy/split.hpp"

namespace slaw::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class split_deque {
 public:
  using entry = std::uintptr_t;  // never 0
  static constexpr entry none = 0;
  enum class shared_pop { got, stolen, not_mine };

  explicit split_deque(unsigned log_capacity = 10) {
    arr_ = array::make(log_capacity);
    set_tail_cache(0);
    shared_arr_.store(arr_, std::memory_order_relaxed);
  }
  split_deque(const split_deque&) = delete;
  split_deque& operator=(const split_deque&) = delete;
  ~split_deque() {
    array* a = retired_;
    while (a) {
      array* n = a->next_retired;
      std::free(a);
      a = n;
    }
    std::free(arr_);
  }

  // ---------------- owner ----------------
  // What a push did besides pushing (rare; the fast path tests the result once): it answered a
  // thief's request by exposing work, and/or it wrote the watched index (below).
  static constexpr unsigned pushed_exposed = 1, pushed_watch = 2;
  unsigned push(entry e) noexcept {
    if (head_ == push_limit_) [[unlikely]] return push_at_limit(e);  // the array is full, or the watch
    arr_->slot(head_).store(e, std::memory_order_relaxed);
    ++head_;
    if (flag_nonzero(want_split_)) [[unlikely]] return answer_at_push();  // one cmp on memory (codegen.hpp)
    return 0;
  }
  // A push that answers no request: the entry stays private, and so do the others. For an owner about
  // to hand its whole deque over (a DFDeques give-up, which counts the hand-over under R's lock): an
  // answer here would let a thief take the entry, and perhaps end the run, before that count is made.
  unsigned push_unanswered(entry e) noexcept {
    if (head_ == push_limit_) [[unlikely]] return push_at_limit(e, false);
    arr_->slot(head_).store(e, std::memory_order_relaxed);
    ++head_;
    return 0;
  }
  // After answering a request of two or more thieves, the next `expose_window` pushes publish their
  // entry at once: `want_split` stays raised, so they take this slow path, and the last one lowers it.
  // Requests that arrive meanwhile are answered by the window's publications. A window push wakes
  // nobody (returns 0): the thieves that opened it are awake and asking.
  static constexpr std::uint32_t expose_window = policy::expose_window;
  [[gnu::noinline]] unsigned answer_at_push() noexcept {
    if (window_left_ > 0) {
      if (--window_left_ == 0) want_split_.store(0, std::memory_order_relaxed);
      publish_private();
      return 0;
    }
    const bool several =
        std::popcount(want_split_.load(std::memory_order_relaxed) & thief_bits) >= static_cast<int>(policy::expose_min_thieves);
    publish_to(policy::exposed_split(osplit_, head_));
    if (several) window_left_ = expose_window;
    else want_split_.store(0, std::memory_order_relaxed);
    return pushed_exposed;
  }
  // The owner's watch: the push that writes index `at` reports pushed_watch and moves the watch up by
  // one. The worker watches its next unseen work-first depth (base + maximum) with the compare a push
  // already makes for a full array, instead of a compare of its own on every spawn. `at` must not lie
  // behind head (as a 32-bit difference).
  void set_watch(std::uint32_t at) noexcept {
    watch_ = at;
    watching_ = true;
    set_push_limit();
  }
  bool split_requested() const noexcept { return want_split_.load(std::memory_order_relaxed) != 0; }

  // Pops the bottom entry; none if the deque is empty.
  entry pop() noexcept {
    if (head_ != osplit_) [[likely]] {
      --head_;
      return arr_->slot(head_).load(std::memory_order_relaxed);
    }
    entry e = none;
    pop_shared(none, e);
    return e;
  }

  // The bottom entry, left in place; the private region must not be empty.
  entry bottom() const noexcept { return arr_->slot(head_ - 1).load(std::memory_order_relaxed); }
  bool private_bottom_is(entry e) const noexcept { return head_ != osplit_ && bottom() == e; }
  void drop_private_bottom() noexcept { --head_; }
  bool private_empty() const noexcept { return head_ == osplit_; }

  // Owner pop of the bottom entry from the shared region (the private one is empty). With
  // `expect != none`, reclaims the bottom only if it equals `expect` (else not_mine, no change).
  shared_pop pop_shared(entry expect, entry& out) noexcept {
    for (;;) {
      std::uint64_t cur = ts_.load(std::memory_order_acquire);
      std::uint32_t t = tail_of(cur), s = split_of(cur);
      std::uint32_t n = s - t;
      if (n == 0) {
        if (t != tail_cache_) set_tail_cache(t);  // an empty deque is popped often: no limit to redo
        return shared_pop::stolen;
      }
      entry e = arr_->slot(s - 1).load(std::memory_order_relaxed);
      if (expect != none && e != expect) return shared_pop::not_mine;
      if (n >= 2) {  // reclaim [ns, s), keep at least one shared entry (I2)
        std::uint32_t ns = policy::reclaimed_split(t, s);
        if (ts_.compare_exchange_weak(cur, pack(t, ns), std::memory_order_acquire, std::memory_order_relaxed)) {
          osplit_ = ns;
          --head_;
          out = e;
          return shared_pop::got;
        }
      } else {  // last shared entry: take it like a thief (advance tail), head stays == split
        if (ts_.compare_exchange_weak(cur, pack(t + 1, s), std::memory_order_acquire, std::memory_order_relaxed)) {
          set_tail_cache(t + 1);
          ++owner_steals_;
          out = e;
          return shared_pop::got;
        }
      }
    }
  }

  // Moves every entry, oldest first, into `out` and leaves the deque empty. The caller guarantees that
  // no thief is inside the deque (DFDeques: every steal holds R's lock, and so does the give-up).
  template <class Vec>
  void take_all(Vec& out) {
    std::uint32_t t = tail_of(ts_.load(std::memory_order_acquire));
    for (std::uint32_t i = t; i != head_; ++i) out.push_back(arr_->slot(i).load(std::memory_order_relaxed));
    osplit_ = head_;
    set_tail_cache(head_);
    want_split_.store(0, std::memory_order_relaxed);
    ts_.store(pack(head_, head_), std::memory_order_release);
  }

  // Publish half of the private region to thieves.
  void expose() noexcept {
    want_split_.store(0, std::memory_order_relaxed);
    window_left_ = 0;
    if (head_ == osplit_) return;
    publish_to(policy::exposed_split(osplit_, head_));
  }
  void publish_private() noexcept {
    if (head_ != osplit_) publish_to(head_);
  }
  void publish_to(std::uint32_t ns) noexcept {
    std::uint64_t cur = ts_.load(std::memory_order_relaxed);
    while (!ts_.compare_exchange_weak(cur, pack(tail_of(cur), ns), std::memory_order_release,
                                      std::memory_order_relaxed)) {
    }
    osplit_ = ns;
  }

  // Publish the whole private region (a worker parking with work left: its deque becomes muggable,
  // docs/design/multijob.md). The same release CAS as expose().
  void expose_all() noexcept {
    want_split_.store(0, std::memory_order_relaxed);
    window_left_ = 0;
    publish_private();
  }

  std::uint32_t head() const noexcept { return head_; }
  // Upper bound on the number of entries (owner view; refreshes the tail when it matters).
  std::uint32_t size_estimate() const noexcept { return head_ - tail_cache_; }
  std::uint32_t refresh_size() noexcept {
    set_tail_cache(tail_of(ts_.load(std::memory_order_acquire)));
    return head_ - tail_cache_;
  }
  // Number of times the owner took its own last shared entry by advancing tail (head unchanged).
  std::uint64_t owner_steals() const noexcept { return owner_steals_; }

  // Waits until no thief is inside a locked steal (see the header comment).
  void wait_for_thieves() const noexcept {
    unsigned spins = 0;
    while (steal_lock_.load(std::memory_order_acquire)) {
      if (++spins < 64) cpu_relax();
      else std::this_thread::yield();
    }
  }

  // ---------------- thieves ----------------
  bool looks_empty() const noexcept {
    std::uint64_t cur = ts_.load(std::memory_order_relaxed);
    return tail_of(cur) == split_of(cur);
  }
  // Entries thieves can take now (the shared region; a racy snapshot, for estimates).
  std::uint32_t stealable() const noexcept {
    std::uint64_t cur = ts_.load(std::memory_order_relaxed);
    const auto n = static_cast<std::int32_t>(split_of(cur) - tail_of(cur));
    return n > 0 ? static_cast<std::uint32_t>(n) : 0;
  }
  // Asks the owner to expose part of its private region (on its next push). `thief`: the asking
  // worker's index; two different thieves (modulo 31) asking before the answer open the expose window.
  void request_split(unsigned thief) noexcept { raise(std::uint32_t{1} << (thief % 31)); }
  // The same request from someone who is not a thief (the owner itself after a continuation steal, the
  // quantum thread's sample): it never counts toward the window.
  void request_split() noexcept { raise(not_a_thief); }
  // Takes the oldest shared entry; none if empty or lost a race. Raises want_split (for `thief`) when
  // empty.
  entry steal(unsigned thief) noexcept {
    std::uint64_t cur = ts_.load(std::memory_order_acquire);
    std::uint32_t t = tail_of(cur), s = split_of(cur);
    if (static_cast<std::int32_t>(s - t) <= 0) {
      request_split(thief);
      return none;
    }
    array* a = shared_arr_.load(std::memory_order_acquire);
    entry e = a->slot(t).load(std::memory_order_relaxed);
    if (ts_.compare_exchange_strong(cur, pack(t + 1, s), std::memory_order_acq_rel, std::memory_order_relaxed))
      return e;
    return none;
  }
  bool try_lock_steal() noexcept {
    return !steal_lock_.load(std::memory_order_relaxed) && !steal_lock_.exchange(true, std::memory_order_acquire);
  }
  void unlock_steal() noexcept { steal_lock_.store(false, std::memory_order_release); }

 private:
  struct array {
    std::uint32_t mask;
    array* next_retired;
    std::atomic<entry> slots[1];
    static std::size_t bytes_for(unsigned log_cap) noexcept {
      return sizeof(array) + ((std::size_t{1} << log_cap) - 1) * sizeof(std::atomic<entry>);
    }
    static array* make(unsigned log_cap) {
      array* a = try_make(log_cap);
      if (!a) throw std::bad_alloc();
      return a;
    }
    static array* try_make(unsigned log_cap) noexcept {
      std::size_t cap = std::size_t{1} << log_cap;
      void* mem = std::malloc(bytes_for(log_cap));
      if (!mem) return nullptr;
      array* a = static_cast<array*>(mem);
      a->mask = static_cast<std::uint32_t>(cap - 1);
      a->next_retired = nullptr;
      for (std::size_t i = 0; i < cap; ++i) new (&a->slots[i]) std::atomic<entry>(none);
      return a;
    }
    std::uint32_t capacity() const noexcept { return mask + 1; }
    std::atomic<entry>& slot(std::uint32_t i) noexcept { return slots[i & mask]; }
    const std::atomic<entry>& slot(std::uint32_t i) const noexcept { return slots[i & mask]; }
  };

  static constexpr std::uint32_t not_a_thief = std::uint32_t{1} << 31, thief_bits = not_a_thief - 1;
  // A bit already set costs no RMW: a thief that asks again while the owner is inside a leaf reads.
  void raise(std::uint32_t bit) noexcept {
    if (!(want_split_.load(std::memory_order_relaxed) & bit)) want_split_.fetch_or(bit, std::memory_order_relaxed);
  }

  static std::uint64_t pack(std::uint32_t t, std::uint32_t s) noexcept { return (std::uint64_t{s} << 32) | t; }
  static std::uint32_t tail_of(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w); }
  static std::uint32_t split_of(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w >> 32); }

  // Growth runs inside a spawn, which cannot fail (docs/design/deques.md, "Out of memory"): if the bigger
  // array cannot be had, stop the process with a message rather than an anonymous std::terminate.
  [[noreturn, gnu::cold, gnu::noinline]] static void cannot_grow(unsigned log_cap) noexcept {
    if (log_cap > max_log_capacity)
      std::fprintf(stderr, "slaw: a work deque would hold more than 2^%u entries; stopping\n", max_log_capacity);
    else
      std::fprintf(stderr,
                   "slaw: out of memory growing a work deque to %zu entries (%zu bytes); a spawn cannot fail "
                   "here, so the process stops\n",
                   std::size_t{1} << log_cap, array::bytes_for(log_cap));
    std::abort();
  }
  static constexpr unsigned max_log_capacity = 31;  // 32-bit indices: the size must stay below 2^32

  [[gnu::noinline]] unsigned push_at_limit(entry e, bool answer = true) noexcept {
    unsigned r = 0;
    if (watching_ && head_ == watch_) {
      ++watch_;
      r = pushed_watch;
    }
    if (head_ - tail_cache_ == arr_->capacity()) make_room();
    set_push_limit();
    arr_->slot(head_).store(e, std::memory_order_relaxed);
    ++head_;
    if (answer && want_split_.load(std::memory_order_relaxed)) r |= answer_at_push();
    return r;
  }

  void make_room() noexcept {
    // Acquire: a slot below the thieves' tail may be reused only after the thief that took it read it.
    set_tail_cache(tail_of(ts_.load(std::memory_order_acquire)));
    if (head_ - tail_cache_ != arr_->capacity()) return;
    unsigned log = 0;
    while ((std::uint32_t{1} << log) < arr_->capacity()) ++log;
    if (log + 1 > max_log_capacity) cannot_grow(log + 1);
    array* bigger = array::try_make(log + 1);
    if (!bigger) [[unlikely]] cannot_grow(log + 1);
    for (std::uint32_t i = tail_cache_; i != head_; ++i)
      bigger->slot(i).store(arr_->slot(i).load(std::memory_order_relaxed), std::memory_order_relaxed);
    arr_->next_retired = retired_;
    retired_ = arr_;
    arr_ = bigger;
    set_tail_cache(tail_cache_);
    shared_arr_.store(bigger, std::memory_order_release);
  }

  // Owner-private, hot.
  std::uint32_t head_ = 0;
  std::uint32_t osplit_ = 0;
  std::uint32_t window_left_ = 0;  // pushes left that publish at once (answer_at_push)
  std::uint32_t tail_cache_ = 0;
  // The nearer, from head_, of tail_cache_ + capacity (a push finds the array full when head_ reaches
  // it: head_ - tail_cache_ never exceeds the capacity, and head_ grows by one at a time) and the watch.
  // Kept with both by set_push_limit.
  std::uint32_t push_limit_ = 0;
  std::uint32_t watch_ = 0;
  bool watching_ = false;
  array* arr_;
  void set_tail_cache(std::uint32_t t) noexcept {
    tail_cache_ = t;
    set_push_limit();
  }
  void set_push_limit() noexcept {
    push_limit_ = tail_cache_ + arr_->capacity();
    if (watching_ && watch_ - head_ < push_limit_ - head_) push_limit_ = watch_;
  }
  array* retired_ = nullptr;
  std::uint64_t owner_steals_ = 0;
  // Read by the owner on every push, written rarely by thieves.
  alignas(64) std::atomic<std::uint32_t> want_split_{0};  // a bit per asking thief (index % 31), bit 31 others
  std::atomic<bool> steal_lock_{false};
  std::atomic<array*> shared_arr_;
  // Written by thieves on every steal.
  alignas(64) std::atomic<std::uint64_t> ts_{0};
  [[maybe_unused]] char pad_[64 - sizeof(std::atomic<std::uint64_t>)];
};

}  // namespace slaw::detail
