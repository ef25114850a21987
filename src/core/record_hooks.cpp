// The DAG recorder's out-of-line hooks for calls and finish scopes (include/slaw/detail/record_hooks.hpp).
// Each finds the running worker's log; a runtime that does not record has none (another runtime of
// the process may be the one recording).
#include "slaw/detail/record_hooks.hpp"

#include <cstdint>

#include "slaw/detail/worker.hpp"
#include "trace/dag_recorder.hpp"

namespace slaw::detail {

std::atomic<int> dag_recorders_on{0};
std::exception_ptr call_return_marker;

namespace {
dag_log* running_log() noexcept {
  worker* w = tls_worker;
  return w ? w->dag_recording() : nullptr;
}
std::uint32_t frame_size(const promise_base* p) noexcept {
  return static_cast<std::uint32_t>(header_of(p->self().address())->block_size);
}
}  // namespace

void record_call(promise_base* caller, promise_base* callee) noexcept {
  dag_log* log = running_log();
  if (!log) return;
  if (callee->kind == task_kind::body) log->note(dag::dag_op::start_finish, caller, caller);
  log->note(dag::dag_op::call, caller, callee, reinterpret_cast<std::uintptr_t>(callee), frame_size(callee));
  if (callee->kind == task_kind::called) callee->exc = &call_return_marker;
}

bool record_call_return(promise_base* callee) noexcept {
  const bool marker = callee->exc == &call_return_marker;
  if (marker) callee->exc = nullptr;
  // An exception replaced the marker: the call was recorded all the same if the runtime records.
  if (dag_log* log = running_log(); log && (marker || recording())) log->note(dag::dag_op::ret, callee, promise_of(callee->parent));
  return marker;
}

bool record_start_finish(promise_base* frame) noexcept {
  dag_log* log = running_log();
  if (log) log->note(dag::dag_op::start_finish, frame, frame);
  return log != nullptr;
}

void record_end_finish(promise_base* frame) noexcept {
  if (dag_log* log = running_log()) log->note(dag::dag_op::end_finish, frame, frame);
}

void record_memory(bool alloc, std::size_t bytes) noexcept {
  if (dag_log* log = running_log()) log->note_memory(alloc ? dag::dag_op::alloc : dag::dag_op::free, bytes);
}

void record_body_end(promise_base* body, promise_base* opener) noexcept {
  if (dag_log* log = running_log()) {
    log->note(dag::dag_op::ret, body, opener);
    log->note(dag::dag_op::end_finish, opener, opener);
  }
}

}  // namespace slaw::detail
