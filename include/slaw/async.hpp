// slaw::async: spawn a task that may run in parallel with the rest of the caller. It joins the
// caller's innermost enclosing finish (IEF) and may outlive the caller (escaping async).
//
//   co_await slaw::async(&a, fib, n - 1);          // result delivered into *(&a) before the IEF ends
//   co_await slaw::async(slaw::hf, work, i);       // schedule clause: slaw::wf | slaw::hf | slaw::dyn
//   co_await slaw::async(fib(n - 1));              // an already-made task, result discarded
//
// Schedule clauses (SLAW, Guo et al., IPDPS 2010, §II-B): `dyn` (default) lets ADP(S,F,INT) choose; `wf` runs the child
// now and leaves the caller's continuation stealable, except when this worker's work-first depth has
// reached S (the hard stack bound wins); `hf` queues the child and continues the caller.
#pragma once

#include <functional>
#include <type_traits>

#include "slaw/task.hpp"

namespace slaw {

struct schedule_clause {
  policy::schedule value;
};
inline constexpr schedule_clause dyn{policy::schedule::dyn};
inline constexpr schedule_clause wf{policy::schedule::wf};
inline constexpr schedule_clause hf{policy::schedule::hf};

namespace detail {

template <class T>
struct async_op {
  task<T> child;
  std::conditional_t<std::is_void_v<T>, void*, T*> slot;
  policy::schedule clause;
};

template <class T>
struct spawn_awaiter {
  detail::promise_base* parent;
  promise<T>* child;
  decltype(async_op<T>::slot) slot;
  policy::schedule clause;

  bool await_ready() noexcept {
    detail::worker* w = detail::tls_worker;
    assert(w && "slaw::async used outside a slaw task");
    detail::finish_node* f = parent->cur;
    child->kind = detail::task_kind::spawned;
    child->out = slot;
    child->join = f;
    child->cur = f;
    child->parent = parent;
    SLAW_SERIAL_ORDER_NOTE_CHILD(parent, child);
    w->task_begins();
    if (w->choose(clause) == policy::spawn_policy::hf) {
      child->kind = detail::task_kind::queued;
      f->add_unit();
      w->push_fresh(child);
      return true;
    }
    return false;
  }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<>) noexcept {
    // Once the entry is pushed a thief may resume the parent, whose frame holds this awaiter:
    // touch nothing of it afterwards.
    promise<T>* c = child;
    detail::worker* w = detail::tls_worker;
    if (w->preempt_pending()) [[unlikely]] return w->give_up_at_spawn(parent, c);  // a memory quota is spent
    std::coroutine_handle<> run = c->self;
    w->push_preempted(c);
    return run;
  }
  void await_resume() const noexcept {}
};

template <class T>
spawn_awaiter<T> transform(detail::promise_base& parent, async_op<T>&& op, transform_tag) {
  if (!op.child) throw_empty_task("slaw::async");
  return spawn_awaiter<T>{&parent, &op.child.release().promise(), op.slot, op.clause};
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

template <class T>
async_op<T> make_async(policy::schedule c, std::conditional_t<std::is_void_v<T>, void*, T*> slot, task<T>&& t) {
  return async_op<T>{std::move(t), slot, c};
}

template <class F, class... A>
  requires std::is_invocable_v<F, A...> && is_task<std::invoke_result_t<F, A...>>::value
auto make_async_call(policy::schedule c, F&& f, A&&... a) {
  using R = typename std::invoke_result_t<F, A...>::value_type;
  return make_async<R>(c, nullptr, invoke_spawned(std::forward<F>(f), std::forward<A>(a)...));
}

template <class S, class F, class... A>
  requires(!std::is_function_v<S>) && std::is_invocable_v<F, A...> && is_task<std::invoke_result_t<F, A...>>::value
auto make_async_slot(policy::schedule c, S* slot, F&& f, A&&... a) {
  using R = typename std::invoke_result_t<F, A...>::value_type;
  static_assert(std::is_same_v<S, R>, "slaw::async: the result slot must have the task's value type");
  return async_op<R>{invoke_spawned(std::forward<F>(f), std::forward<A>(a)...), slot, c};
}

template <class S, class R>
async_op<R> make_async_slot_task(policy::schedule c, S* slot, task<R>&& t) {
  static_assert(std::is_same_v<S, R>, "slaw::async: the result slot must have the task's value type");
  return async_op<R>{std::move(t), slot, c};
}

template <class A0, class... Rest>
auto dispatch(policy::schedule c, A0&& a0, Rest&&... rest) {
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

}  // namespace detail

// async([clause,] [T* slot,] task)  or  async([clause,] [T* slot,] callable, args...)
template <class A0, class... A>
auto async(A0&& a0, A&&... a) {
  if constexpr (std::is_same_v<std::remove_cvref_t<A0>, schedule_clause>) {
    return detail::dispatch(a0.value, std::forward<A>(a)...);
  } else {
    return detail::dispatch(policy::schedule::dyn, std::forward<A0>(a0), std::forward<A>(a)...);
  }
}

}  // namespace slaw
