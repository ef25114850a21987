// How many cores each of several jobs gets for the next quantum, from their desires (Cao, Sun, Qian, Wu,
// "Stable Adaptive Work-Stealing for Concurrent Multi-core Runtime Systems", §IV-A Algorithm 1 — DEQ,
// dynamic equi-partitioning, after McCann, Vaswani, Zahorjan; digest
// /work/shared/docs/digests/adeque.md §4; docs/design/arbiter.md). Desires come from desire.hpp.
//
//   DEQ(J, P): if J = ∅ stop. S = { i ∈ J : d_i ≤ P/|J| } (jobs wanting no more than the fair share).
//              If S = ∅ every job of J gets P/|J|; otherwise each job of S gets d_i and
//              DEQ(J − S, P − Σ_S d_i) shares the rest.
//   equi:      every job gets P/|J|, whatever it desires (WS-EQUI, the paper's baseline).
//   off:       every job gets all its workers (slaw without an arbiter; the sum may exceed P).
//   automatic: DEQ while two or more jobs want cores, else min(workers, P) each (allot_automatic).
//
// Integer version (INTERPRETATION; the paper ignores fractions, digest §3.2 "Rounding", §4, §8 item 2):
//   D1 a real desire d asks for w = ⌈d⌉ cores (capped at P; a desire ≤ 0 or NaN asks for none); the
//      ceiling forgives 1e-6 of rounding noise, so 2.0000000000000004 asks for 2. Alg. 1 then runs on
//      the integers w_i: i ∈ S iff w_i·|J| ≤ P exactly, so the jobs of S never take more than P.
//      A job never gets more than ⌈d_i⌉;
//   D2 the equal share of the last round is ⌊P/|J|⌋ each, and the r = P mod |J| cores left go one each
//      to r of those jobs, in index order starting at the `rotation` mod |J|-th of them (cyclically).
//      A caller that passes the quantum number as `rotation` hands the odd cores round in turn, so
//      with more jobs than cores a job with 0 cores this quantum gets one in a later one (no
//      starvation), and over |J| quanta each job gets its exact fractional share P/|J|;
//   D3 if the jobs of S take everything they want and cores remain with J − S empty, those cores stay
//      unallotted (idle), as in Alg. 1.
// What this guarantees (tests/policy/test_allotment.cpp checks each on random inputs):
//   Σ a_i ≤ P; a_i ≤ w_i; if Σ w_i ≤ P then a_i = w_i for all i, else Σ a_i = P; and the result is the
//   integer max-min fair (water-filling) allotment: with ℓ the largest level such that
//   Σ min(w_i, ℓ) ≤ P, every job gets min(w_i, ℓ) or, for P − Σ min(w_i, ℓ) of the jobs with w_i > ℓ,
//   ℓ + 1. So a job that gets less than it wants gets at least every other job's allotment minus 1, and
//   at least the allotment of every job that got exactly its want ≤ ℓ.
// Plain data, no allocation: the caller owns the output (e.g. the shared segment's slot table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

namespace slaw::policy {

// The system-level policy (SLAW_ARBITER; the runtime parses it).
enum class arbiter : std::uint8_t { off, equi, deq };

constexpr std::string_view arbiter_name(arbiter a) noexcept {
  switch (a) {
    case arbiter::off: return "off";
    case arbiter::equi: return "equi";
    case arbiter::deq: return "deq";
  }
  return "?";
}

inline constexpr arbiter arbiters[] = {arbiter::off, arbiter::equi, arbiter::deq};

// The whole cores a real desire asks for, out of `cores` (D1).
constexpr std::uint32_t desire_want(double desire, std::uint32_t cores) noexcept {
  constexpr double eps = 1e-6;
  if (!(desire > eps)) return 0;  // also a NaN
  if (desire - eps >= static_cast<double>(cores)) return cores;
  const double x = desire - eps;
  auto w = static_cast<std::uint32_t>(x);  // 0 <= x < cores
  if (static_cast<double>(w) < x) ++w;
  return w;
}

namespace detail {

inline constexpr std::uint32_t unset = std::numeric_limits<std::uint32_t>::max();

// Alg. 1 on integer wants: `want(i)` ≤ cores for i < out.size(); the result in `out`.
template <class Want>
constexpr void deq_on_wants(Want&& want, std::uint32_t cores, std::span<std::uint32_t> out,
                            std::uint64_t rotation) noexcept {
  for (auto& a : out) a = unset;
  std::uint64_t left = cores;           // P − Σ allotted
  std::uint64_t n = out.size();         // |J|
  while (n > 0) {
    // S = { i ∈ J : w_i ≤ left / n }, decided against this round's fair share.
    std::uint64_t granted = 0, in_s = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i] != unset) continue;
      const std::uint64_t w = want(i);
      if (w * n <= left) {
        out[i] = static_cast<std::uint32_t>(w);
        granted += w;
        ++in_s;
      }
    }
    if (in_s == 0) {  // S = ∅: the equal share, the odd cores by rotation (D2)
      const std::uint64_t share = left / n, extra = left % n, first = rotation % n;
      std::uint64_t k = 0;  // rank of the job among J, in index order
      for (auto& a : out) {
        if (a != unset) continue;
        const std::uint64_t turn = (k + n - first) % n;  // 0 for the job of rank `first`
        a = static_cast<std::uint32_t>(share + (turn < extra ? 1 : 0));
        ++k;
      }
      return;
    }
    left -= granted;
    n -= in_s;
  }
}

}  // namespace detail

// DEQ (Alg. 1, integer version D1–D3): `desires[i]` of job i in, its allotment in `out[i]`.
// `out.size()` must equal `desires.size()`.
constexpr void deq(std::span<const double> desires, std::uint32_t cores, std::span<std::uint32_t> out,
                   std::uint64_t rotation = 0) noexcept {
  detail::deq_on_wants([&](std::size_t i) { return desire_want(desires[i], cores); }, cores,
                       out.first(desires.size()), rotation);
}

// WS-EQUI: ⌊P/n⌋ each, the P mod n odd cores by rotation as in D2; desires are not looked at.
constexpr void equi(std::uint32_t cores, std::span<std::uint32_t> out, std::uint64_t rotation = 0) noexcept {
  if (out.empty()) return;
  const std::uint64_t n = out.size(), share = cores / n, extra = cores % n, first = rotation % n;
  for (std::uint64_t k = 0; k < n; ++k) out[k] = static_cast<std::uint32_t>(share + ((k + n - first) % n < extra ? 1 : 0));
}

// No arbiter: every job runs all its workers.
constexpr void off(std::span<const std::uint32_t> workers, std::span<std::uint32_t> out) noexcept {
  for (std::size_t i = 0; i < workers.size() && i < out.size(); ++i) out[i] = workers[i];
}

// One job as the arbiter sees it.
struct job_demand {
  double desire = 1.0;        // d(q+1), from desire.hpp
  std::uint32_t workers = 0;  // the workers the job has: it can run no more
};

// The policy `a` over `jobs`: allotments in `out` (out.size() == jobs.size()). Under deq a job asks
// for min(⌈d⌉, workers); under equi for all its workers — DEQ with every desire infinite, which is
// the equal share of equi() when every job has at least ⌈P/n⌉ workers, and otherwise gives what a
// job cannot use to the others; under off it gets all its workers.
constexpr void allot(arbiter a, std::span<const job_demand> jobs, std::uint32_t cores, std::span<std::uint32_t> out,
                     std::uint64_t rotation = 0) noexcept {
  auto outs = out.first(jobs.size());
  switch (a) {
    case arbiter::off:
      for (std::size_t i = 0; i < jobs.size(); ++i) outs[i] = jobs[i].workers;
      return;
    case arbiter::equi:
      detail::deq_on_wants([&](std::size_t i) { return jobs[i].workers < cores ? jobs[i].workers : cores; }, cores,
                           outs, rotation);
      return;
    case arbiter::deq:
      detail::deq_on_wants(
          [&](std::size_t i) {
            const std::uint32_t w = desire_want(jobs[i].desire, cores);
            return w < jobs[i].workers ? w : jobs[i].workers;
          },
          cores, outs, rotation);
      return;
  }
}

// The default policy (SLAW_ARBITER unset): DEQ once more than one job wants cores; otherwise every job
// may run one worker per core, whatever its desire (a lone program keeps the machine). A job that wants
// none — a runtime with no run in progress reports desire 0 (docs/design/multijob.md) — takes nothing
// from the others: under DEQ it gets 0 cores, and it does not turn DEQ on, so one busy program beside
// idle ones keeps every core.
constexpr arbiter automatic_policy(std::span<const job_demand> jobs, std::uint32_t cores) noexcept {
  std::size_t wanting = 0;
  for (const job_demand& j : jobs) wanting += desire_want(j.desire, cores) > 0 && j.workers > 0;
  return wanting > 1 ? arbiter::deq : arbiter::off;
}

// The default policy's allotments. Under DEQ as allot(deq). Otherwise each job gets min(workers, P):
// the sum may exceed P (the idle jobs run nothing), but no job runs more workers than there are cores.
// Workers beyond the cores could only time-slice with the ones that have work: a thief preempted
// between a steal and its push, or a worker descheduled holding the continuation every other worker
// waits for, costs a whole OS time slice (fj at 8 workers on 2 cores took 2x its 1-worker time;
// bench/results/scaling/README.md). Parked by the allotment, they cost nothing and leave their work to
// the running workers.
constexpr void allot_automatic(std::span<const job_demand> jobs, std::uint32_t cores, std::span<std::uint32_t> out,
                               std::uint64_t rotation = 0) noexcept {
  if (automatic_policy(jobs, cores) == arbiter::deq) return allot(arbiter::deq, jobs, cores, out, rotation);
  for (std::size_t i = 0; i < jobs.size() && i < out.size(); ++i)
    out[i] = jobs[i].workers < cores ? jobs[i].workers : cores;
}

}  // namespace slaw::policy
