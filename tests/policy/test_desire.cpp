// A job's desire: A-Deque's sampling estimator and A-Steal's MIMD rule (include/slaw/policy/desire.hpp;
// the A-Deque paper's digest /work/shared/docs/digests/adeque.md §3).
#include "slaw/policy/desire.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "slaw/policy/allotment.hpp"

using namespace slaw::policy;

namespace {

// One quantum of the digest's §3.2(c) pseudo-code.
quantum_sample sample(std::uint32_t a, std::uint64_t S, std::uint64_t Sp, std::uint64_t LEN, std::uint64_t e,
                      std::uint64_t queued, std::uint64_t Smax = 0, std::uint64_t mugs = 0) {
  quantum_sample x;
  x.allotment = a;
  x.steal_attempts = S;
  x.purely_unsuccessful = Sp;
  x.sampled_length = LEN;
  x.active_deques = static_cast<std::uint32_t>(e);
  x.queued = queued;
  x.max_steal_attempts = Smax;
  x.mugs = mugs;
  return x;
}

// The paper's constant-parallelism program (Fig. 2, digest §3.5): a parent spawns N long children in a
// loop and then waits at `sync`, under the digest's two assumptions (the controller grants the desire;
// a ready entry is stolen at once). With a workers and the loop not finished, min(a, N) workers run
// children and the parent's continuation waits in a deque (Q' = 1). In the first quantum with more
// than N workers the parent spawns its last child and blocks at `sync` (Q' = 0 from then on); the
// surplus a − N workers steal in vain, each attempt purely unsuccessful in the proportion (a − N)/a.
struct fig2_program {
  std::uint32_t N;
  bool at_sync = false;

  quantum_sample run(std::uint32_t a) {
    if (a > N) at_sync = true;
    const std::uint32_t busy = a < N ? a : N;
    quantum_sample x;
    x.allotment = a;
    if (busy < a) {  // thieves: S = 100 per worker, purely unsuccessful for the idle share
      x.steal_attempts = 100ull * a;
      x.purely_unsuccessful = 100ull * (a - busy);
    }
    x.active_deques = a;
    x.queued = at_sync ? 0 : 1;
    return x;
  }
};

// Desires of quanta 1..q under `rule` for the Fig. 2 program alone on `cores` cores, DEQ granting.
std::vector<double> fig2_trace(desire_rule rule, std::uint32_t N, std::uint32_t cores, int quanta,
                               const desire_params& p = {}) {
  fig2_program prog{N};
  desire_state s;
  s.reset(p);
  std::vector<double> d{s.desire};
  for (int q = 1; q < quanta; ++q) {
    const double desires[] = {s.desire};
    std::uint32_t a[1];
    deq(desires, cores, a);
    d.push_back(next_desire(rule, s, prog.run(a[0]), p));
  }
  return d;
}

}  // namespace

// Digest §1.3, §3.1, §3.3: β = 2, ρ = 2, δ = 0.8, d(1) = 1.
TEST(Desire, PaperDefaults) {
  desire_params p;
  EXPECT_EQ(p.beta, 2.0);
  EXPECT_EQ(p.rho, 2.0);
  EXPECT_EQ(p.delta, 0.8);
  EXPECT_EQ(p.initial, 1.0);
  EXPECT_EQ(p.min_desire, 1.0);
  EXPECT_TRUE(invalid_reason(p).empty());
  desire_state s;
  EXPECT_EQ(s.desire, 1.0);
  EXPECT_EQ(s.quantum, 1u);
  EXPECT_EQ(desire_rule_name(desire_rule::adeque), "adeque");
  EXPECT_EQ(desire_rule_name(desire_rule::asteal), "asteal");
}

TEST(Desire, BadParametersAreNamed) {
  desire_params p;
  p.beta = 0.5;
  EXPECT_NE(invalid_reason(p).find("beta"), std::string_view::npos);
  p = {};
  p.beta = std::nan("");
  EXPECT_FALSE(invalid_reason(p).empty());
  p = {};
  p.rho = 1.0;  // no multiplicative change at all
  EXPECT_NE(invalid_reason(p).find("rho"), std::string_view::npos);
  p = {};
  p.delta = 1.5;
  EXPECT_NE(invalid_reason(p).find("delta"), std::string_view::npos);
  p = {};
  p.max_desire = 0.5;
  EXPECT_NE(invalid_reason(p).find("max_desire"), std::string_view::npos);
  p = {};
  p.initial = 0.5;
  EXPECT_NE(invalid_reason(p).find("initial"), std::string_view::npos);
}

// Digest §3.2(a): u = 1 − S_p/S; no steal attempt: u = 1 (INTERPRETATION I1).
TEST(Desire, UtilizationFromPurelyUnsuccessfulSteals) {
  EXPECT_EQ(utilization(sample(4, 0, 0, 0, 4, 0)), 1.0);
  EXPECT_DOUBLE_EQ(utilization(sample(4, 10, 4, 0, 4, 0)), 0.6);
  EXPECT_EQ(utilization(sample(4, 10, 10, 0, 4, 0)), 0.0);
  EXPECT_EQ(utilization(sample(4, 10, 11, 0, 4, 0)), 0.0);  // racy counters: S_p capped at S (I4)
}

// Digest §3.2(b), (c) by hand: a = 4, S = 100, S_p = 25, LEN = 200, e = 5, S_max = 400, Q' = 6:
//   u = 0.75, busy = 3, Q = 5·200/100 = 10, α = 0.25, Q̄ = 0.25·10 + 0.75·6 = 7, d = 3 + 2·7 = 17.
TEST(Desire, ADequeByHand) {
  const adeque_terms t = adeque_estimate(sample(4, 100, 25, 200, 5, 6, 400), desire_params{});
  EXPECT_DOUBLE_EQ(t.utilization, 0.75);
  EXPECT_DOUBLE_EQ(t.busy, 3.0);
  EXPECT_DOUBLE_EQ(t.sampled_queue, 10.0);
  EXPECT_DOUBLE_EQ(t.snapshot_queue, 6.0);
  EXPECT_DOUBLE_EQ(t.alpha, 0.25);
  EXPECT_DOUBLE_EQ(t.queue, 7.0);
  EXPECT_DOUBLE_EQ(t.raw, 17.0);
  EXPECT_DOUBLE_EQ(t.desire, 17.0);
  desire_params b1;
  b1.beta = 1.0;
  EXPECT_DOUBLE_EQ(adeque_desire(sample(4, 100, 25, 200, 5, 6, 400), b1), 10.0);  // 3 + 1·7
}

// INTERPRETATION I3: mugs add samples to LEN, so by default they count in Q's denominator too.
TEST(Desire, MugsCountAsSamplesUnlessLiteral) {
  const quantum_sample x = sample(4, 100, 25, 200, 5, 6, 400, /*mugs=*/100);
  const adeque_terms t = adeque_estimate(x, desire_params{});
  EXPECT_DOUBLE_EQ(t.sampled_queue, 5.0);             // 5·200/(100 + 100)
  EXPECT_DOUBLE_EQ(t.desire, 3.0 + 2.0 * 5.75);       // Q̄ = 0.25·5 + 0.75·6
  desire_params literal;
  literal.mugs_in_denominator = false;
  EXPECT_DOUBLE_EQ(adeque_estimate(x, literal).sampled_queue, 10.0);  // 5·200/100
  EXPECT_DOUBLE_EQ(adeque_desire(x, literal), 17.0);
}

// Digest §3.2(b): "With no steal attempts, α = 0 and Q is ignored"; I2: an unknown S_max gives α = 0.
TEST(Desire, AlphaEdges) {
  // No steals: every allotted worker busy, the snapshot alone: d = 3 + 2·2.
  adeque_terms t = adeque_estimate(sample(3, 0, 0, 0, 3, 2, 1000), desire_params{});
  EXPECT_EQ(t.alpha, 0.0);
  EXPECT_EQ(t.busy, 3.0);
  EXPECT_DOUBLE_EQ(t.desire, 7.0);
  // Steals but S_max unknown: the snapshot alone, whatever the samples say.
  t = adeque_estimate(sample(4, 100, 0, 5000, 4, 1), desire_params{});
  EXPECT_EQ(t.alpha, 0.0);
  EXPECT_DOUBLE_EQ(t.desire, 4.0 + 2.0 * 1.0);
  // More attempts than S_max: α = 1, the samples alone: Q = 5·1000/500 = 10, d = 4 + 20.
  t = adeque_estimate(sample(4, 500, 0, 1000, 5, 99, 400), desire_params{});
  EXPECT_EQ(t.alpha, 1.0);
  EXPECT_DOUBLE_EQ(t.queue, 10.0);
  EXPECT_DOUBLE_EQ(t.desire, 24.0);
  // S_max from a·L / t_steal: 4 workers, 10 ms, 500 ns per failed attempt.
  EXPECT_EQ(max_steal_attempts(4, 10e6, 500.0), 80'000u);
  EXPECT_EQ(max_steal_attempts(4, 10e6, 0.0), 0u);
}

// INTERPRETATION I5, I6: at least 1 for a running job; max_desire caps.
TEST(Desire, ClampedToMinAndMax) {
  EXPECT_EQ(adeque_desire(sample(8, 1000, 1000, 0, 8, 0), desire_params{}), 1.0);  // all stealing, nothing queued
  desire_params p;
  p.max_desire = 16;
  EXPECT_EQ(adeque_desire(sample(8, 0, 0, 0, 8, 100), p), 16.0);  // 8 + 2·100, capped
  EXPECT_EQ(asteal_desire(16.0, 16, 1.0, p), 16.0);               // satisfied at the cap: stays
  p.min_desire = 0.0;
  EXPECT_EQ(adeque_desire(sample(8, 1000, 1000, 0, 8, 0), p), 0.0);
}

// The busy term a·(S − S_p)/S is exact where it is an integer (I4): no 2.0000000000000004 that DEQ
// would round up to 3.
TEST(Desire, BusyTermExactWhenWhole) {
  for (std::uint32_t a = 1; a <= 64; ++a)
    for (std::uint32_t busy = 0; busy <= a; ++busy) {
      const std::uint64_t S = 3ull * a;  // attempts in thirds: 1 − S_p/S is rarely a double exactly
      const double d = adeque_estimate(sample(a, S, S - 3ull * busy, 0, a, 0), desire_params{}).busy;
      ASSERT_EQ(d, static_cast<double>(busy)) << a << " " << busy;
    }
}

// Digest §3.1 Eq. (1) from exact time-averages.
TEST(Desire, IdealEquationOne) {
  EXPECT_EQ(adeque_ideal(10.0, 0.0, desire_params{}), 10.0);
  EXPECT_EQ(adeque_ideal(3.0, 1.0, desire_params{}), 5.0);
  EXPECT_EQ(adeque_ideal(0.2, 0.0, desire_params{}), 1.0);
}

// A job with idle workers whose steals fail lowers its desire below its allotment, to the busy ones
// (digest §3.1: "drops quickly to the number of busy processors in the very next quantum").
TEST(Desire, IdleWorkersAndFailedStealsLowerTheDesire) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t a = 2 + static_cast<std::uint32_t>(rng() % 63);
    const std::uint64_t S = 1 + rng() % 100000, Sp = 1 + rng() % S;
    const quantum_sample x = sample(a, S, Sp, 0, a, 0, rng() % 200000);
    const adeque_terms t = adeque_estimate(x, desire_params{});
    ASSERT_LT(t.desire, static_cast<double>(a));
    ASSERT_NEAR(t.raw, a * (1.0 - static_cast<double>(Sp) / static_cast<double>(S)), 1e-12 * a);  // u·a
    ASSERT_EQ(t.desire, t.raw < 1.0 ? 1.0 : t.raw);
  }
  // Half the workers stealing in vain, nothing queued: 8 → 4.
  EXPECT_EQ(adeque_desire(sample(8, 1000, 500, 0, 8, 0), desire_params{}), 4.0);
}

// A job whose workers are all busy with queued work raises its desire: A-Deque additively, by β per
// queued entry (not multiplicatively), A-Steal by exactly ρ.
TEST(Desire, AllBusyWithQueuedWorkRaisesTheDesire) {
  std::mt19937_64 rng(17);
  desire_params p;
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t a = 1 + static_cast<std::uint32_t>(rng() % 64);
    const std::uint64_t queued = 1 + rng() % 50;
    const quantum_sample x = sample(a, 0, 0, 0, a, queued);  // nobody stole: all busy
    ASSERT_EQ(adeque_desire(x, p), a + p.beta * static_cast<double>(queued));
    ASSERT_GT(adeque_desire(x, p), static_cast<double>(a));
    // A-Steal, granted what it asked: ρ times, whatever is queued.
    desire_state s;
    s.desire = a;
    ASSERT_EQ(next_desire(desire_rule::asteal, s, x, p), p.rho * a);
  }
}

// Digest §3.3: A-Steal's three branches, and that it looks at the utilization only.
TEST(Desire, AStealBranches) {
  desire_params p;
  EXPECT_EQ(asteal_classify(4, 4, 0.9, p), asteal_case::efficient_satisfied);
  EXPECT_EQ(asteal_desire(4, 4, 0.9, p), 8.0);
  EXPECT_EQ(asteal_desire(4, 6, 0.9, p), 8.0);  // more than asked: still satisfied
  EXPECT_EQ(asteal_classify(4, 2, 0.9, p), asteal_case::efficient_deprived);
  EXPECT_EQ(asteal_desire(4, 2, 0.9, p), 4.0);
  EXPECT_EQ(asteal_classify(4, 4, 0.5, p), asteal_case::inefficient);
  EXPECT_EQ(asteal_desire(4, 4, 0.5, p), 2.0);
  EXPECT_EQ(asteal_desire(4, 2, 0.5, p), 2.0);  // inefficient whether satisfied or deprived
  EXPECT_EQ(asteal_desire(4, 4, 0.8, p), 8.0);  // u = δ is efficient
  EXPECT_EQ(asteal_desire(4, 4, 0.79, p), 2.0);
  EXPECT_EQ(asteal_desire(1, 1, 0.1, p), 1.0);  // never below 1 (I5)
  EXPECT_EQ(asteal_desire(2.5, 3, 0.9, p), 5.0);  // real-valued; ⌈2.5⌉ = 3 cores satisfy it
  p.rho = 3.0;
  EXPECT_EQ(asteal_desire(3, 3, 1.0, p), 9.0);
  EXPECT_EQ(asteal_desire(9, 9, 0.1, p), 3.0);
  // Queued work is not looked at: only u, a(q) and d(q).
  desire_state s1, s2;
  s1.desire = s2.desire = 4;
  EXPECT_EQ(next_desire(desire_rule::asteal, s1, sample(4, 10, 1, 0, 4, 0), p),
            next_desire(desire_rule::asteal, s2, sample(4, 10, 1, 900, 9, 1000, 20), p));
}

// The MIMD rule on random inputs: the next desire is d/ρ, d or d·ρ as the case says, clamped.
TEST(Desire, AStealIsMultiplicativeOnRandomInputs) {
  std::mt19937_64 rng(19);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int i = 0; i < 100000; ++i) {
    desire_params p;
    p.rho = 1.0 + 2.0 * U(rng) + 1e-3;
    p.delta = 0.8 + 0.15 * U(rng);
    const double d = 1.0 + 100.0 * U(rng), u = U(rng);
    const std::uint32_t a = static_cast<std::uint32_t>(rng() % 128);
    const double next = asteal_desire(d, a, u, p);
    if (u < p.delta) {
      ASSERT_EQ(next, std::max(1.0, d / p.rho));
    } else if (a >= d) {
      ASSERT_EQ(next, d * p.rho);
    } else {
      ASSERT_EQ(next, d);
    }
  }
}

// A-Deque has no memory: the same quantum gives the same desire whatever the state was.
TEST(Desire, ADequeKeepsNoMemoryOfTheLastDesire) {
  const quantum_sample x = sample(6, 60, 20, 30, 6, 2, 600);
  desire_state s1, s2;
  s2.desire = 50;
  EXPECT_EQ(next_desire(desire_rule::adeque, s1, x, desire_params{}),
            next_desire(desire_rule::adeque, s2, x, desire_params{}));
  EXPECT_EQ(s1.quantum, 2u);
}

// Digest §3.5 / §10.2 item 1 (Fig. 3): the Fig. 2 program with N = 10 alone on 32 cores.
// A-Steal: 1, 2, 4, 8, 16, then 8 ↔ 16 forever. A-Deque: 1, 3, 5, 7, 9, 11, then 10 for good.
TEST(Desire, Figure3ConstantParallelismTen) {
  const std::vector<double> asteal = fig2_trace(desire_rule::asteal, 10, 32, 12);
  EXPECT_EQ(asteal, (std::vector<double>{1, 2, 4, 8, 16, 8, 16, 8, 16, 8, 16, 8}));
  const std::vector<double> adeque = fig2_trace(desire_rule::adeque, 10, 32, 12);
  EXPECT_EQ(adeque, (std::vector<double>{1, 3, 5, 7, 9, 11, 10, 10, 10, 10, 10, 10}));
}

// Digest §3.5, §7, §10.2 item 2: for every N, A-Deque settles at N after about N/β quanta with at most
// one overshoot and stays there; A-Steal never holds N (also for powers of ρ): it oscillates with
// period 2 between a value at most N and ρ times it.
TEST(Desire, SettlesAtNOrOscillatesForEveryN) {
  for (double beta : {1.0, 2.0, 4.0})
    for (std::uint32_t N : {4u, 8u, 10u, 16u, 32u, 64u, 100u}) {
      desire_params p;
      p.beta = beta;
      const int ramp = static_cast<int>(std::ceil((N - 1) / beta)) + 1;  // quanta below N
      const std::vector<double> d = fig2_trace(desire_rule::adeque, N, 512, ramp + 20, p);
      int settled = 0;  // the first quantum from which the desire is N for good
      for (int q = 0; q < static_cast<int>(d.size()); ++q)
        if (d[q] != N) settled = q + 1;
      ASSERT_LT(settled, static_cast<int>(d.size()) - 10) << "beta " << beta << " N " << N;
      EXPECT_LE(settled, ramp + 1) << "beta " << beta << " N " << N;  // about N/β, one overshoot
      for (int q = 1; q < settled; ++q) {
        ASSERT_LE(d[q], N + beta) << "beta " << beta << " N " << N;           // the overshoot is at most β
        if (d[q] > N) {
          ASSERT_EQ(d[q + 1], N) << "beta " << beta << " N " << N;  // and lasts one quantum
        }
      }

      const std::vector<double> s = fig2_trace(desire_rule::asteal, N, 512, 40);
      for (int q = 20; q < 40; ++q) {
        ASSERT_FALSE(s[q] == N && s[q - 1] == N) << "N " << N;  // never two quanta at N
        ASSERT_EQ(s[q], s[q - 2]) << "N " << N;                // period 2 ...
        ASSERT_EQ(std::max(s[q], s[q - 1]), 2 * std::min(s[q], s[q - 1])) << "N " << N;  // ... by a factor ρ
        ASSERT_LT(std::min(s[q], s[q - 1]), N + 1) << "N " << N;
        ASSERT_GT(std::max(s[q], s[q - 1]), N) << "N " << N;
      }
    }
}
