// The engine of the parallel loops (include/slaw/algorithm.hpp): one piece of a range, run in chunks
// and split when a thief asks (the rule: include/slaw/policy/loop_split.hpp; docs/guide/algorithms.md).
//
// A loop over [0, n) is a tree of pieces. The first piece is called on [0, n). A piece runs its range
// left to right in chunks; between two chunks it reads the clock and the worker's split request, and
// when the rule says so it spawns a new piece for the left half of what is left and goes on with the
// right half. Under a work-first spawn the new piece runs here at once and the piece's continuation
// (the right half) is what a thief steals; under help-first the new piece is queued and stolen. Either
// way each piece joins the pieces it split off (a finish of its own), then folds their accumulators
// into its own. Accumulators are combined in no particular order: a reduction's operation must be
// associative and commutative, as std::reduce's (GENERALIZED_SUM).
//
// A Body supplies the work:
//   using acc = ...;                        an accumulator, default-constructible (the empty fold)
//   static constexpr bool per_element;      true: run_one is a coroutine (a body that co_awaits)
//   void run(std::size_t lo, std::size_t hi, acc& a);     (per_element false) fold [lo, hi) into a
//   task<> run_one(std::size_t i, acc& a);                (per_element true)  fold element i into a
//   void merge(acc& into, acc&& from);                    fold one piece's accumulator into another's
// Exceptions: a piece that catches one from its body stops the loop (every piece stops at its next
// chunk boundary) and lets it go on as a finish would: the first one reaches the loop's caller.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <forward_list>
#include <iterator>
#include <type_traits>
#include <vector>

#include "slaw/async.hpp"
#include "slaw/finish.hpp"
#include "slaw/policy/loop_split.hpp"
#include "slaw/task.hpp"

namespace slaw::detail {

// The clauses a loop takes (algorithm.hpp); default: no floor, ADP's choice, the caller's place.
struct loop_options {
  std::uint64_t grain = 1;
  policy::schedule schedule = policy::schedule::dyn;
  bool placed = false;
  std::uint32_t place = 0;  // with `placed`: the place clause's place (its index in the place tree)
};

// The accumulator of a body that folds nothing (for_each).
struct no_acc {};

template <class It>
It advance_by(It first, std::size_t i) {
  return first + static_cast<std::iter_difference_t<It>>(i);
}

inline std::uint64_t loop_clock_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Whether this worker should hand part of its loop to a thief: one asked (it found this worker's
// deques empty) and nothing here is stealable already.
inline bool loop_split_wanted(worker* w) noexcept {
  return w->preempted_deque().split_requested() && !w->has_visible_work();
}

// What every piece of one loop shares (a scan's too): the rule's parameters, the schedule clause, the
// stop flag and the chunk size last calibrated. Lives in the loop task's frame until its last piece ended.
struct loop_shared {
  policy::loop_params params;
  std::uint64_t floor;
  policy::schedule schedule;
  std::atomic<bool> stop{false};     // a piece's body threw: the others stop at their next chunk
  std::atomic<std::uint64_t> chunk;  // where a new piece starts
  explicit loop_shared(const loop_options& o) noexcept
      : params(tls_worker->loop_params()), floor(o.grain), schedule(o.schedule), chunk(o.grain) {}
};

template <class Body>
struct loop_ctx : loop_shared {
  Body& body;
  loop_ctx(Body& b, const loop_options& o) noexcept : loop_shared(o), body(b) {}
};

// One piece's pace: the size of its next chunk, and the time and size of its last (policy/loop_split.hpp).
struct loop_pace {
  std::uint64_t chunk, t0 = loop_clock_ns(), n = 0, ns = 0;
  explicit loop_pace(const loop_shared& s) noexcept : chunk(s.chunk.load(std::memory_order_relaxed)) {}
  std::size_t next(std::size_t left) const noexcept { return static_cast<std::size_t>(std::min<std::uint64_t>(chunk, left)); }
  // A chunk of `ran` iterations ended: its time, and the next chunk's size.
  void ran(const loop_shared& s, std::size_t ran) noexcept {
    const std::uint64_t t1 = loop_clock_ns();
    n = ran;
    ns = t1 - t0;
    t0 = t1;
    chunk = policy::next_chunk(s.params, n, ns, s.floor);
  }
  // Whether to split the `left` iterations still to run now (a thief asked, and the rest pays for it).
  bool split_now(const loop_shared& s, worker* w, std::size_t left) const noexcept {
    return loop_split_wanted(w) && policy::should_split(s.params, left, n, ns, s.floor);
  }
  void restart() noexcept { t0 = loop_clock_ns(); }
};

// The accumulators of the pieces a piece split off: written by those pieces before they end, read by
// the piece after its finish. A list, so that a later split never moves an earlier one's slot (a
// split is rare: the allocation is nothing beside the steal that follows it).
template <class Acc>
struct split_results {
  std::forward_list<Acc> slots;
  Acc* add() { return &slots.emplace_front(); }
};
struct no_results {};


template <class Body>
task<> loop_piece(loop_ctx<Body>* cx, std::size_t lo, std::size_t hi, typename Body::acc* out);

// Spawns the piece [lo, hi), its accumulator into `slot`, with the loop's schedule clause.
template <class Body>
task<> spawn_piece(loop_ctx<Body>* cx, std::size_t lo, std::size_t hi, typename Body::acc* slot) {
  co_await async(schedule_clause{cx->schedule}, named("slaw::loop"), loop_piece<Body>, cx, lo, hi, slot);
}

template <class Body>
task<> loop_piece(loop_ctx<Body>* cx, std::size_t lo, std::size_t hi, typename Body::acc* out) {
  using acc_t = typename Body::acc;
  constexpr bool folds = !std::is_empty_v<acc_t>;
  acc_t acc{};
  std::conditional_t<folds, split_results<acc_t>, no_results> kids;
  auto scope = co_await start_finish();
  loop_pace pace(*cx);
  try {
    while (lo < hi) {
      const std::size_t n = pace.next(hi - lo);
      if constexpr (Body::per_element) {
        for (std::size_t i = lo; i < lo + n; ++i) co_await cx->body.run_one(i, acc);
      } else {
        cx->body.run(lo, lo + n, acc);
      }
      lo += n;
      pace.ran(*cx, n);
      if (lo == hi || cx->stop.load(std::memory_order_relaxed)) break;
      worker* w = tls_worker;
      if (pace.split_now(*cx, w, hi - lo)) [[unlikely]] {
        const std::size_t mid = lo + (hi - lo) / 2;
        w->count_loop_split();
        acc_t* slot = nullptr;
        if constexpr (folds) slot = kids.add();
        co_await spawn_piece(cx, lo, mid, slot);
        lo = mid;
        pace.restart();
      } else if (w->preempt_pending()) [[unlikely]] {
        // This worker must stop its chain (its job's allotment shrank, or a DFDeques quota is spent):
        // the rest of the range goes with a spawn, whose slow path hands it over; this piece ends.
        acc_t* slot = nullptr;
        if constexpr (folds) slot = kids.add();
        co_await spawn_piece(cx, lo, hi, slot);
        lo = hi;
      }
    }
  } catch (...) {
    cx->stop.store(true, std::memory_order_relaxed);
    throw;  // the scope, left early, waits for the pieces split off; the first exception wins
  }
  co_await end_finish(scope);
  cx->chunk.store(pace.chunk, std::memory_order_relaxed);
  if constexpr (folds) {
    for (acc_t& k : kids.slots) cx->body.merge(acc, std::move(k));
    if (out) cx->body.merge(*out, std::move(acc));
  }
}

// Runs `body` over [0, n): on the caller's place, or, with a place clause, divided among the place's
// children (block i always on child i: the same data on the same place every time the loop runs),
// each block split further inside its child place. Returns the loop's accumulator.
template <class Body>
task<typename Body::acc> run_loop(Body* body, std::size_t n, loop_options o) {
  using acc_t = typename Body::acc;
  acc_t acc{};
  if (n == 0) co_return acc;
  if (o.grain == 0) o.grain = 1;
  loop_ctx<Body> cx(*body, o);
  if (!o.placed) {
    co_await loop_piece(&cx, 0, n, &acc);
    co_return acc;
  }
  std::vector<std::uint32_t> kids = place_children(o.place);
  if (kids.empty()) kids.push_back(o.place);
  const std::size_t k = std::min<std::size_t>(kids.size(), n);
  std::vector<acc_t> parts(k);
  {
    auto scope = co_await start_finish();
    for (std::size_t i = 0; i < k; ++i)
      co_await async(place_clause{kids[i]}, named("slaw::loop"), loop_piece<Body>, &cx, i * n / k, (i + 1) * n / k,
                     &parts[i]);
    co_await end_finish(scope);
  }
  for (acc_t& a : parts) body->merge(acc, std::move(a));
  co_return acc;
}

}  // namespace slaw::detail
