// How much of a split deque's work the owner makes stealable, and how much it takes back (docs/design/deques.md,
// docs/design/policy.md). A split deque holds [tail, split) shared with thieves and [split, head) private to
// its owner (include/slaw/detail/split_deque.hpp). Two decisions move `split`:
//   expose   a thief found the shared part empty and asked: the owner publishes half of its private
//            part, the older half (rounded up, so that one private entry is published too);
//   reclaim  the owner's private part is empty and it pops: it takes back the newer half of the shared
//            part, keeping at least one entry shared (the oldest), which it then takes like a thief;
//   window   when at least expose_min_thieves different thieves asked, each of the owner's next
//            expose_window pushes after the answer publishes its whole private part at once.
// Indices are 32-bit and wrap; only differences are meaningful. The runtime's deque (split_deque::expose,
// pop_shared) and the simulator call these, so that both expose the same entries at the same requests.
#pragma once

#include <cstdint>

namespace slaw::policy {

// The new split after exposing half of the private part [split, head) (unchanged when it is empty).
constexpr std::uint32_t exposed_split(std::uint32_t split, std::uint32_t head) noexcept {
  return split + (head - split + 1) / 2;
}

// The new split after reclaiming part of the shared part [tail, split), which holds n = split - tail
// >= 2 entries: [result, split) becomes private again, [tail, result) stays shared (at least one).
constexpr std::uint32_t reclaimed_split(std::uint32_t tail, std::uint32_t split) noexcept {
  return tail + 1 + (split - tail - 1) / 2;
}

// The expose window. Several thieves asking one victim that is inside a long leaf would otherwise get
// one half-exposure per push; a window of 4 pushes keeps them fed where 16 workers or more wait
// (docs/design/adaptive_policy.md § The expose window), and two thieves at least keep its cost (a
// release CAS per push, a CAS to take each entry back) off a lone thief's victim (2 workers).
inline constexpr std::uint32_t expose_window = 4;
inline constexpr std::uint32_t expose_min_thieves = 2;

}  // namespace slaw::policy
