// Several jobs under two-level scheduling (docs/simulation.md, "Several jobs"): DEQ's equal shares and
// the survivor's cores, A-Deque's and A-Steal's constant-parallelism trajectories (the paper's Fig. 3),
// preempted tasks losing no work, the time-sharing of off, determinism, and the invariants under
// work stealing and DFDeques (the checks run on every operation and at every quantum boundary).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "sim/job_list.hpp"
#include "sim_test_util.hpp"

using namespace simtest;
using slaw::policy::arbiter;
using slaw::policy::desire_rule;
using slaw::policy::mode;

namespace {

constexpr time_ps ms = 1'000'000'000;

// Runs `jobs` (workload, arrival) on `cores` cores, each job with `cfg.workers` workers.
sharing_result run_jobs(const std::vector<std::pair<std::string, time_ps>>& jobs, std::uint32_t cores, arbiter a,
                        desire_rule d, const run_config& cfg, time_ps quantum = 10 * ms) {
  std::vector<std::unique_ptr<dag_source>> sources;
  std::vector<job_input> in;
  for (const auto& [gen, at] : jobs) {
    sources.push_back(make_workload(gen));
    in.push_back({sources.back().get(), at});
  }
  sharing_config s;
  s.cores = cores;
  s.arbiter = a;
  s.rule = d;
  s.quantum = quantum;
  return simulate_jobs(in, costs{}, cfg, s);
}

run_config per_job(std::uint32_t workers, mode m = mode::dyn) { return ws(workers, m, true); }

// The desires d(q) of job j, in order.
std::vector<double> desires(const sharing_result& r, std::uint32_t j) {
  std::vector<double> d;
  for (const quantum_record& q : r.quanta)
    if (q.job == j) d.push_back(q.desire);
  return d;
}

}  // namespace

TEST(SimSharing, TwoIdenticalJobsShareTheCoresAndTheSurvivorGetsThemAll) {
  const std::string fib = "fib:20,node=100000,leaf=100000";  // 21,891 tasks of 0.1 ms: abundant parallelism
  for (arbiter a : {arbiter::deq, arbiter::equi}) {
    const sharing_result r = run_jobs({{fib, 0}, {fib, 30 * ms}}, 8, a, desire_rule::adeque, per_job(8));
    ASSERT_TRUE(r.run.violations.empty()) << violations(r.run);
    const time_ps first_end = std::min(r.jobs[0].end, r.jobs[1].end);
    const std::uint32_t survivor = r.jobs[0].end < r.jobs[1].end ? 1 : 0;
    int both = 0, alone = 0;
    for (const quantum_record& q : r.quanta) {
      if (q.end >= 50 * ms && q.end < first_end) {  // both run, past the newcomer's first quantum
        EXPECT_EQ(q.next_allotment, 4u) << "job " << q.job << " at " << to_seconds(q.end);
        ++both;
      }
      if (q.end > first_end) {  // the other has ended
        EXPECT_EQ(q.job, survivor);
        EXPECT_EQ(q.next_allotment, 8u) << "at " << to_seconds(q.end);
        ++alone;
      }
    }
    EXPECT_GT(both, 40);
    EXPECT_GE(alone, 1);
  }
}

TEST(SimSharing, ConstantParallelismADequeSettlesAStealOscillates) {
  // The paper's Fig. 2 program, N = 10, alone on 32 cores: ten 400 ms tasks spawned 5 ms apart
  // (help-first: the loop's pushes expose the tasks to the thieves its desire brings).
  const std::string fig2 = "fj:10,task=400000000,gap=5000000";
  const sharing_result deque = run_jobs({{fig2, 0}}, 32, arbiter::deq, desire_rule::adeque, per_job(32, mode::hf));
  const sharing_result steal = run_jobs({{fig2, 0}}, 32, arbiter::deq, desire_rule::asteal, per_job(32, mode::hf));
  ASSERT_TRUE(deque.run.violations.empty()) << violations(deque.run);
  ASSERT_TRUE(steal.run.violations.empty()) << violations(steal.run);

  // A-Deque climbs by about beta per quantum, overshoots once, then stays at N: 1, 3, 4, 7, 8, 11, 10, ...
  const std::vector<double> d = desires(deque, 0);
  ASSERT_GE(d.size(), 40u);
  std::size_t settled = 0;
  while (settled < d.size() && std::abs(d[settled] - 10.0) > 1e-6) ++settled;
  EXPECT_LE(settled, 10u);
  for (std::size_t q = 0; q < d.size(); ++q) {
    EXPECT_LE(d[q], 10.0 + 2.0 + 1.0) << "quantum " << q + 1;  // one overshoot of about beta
    if (q >= settled && q < 38) {
      EXPECT_NEAR(d[q], 10.0, 1e-6) << "quantum " << q + 1;
    }
  }
  for (std::size_t q = 1; q < settled; ++q) EXPECT_LE(d[q] - d[q - 1], 2.0 * 2.0 + 1e-6);  // additive steps

  // A-Steal never settles: past its climb, every quantum multiplies or divides the desire by rho.
  const std::vector<double> s = desires(steal, 0);
  ASSERT_GE(s.size(), 40u);
  int reversals = 0;
  for (std::size_t q = 10; q + 1 < 38; ++q) {
    const double ratio = s[q + 1] / s[q];
    EXPECT_TRUE(std::abs(ratio - 2.0) < 1e-9 || std::abs(ratio - 0.5) < 1e-9) << "quantum " << q + 1 << ": " << ratio;
    if (q > 10 && (s[q + 1] - s[q]) * (s[q] - s[q - 1]) < 0) ++reversals;
  }
  EXPECT_GE(reversals, 20);
  // The job itself runs ten tasks of 0.4 s: A-Deque's run ends within the spawn loop and a quantum or two.
  EXPECT_LT(deque.run.makespan, 480 * ms);
}

TEST(SimSharing, PreemptedAndMuggedTasksLoseNoWork) {
  // Two jobs of eight 200 ms tasks spawned 5 ms apart: the second's arrival halves the first's cores,
  // whose running tasks cannot reach a safe point within a quantum: they are preempted mid-strand, and
  // mugged later by the workers that keep their cores.
  const std::string job = "fj:8,task=200000000,gap=5000000";
  for (desire_rule d : {desire_rule::adeque, desire_rule::asteal}) {
    for (mode m : {mode::wf, mode::hf}) {
      const sharing_result r = run_jobs({{job, 0}, {job, 45 * ms}}, 8, arbiter::deq, d, per_job(8, m));
      ASSERT_TRUE(r.run.violations.empty()) << violations(r.run);
      EXPECT_GT(r.run.total.preemptions + r.run.total.drains, 0u);
      const run_result alone = sim(job, ws(1, m, false));
      for (const job_result& j : r.jobs) {
        EXPECT_EQ(j.dag.work, alone.dag.work);  // every strand ran exactly once, to the picosecond
        EXPECT_EQ(j.tasks, 9u);
      }
    }
  }
  // With a deq allotment that shrinks while every worker is busy, some task is preempted and mugged.
  const sharing_result r =
      run_jobs({{job, 0}, {job, 45 * ms}}, 8, arbiter::deq, desire_rule::adeque, per_job(8, mode::hf));
  EXPECT_GT(r.run.total.preemptions, 0u);
  EXPECT_GT(r.run.total.mugs, 0u);
}

TEST(SimSharing, OffTimeSharesTheCores) {
  // Off: both jobs run all their workers; the OS shares 4 cores among 8 workers.
  const std::string fib = "fib:18,node=100000,leaf=100000";
  const sharing_result r = run_jobs({{fib, 0}, {fib, 0}}, 4, arbiter::off, desire_rule::adeque, per_job(4));
  ASSERT_TRUE(r.run.violations.empty()) << violations(r.run);
  const run_result alone = sim(fib, ws(4, mode::dyn, false));
  // No more than 4 cores of work at any time, and neither job runs as fast as alone on the 4 cores.
  EXPECT_LE(r.busy, 4 * r.run.makespan);
  EXPECT_GE(r.run.makespan, 2 * alone.dag.work / 4);
  for (const job_result& j : r.jobs) EXPECT_GT(j.end, alone.makespan * 3 / 2);
  // Every quantum's record says each job had all its workers.
  for (const quantum_record& q : r.quanta) EXPECT_EQ(q.sample.allotment, 4u);
}

TEST(SimSharing, SameSeedSameRunOtherSeedOtherRun) {
  const std::string mix = "poisson:6,load=1,seed=7;fib:16,node=50000,leaf=50000;sor:64,iterations=20,blocks=8,cell=2000";
  const job_list_spec spec = parse_job_list(mix);
  run_config cfg = per_job(8);
  cfg.checks = false;
  const std::vector<job_entry> plan = plan_jobs(spec, 8, costs{}, cfg);
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(plan[0].arrival, 0);
  const std::vector<job_entry> again = plan_jobs(spec, 8, costs{}, cfg);
  for (std::size_t j = 0; j < plan.size(); ++j) {
    EXPECT_EQ(plan[j].gen, again[j].gen);
    EXPECT_EQ(plan[j].arrival, again[j].arrival);
  }
  std::vector<std::pair<std::string, time_ps>> jobs;
  for (const job_entry& e : plan) jobs.emplace_back(e.gen, e.arrival);
  for (desire_rule d : {desire_rule::adeque, desire_rule::asteal}) {
    const sharing_result a = run_jobs(jobs, 8, arbiter::deq, d, cfg);
    const sharing_result b = run_jobs(jobs, 8, arbiter::deq, d, cfg);
    EXPECT_EQ(a.run.schedule_hash, b.run.schedule_hash);
    EXPECT_EQ(a.run.makespan, b.run.makespan);
    ASSERT_EQ(a.quanta.size(), b.quanta.size());
    for (std::size_t q = 0; q < a.quanta.size(); ++q) {
      EXPECT_EQ(a.quanta[q].next_desire, b.quanta[q].next_desire);
      EXPECT_EQ(a.quanta[q].next_allotment, b.quanta[q].next_allotment);
    }
    for (std::size_t j = 0; j < a.jobs.size(); ++j) EXPECT_EQ(a.jobs[j].end, b.jobs[j].end);
    run_config other = cfg;
    other.seed = 12345;
    EXPECT_NE(run_jobs(jobs, 8, arbiter::deq, d, other).run.schedule_hash, a.run.schedule_hash);
  }
  // Another generator seed draws other jobs at other times.
  const std::vector<job_entry> other = plan_jobs(parse_job_list("poisson:6,load=1,seed=8;fib:16;sor:64,blocks=8"), 8, costs{}, cfg);
  bool differ = false;
  for (std::size_t j = 1; j < 6; ++j) differ |= other[j].arrival != plan[j].arrival;
  EXPECT_TRUE(differ);
}

TEST(SimSharing, InvariantsHoldUnderWorkStealingAndDFDeques) {
  // Six Poisson jobs on 4 cores (each with 4 workers), 1 ms quanta so that allotments change often.
  const std::string mix =
      "poisson:6,rate=150,seed=3;fib:14,node=20000,leaf=20000;fj:24,reps=3,task=600000,gap=20000;"
      "dc:6,work=2000000,wratio=0.6,mem=4096;matmul:256,leaf=200000;nqueens:7,cutoff=2,check=500";
  run_config base = per_job(4);
  const std::vector<job_entry> plan = plan_jobs(parse_job_list(mix), 4, costs{}, base);
  std::vector<std::pair<std::string, time_ps>> jobs;
  for (const job_entry& e : plan) jobs.emplace_back(e.gen, e.arrival);
  std::vector<run_config> cfgs{per_job(4, mode::wf), per_job(4, mode::hf), per_job(4, mode::dyn), dfd(4, 4096),
                               dfd(4, 0)};
  std::uint64_t parked_running = 0, mugs = 0, changes = 0;  // the paths the checks must have seen
  for (const run_config& cfg : cfgs) {
    for (auto [a, d] : {std::pair{arbiter::deq, desire_rule::adeque}, std::pair{arbiter::deq, desire_rule::asteal},
                        std::pair{arbiter::equi, desire_rule::adeque}, std::pair{arbiter::off, desire_rule::adeque}}) {
      const sharing_result r = run_jobs(jobs, 4, a, d, cfg, 1 * ms);
      const std::string what = std::string(slaw::policy::arbiter_name(a)) + "+" +
                               std::string(slaw::policy::desire_rule_name(d)) +
                               (cfg.scheduler == scheduler_kind::dfdeques ? " dfd" : " ws");
      EXPECT_TRUE(r.run.violations.empty()) << what << "\n" << violations(r.run);
      EXPECT_GT(r.quanta.size(), 20u) << what;
      for (std::size_t j = 0; j < r.jobs.size(); ++j) {
        EXPECT_GT(r.jobs[j].end, r.jobs[j].arrival) << what << " job " << j;
        EXPECT_GE(r.jobs[j].response(), r.jobs[j].dag.span) << what << " job " << j;
      }
      if (a != arbiter::off) {
        for (const quantum_record& q : r.quanta) EXPECT_LE(q.next_allotment, 4u) << what;
      }
      parked_running += r.run.total.drains + r.run.total.preemptions;
      mugs += r.run.total.mugs;
      for (const quantum_record& q : r.quanta) changes += q.next_allotment != q.sample.allotment;
    }
  }
  EXPECT_GT(parked_running, 10u);
  EXPECT_GT(mugs, 5u);
  EXPECT_GT(changes, 100u);
}
