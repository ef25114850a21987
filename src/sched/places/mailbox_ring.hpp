// Bounded multi-producer multi-consumer ring for place mailboxes (place_mailbox.hpp), after the idea of
// D. Vyukov's bounded MPMC queue: every cell carries a sequence number that says which position may use
// it next and whether that position's value is written yet.
//
// Layout (positions are 64-bit, monotonic, never wrap in practice; cell = pos & mask, cap = mask + 1):
//
//     dequeue_pos ........................ enqueue_pos
//     [ claimed by producers, taken by consumers in order ]
//
// * `enqueue_pos`: the next position a producer will claim (CAS pos -> pos+1).
// * `dequeue_pos`: the next position a consumer will claim (CAS pos -> pos+1).
// * cell c, seq s: for the position p with p & mask == c that is current for the cell,
//       s == p        the cell is free for the producer of p (the consumer of p - cap has read it);
//       s == p + 1    the producer of p has written the value: it may be taken by the consumer of p;
//       s == p + cap  the consumer of p has read the value: free for the producer of p + cap.
//   The states must be told apart: "published for p" (p + 1) must differ from "free for p + cap", hence
//   cap >= 2 (with cap == 1 a producer of p + 1 would overwrite the value of p before it was read).
// * The two positions and the cells live on different cache lines (alignas(64)); `cells_` and `mask_`
//   are read-only after construction and share the object's first line.
//
// Invariants
//   I1  dequeue_pos <= enqueue_pos at every moment, and enqueue_pos - dequeue_pos <= cap. A consumer
//       claims p only after seeing seq == p + 1, which the producer of p stores after it claimed p (so
//       enqueue_pos > p already); a producer claims p only after seeing seq == p, which the consumer of
//       p - cap stores after it claimed p - cap (so dequeue_pos > p - cap already).
//   I2  Only the thread that won the CAS on position p touches the value of cell p & mask for p: the
//       producer of p writes it, the consumer of p reads it. Only that thread stores the cell's seq
//       (producer: p -> p + 1; consumer: p + 1 -> p + cap). Each cell's seq therefore only grows.
//   I3  A thread that wins the CAS for p had seen the seq it expects before the CAS, and that seq is still
//       current when it wins: seq can move on from p (resp. p + 1) only through the producer (resp.
//       consumer) of p, and the CAS on the position proves that no other thread is that producer
//       (consumer). So winning the CAS means owning the cell in the state the thread checked.
//
// Why a consumer never reads a value before its producer wrote it: the producer writes the value with a
// plain store and then stores seq = p + 1 with release; the consumer loads seq with acquire and goes on
// only when it reads p + 1, so the write of the value happens before the consumer's read (and so does
// everything the producer wrote before posting, e.g. the fields of a task a posted pointer points to).
// Why a slot is never overwritten before its consumer read it: the consumer of p reads the value and
// then stores seq = p + cap with release; the producer of p + cap loads seq with acquire and writes only
// after it reads p + cap, so the read happens before the overwrite. The value is a plain T (trivially
// copyable): by I2/I3 and these two release/acquire pairs, no two accesses to it race.
//
// Wrap-around: positions and seqs are std::uint64_t; comparisons use the signed difference
// (int64_t)(seq - pos), correct modulo 2^64 as long as cap < 2^62 (the constructor refuses > 2^61). At
// 10^9 posts a second 2^64 positions last about 585 years, so in practice they never wrap at all.
//
// Progress: try_post and try_take never block and never spin on another thread. A CAS fails only
// because another thread claimed that position (progress was made); they return false when the cell at
// the current position is not in the state they need:
//   try_post returns false ("full") when the cell of enqueue_pos still holds a value of the previous lap,
//     i.e. cap positions are claimed and not yet taken, or a consumer claimed that cell's previous position
//     but has not read it yet;
//   try_take returns false ("empty") when the cell of dequeue_pos is not yet published, i.e. nothing is
//     posted, or the producer of dequeue_pos claimed it but has not written it yet (then later positions
//     may be published already; they wait behind it, so a producer preempted between claim and publish
//     delays every consumer until it runs again: the ring is not lock-free in the strict sense).
//   Callers retry (the mailbox is re-polled on every search round), and nonempty() stays true meanwhile.
// Order: positions are taken in the order they were claimed, so values of one producer come out oldest
// first (FIFO per producer); across producers, the order of their claims.
//
// nonempty() and parking (docs/design/parking.md): the position CASes are seq_cst on success, and nonempty()
// loads both positions seq_cst (dequeue_pos first: by I1 and monotonicity then enqueue_pos >= the
// dequeue_pos read). The poster does try_post (seq_cst CAS on enqueue_pos), then a seq_cst RMW on the
// event counter and reads the sleepers; a sleeper registers (seq_cst RMW), then calls nonempty(). In the
// single total order of seq_cst operations either the poster's CAS comes before the sleeper's load of
// enqueue_pos, so the sleeper sees the post (nonempty() true, or dequeue_pos is past it: a consumer has
// already claimed it), or the sleeper's registration comes before the poster's later seq_cst operations,
// so the poster sees the sleeper and wakes it. Two benign windows:
//   * a consumer that has claimed a position but not yet read the cell already counts as having taken
//     it: nonempty() may be false while the value is still being copied out. That is fine: that consumer
//     is awake and will take it.
//   * a producer that has claimed a position but not yet published the cell already counts as having
//     posted: nonempty() is true while try_take may still fail. That is fine: the caller retries, and the
//     producer publishes without waiting for anything.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace slaw::detail {

template <class T>  // T trivially copyable, e.g. a pointer
class mailbox_ring {
  static_assert(std::is_trivially_copyable_v<T>, "mailbox_ring<T>: T must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>, "mailbox_ring<T>: T must be default constructible");

 public:
  // Rounded up to a power of two >= 2. Throws std::invalid_argument for 0, std::bad_alloc when the
  // cells cannot be allocated (or the capacity is absurd, > 2^61).
  explicit mailbox_ring(std::size_t capacity) {
    if (capacity == 0) throw std::invalid_argument("mailbox_ring: capacity must be positive");
    if (static_cast<std::uint64_t>(capacity) > (std::uint64_t{1} << 61)) throw std::bad_alloc();
    const std::size_t cap = capacity < 2 ? 2 : std::bit_ceil(capacity);
    cells_ = std::make_unique<cell[]>(cap);  // value-initialised: seq 0, value T{}
    for (std::size_t i = 0; i < cap; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
    mask_ = cap - 1;
    // The constructing thread publishes the object to others (e.g. with the runtime's start-up), which
    // orders these relaxed stores before any use.
  }
  mailbox_ring(const mailbox_ring&) = delete;
  mailbox_ring& operator=(const mailbox_ring&) = delete;

  // Any thread. False when full (see the header comment); never blocks, never allocates.
  bool try_post(T v) noexcept {
    std::uint64_t pos = enqueue_pos_.load(std::memory_order_relaxed);
    for (;;) {
      cell& c = cells_[pos & mask_];
      // acquire: pairs with the release store of the consumer of pos - cap (its read of the old value
      // happens before our write below).
      const std::uint64_t seq = c.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::int64_t>(seq - pos);
      if (diff == 0) {
        // seq_cst on success: the parking argument (header comment). On failure `pos` is reloaded.
        if (enqueue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_seq_cst,
                                               std::memory_order_relaxed)) {
          c.value = v;                                           // we own the cell (I2, I3)
          c.seq.store(pos + 1, std::memory_order_release);       // publish to the consumer of pos
          return true;
        }
      } else if (diff < 0) {
        return false;  // the cell still holds (or is being read for) position pos - cap: full
      } else {
        pos = enqueue_pos_.load(std::memory_order_relaxed);  // another producer claimed pos already
      }
    }
  }

  // Any thread. Oldest first; false when empty or when the oldest position is claimed but not yet
  // published (no spinning: the caller retries). `out` is written only on success.
  bool try_take(T& out) noexcept {
    std::uint64_t pos = dequeue_pos_.load(std::memory_order_relaxed);
    for (;;) {
      cell& c = cells_[pos & mask_];
      // acquire: pairs with the release store of the producer of pos (its write of the value, and what
      // it wrote before posting, happen before our read).
      const std::uint64_t seq = c.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::int64_t>(seq - (pos + 1));
      if (diff == 0) {
        if (dequeue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_seq_cst,
                                               std::memory_order_relaxed)) {
          out = c.value;                                         // we own the cell (I2, I3)
          c.seq.store(pos + mask_ + 1, std::memory_order_release);  // free for the producer of pos + cap
          return true;
        }
      } else if (diff < 0) {
        return false;  // nothing published at pos (empty, or its producer has not written it yet)
      } else {
        pos = dequeue_pos_.load(std::memory_order_relaxed);  // another consumer took pos already
      }
    }
  }

  // seq_cst loads: true if some position was claimed by a producer (its post completed or is being
  // published) that no consumer has claimed yet. See the header comment for the parking argument.
  bool nonempty() const noexcept {
    const std::uint64_t d = dequeue_pos_.load(std::memory_order_seq_cst);  // first: then e >= d (I1)
    const std::uint64_t e = enqueue_pos_.load(std::memory_order_seq_cst);
    return e != d;
  }

  std::size_t capacity() const noexcept { return mask_ + 1; }

  // Racy (relaxed loads of two variables), clamped to [0, capacity]; for statistics only.
  std::size_t size_estimate() const noexcept {
    const std::uint64_t d = dequeue_pos_.load(std::memory_order_relaxed);
    const std::uint64_t e = enqueue_pos_.load(std::memory_order_relaxed);
    const auto n = static_cast<std::int64_t>(e - d);
    if (n <= 0) return 0;
    return static_cast<std::uint64_t>(n) > mask_ ? mask_ + 1 : static_cast<std::size_t>(n);
  }

 private:
  struct cell {
    std::atomic<std::uint64_t> seq{0};
    T value{};
  };
  static constexpr std::size_t kLine = 64;

  // Read-only after construction: the object's first cache line.
  std::unique_ptr<cell[]> cells_;
  std::size_t mask_ = 0;
  alignas(kLine) std::atomic<std::uint64_t> enqueue_pos_{0};
  alignas(kLine) std::atomic<std::uint64_t> dequeue_pos_{0};
  // sizeof is a multiple of kLine (the class is kLine-aligned), so dequeue_pos_'s line holds nothing else.
};

}  // namespace slaw::detail
