// The part of every task's frame that the runtime works with (promise_base), what its kinds mean, how
// a finished frame is freed on the fast path, and the tags of deque entries (worker.hpp's W1).
#pragma once

#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>

#include "slaw/detail/codegen.hpp"
#include "slaw/detail/finish_node.hpp"
#include "slaw/detail/frame_allocator.hpp"
#include "slaw/detail/serial_order.hpp"

namespace slaw::detail {

// called: sequential call; spawned: work-first child (may own a preempted entry); queued: help-first
// child or root task (counted in its finish when spawned, never has an entry); body: a finish's body;
// joined: a queued child that its finish's waiter took off its own deque at end_finish and runs as if
// it called it (worker::take_joinable): when it ends, the waiter goes on or joins again.
// Bit 0 set: the task ends a unit of its own finish (`join`).
enum class task_kind : std::uint8_t { called = 0, spawned = 1, body = 2, queued = 3, joined = 5 };

// The part of every task's promise the runtime works with.
struct promise_base {
  // Both compilers lay a coroutine frame out as its resume and destroy pointers, then the promise at
  // the next multiple of its alignment, which promise<T> keeps at or under 16: the frame begins 16 bytes
  // before the promise. Computed, the handle costs no store in every ramp and no load where a task is
  // resumed (bench/results/fastpath/); promise<T>'s constructor asserts the layout.
  static constexpr std::size_t frame_offset = 16;
  void* frame() const noexcept { return const_cast<char*>(reinterpret_cast<const char*>(this)) - frame_offset; }
  std::coroutine_handle<> self() const noexcept { return std::coroutine_handle<>::from_address(frame()); }

  // called: the caller; work-first spawned: the parent to resume; body: the opener (null for a run's
  // root task). Its frame (promise_base::frame), not its promise: the spawn and the call hold the
  // frame's address in a register, and a return resumes it with no conversion (promise_of gives the
  // promise). A plain pointer: a coroutine_handle member would be zeroed by every ramp.
  void* parent;
  finish_node* join;     // spawned/queued: the IEF this task ends its unit in; body: its finish; called: unused
  finish_node* cur;      // innermost open finish of the code running in this frame
  // Spawned and queued tasks never use `exc` (their exceptions go to their finish): they keep their
  // name there instead, written by the spawn only while a timeline trace records (docs/guide/tracing.md).
  union {
    std::exception_ptr* exc;  // called/body tasks: rethrown in the awaiting frame (allocated when thrown)
    const char* name;         // spawned/queued tasks under a timeline trace: slaw::named's string, or null
  };
  task_kind kind;
  // Whether the frame may be freed at its final suspend without its destroy function: every
  // parameter copy it holds is trivially destructible, so that function would only free the memory
  // (release_finished_frame). Set by promise's constructor.
  bool plain_teardown;
  // The place the task runs in (docs/design/places.md): an index into the runtime's place tree. A spawn or a
  // call copies its parent's unless a place clause names another; the flat deployment has only 0.
  std::uint16_t place;
  std::uint32_t start_charge;  // quota give-ups: frame bytes the worker that starts this task pays
};

// The promise of a task's frame (promise_base::frame_offset); null for null.
inline promise_base* promise_of(void* frame) noexcept {
  return frame ? reinterpret_cast<promise_base*>(static_cast<char*>(frame) + promise_base::frame_offset) : nullptr;
}

// Frees the frame of a task that reached its final suspend. Its destroy function would run the
// promise's and the parameter copies' destructors (nothing else is alive at the final suspend) and free
// the memory, after a dispatch on the suspend index. GCC runs that through the whole actor function
// (prologue, dispatch, epilogue): freeing here instead, when those destructors are trivial and the
// frame is this worker's own block, saves 45 instructions per fib node (bench/results/fastpath/).
// Clang's destroy function is small: inlined here the free saved it 9 instructions per node and 2-3 %
// of fib(35) once the free's slow calls stopped costing the caller registers (codegen.hpp; before
// that it made fib(35) 4-7 % slower, bench/results/fastpath/).
// The destroy call as a cold entry (codegen.hpp), for callers whose common path should keep its values in
// any register (worker::complete_other); the coroutines' own code measured better without.
SLAW_COLD_ENTRY void cold_destroy(std::coroutine_handle<> frame) noexcept { frame.destroy(); }
// `a`: this thread's allocator (the worker's own, where the caller holds it already).
// `KnownPlain`: the caller has tested plain_teardown already (spawned_plain).
template <bool ColdDestroy = false, bool KnownPlain = false>
[[gnu::always_inline]] inline void release_finished_frame(promise_base* p, frame_allocator* a = tls_allocator) noexcept {
  const std::coroutine_handle<> self = p->self();
  void* f = self.address();
  const chunk_header* h = header_of(f);
  if ((KnownPlain || p->plain_teardown) && h->local_owner == a) [[likely]] {
    SLAW_SERIAL_ORDER_FORGET(p);
    a->deallocate_local(f, h->block_size, h->size_class);
    return;
  }
  if constexpr (ColdDestroy) cold_destroy(self);
  else self.destroy();
}

// The final awaiter's second test: kind and plain_teardown are adjacent bytes, read as one 16-bit
// value (little-endian: kind in the low byte), so that "a work-first child whose frame may be freed
// here" is one compare with spawned_plain. Frames it does not hold go out of line (complete_other).
inline std::uint16_t kind_and_teardown(const promise_base& p) noexcept {
  std::uint16_t v;
  std::memcpy(&v, &p.kind, sizeof v);
  return v;
}
inline constexpr std::uint16_t spawned_plain = static_cast<std::uint16_t>(task_kind::spawned) | (1u << 8);
static_assert(offsetof(promise_base, plain_teardown) == offsetof(promise_base, kind) + 1 && sizeof(task_kind) == 1 &&
              std::endian::native == std::endian::little);

// Deque entry tags (promises are at least 8-byte aligned). Untagged: a work-first child, standing for
// its parent's continuation. parent_tag: a continuation whose work-first child is already counted.
// start_tag (quota give-ups only, never in an owned deque): a task not begun yet, handed over.
inline constexpr std::uintptr_t parent_tag = 1;
inline constexpr std::uintptr_t start_tag = 2;
inline constexpr std::uintptr_t entry_tags = 3;
inline promise_base* entry_promise(std::uintptr_t e) noexcept { return reinterpret_cast<promise_base*>(e & ~entry_tags); }
// The frame that a preempted entry taken off the deque resumes. A tagged entry is that frame. An
// untagged entry is a work-first child whose parent's continuation is taken away from it: the child is
// *detached* and counted in its finish (docs/design/finish.md). The caller must keep thieves' increments
// ordered before the child's end (the steal lock, or the owner's wait_for_thieves).
inline promise_base* detach_entry(std::uintptr_t e) noexcept {
  if (e & entry_tags) return entry_promise(e);
  promise_base* child = entry_promise(e);
  child->join->add_unit();
  return promise_of(child->parent);
}

}  // namespace slaw::detail
