// slaw::isolated: HJ's weak isolation (digest slaw.md §1.1). Bodies of isolated blocks exclude each
// other, process-wide; code outside isolated blocks is not excluded. The body must not suspend.
#pragma once

#include <mutex>
#include <utility>

namespace slaw {

namespace detail {
std::mutex& isolated_mutex() noexcept;
}

template <class F>
decltype(auto) isolated(F&& body) {
  std::lock_guard<std::mutex> g(detail::isolated_mutex());
  return std::forward<F>(body)();
}

}  // namespace slaw
