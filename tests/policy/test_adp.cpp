// ADP(S,F,INT) with reasons (include/slaw/policy/adp.hpp), without threads.
#include "slaw/policy/adp.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <type_traits>

using namespace slaw::policy;

namespace {

struct input {
  mode m = mode::dyn;
  schedule clause = schedule::dyn;
  std::int64_t depth = 0;
  std::uint32_t fresh = 0;  // the estimate and the exact count alike
  std::uint64_t stolen = 0;
};

decision step(const adp_params& p, adp_state& s, const input& in) {
  return decide(p, s, in.m, in.clause, in.depth, in.fresh, [&] { return in.fresh; }, [&] { return in.stolen; });
}

// The policy part as it was before decide returned a reason (git history of adp.hpp): the reasons
// must not change any decision. One change since, on purpose: a dyn spawn forced help-first by the
// stack condition now counts towards the interval too (Q2: every dyn spawn, forced or not, counts;
// before, the stack condition returned before the countdown).
spawn_policy decide_without_reason(const adp_params& p, adp_state& s, const input& in) {
  if (in.m == mode::wf) return spawn_policy::wf;
  if (in.m == mode::hf) return spawn_policy::hf;
  const bool too_deep = in.depth >= static_cast<std::int64_t>(p.S);
  if (in.clause != schedule::dyn)
    return too_deep ? spawn_policy::hf : in.clause == schedule::wf ? spawn_policy::wf : spawn_policy::hf;
  bool is_forced = in.fresh >= p.F;
  if (--s.left == 0) {
    spawn_policy next = heuristic(p, in.stolen - s.stolen_at_start);
    if (next != s.current) ++s.switches;
    s.current = next;
    s.stolen_at_start = in.stolen;
    s.left = p.INT;
  }
  return too_deep ? spawn_policy::hf : is_forced ? spawn_policy::wf : s.current;
}

// What worker::decision_changed re-derived before (src/core/worker.cpp), for the comparison below.
char rederived_reason(const adp_params& p, const adp_state& s, mode m, spawn_policy d, std::int64_t depth, char last) {
  if (m != mode::dyn) return 'c';
  if (depth >= static_cast<std::int64_t>(p.S)) return 's';
  if (d == spawn_policy::wf && s.current == spawn_policy::hf) return 'f';
  if (d != s.current) return 'c';
  if (last == 's' || last == 'f' || last == 'c') return 'u';
  return 'i';
}

// Bounds small enough for random inputs to cross them often.
adp_params small_bounds(std::uint32_t INT) {
  adp_params p;
  p.S = 6;
  p.F = 3;
  p.INT = INT;
  p.steal_threshold = INT / 2;
  return p;
}

input random_input(std::mt19937_64& rng, const adp_params& p, std::uint64_t& stolen) {
  input in;
  auto r = rng();
  in.m = r % 50 == 0 ? mode::wf : r % 50 == 1 ? mode::hf : mode::dyn;
  in.clause = (r >> 8) % 10 == 0 ? schedule::wf : (r >> 8) % 10 == 1 ? schedule::hf : schedule::dyn;
  in.depth = static_cast<std::int64_t>((r >> 16) % (p.S + 4)) - 2;
  in.fresh = static_cast<std::uint32_t>((r >> 32) % (p.F + 3));
  stolen += (r >> 48) % 3;
  in.stolen = stolen;
  return in;
}

}  // namespace

TEST(AdpReason, EachBranchNamesItsReason) {
  adp_params p;
  p.S = 8;
  p.F = 4;
  adp_state s;
  s.reset(p, 0);
  s.current = spawn_policy::hf;
  EXPECT_EQ(step(p, s, {mode::wf, schedule::hf, 100, 100, 0}), (decision{spawn_policy::wf, reason::clause}));
  EXPECT_EQ(step(p, s, {mode::hf, schedule::wf, 0, 100, 0}), (decision{spawn_policy::hf, reason::clause}));
  // In a help-first interval the stack condition changes nothing, and
  // vetoes the fresh condition.
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 8, 0, 0}), (decision{spawn_policy::hf, reason::interval}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::wf, 8, 0, 0}), (decision{spawn_policy::hf, reason::stack_bound}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 8, 4, 0}), (decision{spawn_policy::hf, reason::interval}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::wf, 7, 0, 0}), (decision{spawn_policy::wf, reason::clause}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::hf, 0, 4, 0}), (decision{spawn_policy::hf, reason::clause}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 0, 4, 0}), (decision{spawn_policy::wf, reason::fresh_bound}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 0, 3, 0}), (decision{spawn_policy::hf, reason::interval}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, -5, 0, 0}), (decision{spawn_policy::hf, reason::interval}));
}

// A bound is the reason only where it overrode the interval's policy.
TEST(AdpReason, BoundsAreReasonsOnlyWhereTheyOverrideTheInterval) {
  adp_params p;
  p.INT = 1;
  p.F = 2;
  p.S = 8;
  adp_state s;
  s.reset(p, 0);
  EXPECT_EQ(step(p, s, {}), (decision{spawn_policy::wf, reason::interval}));  // INT = 1: re-evaluated at once
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 0, 2, 0}), (decision{spawn_policy::wf, reason::interval}));
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 8, 2, 0}), (decision{spawn_policy::hf, reason::stack_bound}));
}

TEST(AdpReason, StaleEstimateDoesNotForce) {
  adp_params p;
  adp_state s;
  s.reset(p, 0);
  s.current = spawn_policy::hf;
  decision d = decide(p, s, mode::dyn, schedule::dyn, 0, p.F + 5, [] { return 3u; }, [] { return 0ull; });
  EXPECT_EQ(d, (decision{spawn_policy::hf, reason::interval}));
}

TEST(AdpReason, ForcedSpawnsCountTowardsTheIntervalAndClausesDoNot) {
  adp_params p;
  p.INT = 4;
  p.F = 1;
  adp_state s;
  s.reset(p, 0);
  s.current = spawn_policy::hf;
  for (int i = 0; i < 3; ++i) step(p, s, {mode::dyn, schedule::dyn, 0, 1, 0});  // forced by F
  for (int i = 0; i < 10; ++i) step(p, s, {mode::dyn, schedule::hf, 0, 0, 0});  // explicit clause
  EXPECT_EQ(s.left, 1u);
  EXPECT_EQ(step(p, s, {}), (decision{spawn_policy::wf, reason::interval}));  // the 4th dyn spawn
  EXPECT_EQ(s.switches, 1u);
}

TEST(AdpReason, TheIntervalEndsAlsoOnAForcedSpawn) {
  adp_params p;
  p.INT = 2;
  p.steal_threshold = 0;
  p.F = 1;
  adp_state s;
  s.reset(p, 0);  // work-first, as a worker starts
  step(p, s, {});
  // 1 steal > threshold 0: the interval turns help-first at this forced spawn, which stays work-first.
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 0, 1, 1}), (decision{spawn_policy::wf, reason::fresh_bound}));
  EXPECT_EQ(s.current, spawn_policy::hf);
  EXPECT_EQ(step(p, s, {mode::dyn, schedule::dyn, 0, 0, 1}), (decision{spawn_policy::hf, reason::interval}));
}

TEST(AdpReason, CodesAreTheTraceLegend) {
  EXPECT_EQ(reason_code(reason::interval), 'i');
  EXPECT_EQ(reason_code(reason::stack_bound), 's');
  EXPECT_EQ(reason_code(reason::fresh_bound), 'f');
  EXPECT_EQ(reason_code(reason::clause), 'c');
  EXPECT_EQ(reason_code(reason::back_to_interval), 'u');
}

TEST(AdpReason, ChangeReasonTellsAReturnToTheIntervalApart) {
  for (reason forced : {reason::stack_bound, reason::fresh_bound, reason::clause})
    EXPECT_EQ(change_reason(forced, reason::interval), reason::back_to_interval);
  EXPECT_EQ(change_reason(reason::interval, reason::interval), reason::interval);
  EXPECT_EQ(change_reason(reason::back_to_interval, reason::interval), reason::interval);
  for (reason last : {reason::interval, reason::stack_bound, reason::fresh_bound, reason::clause, reason::back_to_interval})
    for (reason now : {reason::stack_bound, reason::fresh_bound, reason::clause})
      EXPECT_EQ(change_reason(last, now), now);
  static_assert(change_reason(reason::stack_bound, reason::interval) == reason::back_to_interval);
}

TEST(AdpReason, DecisionsAreThoseOfThePolicyWithoutReasons) {
  std::mt19937_64 rng(7);
  for (std::uint32_t INT : {1u, 2u, 5u, 64u}) {
    const adp_params p = small_bounds(INT);
    adp_state a, b;
    a.reset(p, 0);
    b.reset(p, 0);
    std::uint64_t stolen = 0;
    for (int i = 0; i < 20000; ++i) {
      input in = random_input(rng, p, stolen);
      ASSERT_EQ(step(p, a, in).policy, decide_without_reason(p, b, in)) << i;
      ASSERT_EQ(a.current, b.current);
      ASSERT_EQ(a.left, b.left);
      ASSERT_EQ(a.switches, b.switches);
    }
  }
}

// The trace's reasons (change_reason over decide's) against the old re-derivation: equal, except where
// the re-derivation guessed from the state after the fact and named the wrong cause:
//  - an explicit wf clause while the interval is help-first: it said 'f' (fresh bound), it is 'c';
//  - an explicit clause, or the fresh bound, that picks the interval's current policy: it said 'i' or
//    'u', it is 'c' or 'f';
//  - after such a difference, the next return to the interval's policy: 'i' and 'u' swap;
//  - (since bounds are reasons only where they override the interval) the stack condition in a
//    help-first interval: it said 's', it is 'i' or 'u'.
TEST(AdpReason, TraceReasonsAgreeWithTheOldRederivationWhereItWasRight) {
  std::mt19937_64 rng(11);
  adp_params p;
  p.S = 6;
  p.F = 3;
  p.INT = 4;
  p.steal_threshold = 2;
  adp_state s;
  s.reset(p, 0);
  spawn_policy last_policy = spawn_policy::wf;  // as a worker starts
  reason last_new = reason::interval;
  char last_old = 'i';
  std::uint64_t stolen = 0;
  int changes = 0, differ = 0;
  bool last_differed = false;
  for (int i = 0; i < 50000; ++i) {
    input in = random_input(rng, p, stolen);
    decision d = step(p, s, in);
    if (d.policy == last_policy) continue;
    ++changes;
    last_policy = d.policy;
    char old = rederived_reason(p, s, in.m, d.policy, in.depth, last_old);
    last_new = change_reason(last_new, d.why);
    last_old = old;
    const char now = reason_code(last_new);
    const bool differed = last_differed;
    last_differed = now != old;
    if (now == old) continue;
    ++differ;
    const bool clause_wf_under_hf = in.m == mode::dyn && in.clause == schedule::wf && s.current == spawn_policy::hf &&
                                    old == 'f' && now == 'c';
    const bool forced_matches_interval =
        d.policy == s.current && (old == 'i' || old == 'u') && (now == 'c' || now == 'f');
    const bool follows_a_difference = differed && ((old == 'i' && now == 'u') || (old == 'u' && now == 'i'));
    // The stack condition in a help-first interval overrides nothing: the interval is the reason.
    const bool stack_bound_without_effect =
        in.clause == schedule::dyn && old == 's' && s.current == spawn_policy::hf && (now == 'i' || now == 'u');
    ASSERT_TRUE(clause_wf_under_hf || forced_matches_interval || follows_a_difference || stack_bound_without_effect)
        << i << ": old " << old << ", new " << now;
  }
  EXPECT_GT(changes, 1000);
  EXPECT_GT(differ, 0);
}

// The worker's spawn fast path (include/slaw/detail/worker.hpp, choose): while
// wf_until_interval_end holds it skips decide() and counts the interval down itself, and its deque
// reports the push that reaches depth S. Modelled here step by step against decide() alone, on random
// spawn sequences (depth walking up and down across S, explicit clauses, steals, fresh counts): every
// decision, the interval state and the recorded changes must be the same.
TEST(AdpFastPath, CountingDownWhileArmedDecidesAsDecide) {
  std::mt19937_64 rng(23);
  for (mode m : {mode::dyn, mode::wf, mode::hf}) {
    for (std::uint32_t INT : {1u, 2u, 5u, 64u}) {
      const adp_params p = small_bounds(INT);
      adp_state ref, fast;
      ref.reset(p, 0);
      fast.reset(p, 0);
      // As a worker starts: its first decision recorded (a fixed mode's, or dyn's work-first interval),
      // and armed where that decision is work-first until the interval's end.
      spawn_policy ref_last = m == mode::hf ? spawn_policy::hf : spawn_policy::wf, fast_last = ref_last;
      std::uint64_t ref_changes = 0, fast_changes = 0, skipped = 0;
      bool armed = wf_until_interval_end(m, fast, fast_last);
      std::uint32_t fast_left = !armed ? 1 : m == mode::wf ? UINT32_MAX : fast.left;
      auto disarm = [&] {
        if (!armed) return;
        fast.left = fast_left;
        fast_left = 1;
        armed = false;
      };
      std::int64_t depth = 0;
      std::uint64_t stolen = 0;
      for (int i = 0; i < 50000; ++i) {
        input in;
        in.m = m;
        in.clause = rng() % 10 == 0 ? (rng() % 2 ? schedule::wf : schedule::hf) : schedule::dyn;
        depth += rng() % 2 ? 1 : -1;  // a random walk around the bound
        depth = std::max<std::int64_t>(-2, std::min<std::int64_t>(depth, p.S + 2));
        in.depth = depth;
        in.fresh = static_cast<std::uint32_t>(rng() % (p.F + 2));
        if (rng() % (2 * INT) == 0) stolen += INT + 1;  // about every other interval turns help-first
        in.stolen = stolen;

        const spawn_policy want = step(p, ref, in).policy;
        if (want != ref_last) ++ref_changes;
        ref_last = want;

        // The deque's watch: the push that made the depth S disarmed the worker.
        if (armed && m == mode::dyn && depth >= p.S) disarm();
        spawn_policy got;
        if (in.clause == schedule::dyn && --fast_left != 0) {
          got = spawn_policy::wf;
          ++skipped;
        } else if (in.clause != schedule::dyn && m == mode::dyn &&
                   clause_decision(p, in.clause, depth).policy == fast_last) {
          got = fast_last;  // an explicit clause that changes nothing: decided inline, not counted
        } else if (m == mode::hf) {
          got = spawn_policy::hf;
          fast_left = 1;
        } else if (m == mode::wf && in.clause != schedule::dyn) {
          got = spawn_policy::wf;
        } else {
          if (armed) {
            if (in.clause == schedule::dyn) ++fast_left;
            disarm();
          }
          got = step(p, fast, in).policy;
          if (got != fast_last) ++fast_changes;
          fast_last = got;
          if (wf_until_interval_end(m, fast, fast_last)) {
            armed = true;
            fast_left = m == mode::wf ? UINT32_MAX : fast.left;
          } else {
            fast_left = 1;
          }
        }
        ASSERT_EQ(got, want) << "mode " << int(m) << " INT " << INT << " spawn " << i;
        if (m == mode::dyn) {
          ASSERT_EQ(armed ? fast_left : fast.left, ref.left);
        }
        ASSERT_EQ(fast.current, ref.current);
        ASSERT_EQ(fast.switches, ref.switches);
      }
      EXPECT_EQ(fast_changes, ref_changes);
      if (m == mode::wf || (m == mode::dyn && INT >= 5)) {
        EXPECT_GT(skipped, 1000u) << "mode " << int(m) << " INT " << INT;
      }
    }
  }
}
