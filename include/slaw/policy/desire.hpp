// A job's processor desire for the next scheduling quantum, from the counters of the quantum that
// just ended (Cao, Sun, Qian, Wu, "Stable Adaptive Work-Stealing for Concurrent Multi-core Runtime
// Systems" — A-Deque §III-A Eq. (1), its sampling implementation §IV-B, and the A-Steal baseline
// §III-B after Agrawal, He, Leiserson; digest /work/shared/docs/digests/adeque.md §3; docs/design/arbiter.md).
//
// Two-level scheduling: time is cut into quanta of length L (default 10 ms). At the end of quantum q
// each job computes a desire d(q+1) (a real number of processors); a controller turns the desires of
// all jobs into integer allotments a(q+1) (allotment.hpp, DEQ). Both desires start at d(1) = 1.
//
//   A-Deque (§IV-B, digest §3.2):                       d(q+1) = u·a + β·Q̄
//     u  = 1 − S_p / S        utilization: S steal attempts, S_p of them purely unsuccessful (the
//                             victim was itself stealing); u = 1 when S = 0
//     Q  = e · LEN / S        average victim-deque length seen at the steal attempts (LEN = their sum),
//                             times e, the active deques at the quantum's end
//     Q' = Σ Q_j(t_q + L)     snapshot: the stealable entries of all active deques at the quantum's end
//     α  = min(1, S / S_max)  the share of the most steal attempts the allotment could have made
//     Q̄  = α·Q + (1 − α)·Q'   β = 2 by default
//   A-Steal, MIMD (§III-B, digest §3.3), ρ = 2, δ = 0.8:
//     u(q) < δ                      d(q+1) = d(q) / ρ   (inefficient)
//     u(q) ≥ δ and a(q) ≥ d(q)      d(q+1) = d(q) · ρ   (efficient and satisfied)
//     u(q) ≥ δ and a(q) < d(q)      d(q+1) = d(q)       (efficient and deprived)
//   Both are then clamped to [min_desire, max_desire] (default [1, ∞)).
//
// A-Deque keeps no memory of d(q): the desire is remeasured every quantum, so it falls to the busy
// processors in the very next quantum when the extra ones find nothing. A-Steal's multiplicative
// increase is blind to the job's parallelism: at constant parallelism N it never settles (for N = 10,
// 8 ↔ 16 forever), where A-Deque climbs by about β per quantum and stays at N (digest §3.5).
//
// INTERPRETATION (the digest leaves these open; §3.2(c), §3.3, §8):
//   I1 a quantum without steal attempts has u = 1 (nobody was looking for work) and α = 0 (no samples);
//   I2 S_max, "the maximum possible steal attempts", is the caller's: a·L / t_steal with t_steal the
//      cost of one failed attempt (max_steal_attempts() below). S_max = 0 (unknown) gives α = 0, so the
//      snapshot Q' alone is used, which the paper's α < 1 always lets in anyway;
//   I3 LEN also takes a sample at every successful mug, so by default those mugs are counted in Q's
//      denominator too (a plain average over all samples); `mugs_in_denominator = false` follows the
//      text literally (LEN / S);
//   I4 counters read without synchronisation may be slightly inconsistent: S_p is capped at S, so
//      0 ≤ u ≤ 1; the busy term is computed as a·(S − S_p)/S, exact when it is an integer;
//   I5 the desire of a running job is at least 1 (min_desire), for both rules, so no job starves
//      itself; A-Steal's desire stays real-valued (it is rounded up by the allotment, not here);
//   I6 max_desire (default none) caps both rules, e.g. at the job's worker count: a capped A-Steal
//      desire that is granted stays at the cap rather than asking for ρ times more.
// The counters: S and S_p count a thief's attempts, a self-pick counting as purely unsuccessful (the
// digest's fix for the estimator's bias, §3.2); LEN adds the victim's stealable entries at each attempt
// and at each successful mug. Plain data only: the runtime feeds its counters, the simulator its
// modelled ones, or the exact integrals of Eq. (1) (adeque_ideal).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

namespace slaw::policy {

// The job-level desire rule (SLAW_DESIRE; the runtime parses it).
enum class desire_rule : std::uint8_t { adeque, asteal };

constexpr std::string_view desire_rule_name(desire_rule r) noexcept {
  switch (r) {
    case desire_rule::adeque: return "adeque";
    case desire_rule::asteal: return "asteal";
  }
  return "?";
}

inline constexpr desire_rule desire_rules[] = {desire_rule::adeque, desire_rule::asteal};

struct desire_params {
  double beta = 2.0;    // A-Deque's exploration parameter β ≥ 1 (weight of a queued ready entry)
  double rho = 2.0;     // A-Steal's responsiveness ρ > 1 (the multiplicative factor, paper's range 1–3)
  double delta = 0.8;   // A-Steal's utilization threshold δ (paper's range 0.80–0.95)
  double initial = 1.0; // d(1): a job starts with one thread
  double min_desire = 1.0;                                      // I5
  double max_desire = std::numeric_limits<double>::infinity();  // I6
  bool mugs_in_denominator = true;                              // I3
};

// Why a set of parameters is unusable, or "" when it is fine (for the runtime's error message).
constexpr std::string_view invalid_reason(const desire_params& p) noexcept {
  if (!(p.beta >= 1.0) || p.beta > 1e6) return "beta must be in [1, 1e6]";
  if (!(p.rho > 1.0) || p.rho > 1e6) return "rho must be in (1, 1e6]";
  if (!(p.delta > 0.0 && p.delta <= 1.0)) return "delta must be in (0, 1]";
  if (!(p.min_desire >= 0.0)) return "min_desire must be >= 0";
  if (!(p.max_desire >= p.min_desire)) return "max_desire must be >= min_desire";
  if (!(p.initial >= p.min_desire && p.initial <= p.max_desire)) return "initial must be in [min_desire, max_desire]";
  return {};
}

// What the workers of one job counted during quantum q (sums over the a(q) workers active in it, reset
// at each quantum) and what the job saw at its end.
struct quantum_sample {
  std::uint32_t allotment = 0;             // a(q): workers active during the quantum
  std::uint64_t steal_attempts = 0;        // S   = Σ_j total_steal_j
  std::uint64_t purely_unsuccessful = 0;   // S_p = Σ_j purely_unsucc_steal_j (victim was stealing)
  std::uint64_t sampled_length = 0;        // LEN = Σ_j length_j (victim deque lengths at attempts and mugs)
  std::uint64_t mugs = 0;                  // successful mugs (each added a sample to LEN)
  std::uint64_t max_steal_attempts = 0;    // S_max (I2); 0: unknown
  std::uint32_t active_deques = 0;         // e(t_q + L): the active workers' deques + the muggable ones
  std::uint64_t queued = 0;                // Q'(q): stealable entries over all active deques at the end
};

// S_max for an allotment `a`, a quantum of `quantum_ns` and one failed steal attempt of `steal_ns` (I2).
constexpr std::uint64_t max_steal_attempts(std::uint32_t a, double quantum_ns, double steal_ns) noexcept {
  if (!(steal_ns > 0.0) || !(quantum_ns > 0.0)) return 0;
  const double m = static_cast<double>(a) * quantum_ns / steal_ns;
  return m >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(m);
}

// The estimator's state across quanta: the desire in force for the quantum being measured.
struct desire_state {
  double desire = 1.0;       // d(q); d(1) = initial
  std::uint64_t quantum = 1; // q

  constexpr void reset(const desire_params& p) noexcept {
    desire = p.initial;
    quantum = 1;
  }
};

// u(q) = 1 − S_p/S (I1, I4).
constexpr double utilization(const quantum_sample& x) noexcept {
  if (x.steal_attempts == 0) return 1.0;
  const std::uint64_t sp = std::min(x.purely_unsuccessful, x.steal_attempts);
  return static_cast<double>(x.steal_attempts - sp) / static_cast<double>(x.steal_attempts);
}

constexpr double clamp_desire(double d, const desire_params& p) noexcept {
  if (!(d >= p.min_desire)) return p.min_desire;  // also a NaN
  return d > p.max_desire ? p.max_desire : d;
}

// Every term of A-Deque's estimate, for the traces and the tests.
struct adeque_terms {
  double utilization = 1.0;     // u
  double busy = 0.0;            // u·a: estimated busy (working or mugging) processors
  double alpha = 0.0;           // α
  double sampled_queue = 0.0;   // Q(q)
  double snapshot_queue = 0.0;  // Q'(q)
  double queue = 0.0;           // Q̄ = α·Q + (1 − α)·Q'
  double raw = 0.0;             // busy + β·Q̄, before the clamp
  double desire = 1.0;          // d(q+1)
};

constexpr adeque_terms adeque_estimate(const quantum_sample& x, const desire_params& p) noexcept {
  adeque_terms t;
  const double a = static_cast<double>(x.allotment);
  t.utilization = utilization(x);
  if (x.steal_attempts == 0) {
    t.busy = a;
  } else {  // a·(S − S_p)/S, I4
    const std::uint64_t sp = std::min(x.purely_unsuccessful, x.steal_attempts);
    t.busy = a * static_cast<double>(x.steal_attempts - sp) / static_cast<double>(x.steal_attempts);
  }
  const std::uint64_t samples = x.steal_attempts + (p.mugs_in_denominator ? x.mugs : 0);  // I3
  if (samples > 0)
    t.sampled_queue =
        static_cast<double>(x.active_deques) * static_cast<double>(x.sampled_length) / static_cast<double>(samples);
  if (x.max_steal_attempts > 0 && x.steal_attempts > 0)  // I1, I2
    t.alpha = x.steal_attempts >= x.max_steal_attempts
                  ? 1.0
                  : static_cast<double>(x.steal_attempts) / static_cast<double>(x.max_steal_attempts);
  t.snapshot_queue = static_cast<double>(x.queued);
  t.queue = t.alpha * t.sampled_queue + (1.0 - t.alpha) * t.snapshot_queue;
  t.raw = t.busy + p.beta * t.queue;
  t.desire = clamp_desire(t.raw, p);
  return t;
}

// A-Deque's d(q+1) from quantum q's sample (§IV-B).
constexpr double adeque_desire(const quantum_sample& x, const desire_params& p) noexcept {
  return adeque_estimate(x, p).desire;
}

// Eq. (1) itself, from the exact time-averages over the quantum: `busy_avg` = (1/L)∫Σ X_j dt (working
// or mugging processors), `queued_avg` = (1/L)∫Σ Q_j dt. For a simulator that can integrate them, to
// measure the sampling estimators' error (digest §10.2 item 3).
constexpr double adeque_ideal(double busy_avg, double queued_avg, const desire_params& p) noexcept {
  return clamp_desire(busy_avg + p.beta * queued_avg, p);
}

// A-Steal's three cases.
enum class asteal_case : std::uint8_t { inefficient, efficient_satisfied, efficient_deprived };

constexpr asteal_case asteal_classify(double desire, std::uint32_t allotment, double u,
                                      const desire_params& p) noexcept {
  if (u < p.delta) return asteal_case::inefficient;
  return static_cast<double>(allotment) >= desire ? asteal_case::efficient_satisfied
                                                  : asteal_case::efficient_deprived;
}

// A-Steal's d(q+1) from d(q), a(q) and u(q) (§III-B).
constexpr double asteal_desire(double desire, std::uint32_t allotment, double u, const desire_params& p) noexcept {
  switch (asteal_classify(desire, allotment, u, p)) {
    case asteal_case::inefficient: return clamp_desire(desire / p.rho, p);
    case asteal_case::efficient_satisfied: return clamp_desire(desire * p.rho, p);
    case asteal_case::efficient_deprived: return clamp_desire(desire, p);
  }
  return clamp_desire(desire, p);
}

// The end of quantum q under `rule`: d(q+1) becomes the state's desire, which is returned.
constexpr double next_desire(desire_rule rule, desire_state& s, const quantum_sample& x,
                             const desire_params& p) noexcept {
  s.desire = rule == desire_rule::adeque ? adeque_desire(x, p)
                                         : asteal_desire(s.desire, x.allotment, utilization(x), p);
  ++s.quantum;
  return s.desire;
}

}  // namespace slaw::policy
