// The parallel sorts of include/slaw/algorithm.hpp (docs/guide/algorithms.md).
//
// sort: quicksort. A piece partitions its range around a median-of-three pivot (serially), spawns the
// smaller side and goes on with the larger, down to leaves of `sort_leaf` elements that std::sort
// sorts. A leaf is tens of microseconds of work, so spawning at every partition costs well under 1 %
// (no lazy splitting is needed: the leaves are the grain); ADP chooses work-first or help-first for
// each spawn. Past a depth of 2 log2(n) partitions (an adversarial input) a range goes to std::sort
// whole, whose introsort bounds the work by n log n.
//
// stable_sort: merge sort with a buffer of n elements allocated through slaw::allocate (accounted, and
// reserved first: under DFDeques the sort waits for quota, docs/design/space.md). Halves are sorted in
// parallel down to leaves that std::stable_sort sorts; sorted halves are merged alternately into the
// range and the buffer. A large merge is split at the middle of the larger run and the matching place
// in the other (a binary search that keeps equal elements of the left run first), both halves merged
// in parallel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "slaw/async.hpp"
#include "slaw/detail/loop_piece.hpp"
#include "slaw/finish.hpp"
#include "slaw/memory.hpp"

namespace slaw::detail {

inline constexpr std::size_t sort_leaf = 2048;    // elements std::sort sorts as one leaf
inline constexpr std::size_t merge_leaf = 16384;  // elements one serial merge writes

template <class Comp>
struct sort_state {
  Comp& comp;
  policy::schedule schedule;
  std::size_t leaf;
};

// Partitions [a, b) (b - a >= 4) around the median of its second, middle and last elements, moved to
// a: returns p in (a, b) with [a, p) <= pivot <= [p, b). The scans need no bounds tests: an element
// not below the pivot (the largest of the three) stops the rising scan, the pivot itself the falling
// one, and every swap leaves such stoppers behind. Elements equal to the pivot stop both scans, so
// that many equal keys still split evenly.
template <class It, class Comp>
It partition_around_median(It a, It b, Comp& comp) {
  It x = a + 1, m = a + (b - a) / 2, z = b - 1;
  if (comp(*x, *m)) {
    if (comp(*m, *z)) std::iter_swap(a, m);
    else if (comp(*x, *z)) std::iter_swap(a, z);
    else std::iter_swap(a, x);
  } else if (comp(*x, *z)) {
    std::iter_swap(a, x);
  } else if (comp(*m, *z)) {
    std::iter_swap(a, z);
  } else {
    std::iter_swap(a, m);
  }
  It lo = a + 1, hi = b;
  for (;;) {
    while (comp(*lo, *a)) ++lo;
    --hi;
    while (comp(*a, *hi)) --hi;
    if (!(lo < hi)) return lo;
    std::iter_swap(lo, hi);
    ++lo;
  }
}

template <class It, class Comp>
task<> sort_piece(sort_state<Comp>* s, It first, It last, int depth_left) {
  auto scope = co_await start_finish();
  while (static_cast<std::size_t>(last - first) > s->leaf) {
    if (depth_left-- <= 0) break;
    It p = partition_around_median(first, last, s->comp);
    // The smaller side is spawned, the larger one goes on here: each frame's range at least halves.
    if (p - first < last - p) {
      co_await async(schedule_clause{s->schedule}, named("slaw::sort"), sort_piece<It, Comp>, s, first, p, depth_left);
      first = p;
    } else {
      co_await async(schedule_clause{s->schedule}, named("slaw::sort"), sort_piece<It, Comp>, s, p, last, depth_left);
      last = p;
    }
  }
  std::sort(first, last, s->comp);
  co_await end_finish(scope);
}

inline int sort_depth_limit(std::size_t n) noexcept {
  int d = 0;
  while (n > 1) {
    n >>= 1;
    ++d;
  }
  return 2 * d + 2;
}

// ---- stable_sort ----
// The buffer holds n live elements from the start (the range's, moved in) to the end (destroyed with
// it), so that every move is an assignment between live objects: an exception leaves moved-from
// elements, never a leak. Leaves are sorted in the buffer; each level of merges moves the elements
// between the buffer and the range, the parity chosen so that the last merge lands in the range.
template <class T>
struct stable_buffer {
  T* p = nullptr;
  std::size_t n = 0;  // live elements
  std::size_t bytes = 0;
  ~stable_buffer() {
    std::destroy_n(p, n);
    if (p) slaw::deallocate(p, bytes);
  }
};

template <class It, class Comp>
struct stable_state {
  using T = std::iter_value_t<It>;
  Comp& comp;
  policy::schedule schedule;
  It first;  // the range
  T* buf;    // the buffer, indexed like the range
  std::size_t leaf;
};

// Merges the sorted runs [a1, a2) and [b1, b2) into `out` (moving; equal elements of the first run
// first), splitting a large merge at the middle of the larger run and the matching place in the other.
template <class S, class Src, class Dst>
task<> merge_piece(S* s, Src a1, Src a2, Src b1, Src b2, Dst out) {
  auto scope = co_await start_finish();
  while (static_cast<std::size_t>((a2 - a1) + (b2 - b1)) > merge_leaf) {
    Src am, bm;
    if (a2 - a1 >= b2 - b1) {
      am = a1 + (a2 - a1) / 2;
      bm = std::lower_bound(b1, b2, *am, s->comp);  // b's elements equal to *am go after it
    } else {
      bm = b1 + (b2 - b1) / 2;
      am = std::upper_bound(a1, a2, *bm, s->comp);  // a's elements equal to *bm go before it
    }
    co_await async(schedule_clause{s->schedule}, named("slaw::sort"), merge_piece<S, Src, Dst>, s, a1, am, b1, bm, out);
    out += (am - a1) + (bm - b1);
    a1 = am;
    b1 = bm;
  }
  // The comparator sees lvalues, as std::stable_sort's does (a move iterator would pass rvalues).
  for (; a1 != a2 && b1 != b2; ++out) {
    if (s->comp(*b1, *a1)) *out = std::move(*b1++);
    else *out = std::move(*a1++);
  }
  std::move(b1, b2, std::move(a1, a2, out));
  co_await end_finish(scope);
}

// Sorts the elements at [lo, hi) of the buffer (leaves) and leaves them in the range if `to_range`,
// else in the buffer.
template <class It, class Comp>
task<> stable_piece(stable_state<It, Comp>* s, std::size_t lo, std::size_t hi, bool to_range) {
  using S = stable_state<It, Comp>;
  const std::size_t n = hi - lo;
  if (n <= s->leaf) {
    std::stable_sort(s->buf + lo, s->buf + hi, s->comp);
    if (to_range) std::move(s->buf + lo, s->buf + hi, advance_by(s->first, lo));
    co_return;
  }
  const std::size_t mid = lo + n / 2;
  {
    auto scope = co_await start_finish();
    co_await async(schedule_clause{s->schedule}, named("slaw::sort"), stable_piece<It, Comp>, s, lo, mid, !to_range);
    co_await stable_piece(s, mid, hi, !to_range);
    co_await end_finish(scope);
  }
  if (to_range) {
    co_await merge_piece<S, typename S::T*, It>(s, s->buf + lo, s->buf + mid, s->buf + mid, s->buf + hi,
                                                advance_by(s->first, lo));
  } else {
    const It f = s->first;
    co_await merge_piece<S, It, typename S::T*>(s, advance_by(f, lo), advance_by(f, mid), advance_by(f, mid),
                                                advance_by(f, hi), s->buf + lo);
  }
}

}  // namespace slaw::detail
