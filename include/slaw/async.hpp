// slaw::async: spawn a task that may run in parallel with the rest of the caller. It joins the
// caller's innermost enclosing finish (IEF) and may outlive the caller (escaping async).
//
//   co_await slaw::async(&a, fib, n - 1);          // result delivered into *(&a) before the IEF ends
//   co_await slaw::async(slaw::hf, work, i);       // schedule clause: slaw::wf | slaw::hf | slaw::dyn
//   co_await slaw::async(fib(n - 1));              // an already-made task, result discarded
//   co_await slaw::async(slaw::named("kernel"), slaw::hf, &x, kernel, i);   // clauses in any order
//   co_await slaw::async(slaw::at(slaw::place(2)), &x, kernel, i);         // runs inside place 2
//
// Clauses come first, in any order, each kind at most once (a repeated kind does not compile):
// * schedule (SLAW, Guo et al., IPDPS 2010, §II-B): `dyn` (default) lets ADP(S,F,INT) choose; `wf` runs
//   the child now and leaves the caller's continuation stealable, except when this worker's work-first
//   depth has reached S (the hard stack bound wins); `hf` queues the child and continues the caller.
// * name: `slaw::named("kernel")`, the task's name in timeline traces (docs/guide/tracing.md); the string
//   must outlive the runtime (a literal). It costs nothing when no trace is recorded.
// * place: `slaw::at(p)` (include/slaw/place.hpp, docs/guide/places.md), the place the child runs in; the
//   default is the parent's. A child for another place than its parent's is queued, never run
//   work-first: in this worker's fresh deque if p is this worker's own leaf place, otherwise in p's
//   mailbox, where only workers inside p take it. A clause naming the parent's place changes nothing.
#pragma once

#include <functional>
#include <type_traits>

#include "slaw/place.hpp"
#include "slaw/task.hpp"

namespace slaw {

struct schedule_clause {
  policy::schedule value;
};
inline constexpr schedule_clause dyn{policy::schedule::dyn};
inline constexpr schedule_clause wf{policy::schedule::wf};
inline constexpr schedule_clause hf{policy::schedule::hf};

struct name_clause {
  const char* value;
};
constexpr name_clause named(const char* name) noexcept { return {name}; }

namespace detail {

// A spawn's name, held only where a name clause was written: unnamed spawns carry and store nothing.
template <bool Named>
struct spawn_name {
  static constexpr const char* get() noexcept { return nullptr; }
};
template <>
struct spawn_name<true> {
  const char* value;
  const char* get() const noexcept { return value; }
};

// A spawn's schedule clause, held only where one was written: an unclaused spawn's is `dyn` at compile
// time, so the policy never tests it.
template <bool Given>
struct spawn_schedule {
  static constexpr policy::schedule get() noexcept { return policy::schedule::dyn; }
};
template <>
struct spawn_schedule<true> {
  policy::schedule value;
  policy::schedule get() const noexcept { return value; }
};

// A spawn's place, held only where a place clause was written: other spawns take the parent's.
template <bool Placed>
struct spawn_place {};
template <>
struct spawn_place<true> {
  std::uint32_t value;
};

// The clauses of one async, collected at compile time; `Seen` has one bit per clause kind given. A new
// kind of clause is a struct, a bit here, a `clause_kind` specialisation (how it sets the collected
// clauses), a field in spawn_clauses and a line in `widen`.
inline constexpr unsigned schedule_clause_bit = 1, name_clause_bit = 2, place_clause_bit = 4;

template <unsigned Seen>
struct spawn_clauses {
  static constexpr bool scheduled = (Seen & schedule_clause_bit) != 0;
  static constexpr bool named = (Seen & name_clause_bit) != 0;
  static constexpr bool placed = (Seen & place_clause_bit) != 0;
  [[no_unique_address]] spawn_schedule<scheduled> schedule{};
  [[no_unique_address]] spawn_name<named> name{};
  [[no_unique_address]] spawn_place<placed> place{};
};

template <unsigned To, unsigned From>
spawn_clauses<To> widen(const spawn_clauses<From>& c) noexcept {
  spawn_clauses<To> r;
  if constexpr (spawn_clauses<From>::scheduled) r.schedule = c.schedule;
  if constexpr (spawn_clauses<From>::named) r.name = c.name;
  if constexpr (spawn_clauses<From>::placed) r.place = c.place;
  return r;
}

template <class C>
struct clause_kind {
  static constexpr unsigned bit = 0;  // not a clause: the spawn's slot, task or callable begins here
};
template <>
struct clause_kind<schedule_clause> {
  static constexpr unsigned bit = schedule_clause_bit;
  template <unsigned S>
  static spawn_clauses<S | bit> add(const spawn_clauses<S>& c, schedule_clause x) noexcept {
    auto r = widen<S | bit>(c);
    r.schedule.value = x.value;
    return r;
  }
};
template <>
struct clause_kind<place_clause> {
  static constexpr unsigned bit = place_clause_bit;
  template <unsigned S>
  static spawn_clauses<S | bit> add(const spawn_clauses<S>& c, place_clause x) noexcept {
    auto r = widen<S | bit>(c);
    r.place.value = x.index;
    return r;
  }
};
template <>
struct clause_kind<name_clause> {
  static constexpr unsigned bit = name_clause_bit;
  template <unsigned S>
  static spawn_clauses<S | bit> add(const spawn_clauses<S>& c, name_clause x) noexcept {
    auto r = widen<S | bit>(c);
    r.name.value = x.value;
    return r;
  }
};

template <class T, unsigned S = 0>
struct async_op {
  task<T> child;
  std::conditional_t<std::is_void_v<T>, void*, T*> slot;
  spawn_clauses<S> clauses;
};

// One spawn: the parent, the child, where its result goes and the clauses. `begin` does the spawn's
// bookkeeping and decides the policy: true if the child is to run here, work-first (the parent then
// suspends); false if it was queued or posted.
template <class T, unsigned S>
struct spawn_request {
  detail::promise_base* parent;
  promise<T>* child;
  decltype(async_op<T>::slot) slot;
  [[no_unique_address]] spawn_clauses<S> clauses;

  [[gnu::always_inline]] bool begin() noexcept {
    detail::worker* w = detail::tls_worker;
    assert(w && "slaw::async used outside a slaw task");
    detail::finish_node* f = parent->cur;
    child->kind = detail::task_kind::spawned;
    child->set_target(slot);
    child->join = f;
    child->cur = f;
    child->parent = parent->frame();
    SLAW_SERIAL_ORDER_NOTE_CHILD(parent, child);
    w->task_begins();
    if constexpr (spawn_clauses<S>::placed) {
      if (clauses.place.value != parent->place) {  // queued here or posted to the place's mailbox
        w->spawn_elsewhere(child, clauses.place.value, clauses.name.get());
        return false;
      }
    }
    child->place = parent->place;
    if (w->choose(clauses.schedule.get()) == policy::spawn_policy::hf) {
      child->kind = detail::task_kind::queued;
      f->add_unit();
      if (w->tracing()) [[unlikely]] w->trace_queued(child, clauses.name.get(), clauses.schedule.get());  // before a thief can see it
      w->push_fresh(child);
      return false;
    }
    return true;
  }
};

// The parent suspended: start its work-first child `c` here. Once the entry is pushed a thief may
// resume the parent, whose frame holds the awaiter: the caller touches nothing of it afterwards.
template <class T, unsigned S>
[[gnu::always_inline]] inline std::coroutine_handle<> start_work_first(detail::promise_base* parent, promise<T>* c,
                                                                       const spawn_clauses<S>& clauses) noexcept {
  detail::worker* w = detail::tls_worker;
  if (w->fast_path_blocked()) [[unlikely]]  // a timeline trace, or the chain must stop (a memory quota is spent)
    return w->start_work_first_slow(parent, c, clauses.name.get(), clauses.schedule.get());
  std::coroutine_handle<> run = c->self();
  w->push_preempted(c);
  return run;
}

#ifdef SLAW_SPAWN_IN_TRANSFORM
// Clang (codegen.hpp): the request is a value in registers, and the awaiter holds only what its
// await_suspend needs: the child to run here (null: nothing to suspend for) and the clauses.
template <class T, unsigned S>
struct SLAW_TRANSFER_ABI spawn_awaiter {
  promise<T>* child;
  [[no_unique_address]] spawn_clauses<S> clauses;

  [[gnu::always_inline]] static spawn_awaiter make(spawn_request<T, S> r) noexcept {
    return {r.begin() ? r.child : nullptr, r.clauses};
  }
  [[gnu::always_inline]] bool await_ready() const noexcept { return child == nullptr; }
  template <class P>
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
    return transfer(start_work_first(&h.promise(), child, clauses));
  }
  [[gnu::always_inline]] void await_resume() const noexcept {}
};
#else
// GCC (codegen.hpp): the awaiter, in the parent's frame, holds the request; the spawn begins in
// await_ready.
template <class T, unsigned S>
struct SLAW_TRANSFER_ABI spawn_awaiter {
  spawn_request<T, S> r;

  [[gnu::always_inline]] static spawn_awaiter make(const spawn_request<T, S>& r) noexcept { return {r}; }
  [[gnu::always_inline]] bool await_ready() noexcept { return !r.begin(); }
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<>) noexcept {
    return transfer(start_work_first(r.parent, r.child, r.clauses));
  }
  [[gnu::always_inline]] void await_resume() const noexcept {}
};
#endif

template <class T, unsigned S>
[[gnu::always_inline]] inline spawn_awaiter<T, S> transform(detail::promise_base& parent, async_op<T, S>&& op,
                                                            transform_tag) {
  if (!op.child) throw_empty_task("slaw::async");
  return spawn_awaiter<T, S>::make({&parent, &op.child.release().promise(), op.slot, op.clauses});
}

// A callable object with state (a lambda with captures, a std::function) is owned by the task it
// starts, as std::thread and std::async own theirs: the temporary in `async(lambda)` dies at the end of
// the full expression, while the coroutine it starts keeps using its captures through `this`. The
// callable and the arguments are decay-copied into this frame and passed as rvalues (as std::thread
// does), and the callable's task runs as a sequential call of it. A stateless callable (a captureless
// lambda) or a function needs no owner and is called directly.
template <class F>
inline constexpr bool needs_owner = std::is_class_v<std::decay_t<F>> && !std::is_empty_v<std::decay_t<F>>;

template <class F, class... A>
std::invoke_result_t<F, A...> owning_call(F f, A... a) {
  co_return co_await std::invoke(std::move(f), std::move(a)...);
}

template <class F, class... A>
auto invoke_spawned(F&& f, A&&... a) {
  if constexpr (needs_owner<F>) {
    static_assert(std::is_invocable_v<std::decay_t<F>, std::decay_t<A>...>,
                  "slaw::async: a callable object and its arguments are copied into the spawned task and "
                  "passed as rvalues (as by std::thread); pass references with std::ref");
    return owning_call<std::decay_t<F>, std::decay_t<A>...>(std::forward<F>(f), std::forward<A>(a)...);
  } else {
    return std::invoke(std::forward<F>(f), std::forward<A>(a)...);
  }
}

// The operation `co_await` takes: the task, its slot and the clauses.
template <class T, unsigned S>
async_op<T, S> make_async(const spawn_clauses<S>& c, std::conditional_t<std::is_void_v<T>, void*, T*> slot,
                          task<T>&& t) {
  return {std::move(t), slot, c};
}

template <unsigned S, class F, class... A>
  requires std::is_invocable_v<F, A...> && is_task<std::invoke_result_t<F, A...>>::value
auto make_async_call(const spawn_clauses<S>& c, F&& f, A&&... a) {
  using R = typename std::invoke_result_t<F, A...>::value_type;
  return make_async<R>(c, nullptr, invoke_spawned(std::forward<F>(f), std::forward<A>(a)...));
}

template <unsigned S, class Slot, class F, class... A>
  requires(!std::is_function_v<Slot>) && std::is_invocable_v<F, A...> && is_task<std::invoke_result_t<F, A...>>::value
auto make_async_slot(const spawn_clauses<S>& c, Slot* slot, F&& f, A&&... a) {
  using R = typename std::invoke_result_t<F, A...>::value_type;
  static_assert(std::is_same_v<Slot, R>, "slaw::async: the result slot must have the task's value type");
  return make_async<R>(c, slot, invoke_spawned(std::forward<F>(f), std::forward<A>(a)...));
}

template <unsigned S, class Slot, class R>
auto make_async_slot_task(const spawn_clauses<S>& c, Slot* slot, task<R>&& t) {
  static_assert(std::is_same_v<Slot, R>, "slaw::async: the result slot must have the task's value type");
  return make_async<R>(c, slot, std::move(t));
}

template <unsigned S, class A0, class... Rest>
auto dispatch(const spawn_clauses<S>& c, A0&& a0, Rest&&... rest) {
  using D0 = std::remove_cvref_t<A0>;
  if constexpr (is_task<D0>::value && sizeof...(Rest) == 0) {
    return make_async(c, nullptr, std::move(a0));
  } else if constexpr (std::is_pointer_v<D0> && !std::is_function_v<std::remove_pointer_t<D0>>) {
    if constexpr (sizeof...(Rest) == 1 && (is_task<std::remove_cvref_t<Rest>>::value && ...)) {
      return make_async_slot_task(c, a0, std::move(rest)...);
    } else {
      return make_async_slot(c, a0, std::forward<Rest>(rest)...);
    }
  } else {
    return make_async_call(c, std::forward<A0>(a0), std::forward<Rest>(rest)...);
  }
}

// Takes the leading clauses one by one, then hands the rest to dispatch.
template <unsigned S, class A0, class... A>
auto collect(const spawn_clauses<S>& c, A0&& a0, A&&... a) {
  using kind = clause_kind<std::remove_cvref_t<A0>>;
  if constexpr (kind::bit != 0) {
    static_assert((S & kind::bit) == 0, "slaw::async: a clause of the same kind is given twice");
    static_assert(sizeof...(A) > 0, "slaw::async: the clauses must be followed by a task or a function");
    if constexpr (sizeof...(A) > 0) return collect(kind::add(c, a0), std::forward<A>(a)...);
  } else {
    return dispatch(c, std::forward<A0>(a0), std::forward<A>(a)...);
  }
}

}  // namespace detail

// async([clauses...,] [T* slot,] task)  or  async([clauses...,] [T* slot,] callable, args...)
template <class A0, class... A>
auto async(A0&& a0, A&&... a) {
  return detail::collect(detail::spawn_clauses<0>{}, std::forward<A0>(a0), std::forward<A>(a)...);
}

}  // namespace slaw
