// slaw::isolated: HJ's weak isolation (SLAW, Guo et al., IPDPS 2010, §II-B). Bodies of isolated blocks exclude each
// other, process-wide; code outside isolated blocks is not excluded. The body must not suspend.
#pragma once

#include <mutex>
#include <utility>

#include "slaw/export.hpp"

namespace slaw {

namespace detail {
SLAW_EXPORT std::mutex& isolated_mutex() noexcept;
// Whether this thread is inside an isolated block (the body does not suspend, so the thread is the task's).
SLAW_EXPORT inline thread_local bool in_isolated = false;
}  // namespace detail

// Nested isolated blocks are allowed (as in HJ): an inner block runs inside the outer one, which
// already excludes every other isolated block.
template <class F>
decltype(auto) isolated(F&& body) {
  if (detail::in_isolated) return std::forward<F>(body)();
  std::lock_guard<std::mutex> g(detail::isolated_mutex());
  struct flag {
    flag() noexcept { detail::in_isolated = true; }
    ~flag() { detail::in_isolated = false; }
  } inside;
  return std::forward<F>(body)();
}

}  // namespace slaw
