// The generated workloads: SHA-1 against the standard's test vectors, the reference UTS trees' node
// counts, N-queens' search against the known solution counts' work, determinism of the randomised ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "sim/sha1.hpp"
#include "sim_test_util.hpp"

using namespace simtest;
using slaw::policy::mode;

namespace {

std::string hex(const sha1_digest& d) {
  static const char* x = "0123456789abcdef";
  std::string s;
  for (unsigned char b : d.bytes) {
    s += x[b >> 4];
    s += x[b & 15];
  }
  return s;
}

std::string sha(const std::string& m) { return hex(sha1(reinterpret_cast<const unsigned char*>(m.data()), m.size())); }

}  // namespace

// FIPS 180-4 examples (the NIST example values) and the two-block boundary.
TEST(SimWorkloads, Sha1MatchesTheStandardsExamples) {
  EXPECT_EQ(sha("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

// The reference UTS tree T3 (uts sample trees: -t 0 -b 2000 -q 0.124875 -m 8 -r 42) has 4,112,897 nodes.
TEST(SimWorkloads, UtsT3IsTheReferenceTree) {
  run_result r = sim("uts:T3", ws(64, mode::dyn, false));
  EXPECT_EQ(r.tasks, 4112897u);
  EXPECT_TRUE(r.violations.empty());
}

// nqueens charges the serial search's pair comparisons: over the whole tree they do not depend on the
// cut-off or the schedule, only the spawns around them do.
TEST(SimWorkloads, NqueensWorkIsTheSearchesComparisons) {
  costs c;
  c.call = c.spawn_wf = c.finish = 0;  // the work is then the comparisons alone
  const time_ps w0 = sim("nqueens:9,cutoff=0,check=1", ws(1, mode::wf), c).dag.work;
  EXPECT_EQ(sim("nqueens:9,cutoff=3,check=1", ws(4, mode::dyn), c).dag.work, w0);
  EXPECT_EQ(sim("nqueens:9,cutoff=9,check=1", ws(8, mode::hf), c).dag.work, w0);
}

TEST(SimWorkloads, RandomisedWorkloadsAreDeterministic) {
  for (const char* g : {"dc:10", "dc:10,seed=3"}) {
    run_result a = sim(g, ws(8, mode::dyn, false)), b = sim(g, ws(8, mode::dyn, false));
    EXPECT_EQ(a.dag.work, b.dag.work);
    EXPECT_EQ(a.peak_user_bytes, b.peak_user_bytes);
  }
  EXPECT_NE(sim("dc:10", ws(1, mode::wf, false)).dag.work, sim("dc:10,seed=3", ws(1, mode::wf, false)).dag.work);
}

// PDFS's tree depends on the schedule (whoever labels a vertex first spawns its visit); whatever the
// schedule, every vertex is visited exactly once.
TEST(SimWorkloads, PdfsVisitsEveryVertexOnceWhateverTheSchedule) {
  for (mode m : {mode::wf, mode::hf, mode::dyn})
    for (std::uint32_t p : {1u, 3u, 16u}) {
      run_result r = sim("pdfs:37", ws(p, m));
      EXPECT_EQ(r.tasks, 37u * 37 + 1);
      EXPECT_TRUE(r.violations.empty()) << violations(r);
    }
}

namespace {

// bench/kernels/integrate.cpp's recursion, counting its nodes.
double fx(double x) { return (x * x + 1.0) * x; }
std::uint64_t integrate_nodes(double x1, double x2, double area, double eps) {
  const double y1 = fx(x1), y2 = fx(x2), half = (x2 - x1) / 2, x0 = x1 + half, y0 = fx(x0);
  const double a1 = (y1 + y0) / 2 * half, a2 = (y0 + y2) / 2 * half;
  if (std::fabs(a1 + a2 - area) < eps) return 1;
  return 1 + integrate_nodes(x1, x0, a1, eps) + integrate_nodes(x0, x2, a2, eps);
}

}  // namespace

// integrate runs the kernel's own floating-point splits: its tree is the kernel's recursion's, whatever
// the schedule (eps 1e-2 also at bench/kernels/integrate.cpp's test size, 1.7 M nodes).
TEST(SimWorkloads, IntegrateIsTheKernelsRecursion) {
  const double whole = (fx(0.0) + fx(10000.0)) / 2 * 10000.0;
  for (double eps : {1e6, 1e2}) {
    const std::uint64_t want = integrate_nodes(0.0, 10000.0, whole, eps);
    for (mode m : {mode::wf, mode::hf, mode::dyn}) {
      run_result r = sim("integrate:" + std::to_string(eps), ws(3, m));
      EXPECT_EQ(r.tasks, want) << eps;
      EXPECT_TRUE(r.violations.empty()) << violations(r);
    }
  }
  EXPECT_EQ(sim("integrate:1e-2", ws(2, mode::dyn, false)).tasks, integrate_nodes(0.0, 10000.0, whole, 1e-2));
}

// matmul's leaves carry all of its work: the one-worker work is the leaves' cost plus the calls,
// spawns and finishes of its 1 + 8 + 64 inner nodes' recursion.
TEST(SimWorkloads, MatmulWorkIsItsLeaves) {
  costs c;
  c.call = c.spawn_wf = c.finish = 0;
  EXPECT_EQ(sim("matmul:512,leaf=1000", ws(1, mode::wf), c).dag.work, 512 * from_ns(1000));
  EXPECT_EQ(sim("matmul:512,leaf=1000", ws(4, mode::dyn), c).dag.work, 512 * from_ns(1000));
}
