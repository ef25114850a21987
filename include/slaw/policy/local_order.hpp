// Which of its own tasks an idle worker runs first (SLAW, Guo et al., IPDPS 2010, §III-D, Subroutine 1
// step 1; docs/design/policy.md).
//
// A worker owns two deques, preempted continuations and fresh tasks; the bottom of each is its deepest
// entry in the spawn tree (§III-F), so only the two bottoms compete. Subroutine 1's tie-breakers:
//   (a) the one deepest in the sync tree (the depth of its innermost finish) first;
//   (b) on a tie, the preempted one: resuming a continuation keeps the schedule progressive;
//   (c) deepest in the spawn tree: already decided inside each deque.
#pragma once

#include <cstdint>
#include <optional>

namespace slaw::policy {

enum class own_task : std::uint8_t { none, preempted, fresh };

// `preempted_depth`: sync-tree depth of the preempted deque's bottom entry (the finish open in that
// continuation), empty if the deque is empty; `fresh_depth`: that of the fresh deque's bottom entry
// (the finish the task joins), likewise.
constexpr own_task pick_own_task(std::optional<std::uint32_t> preempted_depth,
                                 std::optional<std::uint32_t> fresh_depth) noexcept {
  if (!fresh_depth) return preempted_depth ? own_task::preempted : own_task::none;
  if (!preempted_depth) return own_task::fresh;
  return *fresh_depth > *preempted_depth ? own_task::fresh : own_task::preempted;
}

}  // namespace slaw::policy
