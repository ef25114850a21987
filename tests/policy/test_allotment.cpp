// Cores per job: DEQ (the A-Deque paper's Algorithm 1), WS-EQUI and off
// (include/slaw/policy/allotment.hpp; digest /work/shared/docs/digests/adeque.md §4).
#include "slaw/policy/allotment.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace slaw::policy;

namespace {

std::vector<std::uint32_t> run_deq(const std::vector<double>& d, std::uint32_t cores, std::uint64_t rotation = 0) {
  std::vector<std::uint32_t> a(d.size(), 12345);
  deq(d, cores, a, rotation);
  return a;
}

std::vector<std::uint32_t> run_equi(std::size_t n, std::uint32_t cores, std::uint64_t rotation = 0) {
  std::vector<std::uint32_t> a(n, 12345);
  equi(cores, a, rotation);
  return a;
}

std::uint64_t sum(const std::vector<std::uint32_t>& a) { return std::accumulate(a.begin(), a.end(), std::uint64_t{0}); }

// Integer max-min fairness, computed independently of Alg. 1: the largest level ℓ with
// Σ min(w_i, ℓ) ≤ P, found by trying every level.
std::uint64_t water_level(const std::vector<std::uint32_t>& w, std::uint32_t cores) {
  std::uint64_t level = 0;
  for (std::uint64_t l = 0; l <= cores; ++l) {
    std::uint64_t s = 0;
    for (auto x : w) s += std::min<std::uint64_t>(x, l);
    if (s <= cores) level = l;
  }
  return level;
}

constexpr std::array<std::uint32_t, 4> constexpr_deq() {
  std::array<std::uint32_t, 4> a{};
  const double d[] = {1, 3, 20, 20};
  deq(d, 16, a);
  return a;
}

}  // namespace

TEST(Allotment, Names) {
  EXPECT_EQ(arbiter_name(arbiter::deq), "deq");
  EXPECT_EQ(arbiter_name(arbiter::equi), "equi");
  EXPECT_EQ(arbiter_name(arbiter::off), "off");
  EXPECT_EQ(std::size(arbiters), 3u);
  EXPECT_EQ(desire_want(1, 1), 1u);
}

// INTERPRETATION D1: a real desire asks for ⌈d⌉ cores, capped at P; nothing for d ≤ 0 or NaN.
TEST(Allotment, RealDesiresRoundUp) {
  EXPECT_EQ(desire_want(0.0, 16), 0u);
  EXPECT_EQ(desire_want(-3.0, 16), 0u);
  EXPECT_EQ(desire_want(std::nan(""), 16), 0u);
  EXPECT_EQ(desire_want(0.5, 16), 1u);
  EXPECT_EQ(desire_want(1.0, 16), 1u);
  EXPECT_EQ(desire_want(2.0000000000000004, 16), 2u);  // rounding noise forgiven
  EXPECT_EQ(desire_want(2.3, 16), 3u);
  EXPECT_EQ(desire_want(15.5, 16), 16u);
  EXPECT_EQ(desire_want(100.0, 16), 16u);
  EXPECT_EQ(desire_want(std::numeric_limits<double>::infinity(), 16), 16u);
  EXPECT_EQ(desire_want(5.0, 0), 0u);
  EXPECT_EQ(desire_want(4e9, 4'000'000'000u), 4'000'000'000u);
}

// Digest §10.1 item 2: P = 16, desires {1, 3, 20, 20} → {1, 3, 6, 6}: S = {1, 3} at the share 4, then
// the 12 left split equally between the two big jobs.
TEST(Allotment, DeqDigestExample) {
  EXPECT_EQ(run_deq({1, 3, 20, 20}, 16), (std::vector<std::uint32_t>{1, 3, 6, 6}));
  static_assert(constexpr_deq() == std::array<std::uint32_t, 4>{1, 3, 6, 6});
}

// Alg. 1 recursing twice: P = 24, {1, 5, 7, 40, 40}: share 4.8 → S = {1}; 23 left for 4 jobs, share
// 5.75 → S = {5}; 18 left for 3, share 6 → S = ∅: 6 each.
TEST(Allotment, DeqRecursesOnTheRest) {
  EXPECT_EQ(run_deq({1, 5, 7, 40, 40}, 24), (std::vector<std::uint32_t>{1, 5, 6, 6, 6}));
  EXPECT_EQ(run_deq({40, 7, 1, 40, 5}, 24), (std::vector<std::uint32_t>{6, 6, 1, 6, 5}));
}

// Alg. 1 line 3 and the recursion with J − S = ∅: everyone gets its desire, the rest stays idle (D3).
TEST(Allotment, DeqWhenEverythingFits) {
  EXPECT_EQ(run_deq({1, 2, 3}, 16), (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(run_deq({16}, 16), (std::vector<std::uint32_t>{16}));
  EXPECT_EQ(run_deq({40}, 16), (std::vector<std::uint32_t>{16}));  // a lone job: all it wants up to P
  EXPECT_EQ(run_deq({8, 8}, 16), (std::vector<std::uint32_t>{8, 8}));
}

// D1 on Alg. 1: {2.3, 0.5, 10} on 8 → wants {3, 1, 10}: share 8/3 → S = {1}; 7 left, share 3.5 →
// S = {3}; 4 left for the last.
TEST(Allotment, DeqWithRealDesires) {
  EXPECT_EQ(run_deq({2.3, 0.5, 10}, 8), (std::vector<std::uint32_t>{3, 1, 4}));
  EXPECT_EQ(run_deq({2.0000000000000004, 2.0000000000000004, 2.0000000000000004, 2.0000000000000004}, 8),
            (std::vector<std::uint32_t>{2, 2, 2, 2}));
}

// D2: P = 20, {1, 5, 7, 30, 30}: S = {1}; 19 left for 4 jobs wanting ≥ 5 > 4.75: 4 each and 3 odd
// cores, to the jobs of rank rotation, rotation + 1, rotation + 2 among the four (cyclically).
TEST(Allotment, DeqOddCoresByRotation) {
  EXPECT_EQ(run_deq({1, 5, 7, 30, 30}, 20, 0), (std::vector<std::uint32_t>{1, 5, 5, 5, 4}));
  EXPECT_EQ(run_deq({1, 5, 7, 30, 30}, 20, 1), (std::vector<std::uint32_t>{1, 4, 5, 5, 5}));
  EXPECT_EQ(run_deq({1, 5, 7, 30, 30}, 20, 3), (std::vector<std::uint32_t>{1, 5, 5, 4, 5}));
  EXPECT_EQ(run_deq({1, 5, 7, 30, 30}, 20, 4), run_deq({1, 5, 7, 30, 30}, 20, 0));
}

// More jobs than cores (digest §4): some get 0 in a quantum, and the rotation lets nobody starve.
TEST(Allotment, DeqMoreJobsThanCores) {
  std::vector<std::uint32_t> total(5, 0);
  for (std::uint64_t r = 0; r < 5; ++r) {
    const auto a = run_deq({3, 3, 3, 3, 3}, 2, r);
    EXPECT_EQ(sum(a), 2u);
    for (std::size_t i = 0; i < 5; ++i) total[i] += a[i];
  }
  EXPECT_EQ(total, (std::vector<std::uint32_t>{2, 2, 2, 2, 2}));
  EXPECT_EQ(run_deq({3, 3, 3, 3, 3}, 2, 0), (std::vector<std::uint32_t>{1, 1, 0, 0, 0}));
  EXPECT_EQ(run_deq({3, 3, 3, 3, 3}, 2, 4), (std::vector<std::uint32_t>{1, 0, 0, 0, 1}));
}

TEST(Allotment, DeqEdges) {
  EXPECT_TRUE(run_deq({}, 16).empty());
  EXPECT_EQ(run_deq({4, 4}, 0), (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(run_deq({0, 9, std::nan("")}, 4), (std::vector<std::uint32_t>{0, 4, 0}));  // no desire, no cores
  std::uint32_t a[2] = {7, 7};
  const double d[] = {1, 1};
  deq(d, 4, std::span<std::uint32_t>(a, 2));
  EXPECT_EQ(a[0], 1u);
  EXPECT_EQ(a[1], 1u);
}

// Every guarantee of allotment.hpp on random inputs, against the water-filling reference.
TEST(Allotment, DeqPropertiesOnRandomInputs) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int it = 0; it < 20000; ++it) {
    const std::size_t n = rng() % 20;
    const std::uint32_t cores = static_cast<std::uint32_t>(rng() % 70);
    const double scale = 1.0 + 40.0 * U(rng);
    std::vector<double> d(n);
    for (auto& x : d) x = rng() % 8 == 0 ? std::floor(scale * U(rng)) : scale * U(rng);  // some whole
    const std::uint64_t rotation = rng() % 100;
    const auto a = run_deq(d, cores, rotation);
    std::vector<std::uint32_t> w(n);
    for (std::size_t i = 0; i < n; ++i) w[i] = desire_want(d[i], cores);
    std::uint64_t want = 0;
    for (auto x : w) want += x;

    ASSERT_LE(sum(a), cores);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_LE(a[i], w[i]);
      ASSERT_LE(static_cast<double>(a[i]), std::ceil(d[i]));  // never above the desire, rounded up
    }
    if (want <= cores) {
      ASSERT_EQ(a, w);  // every desire met
      continue;
    }
    ASSERT_EQ(sum(a), cores);  // otherwise nothing idle
    // Water-filling: min(w, ℓ) each, ℓ + 1 for exactly the remaining cores, only to jobs wanting more.
    const std::uint64_t level = water_level(w, cores);
    std::uint64_t at_level = 0, above = 0;
    for (std::size_t i = 0; i < n; ++i) {
      at_level += std::min<std::uint64_t>(w[i], level);
      if (a[i] == std::min<std::uint64_t>(w[i], level)) continue;
      ASSERT_GT(w[i], level);
      ASSERT_EQ(a[i], level + 1);
      ++above;
    }
    ASSERT_EQ(above, cores - at_level);
    // Fairness: a job that got less than it wants got at least every other allotment minus 1.
    for (std::size_t i = 0; i < n; ++i) {
      if (a[i] < w[i]) {
        for (std::size_t j = 0; j < n; ++j) ASSERT_GE(a[i] + 1, a[j]);
      }
    }
  }
}

// D2 over time: with the same desires, the jobs splitting the last round's cores each get exactly
// their fractional share over as many consecutive quanta as there are of them.
TEST(Allotment, DeqRotationGivesTheFractionalShare) {
  std::mt19937_64 rng(29);
  for (int it = 0; it < 2000; ++it) {
    const std::size_t n = 1 + rng() % 12;
    const std::uint32_t cores = static_cast<std::uint32_t>(rng() % 40);
    std::vector<double> d(n);
    for (auto& x : d) x = static_cast<double>(rng() % 20);
    std::vector<std::uint32_t> w(n);
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n; ++i) want += w[i] = desire_want(d[i], cores);
    if (want <= cores) continue;
    const std::uint64_t level = water_level(w, cores);
    std::vector<std::size_t> last;  // the last round's jobs: those wanting more than ℓ
    std::uint64_t rest = cores;
    for (std::size_t i = 0; i < n; ++i) {
      if (w[i] > level) last.push_back(i);
      else rest -= w[i];
    }
    const std::uint64_t start = rng() % 50;
    std::vector<std::uint64_t> total(n, 0);
    for (std::uint64_t r = start; r < start + last.size(); ++r) {
      const auto a = run_deq(d, cores, r);
      for (std::size_t i = 0; i < n; ++i) total[i] += a[i];
    }
    for (std::size_t i : last) ASSERT_EQ(total[i], rest) << "each gets rest/|last| per quantum on average";
    for (std::size_t i = 0; i < n; ++i) {
      if (w[i] <= level) {
        ASSERT_EQ(total[i], w[i] * last.size());
      }
    }
  }
}

// Renumbering the jobs renumbers the allotments, apart from who gets the odd cores.
TEST(Allotment, DeqDependsOnTheDesiresNotTheOrder) {
  std::mt19937_64 rng(31);
  for (int it = 0; it < 5000; ++it) {
    const std::size_t n = 1 + rng() % 16;
    const std::uint32_t cores = static_cast<std::uint32_t>(rng() % 64);
    std::vector<double> d(n);
    for (auto& x : d) x = 0.5 + static_cast<double>(rng() % 30);
    std::vector<double> p = d;
    std::shuffle(p.begin(), p.end(), rng);
    auto a = run_deq(d, cores, it), b = run_deq(p, cores, it + 7);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b);
  }
}

// WS-EQUI: equal shares, the odd cores by rotation, desires ignored.
TEST(Allotment, EquiEqualShares) {
  EXPECT_EQ(run_equi(3, 16), (std::vector<std::uint32_t>{6, 5, 5}));
  EXPECT_EQ(run_equi(3, 16, 1), (std::vector<std::uint32_t>{5, 6, 5}));
  EXPECT_EQ(run_equi(1, 16), (std::vector<std::uint32_t>{16}));  // a lone job gets all P
  EXPECT_EQ(run_equi(4, 2, 3), (std::vector<std::uint32_t>{1, 0, 0, 1}));
  EXPECT_TRUE(run_equi(0, 16).empty());
  std::mt19937_64 rng(37);
  for (int it = 0; it < 20000; ++it) {
    const std::size_t n = 1 + rng() % 40;
    const std::uint32_t cores = static_cast<std::uint32_t>(rng() % 200);
    const auto a = run_equi(n, cores, rng());
    ASSERT_EQ(sum(a), cores);
    const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
    ASSERT_LE(*hi - *lo, 1u);
    ASSERT_EQ(*lo, cores / n);
    // Digest §4: WS-EQUI is DEQ with every desire infinite.
    const std::uint64_t r = rng();
    ASSERT_EQ(run_equi(n, cores, r), run_deq(std::vector<double>(n, std::numeric_limits<double>::infinity()), cores, r));
  }
}

TEST(Allotment, OffGivesEveryJobAllItsWorkers) {
  const std::uint32_t workers[] = {16, 16, 4};
  std::uint32_t a[3] = {};
  off(workers, a);
  EXPECT_EQ(a[0], 16u);
  EXPECT_EQ(a[1], 16u);
  EXPECT_EQ(a[2], 4u);  // 36 on 16 cores: today's oversubscription
}

// The selector: deq asks for min(⌈d⌉, workers), equi for all the workers, off gets them.
TEST(Allotment, AllotBySelector) {
  const job_demand jobs[] = {{100.0, 4}, {2.5, 16}, {30.0, 16}};
  std::uint32_t a[3];
  allot(arbiter::deq, jobs, 16, a);
  EXPECT_EQ((std::vector<std::uint32_t>(a, a + 3)), (std::vector<std::uint32_t>{4, 3, 9}));  // 4 ≤ 16/3, 3 ≤ 6, 9
  allot(arbiter::equi, jobs, 16, a);
  EXPECT_EQ((std::vector<std::uint32_t>(a, a + 3)), (std::vector<std::uint32_t>{4, 6, 6}));  // 4 workers only
  allot(arbiter::off, jobs, 16, a);
  EXPECT_EQ((std::vector<std::uint32_t>(a, a + 3)), (std::vector<std::uint32_t>{4, 16, 16}));
  const job_demand lone[] = {{1.0, 16}};
  allot(arbiter::equi, lone, 16, std::span<std::uint32_t>(a, 1));
  EXPECT_EQ(a[0], 16u);  // WS-EQUI: a lone job gets all P whatever it desires
  allot(arbiter::deq, lone, 16, std::span<std::uint32_t>(a, 1));
  EXPECT_EQ(a[0], 1u);
}

// The default: DEQ only once two jobs want cores. Jobs with desire 0 (runtimes with no run in progress)
// neither turn it on nor, under it, take cores.
TEST(Allotment, AutomaticCountsOnlyTheJobsThatWantCores) {
  const job_demand busy_and_idle[] = {{1.0, 2}, {0.0, 2}, {0.0, 8}};
  EXPECT_EQ(automatic_policy(busy_and_idle, 2), arbiter::off);
  const job_demand two_busy[] = {{1.0, 2}, {0.0, 2}, {1.5, 8}};
  EXPECT_EQ(automatic_policy(two_busy, 2), arbiter::deq);
  std::uint32_t a[3];
  allot(automatic_policy(two_busy, 2), two_busy, 2, a);
  EXPECT_EQ((std::vector<std::uint32_t>(a, a + 3)), (std::vector<std::uint32_t>{1, 0, 1}));
  const job_demand lone[] = {{1.0, 16}};
  EXPECT_EQ(automatic_policy(lone, 16), arbiter::off);
  EXPECT_EQ(automatic_policy(std::span<const job_demand>{}, 16), arbiter::off);
  const job_demand no_workers[] = {{3.0, 0}, {3.0, 4}};  // a job that can run nothing wants nothing
  EXPECT_EQ(automatic_policy(no_workers, 16), arbiter::off);
}

// The default's allotments: DEQ once two jobs want cores; otherwise no job runs more workers than there
// are cores (whatever its desire), and a job with fewer workers runs them all.
TEST(Allotment, AutomaticRunsNoMoreWorkersThanCores) {
  std::uint32_t a[3];
  const job_demand lone[] = {{1.0, 8}};
  allot_automatic(lone, 2, std::span<std::uint32_t>(a, 1));
  EXPECT_EQ(a[0], 2u);  // 8 workers on 2 cores: 2 run
  const job_demand small[] = {{5.0, 3}};
  allot_automatic(small, 16, std::span<std::uint32_t>(a, 1));
  EXPECT_EQ(a[0], 3u);
  const job_demand busy_and_idle[] = {{1.0, 8}, {0.0, 2}, {0.0, 8}};
  allot_automatic(busy_and_idle, 4, a);
  EXPECT_EQ((std::vector<std::uint32_t>(a, a + 3)), (std::vector<std::uint32_t>{4, 2, 4}));  // the idle run nothing
  const job_demand two_busy[] = {{1.0, 2}, {0.0, 2}, {1.5, 8}};
  allot_automatic(two_busy, 2, a);
  EXPECT_EQ((std::vector<std::uint32_t>(a, a + 3)), (std::vector<std::uint32_t>{1, 0, 1}));  // DEQ
  std::mt19937_64 rng(7);
  for (int it = 0; it < 10000; ++it) {
    const auto n = std::uniform_int_distribution<std::size_t>(1, 6)(rng);
    const auto cores = std::uniform_int_distribution<std::uint32_t>(1, 64)(rng);
    std::vector<job_demand> jobs(n);
    for (job_demand& j : jobs) {
      j.desire = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 0.0 : std::uniform_real_distribution<double>(0.1, 80)(rng);
      j.workers = std::uniform_int_distribution<std::uint32_t>(0, 128)(rng);
    }
    std::vector<std::uint32_t> out(n), deq_out(n);
    allot_automatic(jobs, cores, out, it);
    for (std::size_t i = 0; i < n; ++i) EXPECT_LE(out[i], std::min(jobs[i].workers, cores));
    if (automatic_policy(jobs, cores) == arbiter::deq) {
      allot(arbiter::deq, jobs, cores, deq_out, it);
      EXPECT_EQ(out, deq_out);
    } else {
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], std::min(jobs[i].workers, cores));
    }
  }
}

// With every job holding at least ⌈P/n⌉ workers, allot(equi) is equi(); allot(deq) is deq() on the
// desires capped at the workers.
TEST(Allotment, AllotAgreesWithTheFunctions) {
  std::mt19937_64 rng(41);
  for (int it = 0; it < 10000; ++it) {
    const std::size_t n = 1 + rng() % 16;
    const std::uint32_t cores = static_cast<std::uint32_t>(rng() % 64);
    const std::uint32_t share_up = static_cast<std::uint32_t>((cores + n - 1) / n);
    std::vector<job_demand> jobs(n);
    std::vector<double> capped(n);
    for (std::size_t i = 0; i < n; ++i) {
      jobs[i].desire = 40.0 * std::generate_canonical<double, 53>(rng);
      jobs[i].workers = static_cast<std::uint32_t>(rng() % 70);
      capped[i] = std::min(jobs[i].desire, static_cast<double>(jobs[i].workers));
    }
    const std::uint64_t r = rng();
    std::vector<std::uint32_t> a(n);
    allot(arbiter::deq, jobs, cores, a, r);
    ASSERT_EQ(a, run_deq(capped, cores, r));
    for (auto& j : jobs) j.workers = std::max(j.workers, share_up);
    allot(arbiter::equi, jobs, cores, a, r);
    ASSERT_EQ(a, run_equi(n, cores, r));
  }
}
