// What an idle worker does between steal rounds: when it sleeps, for how long, and who wakes whom
// (docs/design/parking.md, docs/design/policy.md). The eventcount that makes sleeping safe stays in the runtime
// (src/core/parking.hpp); these are its decisions over plain counts, so that a simulator makes the
// same ones.
//
//   after `spin_rounds` fruitless rounds  a worker goes to sleep, unless its re-check sees visible work;
//   the last searcher, while some worker is busy, sleeps with a timeout (private deque regions are
//     invisible to sleepers), starting at `backoff_first_ns` and doubling up to `backoff_max_ns`;
//     otherwise it sleeps until woken;
//   work exposed at a thief's request, or handed over, wakes one sleeper if nobody searches;
//   a worker that finds work while it was the last searcher wakes one more (the cascade);
//   a new root task wakes one sleeper.
#pragma once

#include <cstdint>

namespace slaw::policy {

struct idle_params {
  std::uint32_t spin_rounds = 64;         // fruitless steal rounds before sleeping
  std::int64_t backoff_first_ns = 50'000;  // the last searcher's first timed sleep
  std::int64_t backoff_max_ns = 2'000'000;
};

// Whether a worker that has just failed its `rounds`-th consecutive round (counted from 1) goes on
// spinning (true) or tries to sleep (false).
constexpr bool keep_spinning(std::uint32_t rounds, const idle_params& p) noexcept { return rounds < p.spin_rounds; }

// Whether a worker about to sleep, `searchers_left` searchers remaining without it and `idle` of
// `workers` workers idle (itself included), sleeps with a timeout. With places a searcher cannot take
// every task, so `every_sleeper_polls` makes every sleeper poll while a worker is busy.
constexpr bool timed_sleep(std::uint32_t searchers_left, std::uint32_t idle, std::uint32_t workers,
                           bool every_sleeper_polls = false) noexcept {
  return (searchers_left == 0 || every_sleeper_polls) && idle < workers;
}

// The next timed sleep after one of `ns`.
constexpr std::int64_t next_backoff(std::int64_t ns, const idle_params& p) noexcept {
  return ns * 2 < p.backoff_max_ns ? ns * 2 : p.backoff_max_ns;
}

// Work was exposed at a thief's request or handed over: wake one sleeper?
constexpr bool wake_on_exposed(std::uint32_t sleepers, std::uint32_t searching) noexcept {
  return sleepers > 0 && searching == 0;
}

// A worker found work; `searching_before` searchers counted it. Wake one more?
constexpr bool wake_on_found(std::uint32_t searching_before, std::uint32_t sleepers) noexcept {
  return searching_before == 1 && sleepers > 0;
}

}  // namespace slaw::policy
