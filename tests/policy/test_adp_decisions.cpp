// The pure ADP(S,F,INT) decision (include/slaw/policy/adp.hpp), without threads.
#include <gtest/gtest.h>

#include "slaw/policy/adp.hpp"

using namespace slaw::policy;

namespace {
spawn_policy step(const adp_params& p, adp_state& s, schedule c, long depth, unsigned fresh, std::uint64_t stolen,
                  mode m = mode::dyn) {
  return decide(p, s, m, c, depth, fresh, [&] { return fresh; }, [&] { return stolen; }).policy;
}
}  // namespace

// A worker starts work-first (adp_state: SLAW starts help-first) and stays so without steals; with
// more steals than the threshold in an interval it turns help-first for the next one.
TEST(Adp, StartsWorkFirstAndStaysSoWithoutSteals) {
  adp_params p;
  adp_state s;
  s.reset(p, 0);
  EXPECT_EQ(s.current, spawn_policy::wf);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(step(p, s, schedule::dyn, 0, 0, 0), spawn_policy::wf) << i;
  EXPECT_EQ(s.switches, 0u);
  adp_state h;
  h.reset(p, 0);
  h.current = spawn_policy::hf;  // SLAW's start
  for (unsigned i = 1; i < p.INT; ++i) EXPECT_EQ(step(p, h, schedule::dyn, 0, 0, 0), spawn_policy::hf) << i;
  EXPECT_EQ(step(p, h, schedule::dyn, 0, 0, 0), spawn_policy::wf);  // INT-th spawn: re-evaluated
  EXPECT_EQ(h.switches, 1u);
}

TEST(Adp, HeuristicIsLiteralMoreStealsThanThreshold) {
  adp_params p;
  p.INT = 4;
  p.steal_threshold = 4;
  adp_state s;
  s.reset(p, 0);
  std::uint64_t stolen = 0;
  for (int i = 0; i < 4; ++i) step(p, s, schedule::dyn, 0, 0, stolen);
  EXPECT_EQ(s.current, spawn_policy::wf);
  stolen += 4;  // == threshold: still work-first
  for (int i = 0; i < 4; ++i) step(p, s, schedule::dyn, 0, 0, stolen);
  EXPECT_EQ(s.current, spawn_policy::wf);
  stolen += 5;  // > threshold: help-first
  for (int i = 0; i < 4; ++i) step(p, s, schedule::dyn, 0, 0, stolen);
  EXPECT_EQ(s.current, spawn_policy::hf);
  EXPECT_EQ(s.switches, 1u);  // work-first from the start, then help-first
}

TEST(Adp, StackConditionWinsOverEverythingInDynMode) {
  adp_params p;
  adp_state s;
  s.reset(p, 0);
  s.current = spawn_policy::wf;
  EXPECT_EQ(step(p, s, schedule::dyn, p.S, 0, 0), spawn_policy::hf);
  EXPECT_EQ(step(p, s, schedule::wf, p.S, 0, 0), spawn_policy::hf);      // Q1: overrides explicit wf
  EXPECT_EQ(step(p, s, schedule::dyn, p.S, p.F, 0), spawn_policy::hf);   // and the fresh condition
  EXPECT_EQ(step(p, s, schedule::wf, p.S - 1, 0, 0), spawn_policy::wf);
  EXPECT_EQ(step(p, s, schedule::hf, 0, 0, 0), spawn_policy::hf);
}

TEST(Adp, FreshConditionForcesWorkFirst) {
  adp_params p;
  adp_state s;
  s.reset(p, 0);
  s.current = spawn_policy::hf;  // a help-first interval
  EXPECT_EQ(step(p, s, schedule::dyn, 0, p.F - 1, 0), spawn_policy::hf);
  EXPECT_EQ(step(p, s, schedule::dyn, 0, p.F, 0), spawn_policy::wf);
  // A stale estimate above F is re-checked and does not force.
  adp_state s2;
  s2.reset(p, 0);
  s2.current = spawn_policy::hf;
  EXPECT_EQ(decide(p, s2, mode::dyn, schedule::dyn, 0, p.F + 5, [] { return 3u; }, [] { return 0ull; }).policy,
            spawn_policy::hf);
}

TEST(Adp, FixedModesIgnoreClausesAndBounds) {
  adp_params p;
  adp_state s;
  s.reset(p, 0);
  EXPECT_EQ(step(p, s, schedule::hf, p.S * 10, 0, 0, mode::wf), spawn_policy::wf);
  EXPECT_EQ(step(p, s, schedule::wf, 0, p.F * 10, 0, mode::hf), spawn_policy::hf);
}
