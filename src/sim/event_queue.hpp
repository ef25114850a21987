// The simulated clock and the queue of worker wake-up times (docs/simulation.md).
//
// Time is an integer number of picoseconds: costs of a few nanoseconds (a sequential call is ~7 ns)
// stay exact, and 2^63 ps is 106 days of simulated time. Each worker has at most one pending wake-up;
// the queue is a binary heap over worker indices ordered by (time, index), so that simultaneous
// events always run in the same order: the simulation is deterministic.
#pragma once

#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace slaw::sim {

using time_ps = std::int64_t;
inline constexpr time_ps never = std::numeric_limits<time_ps>::max();

inline time_ps from_ns(double ns) { return static_cast<time_ps>(std::llround(ns * 1000.0)); }
inline double to_ns(time_ps t) { return static_cast<double>(t) / 1000.0; }
inline double to_seconds(time_ps t) { return static_cast<double>(t) * 1e-12; }

class event_queue {
 public:
  explicit event_queue(std::uint32_t workers) : time_(workers, never), pos_(workers, absent) { heap_.reserve(workers); }

  bool empty() const noexcept { return heap_.empty(); }
  std::uint32_t top() const noexcept { return heap_.front(); }
  time_ps top_time() const noexcept { return time_[heap_.front()]; }
  bool scheduled(std::uint32_t w) const noexcept { return pos_[w] != absent; }
  time_ps time_of(std::uint32_t w) const noexcept { return time_[w]; }

  // Whether worker w at time t comes before every queued event (w itself must not be queued).
  bool before_all(time_ps t, std::uint32_t w) const noexcept {
    return heap_.empty() || less(t, w, time_[heap_.front()], heap_.front());
  }

  // Sets w's wake-up to t, whether or not it had one.
  void schedule(std::uint32_t w, time_ps t) {
    assert(t != never);
    if (pos_[w] == absent) {
      time_[w] = t;
      pos_[w] = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(w);
      up(pos_[w]);
      return;
    }
    const time_ps old = time_[w];
    time_[w] = t;
    if (t < old) up(pos_[w]);
    else down(pos_[w]);
  }

  // Removes and returns the earliest event's worker.
  std::uint32_t pop() {
    const std::uint32_t w = heap_.front();
    remove_at(0);
    return w;
  }

  void cancel(std::uint32_t w) {
    if (pos_[w] != absent) remove_at(pos_[w]);
  }

 private:
  static constexpr std::uint32_t absent = std::numeric_limits<std::uint32_t>::max();
  static bool less(time_ps ta, std::uint32_t a, time_ps tb, std::uint32_t b) noexcept {
    return ta < tb || (ta == tb && a < b);
  }
  bool less_at(std::uint32_t i, std::uint32_t j) const noexcept {
    return less(time_[heap_[i]], heap_[i], time_[heap_[j]], heap_[j]);
  }
  void swap_at(std::uint32_t i, std::uint32_t j) noexcept {
    std::swap(heap_[i], heap_[j]);
    pos_[heap_[i]] = i;
    pos_[heap_[j]] = j;
  }
  void up(std::uint32_t i) noexcept {
    while (i > 0) {
      std::uint32_t parent = (i - 1) / 2;
      if (!less_at(i, parent)) break;
      swap_at(i, parent);
      i = parent;
    }
  }
  void down(std::uint32_t i) noexcept {
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      std::uint32_t l = 2 * i + 1, best = i;
      if (l < n && less_at(l, best)) best = l;
      if (l + 1 < n && less_at(l + 1, best)) best = l + 1;
      if (best == i) return;
      swap_at(i, best);
      i = best;
    }
  }
  void remove_at(std::uint32_t i) {
    const std::uint32_t w = heap_[i];
    const auto last = static_cast<std::uint32_t>(heap_.size() - 1);
    if (i != last) {
      swap_at(i, last);
      heap_.pop_back();
      pos_[w] = absent;
      up(i);
      down(i);
    } else {
      heap_.pop_back();
      pos_[w] = absent;
    }
    time_[w] = never;
  }

  std::vector<time_ps> time_;
  std::vector<std::uint32_t> pos_;
  std::vector<std::uint32_t> heap_;
};

}  // namespace slaw::sim
