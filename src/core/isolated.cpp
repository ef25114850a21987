#include "slaw/isolated.hpp"

namespace slaw::detail {
std::mutex& isolated_mutex() noexcept {
  static std::mutex m;
  return m;
}
}  // namespace slaw::detail
