// slaw::task<T>: a parallel function. `co_await f(x)` is a sequential call; `slaw::async` spawns it.
#pragma once

#include <cassert>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include "slaw/detail/codegen.hpp"
#include "slaw/detail/record_hooks.hpp"
#include "slaw/detail/serial_order.hpp"
#include "slaw/detail/transfer.hpp"
#include "slaw/export.hpp"
#include "slaw/detail/worker.hpp"

namespace slaw {

template <class T = void>
class SLAW_TASK_ABI task;

namespace detail {

struct transform_tag {};

// Default for co_await expressions that slaw does not intercept: pass through.
template <class A>
A&& transform(detail::promise_base&, A&& a, transform_tag) noexcept {
  return std::forward<A>(a);
}

template <class T>
struct promise;

template <class T>
struct SLAW_TRANSFER_ABI final_awaiter {
  [[gnu::always_inline]] bool await_ready() const noexcept { return false; }
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<promise<T>> h) noexcept;
  [[gnu::always_inline]] void await_resume() const noexcept {}
};

// Room for a result in the frame, constructed and destroyed by hand. A type aligned beyond 16 bytes
// gets an over-sized buffer aligned at run time, so that the promise stays aligned to at most 16 and
// lies 16 bytes into its frame (promise_base::frame_offset); frames are 16-byte aligned blocks.
template <class T, bool OverAligned = (alignof(T) > promise_base::frame_offset)>
struct result_cell {
  union {
    T v;
  };
  result_cell() noexcept {}
  ~result_cell() {}
  T* get() noexcept { return &v; }
};
template <class T>
struct result_cell<T, true> {
  alignas(promise_base::frame_offset) unsigned char raw[sizeof(T) + alignof(T) - promise_base::frame_offset];
  T* get() noexcept {
    const auto a = (reinterpret_cast<std::uintptr_t>(raw) + alignof(T) - 1) & ~(std::uintptr_t{alignof(T)} - 1);
    return reinterpret_cast<T*>(a);
  }
};

template <class T>
struct promise_storage {
  // A trivially copyable result always has a target, so that co_return stores it with no test: the
  // caller's slot, or this frame's own cell, value() (a call's result, or a spawned task's dropped one).
  // Other results: spawned tasks' slot, or null to discard it; calls: null.
  static constexpr bool always_stored = std::is_trivially_copyable_v<T>;
  T* out;
  result_cell<T> cell;  // a call's result, taken (and destroyed) by the caller
  T* value() noexcept { return cell.get(); }
  promise_storage() noexcept {}
  ~promise_storage() {}  // must stay empty: release_finished_frame frees frames without running it
  // Where a spawned task's result goes (`slot`, null: dropped) or, with null, a call's.
  void set_target(T* slot) noexcept {
    if constexpr (always_stored) out = slot ? slot : value();
    else out = slot;
  }
  template <class U>
  void return_value(U&& v) {
    if constexpr (always_stored) {
      ::new (static_cast<void*>(out)) T(std::forward<U>(v));
    } else if (out) {
      *out = std::forward<U>(v);
    } else if (static_cast<promise<T>*>(this)->kind == detail::task_kind::called) {
      ::new (static_cast<void*>(value())) T(std::forward<U>(v));
    }
    // else: a spawned task without a slot. Its result is dropped here; nothing would ever destroy a
    // value stored in the frame.
  }
};
template <>
struct promise_storage<void> {
  void* out;
  void set_target(void* slot) noexcept { out = slot; }
  void return_void() noexcept {}
};

template <class T>
struct promise : detail::promise_base, promise_storage<T> {
  // The compiler passes the coroutine's parameter copies (lvalues; for a member function, first the
  // object). If all are trivially destructible, so is everything the frame's destroy function would
  // destroy at the final suspend (release_finished_frame).
  template <class... Params>
  explicit promise(Params&...) noexcept {
    static_assert(alignof(promise) <= promise_base::frame_offset, "result_cell keeps the promise 16-byte aligned");
    assert(std::coroutine_handle<promise>::from_promise(*this).address() == this->self().address());
    // A task starts as a call, so that the call awaiter need not store its kind (a spawn, a finish
    // body or a run sets its own). kind, plain_teardown and place are adjacent: one 4-byte store in the
    // ramp (GCC writes a 2-byte constant through a register). The spawn or call sets the place.
    this->kind = detail::task_kind::called;
    this->plain_teardown = (std::is_trivially_destructible_v<std::remove_cv_t<Params>> && ...);
    this->place = 0;
  }
  ~promise() { SLAW_SERIAL_ORDER_FORGET(this); }  // release_finished_frame does the same

  // A frame takes its whole block: the accounting counts what a free through the chunk header gives
  // back (release_finished_frame), and the block is the memory really used.
  static void* operator new(std::size_t n) { return detail::frame_alloc(detail::frame_block_bytes(n)); }
  static void operator delete(void* p, std::size_t n) noexcept { detail::frame_free(p, detail::frame_block_bytes(n)); }

  task<T> get_return_object() noexcept;
  std::suspend_always initial_suspend() const noexcept { return {}; }
  final_awaiter<T> final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept {
    if (static_cast<unsigned>(kind) & 1) join->stash(std::current_exception());
    else exc = new std::exception_ptr(std::current_exception());
  }

  // Always inlined: under clang a spawn begins in its transform (spawn_awaiter::make, codegen.hpp), which
  // clang otherwise left out of line.
  template <class A>
  [[gnu::always_inline]] decltype(auto) await_transform(A&& a) noexcept(noexcept(transform(std::declval<detail::promise_base&>(),
                                                                       std::forward<A>(a), transform_tag{}))) {
    return transform(static_cast<detail::promise_base&>(*this), std::forward<A>(a), transform_tag{});
  }
};

// The end of a finish body (lambda form): end the finish, then resume the frame that opened it. Out of
// line (through worker::complete_other): the final awaiter inlined into every task tests only the
// common kinds.
SLAW_EXPORT std::coroutine_handle<> end_body(detail::promise_base& body) noexcept;

// A call returns first (half of a fib node's returns), then a work-first child whose frame is freed
// here, both as one compare (kind_and_teardown). Before, clang made the four kinds a compare tree that
// tested `queued` first.
template <class T>
[[gnu::always_inline]] inline std::coroutine_handle<> final_awaiter<T>::await_suspend(std::coroutine_handle<promise<T>> h) noexcept {
  detail::promise_base& p = h.promise();
  if (p.kind == detail::task_kind::called) [[likely]] return detail::transfer(std::coroutine_handle<>::from_address(p.parent));
  if (detail::kind_and_teardown(p) == detail::spawned_plain) [[likely]]
    return detail::transfer(detail::tls_worker->complete_spawned<true>(&p));
  if (p.kind == detail::task_kind::queued) return detail::transfer(detail::tls_worker->complete_queued(&p));
  return detail::transfer(detail::tls_worker->complete_other(&p));
}

// Starts `callee`, set up as a sequential call or a finish body of `caller`: transfers to it, unless the
// scheduler stopped this chain (a memory quota is spent, docs/design/space.md), which hands the call over.
[[gnu::always_inline]] inline std::coroutine_handle<> start_call([[maybe_unused]] detail::promise_base* caller,
                                          detail::promise_base& callee) noexcept {
  SLAW_SERIAL_ORDER_NOTE_CHILD(caller, &callee);
  if (detail::tls_allocator->fast_path_blocked()) [[unlikely]] return detail::tls_worker->start_call_slow(caller, &callee);
  return callee.self();
}

// Rethrows *e and deletes e. Out of line: an exception_ptr local in a coroutine is an object whose
// address is taken, so clang keeps it in the frame and computes its address at every entry of the
// resume function (bench/results/fastpath/).
[[noreturn]] SLAW_EXPORT void rethrow_owned(std::exception_ptr* e);

// Sequential call: the callee shares the caller's unit and its innermost finish.
template <class T>
struct SLAW_TRANSFER_ABI call_awaiter {
  detail::promise_base* caller;
  std::coroutine_handle<promise<T>> callee;

  [[gnu::always_inline]] bool await_ready() const noexcept { return false; }
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<>) noexcept {
    // The fields are read once: the awaiter lives in the caller's frame, so a store into the callee
    // could alias them for all the compiler knows.
    promise_base* const from = caller;
    promise<T>& c = callee.promise();  // kind: `called` since the ramp (promise's constructor)
    c.parent = from->frame();
    c.cur = from->cur;
    c.place = from->place;
    c.exc = nullptr;  // the ramp leaves it to calls and finish bodies: spawned tasks never read it
    c.set_target(nullptr);
    return transfer(start_call(from, c));
  }
  [[gnu::always_inline]] T await_resume() {
    struct destroy_guard {
      std::coroutine_handle<promise<T>> h;
      ~destroy_guard() { detail::release_finished_frame(&h.promise()); }
    } guard{callee};
    promise<T>& c = callee.promise();
    if (c.exc && !record_call_return(&c)) [[unlikely]] rethrow_owned(c.exc);
    if constexpr (!std::is_void_v<T>) {
      T v = std::move(*c.value());
      c.value()->~T();
      return v;
    }
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] SLAW_TASK_ABI task {
 public:
  using promise_type = detail::promise<T>;
  using value_type = T;

  task() noexcept = default;
  explicit task(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}
  task(task&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~task() { reset(); }

  explicit operator bool() const noexcept { return static_cast<bool>(h_); }
  // Gives up ownership of the frame (the runtime takes it).
  std::coroutine_handle<promise_type> release() noexcept { return std::exchange(h_, nullptr); }

 private:
  void reset() noexcept {
    if (h_) h_.destroy();
    h_ = nullptr;
  }
  std::coroutine_handle<promise_type> h_;
};

namespace detail {
template <class T>
task<T> promise<T>::get_return_object() noexcept {
  return task<T>(std::coroutine_handle<promise<T>>::from_promise(*this));
}

// A default-constructed or moved-from task has no frame: using it is a programming error.
[[noreturn]] SLAW_EXPORT void throw_empty_task(const char* where);

template <class T>
call_awaiter<T> transform(detail::promise_base& caller, task<T>&& t, transform_tag) {
  if (!t) throw_empty_task("co_await");
  return call_awaiter<T>{&caller, t.release()};
}
template <class T>
call_awaiter<T> transform(detail::promise_base& caller, task<T>& t, transform_tag) {
  if (!t) throw_empty_task("co_await");
  return call_awaiter<T>{&caller, t.release()};
}

template <class T>
struct is_task : std::false_type {};
template <class T>
struct is_task<task<T>> : std::true_type {};
}  // namespace detail

}  // namespace slaw
