// Invariant checks of a simulated run (run_config::checks; the tests in tests/sim/ turn them on):
// the same properties the runtime's tests check, verified on every operation instead of at the end.
//   every task runs exactly once          a record is created once and ends once
//   a finish continues after its tasks    its continuation runs only when no task with it as IEF is live
//   Lemma 3.1 (DFDeques)                  within a deque priority decreases from the owner's end to the
//                                         thieves' end; a running task precedes its deque; every task
//                                         of a deque precedes those of the deques right of it in R
// Priorities are 1DF positions, labelled as src/core/serial_order.cpp labels frames: a child started at
// its parent's step s gets label(parent) ++ [s] (steps advance by 2), the continuation after it is
// label(parent) ++ [s + 1]; lexicographic order is the serial depth-first order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/task_pool.hpp"

namespace slaw::sim {

class engine;

class checker {
 public:
  checker(engine& e, bool labels) : e_(e), labels_on_(labels) {}

  struct deque_view {
    int owner = -1;               // the owning worker, or -1 (ownerless)
    std::vector<entry> entries;   // oldest (the thieves' end) first
  };

  void fail(const std::string& what);
  void created(task_id t);
  void ended(task_id t);
  void note_root(task_id t, std::uint32_t job);
  void note_child(task_id parent, task_id child);
  void lemma_3_1(const std::vector<deque_view>& r);

  std::uint64_t tasks_created() const { return created_; }
  std::uint64_t tasks_ended() const { return ended_; }
  std::uint64_t order_checks() const { return order_checks_; }  // pairs of labelled entries compared
  const std::vector<std::string>& violations() const { return violations_; }

 private:
  using label = std::vector<std::uint32_t>;
  std::optional<label> of_entry(entry e) const;
  std::optional<label> running_position(task_id t) const;

  engine& e_;
  bool labels_on_;
  std::vector<std::uint8_t> alive_;
  std::vector<label> label_;
  std::vector<std::uint32_t> step_;
  std::vector<std::uint8_t> labelled_;
  std::uint64_t created_ = 0, ended_ = 0, order_checks_ = 0;
  std::vector<std::string> violations_;
};

}  // namespace slaw::sim
