// Parallel loops and algorithms, awaitable inside a task (docs/guide/algorithms.md):
//
//   co_await slaw::for_each(v.begin(), v.end(), [](double& x) { x *= 2; });
//   co_await slaw::for_each(v, f);                               // a random-access range
//   co_await slaw::for_each_index(0, n, [&](long i) { y[i] += a * x[i]; });
//   double s = co_await slaw::reduce(v.begin(), v.end(), 0.0, std::plus<>());
//   double d = co_await slaw::transform_reduce(x.begin(), x.end(), y.begin(), 0.0);   // a dot product
//   co_await slaw::inclusive_scan(v.begin(), v.end(), out.begin());
//   co_await slaw::sort(v.begin(), v.end());
//   co_await slaw::invoke([&] { left(); }, [&] { right(); });   // runs the callables in parallel
//   long r = rt.run(slaw::reduce(v.begin(), v.end(), 0L));      // from outside a task
//
// The names and argument orders are the std parallel algorithms', without the execution policy. Each
// returns a slaw::task that owns copies of its iterators and function objects, so that it may be
// awaited later; what the iterators refer to must outlive it (as for std), and a range passed as an
// rvalue is moved into the task.
//
// No grain size to tune: a loop runs its range in chunks timed to a few microseconds and splits what
// is left only when a thief asks for work and each half holds enough work to pay for the split
// (include/slaw/policy/loop_split.hpp). Optional clauses come first, in any order, each kind once:
//   slaw::grain(n)   a floor: never fewer than n iterations in a chunk or a split piece (never needed)
//   slaw::at(p)      the range divided among place p's children, block i always on child i (SLAW's
//                    locality for loops; each block split further inside its place)
//   slaw::wf / hf / dyn   the schedule clause of the spawns that split the range (default dyn: ADP)
//
// `f` may be a plain callable or a coroutine returning slaw::task<>; loop bodies of the second kind
// run one co_await per element. Bodies run concurrently: they must be safe to call from several
// threads at once, as with std::execution::par. Reductions need an associative and commutative
// operation (std::reduce's requirement): pieces are combined in no fixed order.
//
// Exceptions: an exception thrown by a body stops the loop. Elements not started yet when a piece
// sees the stop are skipped; pieces already running finish their current chunk; then the first
// exception is rethrown to the awaiting task, as from a finish. Outputs (for_each's effects, a
// scan's output range, a sort's range) are then partly updated: which elements were done is
// unspecified, as for std's parallel algorithms (which call std::terminate instead).
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <numeric>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>

#include "slaw/async.hpp"
#include "slaw/detail/loop_piece.hpp"
#include "slaw/detail/loop_scan.hpp"
#include "slaw/detail/loop_sort.hpp"
#include "slaw/finish.hpp"
#include "slaw/task.hpp"

namespace slaw {

// The floor of a loop's chunks and split pieces, in iterations (>= 1; 0 counts as 1).
struct grain_clause {
  std::size_t value;
};
constexpr grain_clause grain(std::size_t n) noexcept { return {n}; }

namespace detail {

// ---- clauses ----
template <class C>
struct loop_clause_kind {
  static constexpr unsigned bit = 0;  // not a clause: the algorithm's arguments begin here
};
template <>
struct loop_clause_kind<grain_clause> {
  static constexpr unsigned bit = 1;
  static void add(loop_options& o, grain_clause c) noexcept { o.grain = c.value ? c.value : 1; }
};
template <>
struct loop_clause_kind<schedule_clause> {
  static constexpr unsigned bit = 2;
  static void add(loop_options& o, schedule_clause c) noexcept { o.schedule = c.value; }
};
template <>
struct loop_clause_kind<place_clause> {
  static constexpr unsigned bit = 4;
  static void add(loop_options& o, place_clause c) noexcept {
    o.placed = true;
    o.place = c.index;
  }
};

// Takes the leading clauses off `a...` into `o`, then calls f(o, rest...).
template <unsigned Seen, class F, class A0, class... A>
auto with_loop_clauses(loop_options o, F&& f, A0&& a0, A&&... a) {
  using kind = loop_clause_kind<std::remove_cvref_t<A0>>;
  if constexpr (kind::bit != 0) {
    static_assert((Seen & kind::bit) == 0, "slaw: a loop clause of the same kind is given twice");
    static_assert(sizeof...(A) > 0, "slaw: the clauses must be followed by the algorithm's arguments");
    kind::add(o, a0);
    if constexpr (sizeof...(A) > 0) return with_loop_clauses<Seen | kind::bit>(o, std::forward<F>(f), std::forward<A>(a)...);
  } else {
    return std::forward<F>(f)(o, std::forward<A0>(a0), std::forward<A>(a)...);
  }
}

// ---- iterators ----
template <class It>
inline constexpr bool splittable_iterator =
    std::random_access_iterator<It> ||
    std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<It>::iterator_category>;

#define SLAW_REQUIRE_RANDOM_ACCESS(It, algorithm)                                                                   \
  static_assert(::slaw::detail::splittable_iterator<It>,                                                            \
                "slaw::" algorithm ": the range must be random-access (a vector, an array, a span, a deque, an iota " \
                "view): slaw splits it by index while it runs. For a list or a set, copy its elements' addresses "  \
                "into a std::vector first")

// A callable's result for these arguments is a slaw::task: the body co_awaits it.
template <class F, class... A>
inline constexpr bool returns_task = is_task<std::remove_cvref_t<std::invoke_result_t<F&, A...>>>::value;

// ---- bodies (loop_piece.hpp) ----
template <class It, class F>
struct for_each_body {
  using acc = no_acc;
  static constexpr bool per_element = returns_task<F, std::iter_reference_t<It>>;
  It first;
  F& f;
  void run(std::size_t lo, std::size_t hi, acc&) {
    for (It it = advance_by(first, lo), e = advance_by(first, hi); it != e; ++it) std::invoke(f, *it);
  }
  auto run_one(std::size_t i, acc&) { return std::invoke(f, *advance_by(first, i)); }
  void merge(acc&, acc&&) noexcept {}
};

template <class I, class F>
struct for_each_index_body {
  using acc = no_acc;
  static constexpr bool per_element = returns_task<F, I>;
  I begin;
  F& f;
  I at(std::size_t k) const noexcept { return static_cast<I>(begin + static_cast<I>(k)); }
  void run(std::size_t lo, std::size_t hi, acc&) {
    for (std::size_t k = lo; k < hi; ++k) std::invoke(f, at(k));
  }
  auto run_one(std::size_t k, acc&) { return std::invoke(f, at(k)); }
  void merge(acc&, acc&&) noexcept {}
};

// GENERALIZED_SUM(op, tr(first[i])...) of each piece, as std::transform_reduce computes it serially
// (std::reduce for the identity transform: the serial elision's own loop, unrolled by libstdc++).
template <class It, class T, class Op, class Tr>
struct transform_reduce_body {
  using acc = std::optional<T>;
  static constexpr bool per_element = false;
  It first;
  Op& op;
  Tr& tr;
  void run(std::size_t lo, std::size_t hi, acc& a) {
    It b = advance_by(first, lo), e = advance_by(first, hi);
    if (!a) {
      a.emplace(std::invoke(tr, *b));
      ++b;
    }
    if constexpr (std::is_same_v<Tr, std::identity>) *a = std::reduce(b, e, std::move(*a), op);
    else *a = std::transform_reduce(b, e, std::move(*a), op, tr);
  }
  void merge(acc& into, acc&& from) {
    if (!from) return;
    if (!into) into = std::move(from);
    else *into = std::invoke(op, std::move(*into), std::move(*from));
  }
};

template <class It1, class It2, class T, class Op, class Tr>
struct transform_reduce2_body {
  using acc = std::optional<T>;
  static constexpr bool per_element = false;
  It1 first1;
  It2 first2;
  Op& op;
  Tr& tr;
  void run(std::size_t lo, std::size_t hi, acc& a) {
    It1 b1 = advance_by(first1, lo), e1 = advance_by(first1, hi);
    It2 b2 = advance_by(first2, lo);
    if (!a) {
      a.emplace(std::invoke(tr, *b1, *b2));
      ++b1;
      ++b2;
    }
    *a = std::transform_reduce(b1, e1, b2, std::move(*a), op, tr);
  }
  void merge(acc& into, acc&& from) {
    if (!from) return;
    if (!into) into = std::move(from);
    else *into = std::invoke(op, std::move(*into), std::move(*from));
  }
};

// ---- the algorithms' tasks (their parameters, copied into the frame, live as long as the task) ----
template <class It, class F>
task<> for_each_iters(loop_options o, It first, It last, F f) {
  SLAW_REQUIRE_RANDOM_ACCESS(It, "for_each");
  for_each_body<It, F> body{first, f};
  co_await run_loop(&body, static_cast<std::size_t>(last - first), o);
}

template <class R, class F>
task<> for_each_owned(loop_options o, R r, F f) {
  co_await for_each_iters(o, std::ranges::begin(r), std::ranges::end(r), std::move(f));
}

template <class I, class F>
task<> for_each_index_impl(loop_options o, I begin, I end, F f) {
  for_each_index_body<I, F> body{begin, f};
  co_await run_loop(&body, end > begin ? static_cast<std::size_t>(end - begin) : 0, o);
}

template <class It, class T, class Op, class Tr>
task<T> transform_reduce_impl(loop_options o, It first, It last, T init, Op op, Tr tr) {
  SLAW_REQUIRE_RANDOM_ACCESS(It, "reduce / transform_reduce");
  transform_reduce_body<It, T, Op, Tr> body{first, op, tr};
  std::optional<T> r = co_await run_loop(&body, static_cast<std::size_t>(last - first), o);
  if (!r) co_return init;
  co_return std::invoke(op, std::move(init), std::move(*r));
}

template <class It1, class It2, class T, class Op, class Tr>
task<T> transform_reduce2_impl(loop_options o, It1 first1, It1 last1, It2 first2, T init, Op op, Tr tr) {
  SLAW_REQUIRE_RANDOM_ACCESS(It1, "transform_reduce");
  SLAW_REQUIRE_RANDOM_ACCESS(It2, "transform_reduce");
  transform_reduce2_body<It1, It2, T, Op, Tr> body{first1, first2, op, tr};
  std::optional<T> r = co_await run_loop(&body, static_cast<std::size_t>(last1 - first1), o);
  if (!r) co_return init;
  co_return std::invoke(op, std::move(init), std::move(*r));
}

// invoke's tasks: one callable, called or co_awaited.
template <class F>
task<> invoke_one(F* f) {
  if constexpr (returns_task<F>) co_await std::invoke(*f);
  else std::invoke(*f);
}

template <class... F, std::size_t... I>
task<> invoke_impl(std::index_sequence<I...>, F... f) {
  auto scope = co_await start_finish();
  // Every callable but the last is spawned (its frame holds a pointer into this one, which lives until
  // the finish ends); the last one is called here.
  std::tuple<F&...> fs{f...};
  (co_await async(named("slaw::invoke"), invoke_one<std::tuple_element_t<I, std::tuple<F...>>>, &std::get<I>(fs)), ...);
  co_await invoke_one(&std::get<sizeof...(F) - 1>(fs));
  co_await end_finish(scope);
}

// Runs `t` at the loop's place, if a place clause was given (scan and sort run whole inside it).
template <class T>
task<T> at_loop_place(const loop_options& o, task<T> t) {
  if (!o.placed) co_return co_await std::move(t);
  std::optional<T> r;
  {
    auto scope = co_await start_finish();
    co_await async(place_clause{o.place}, named("slaw::loop"), [](task<T> t, std::optional<T>* r) -> task<> {
      r->emplace(co_await std::move(t));
    }, std::move(t), &r);
    co_await end_finish(scope);
  }
  co_return std::move(*r);
}
template <>
inline task<> at_loop_place(const loop_options& o, task<> t) {
  if (!o.placed) {
    co_await std::move(t);
    co_return;
  }
  auto scope = co_await start_finish();
  co_await async(place_clause{o.place}, named("slaw::loop"), std::move(t));
  co_await end_finish(scope);
}

template <bool Exclusive, class In, class Out, class T, class Op>
task<Out> scan_task(loop_options o, In first, In last, Out out, std::optional<T> init, Op op) {
  SLAW_REQUIRE_RANDOM_ACCESS(In, "inclusive_scan / exclusive_scan");
  SLAW_REQUIRE_RANDOM_ACCESS(Out, "inclusive_scan / exclusive_scan (the output range: it is read back)");
  const std::size_t n = static_cast<std::size_t>(last - first);
  loop_options inner = o;
  inner.placed = false;
  co_await at_loop_place(o, scan_impl<Exclusive>(inner, first, n, out, std::move(init), std::move(op)));
  co_return advance_by(out, n);
}

template <class It, class Comp>
task<> sort_task(loop_options o, It first, It last, Comp comp) {
  SLAW_REQUIRE_RANDOM_ACCESS(It, "sort");
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n < 2) co_return;
  sort_state<Comp> s{comp, o.schedule, std::max<std::size_t>(sort_leaf, o.grain)};
  co_await at_loop_place(o, sort_piece(&s, first, last, sort_depth_limit(n)));
}

template <class It, class Comp>
task<> stable_sort_task(loop_options o, It first, It last, Comp comp) {
  SLAW_REQUIRE_RANDOM_ACCESS(It, "stable_sort");
  using T = std::iter_value_t<It>;
  static_assert(alignof(T) <= 16, "slaw::stable_sort: over-aligned element types are not supported (its buffer comes from slaw::allocate)");
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n < 2) co_return;
  stable_buffer<T> b;
  b.bytes = array_bytes<T>(n);
  co_await reserve(b.bytes);
  b.p = static_cast<T*>(slaw::allocate(b.bytes));
  std::uninitialized_move(first, last, b.p);
  b.n = n;
  stable_state<It, Comp> s{comp, o.schedule, first, b.p, std::max<std::size_t>(sort_leaf, o.grain)};
  co_await at_loop_place(o, stable_piece(&s, 0, n, true));
}

}  // namespace detail

// ---- for_each ----
// for_each([clauses...,] first, last, f), for_each([clauses...,] range, f).
template <class... A>
auto for_each(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        if constexpr (sizeof...(R) == 3) {
          return [&o](auto first, auto last, auto f) { return detail::for_each_iters(o, first, last, std::move(f)); }(
              std::forward<R>(r)...);
        } else {
          static_assert(sizeof...(R) == 2, "slaw::for_each takes (first, last, f) or (range, f), after its clauses");
          return [&o]<class Rg, class F>(Rg&& rg, F&& f) {
            static_assert(std::ranges::random_access_range<Rg>,
                          "slaw::for_each: the range must be random-access (a vector, an array, a span, a deque, an "
                          "iota view): slaw splits it by index while it runs");
            if constexpr (std::is_lvalue_reference_v<Rg> || std::ranges::borrowed_range<Rg>)
              return detail::for_each_iters(o, std::ranges::begin(rg), std::ranges::end(rg), std::forward<F>(f));
            else
              return detail::for_each_owned(o, std::move(rg), std::forward<F>(f));
          }(std::forward<R>(r)...);
        }
      },
      std::forward<A>(a)...);
}

// for_each_index([clauses...,] begin, end, f): f(i) for every integer i in [begin, end).
template <class... A>
auto for_each_index(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        static_assert(sizeof...(R) == 3, "slaw::for_each_index takes (begin, end, f), after its clauses");
        return [&o]<class B, class E, class F>(B b, E e, F&& f) {
          static_assert(std::is_integral_v<B> && std::is_integral_v<E>, "slaw::for_each_index: begin and end must be integers");
          using I = std::common_type_t<B, E>;
          return detail::for_each_index_impl(o, static_cast<I>(b), static_cast<I>(e), std::forward<F>(f));
        }(std::forward<R>(r)...);
      },
      std::forward<A>(a)...);
}

// ---- reduce and transform_reduce ----
// reduce([clauses...,] first, last[, init[, op]]): init defaults to the value type's T{}, op to plus.
template <class... A>
auto reduce(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        static_assert(sizeof...(R) >= 2 && sizeof...(R) <= 4,
                      "slaw::reduce takes (first, last[, init[, op]]), after its clauses");
        return [&o]<class It, class... Rest>(It first, It last, Rest&&... rest) {
          if constexpr (sizeof...(Rest) == 0)
            return detail::transform_reduce_impl(o, first, last, std::iter_value_t<It>{}, std::plus<>(), std::identity());
          else if constexpr (sizeof...(Rest) == 1)
            return detail::transform_reduce_impl(o, first, last, std::forward<Rest>(rest)..., std::plus<>(), std::identity());
          else
            return detail::transform_reduce_impl(o, first, last, std::forward<Rest>(rest)..., std::identity());
        }(std::forward<R>(r)...);
      },
      std::forward<A>(a)...);
}

// transform_reduce([clauses...,] first1, last1, first2, init): the inner product (plus, multiplies);
// transform_reduce([clauses...,] first1, last1, first2, init, reduce, transform): reduce over
//   transform(first1[i], first2[i]);
// transform_reduce([clauses...,] first, last, init, reduce, transform): reduce over transform(first[i]).
template <class... A>
auto transform_reduce(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        if constexpr (sizeof...(R) == 4) {
          return [&o](auto first1, auto last1, auto first2, auto init) {
            return detail::transform_reduce2_impl(o, first1, last1, first2, std::move(init), std::plus<>(), std::multiplies<>());
          }(std::forward<R>(r)...);
        } else if constexpr (sizeof...(R) == 6) {
          return [&o](auto first1, auto last1, auto first2, auto init, auto op, auto tr) {
            return detail::transform_reduce2_impl(o, first1, last1, first2, std::move(init), std::move(op), std::move(tr));
          }(std::forward<R>(r)...);
        } else {
          static_assert(sizeof...(R) == 5,
                        "slaw::transform_reduce takes (first1, last1, first2, init[, reduce, transform]) or "
                        "(first, last, init, reduce, transform), after its clauses");
          return [&o](auto first, auto last, auto init, auto op, auto tr) {
            return detail::transform_reduce_impl(o, first, last, std::move(init), std::move(op), std::move(tr));
          }(std::forward<R>(r)...);
        }
      },
      std::forward<A>(a)...);
}

// ---- scans ----
// inclusive_scan([clauses...,] first, last, out[, op[, init]]): out[i] = init op x[0] op ... op x[i]
// (op defaults to plus; without init the first term is x[0]). Returns the end of the output. The
// output range must be random-access and readable: a part of it a thief scanned is read back once
// to add the prefix before it (docs/guide/algorithms.md).
template <class... A>
auto inclusive_scan(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        static_assert(sizeof...(R) >= 3 && sizeof...(R) <= 5,
                      "slaw::inclusive_scan takes (first, last, out[, op[, init]]), after its clauses");
        return [&o]<class In, class Out, class... Rest>(In first, In last, Out out, Rest&&... rest) {
          if constexpr (sizeof...(Rest) == 0) {
            return detail::scan_task<false>(o, first, last, out, std::optional<std::iter_value_t<In>>(), std::plus<>());
          } else if constexpr (sizeof...(Rest) == 1) {
            return detail::scan_task<false>(o, first, last, out, std::optional<std::iter_value_t<In>>(), std::forward<Rest>(rest)...);
          } else {
            return [&]<class Op, class Init>(Op&& op, Init&& init) {
              return detail::scan_task<false>(o, first, last, out, std::optional<std::decay_t<Init>>(std::forward<Init>(init)),
                                              std::forward<Op>(op));
            }(std::forward<Rest>(rest)...);
          }
        }(std::forward<R>(r)...);
      },
      std::forward<A>(a)...);
}

// exclusive_scan([clauses...,] first, last, out, init[, op]): out[i] = init op x[0] op ... op x[i-1].
template <class... A>
auto exclusive_scan(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        static_assert(sizeof...(R) == 4 || sizeof...(R) == 5,
                      "slaw::exclusive_scan takes (first, last, out, init[, op]), after its clauses");
        return [&o]<class In, class Out, class Init, class... Rest>(In first, In last, Out out, Init&& init, Rest&&... rest) {
          using T = std::decay_t<Init>;
          if constexpr (sizeof...(Rest) == 0)
            return detail::scan_task<true>(o, first, last, out, std::optional<T>(std::forward<Init>(init)), std::plus<>());
          else
            return detail::scan_task<true>(o, first, last, out, std::optional<T>(std::forward<Init>(init)), std::forward<Rest>(rest)...);
        }(std::forward<R>(r)...);
      },
      std::forward<A>(a)...);
}

// ---- sorts ----
// sort([clauses...,] first, last[, comp]): sorts [first, last) (not stable), comp defaults to less.
template <class... A>
auto sort(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        static_assert(sizeof...(R) == 2 || sizeof...(R) == 3, "slaw::sort takes (first, last[, comp]), after its clauses");
        return [&o]<class It, class... C>(It first, It last, C&&... comp) {
          if constexpr (sizeof...(C) == 0) return detail::sort_task(o, first, last, std::less<>());
          else return detail::sort_task(o, first, last, std::forward<C>(comp)...);
        }(std::forward<R>(r)...);
      },
      std::forward<A>(a)...);
}

// stable_sort([clauses...,] first, last[, comp]): sorts [first, last), equal elements in their order.
// Uses a buffer of n elements from slaw::allocate (accounted; reserved first under DFDeques).
template <class... A>
auto stable_sort(A&&... a) {
  return detail::with_loop_clauses<0>(
      {},
      []<class... R>(const detail::loop_options& o, R&&... r) {
        static_assert(sizeof...(R) == 2 || sizeof...(R) == 3,
                      "slaw::stable_sort takes (first, last[, comp]), after its clauses");
        return [&o]<class It, class... C>(It first, It last, C&&... comp) {
          if constexpr (sizeof...(C) == 0) return detail::stable_sort_task(o, first, last, std::less<>());
          else return detail::stable_sort_task(o, first, last, std::forward<C>(comp)...);
        }(std::forward<R>(r)...);
      },
      std::forward<A>(a)...);
}

// ---- invoke ----
// invoke(f1, f2, ...): runs the callables in parallel (each a plain callable or one returning
// slaw::task<>) and ends when all have; the first exception is rethrown, as from a finish.
template <class... F>
task<> invoke(F... f) {
  static_assert(sizeof...(F) >= 1, "slaw::invoke takes at least one callable");
  return detail::invoke_impl(std::make_index_sequence<sizeof...(F) - 1>{}, std::move(f)...);
}

}  // namespace slaw
