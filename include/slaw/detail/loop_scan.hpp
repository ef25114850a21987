// The parallel prefix scans of include/slaw/algorithm.hpp (inclusive_scan, exclusive_scan): one pass
// over the range when no thief asks, two over the parts thieves took (docs/guide/algorithms.md).
//
// A scan is a *chain*: a carry folded left to right, each element's output written as the chain passes
// it. The loop's first chain starts at 0 with the true prefix (init, or nothing): it is *known*, its
// outputs final. A piece runs its chain in chunks, as the loops of loop_piece.hpp do, and when a thief
// asks it splits what is left, [lo, hi), at mid into two roles:
//   LEFT  [lo, mid), which continues the chain (its carry moves into the split's record), and
//   RIGHT [mid, hi).
// The spawned piece and the piece's own continuation each take a role when they start, the first to
// start taking LEFT: under work-first the child starts first, under help-first the continuation, so
// that either way the piece that keeps running here continues the chain and the part thieves can take
// is RIGHT. RIGHT, when it starts, continues LEFT's chain if LEFT has already ended (its carry is then
// in the record: no second pass); otherwise it starts a new *relative* chain at mid, whose outputs are
// prefixes of [mid, i] only. The record's phase settles the race between LEFT's end and RIGHT's start:
//   0 fresh -> 1 LEFT taken -> 2 RIGHT started first (a relative chain at mid)
//                           -> 3 LEFT ended first (RIGHT continues its chain)
// both with one compare-and-swap, so exactly one of them owns the carry at mid.
//
// A chain that ends (at n, or at a split whose RIGHT started a relative chain) records its run's total:
// runs[base] = the fold of [base, end). When every piece has ended, the runs, in order, give each
// relative run its true prefix P (init or nothing, folded with the totals of the runs before it), and
// a parallel loop fixes its outputs: out[i] = op(P, out[i]) (exclusive: out[base] = P). The fix-up is
// the second pass over the parts thieves took; a scan no thief asked for writes each output once.
// Records and the run table are touched only at splits and chain ends (a mutex guards the table).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <forward_list>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "slaw/detail/loop_piece.hpp"

namespace slaw::detail {

template <class T>
struct scan_chain {
  std::size_t base = 0;     // where the chain's run began
  bool relative = false;    // outputs are prefixes from `base`, not the true ones
  std::optional<T> carry;   // the fold of [base, position) (with init for the first chain), if any
};

template <class T>
struct scan_split {
  std::size_t mid, hi;                // LEFT is [.., mid), RIGHT [mid, hi)
  scan_split* end_of_right;           // the record whose mid is hi (null: hi is the range's end)
  std::atomic<int> phase{0};          // 0 fresh, 1 LEFT taken, 2 RIGHT first, 3 LEFT ended first
  scan_chain<T> chain;                // LEFT's chain: handed to LEFT at its start, back at its end
  std::size_t left_lo;
};

template <class In, class Out, class T, class Op, bool Exclusive>
struct scan_state : loop_shared {
  In first;
  Out out;
  Op& op;
  std::mutex m;
  std::map<std::size_t, std::optional<T>> runs;  // run base -> its total (recorded when its chain ends)
  scan_state(In f, Out o, Op& op_, const loop_options& opt) : loop_shared(opt), first(f), out(o), op(op_) {}

  // Runs the chain over [lo, hi): each output written as the chain passes it (outputs of a relative
  // chain's base are left to the fix-up under Exclusive).
  void run(std::size_t lo, std::size_t hi, scan_chain<T>& c) {
    In x = advance_by(first, lo);
    const In xe = advance_by(first, hi);
    Out y = advance_by(out, lo);
    if (x != xe && !c.carry) {  // a relative chain's base, or the first element of a scan without init
      c.carry.emplace(*x);
      if constexpr (!Exclusive) *y = *c.carry;
      ++x, ++y;
    }
    // The carry in a local, as the serial scan keeps it: through the chain (in the frame) every store
    // to an output might alias it, and the compiler would reload it each iteration.
    T carry = std::move(*c.carry);
    for (; x != xe; ++x, ++y) {
      if constexpr (Exclusive) {
        *y = carry;
        carry = std::invoke(op, std::move(carry), *x);
      } else {
        carry = std::invoke(op, std::move(carry), *x);
        *y = carry;
      }
    }
    *c.carry = std::move(carry);
  }

  void record_run(const scan_chain<T>& c) {
    std::lock_guard<std::mutex> g(m);
    runs[c.base] = c.carry;
  }
};

template <class S, class T>
task<> scan_piece(S* s, std::size_t lo, std::size_t hi, scan_chain<T> ch, scan_split<T>* end_rec);

// The role the caller takes in split `sp` (see the header): LEFT's range and chain, or RIGHT's.
template <class S, class T>
task<> scan_take_role(S* s, scan_split<T>* sp) {
  int fresh = 0;
  if (sp->phase.compare_exchange_strong(fresh, 1, std::memory_order_acq_rel)) {
    // LEFT: the chain moves out of the record; the piece ending at mid hands it back.
    co_await scan_piece<S, T>(s, sp->left_lo, sp->mid, std::move(sp->chain), sp);
    co_return;
  }
  int left_taken = 1;
  scan_chain<T> ch;
  if (sp->phase.compare_exchange_strong(left_taken, 2, std::memory_order_acq_rel)) {
    ch.base = sp->mid;
    ch.relative = true;
  } else {
    ch = std::move(sp->chain);  // phase 3: LEFT ended and left its chain at mid (acquire above)
  }
  co_await scan_piece<S, T>(s, sp->mid, sp->hi, std::move(ch), sp->end_of_right);
}

// A chain reached the end of its piece's range: hand it to the RIGHT of `rec` if that has not started,
// else (or at the range's end) record the run it closes.
template <class S, class T>
void scan_chain_ends(S* s, scan_chain<T>&& ch, scan_split<T>* rec) {
  if (rec) {
    rec->chain = std::move(ch);
    int left_taken = 1;
    if (rec->phase.compare_exchange_strong(left_taken, 3, std::memory_order_acq_rel)) return;
    ch = std::move(rec->chain);  // RIGHT started first (phase 2): the run ends at mid
  }
  s->record_run(ch);
}

template <class S, class T>
task<> scan_piece(S* s, std::size_t lo, std::size_t hi, scan_chain<T> ch, scan_split<T>* end_rec) {
  std::forward_list<scan_split<T>> splits;  // live until every role has ended (the finish below)
  auto scope = co_await start_finish();
  loop_pace pace(*s);
  try {
    while (lo < hi) {
      const std::size_t n = pace.next(hi - lo);
      s->run(lo, lo + n, ch);
      lo += n;
      pace.ran(*s, n);
      if (lo == hi || s->stop.load(std::memory_order_relaxed)) break;
      worker* w = tls_worker;
      const bool split = pace.split_now(*s, w, hi - lo);
      if (split || w->preempt_pending()) [[unlikely]] {
        // A preempted worker splits at lo: LEFT is empty and RIGHT, all that is left, goes with the
        // spawn's slow path (loop_piece.hpp).
        const std::size_t mid = split ? lo + (hi - lo) / 2 : lo;
        if (split) w->count_loop_split();
        scan_split<T>& sp = splits.emplace_front();
        sp.left_lo = lo;
        sp.mid = mid;
        sp.hi = hi;
        sp.end_of_right = end_rec;
        sp.chain = std::move(ch);
        co_await async(schedule_clause{s->schedule}, named("slaw::scan"), scan_take_role<S, T>, s, &sp);
        co_await scan_take_role<S, T>(s, &sp);
        co_await end_finish(scope);
        co_return;  // both roles ran to the ends of their ranges: this piece's range is done
      }
    }
  } catch (...) {
    s->stop.store(true, std::memory_order_relaxed);
    throw;
  }
  co_await end_finish(scope);
  s->chunk.store(pace.chunk, std::memory_order_relaxed);
  if (!s->stop.load(std::memory_order_relaxed)) scan_chain_ends(s, std::move(ch), end_rec);
}

// The fix-up pass over one relative run [lo, hi) with its true prefix p (loop_piece.hpp's body).
template <class Out, class T, class Op, bool Exclusive>
struct scan_fixup_body {
  using acc = no_acc;
  static constexpr bool per_element = false;
  Out out;
  std::size_t base;  // the run's first index, relative to `out`
  const T& p;
  Op& op;
  void run(std::size_t lo, std::size_t hi, acc&) {
    Out y = advance_by(out, base + lo);
    for (std::size_t i = lo; i < hi; ++i, ++y) {
      if (Exclusive && i == 0) *y = p;
      else *y = std::invoke(op, p, *y);
    }
  }
  void merge(acc&, acc&&) noexcept {}
};

template <class Out, class T, class Op, bool Exclusive>
task<> scan_fixup(Out out, std::size_t base, std::size_t n, const T* p, Op* op, loop_options o) {
  scan_fixup_body<Out, T, Op, Exclusive> body{out, base, *p, *op};
  co_await run_loop(&body, n, o);
}

// inclusive (init optional) or exclusive (init given) scan of [first, first + n) into out.
template <bool Exclusive, class In, class Out, class T, class Op>
task<> scan_impl(loop_options o, In first, std::size_t n, Out out, std::optional<T> init, Op op) {
  if (n == 0) co_return;
  using S = scan_state<In, Out, T, Op, Exclusive>;
  S s(first, out, op, o);
  scan_chain<T> ch;
  ch.carry = std::move(init);
  co_await scan_piece<S, T>(&s, 0, n, std::move(ch), nullptr);
  if (s.runs.size() <= 1) co_return;  // one chain ran the whole range: every output is final
  // The true prefix of each run, in order; then the relative runs' outputs fixed in parallel.
  std::vector<std::pair<std::size_t, std::size_t>> fix;  // [base, end) of each relative run
  std::vector<T> prefix;
  prefix.reserve(s.runs.size());
  std::optional<T> p;
  for (auto it = s.runs.begin(); it != s.runs.end(); ++it) {
    const std::size_t b = it->first;
    const std::size_t e = std::next(it) == s.runs.end() ? n : std::next(it)->first;
    if (b != 0) {
      prefix.push_back(*p);  // b > 0: the runs before it hold at least one element
      fix.emplace_back(b, e);
    }
    if (it->second) p = p ? std::optional<T>(std::invoke(op, std::move(*p), std::move(*it->second))) : std::move(it->second);
  }
  auto scope = co_await start_finish();
  for (std::size_t k = 0; k < fix.size(); ++k)
    co_await async(named("slaw::scan"), scan_fixup<Out, T, Op, Exclusive>, out, fix[k].first,
                   fix[k].second - fix[k].first, &prefix[k], &op, o);
  co_await end_finish(scope);
}

}  // namespace slaw::detail
