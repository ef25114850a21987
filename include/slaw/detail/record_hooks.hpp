// The DAG recorder's hooks in the inline fast paths that have no worker at hand: a sequential call, a
// call's return, a finish scope opened or ended (SLAW_RECORD, src/trace/dag_recorder.hpp). Each site
// tests one process-wide flag, set only while a runtime records, and calls out of line when it is set.
// Spawns and the returns of spawned tasks are recorded by the worker's trace hooks (worker::tracing).
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>

#include "slaw/detail/codegen.hpp"
#include "slaw/export.hpp"

namespace slaw::detail {

struct promise_base;

// The number of runtimes recording a run now.
SLAW_EXPORT extern SLAW_LINKED_DATA std::atomic<int> dag_recorders_on;
[[gnu::always_inline]] inline bool recording() noexcept { return flag_nonzero(dag_recorders_on); }

// A call starts: `callee` is a called task or a finish body (then the caller's finish opens first). A
// called task's `exc` is set to the marker below, so that its caller's await_resume, which tests `exc`
// anyway, records the return at no cost to calls made while nobody records.
SLAW_EXPORT void record_call(promise_base* caller, promise_base* callee) noexcept;
SLAW_EXPORT extern std::exception_ptr call_return_marker;
// The caller resumed after `callee` returned with a non-null `exc`: records the return if this call
// was recorded (or an exception ends a recorded call). True if `exc` was only the marker (now cleared).
SLAW_EXPORT bool record_call_return(promise_base* callee) noexcept;
// True if the start was recorded (this thread's runtime records): then the end must be recorded too.
SLAW_EXPORT bool record_start_finish(promise_base* frame) noexcept;
SLAW_EXPORT void record_end_finish(promise_base* frame) noexcept;
// User memory of the running task (slaw::allocate, slaw::deallocate).
void record_memory(bool alloc, std::size_t bytes) noexcept;
// A finish body ended: its return, then its opener's end of the finish (the join it waits at).
void record_body_end(promise_base* body, promise_base* opener) noexcept;

}  // namespace slaw::detail
