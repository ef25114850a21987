// SLAW_TRACE=policy: one worker's spawn-decision changes (spawn index, work-first depth, new policy,
// ADP's reason), recorded when the decision changes (rare) and copied into the stats.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "slaw/stats.hpp"

namespace slaw::detail {

class policy_trace {
 public:
  explicit policy_trace(std::size_t limit) : limit_(limit) {}
  void record(const worker_stats::decision_change& e) {
    std::lock_guard<std::mutex> g(m_);
    if (events_.size() < limit_) events_.push_back(e);
  }
  std::vector<worker_stats::decision_change> copy() const {
    std::lock_guard<std::mutex> g(m_);
    return events_;
  }
  void clear() {
    std::lock_guard<std::mutex> g(m_);
    events_.clear();
  }

 private:
  const std::size_t limit_;
  mutable std::mutex m_;  // the owner records, a stats reader copies
  std::vector<worker_stats::decision_change> events_;
};

}  // namespace slaw::detail
