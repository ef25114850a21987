// ADP(S,F,INT): SLAW's per-spawn choice between work-first and help-first (SLAW, Guo et al., IPDPS
// 2010: the heuristic §III-A, the stack and fresh conditions §III-D Algorithm 1 rule 3a;
// docs/design/adaptive_policy.md, docs/design/policy.md).
//
// Pure decision logic: no threads, no atomics. The worker feeds it its own numbers; the simulator
// can feed it modelled ones. Checked per spawn, in priority order:
//   1. stack condition   depth >= S        -> help-first   (hard bound; also overrides an explicit wf)
//   2. fresh condition   fresh >= F        -> work-first
//   3. heuristic         every INT spawns: steals from this worker in the last interval > threshold
//                        -> help-first for the next interval, else work-first. A worker starts work-first
//                        (SLAW starts help-first; see adp_state).
// A bound is tested only where it can change the outcome: in a work-first interval only the stack
// condition can (a work-first spawn adds no fresh task), in a help-first one only the fresh condition
// can, and the stack condition then only vetoes it. A runtime need not even call decide() in a
// work-first interval (wf_until_interval_end): the worker's spawn then costs one countdown, and its
// preempted deque reports the push that reaches depth S (src/core/worker.cpp, choose_slow).
// Each decision carries its reason, so that a trace need not re-derive it: a bound is the reason only
// when it overrode the interval's policy (or an explicit wf clause).
// Resolutions of the paper's open questions (docs/design/adaptive_policy.md):
//   Q1 the stack condition wins over an explicit `wf` clause; an explicit `hf` is always honoured.
//   Q2 every dyn spawn, forced or not, counts towards the interval.
//   Q3 steals from both deques count.
//   Q4 the threshold is literal (> INT by default) and configurable.
//   Q5 depth = work-first nesting since the last context switch (preempted entries pushed since then).
// Fixed modes (`mode::wf`, `mode::hf`) exist to compare with: they ignore clauses and bounds.
#pragma once

#include <cstdint>
#include <type_traits>

namespace slaw::policy {

enum class spawn_policy : std::uint8_t { wf, hf };
enum class schedule : std::uint8_t { dyn, wf, hf };  // an async's schedule clause
enum class mode : std::uint8_t { dyn, wf, hf };      // the runtime-wide policy

// Why a spawn got its policy.
enum class reason : std::uint8_t {
  interval,          // the policy the interval heuristic chose
  stack_bound,       // depth >= S
  fresh_bound,       // fresh tasks >= F
  clause,            // an explicit schedule clause, or a fixed mode
  back_to_interval,  // a change only (see change_reason): the interval's policy again after a forced one
};

// The one-letter codes of the policy trace (SLAW_TRACE=policy, docs/guide/counters.md).
constexpr char reason_code(reason r) noexcept {
  switch (r) {
    case reason::interval: return 'i';
    case reason::stack_bound: return 's';
    case reason::fresh_bound: return 'f';
    case reason::clause: return 'c';
    case reason::back_to_interval: return 'u';
  }
  return '?';
}

// The reason to record when a worker's policy changes: `now` is the new decision's reason, `last` the
// reason recorded at the previous change. Returning to the interval's policy after a forced choice is
// told apart from a change the heuristic made.
constexpr reason change_reason(reason last, reason now) noexcept {
  const bool last_forced = last == reason::stack_bound || last == reason::fresh_bound || last == reason::clause;
  return now == reason::interval && last_forced ? reason::back_to_interval : now;
}

struct decision {
  spawn_policy policy;
  reason why;
  friend constexpr bool operator==(const decision&, const decision&) noexcept = default;
};

struct adp_params {
  std::uint32_t S = 256;    // stack threshold, in work-first frames
  std::uint32_t F = 128;    // fresh-task threshold
  std::uint32_t INT = 64;   // re-evaluation interval, in spawns
  std::uint32_t steal_threshold = 64;  // steals per interval above which help-first is chosen
  spawn_policy start = spawn_policy::wf;  // each worker's first interval (see adp_state)
};

// Each worker starts work-first (adp_params::start). SLAW starts help-first, "because steals are frequent at program
// start"; but a work-first loop's continuation migrates from thief to thief, and every worker that takes
// it spent its first INT spawns help-first: on sor at 16 simulated workers dyn took 1.37x work-first's
// time (2.1x at 32, 3.9x at 64). Starting work-first, dyn matches the better
// fixed policy there and on every other modelled kernel but spmv, where the start does not matter
// (docs/design/adaptive_policy.md § The first interval).
struct adp_state {
  spawn_policy current = spawn_policy::wf;
  std::uint32_t left = 64;                  // spawns left in this interval
  std::uint64_t stolen_at_start = 0;        // steals-from-me counter at the interval's start
  std::uint64_t switches = 0;               // policy switches (for the counters)

  void reset(const adp_params& p, std::uint64_t stolen_now) noexcept {
    current = p.start;
    left = p.INT;
    stolen_at_start = stolen_now;
  }
};

// Interval end: the heuristic. Pure function of the interval's steal count.
inline spawn_policy heuristic(const adp_params& p, std::uint64_t steals_in_interval) noexcept {
  return steals_in_interval > p.steal_threshold ? spawn_policy::hf : spawn_policy::wf;
}

// One spawn's decision and its reason. `depth` may be negative (frames re-entered after a context
// switch). `fresh_count()` is consulted only when the cheap estimate is >= F; `stolen_from_me()` only at
// an interval's end, so the common case touches worker-local fields only. Every reason is a constant
// of the branch that already tells the cases apart: the common path has no extra test.
// The end of an interval: the heuristic picks the next interval's policy.
template <class StolenFromMe>
void end_interval(const adp_params& p, adp_state& s, StolenFromMe&& stolen_from_me) noexcept {
  std::uint64_t now = stolen_from_me();
  spawn_policy next = heuristic(p, now - s.stolen_at_start);
  if (next != s.current) ++s.switches;
  s.current = next;
  s.stolen_at_start = now;
  s.left = p.INT;
}

// A spawn with an explicit clause in dyn mode (Q1: the stack condition overrides an explicit wf).
inline decision clause_decision(const adp_params& p, schedule clause, std::int64_t depth) noexcept {
  if (depth >= static_cast<std::int64_t>(p.S)) return {spawn_policy::hf, reason::stack_bound};
  return {clause == schedule::wf ? spawn_policy::wf : spawn_policy::hf, reason::clause};
}

// `fresh_estimate`: a number, or a callable returning it (then read only in a help-first interval).
template <class FreshEstimate, class FreshCount, class StolenFromMe>
inline decision decide(const adp_params& p, adp_state& s, mode m, schedule clause, std::int64_t depth,
                       FreshEstimate&& fresh_estimate, FreshCount&& fresh_count,
                       StolenFromMe&& stolen_from_me) noexcept {
  if (m != mode::dyn) [[unlikely]] return {m == mode::wf ? spawn_policy::wf : spawn_policy::hf, reason::clause};
  const auto S = static_cast<std::int64_t>(p.S);
  if (clause != schedule::dyn) [[unlikely]] return clause_decision(p, clause, depth);  // clauses do not count (Q2)
  if (--s.left == 0) [[unlikely]] end_interval(p, s, stolen_from_me);  // Q2: a forced spawn counts too
  if (s.current == spawn_policy::wf) [[likely]] {
    if (depth >= S) [[unlikely]] return {spawn_policy::hf, reason::stack_bound};
    return {spawn_policy::wf, reason::interval};
  }
  std::uint32_t estimate;
  if constexpr (std::is_invocable_v<FreshEstimate>) estimate = fresh_estimate();
  else estimate = fresh_estimate;
  // `fresh_count()` only when the cheap estimate says the bound may hold.
  if (estimate >= p.F && depth < S) [[unlikely]] {
    if (fresh_count() >= p.F) return {spawn_policy::wf, reason::fresh_bound};
  }
  return {spawn_policy::hf, reason::interval};
}

// Whether, from state `s`, decide() answers {wf, interval} for every spawn with the dyn clause until the
// interval ends (`s.left` spawns, the last one included only up to its countdown) as long as depth
// stays below S — so that a caller may skip it and count those spawns itself. `last` is the policy of
// the previous decision: when it was hf, the next wf is a change the caller must see. Fixed wf mode
// answers wf to every spawn, bounds or not (the caller then need not watch the depth).
constexpr bool wf_until_interval_end(mode m, const adp_state& s, spawn_policy last) noexcept {
  return m == mode::wf || (m == mode::dyn && s.current == spawn_policy::wf && last == spawn_policy::wf);
}

}  // namespace slaw::policy
