// Jobs sharing the cores through the segment: forked processes with fixed desires get DEQ's answer;
// a job killed with SIGKILL (also while it holds the mutex, half-way through a boundary) is dropped and
// its cores go to the survivors within two quanta; dead, reused and stale entries are reaped; a job
// that leaves hands its cores back at once; a dropped job registers again.
#include <fcntl.h>

#include <fstream>
#include <map>
#include <random>
#include <set>

#include "arbiter/process_identity.hpp"
#include "arbiter/table.hpp"
#include "slaw/policy/allotment.hpp"
#include "support.hpp"
#include "support/stress.hpp"

using namespace arbiter_test;

namespace {

std::vector<std::uint32_t> deq_answer(const std::vector<slaw::policy::job_demand>& jobs, std::uint32_t cores) {
  std::vector<std::uint32_t> out(jobs.size());
  slaw::policy::allot(slaw::policy::arbiter::deq, jobs, cores, out, 0);
  return out;
}

std::uint64_t start_time_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  arb::proc_stat st;
  return arb::parse_proc_stat(line, st) ? st.start_time : 0;
}

char state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  arb::proc_stat st;
  return arb::parse_proc_stat(line, st) ? st.state : '?';
}

}  // namespace

TEST(ArbiterJobs, ParsesProcStat) {
  arb::proc_stat st;
  ASSERT_TRUE(arb::parse_proc_stat(
      "4242 (a (weird) name) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 20 21\n", st));
  EXPECT_EQ(st.state, 'S');
  EXPECT_EQ(st.start_time, 987654u);
  EXPECT_FALSE(arb::parse_proc_stat("4242 (short) S 1 2\n", st));
  EXPECT_FALSE(arb::parse_proc_stat("garbage", st));
  const arb::process_identity me = arb::own_identity();
  EXPECT_EQ(me.pid, getpid());
  EXPECT_GT(me.start_time, 0u);
  EXPECT_EQ(me.start_time, start_time_of(getpid()));
  EXPECT_EQ(arb::check_liveness(me, me.pid_ns), arb::liveness::alive);
  arb::process_identity other = me;
  other.start_time += 1;
  EXPECT_EQ(arb::check_liveness(other, me.pid_ns), arb::liveness::reused);
  other = me;
  other.pid_ns = me.pid_ns + 1;
  EXPECT_EQ(arb::check_liveness(other, me.pid_ns), arb::liveness::unknown);
}

TEST(ArbiterJobs, TwoProcessesWithFixedDesiresGetDeqsAllotment) {
  slaw_test::watchdog dog("TwoProcesses", "the allotment never settled", 60);
  scoped_name name;
  const arb::settings s = settings_for(name, 8);
  forked_job a(s, {8, 2.0}), b(s, {8, 10.0});
  EXPECT_EQ(deq_answer({{2.0, 8}, {10.0, 8}}, 8), (std::vector<std::uint32_t>{2, 6}));
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 2}, {b.pid(), 6}}); })) << describe(name);
  // Stable over quanta, whichever process runs the boundaries.
  const std::uint64_t q = look(name).quantum;
  ASSERT_TRUE(eventually([&] { return look(name).quantum >= q + 5; })) << describe(name);
  EXPECT_TRUE(shows(name, {{a.pid(), 2}, {b.pid(), 6}})) << describe(name);
  const arb::segment_view v = look(name);
  EXPECT_EQ(v.policy, arb::policy_setting::automatic);
  for (const auto& j : v.jobs) {
    EXPECT_EQ(j.utilization, 0.5);
    EXPECT_EQ(j.queued, 7u);
    EXPECT_GE(j.reports, 1u);
  }
}

TEST(ArbiterJobs, ThreeProcessesWithFixedDesiresGetDeqsAllotment) {
  slaw_test::watchdog dog("ThreeProcesses", "the allotment never settled", 60);
  scoped_name name;
  const arb::settings s = settings_for(name, 8);
  forked_job a(s, {16, 1.0}), b(s, {16, 3.0}), c(s, {16, 20.0});
  // By hand: S = {1} (1·3 ≤ 8), then {3} (3·2 ≤ 7), then the last job takes the 4 left.
  EXPECT_EQ(deq_answer({{1.0, 16}, {3.0, 16}, {20.0, 16}}, 8), (std::vector<std::uint32_t>{1, 3, 4}));
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 1}, {b.pid(), 3}, {c.pid(), 4}}); })) << describe(name);
  const std::uint64_t q = look(name).quantum;
  ASSERT_TRUE(eventually([&] { return look(name).quantum >= q + 5; }));
  EXPECT_TRUE(shows(name, {{a.pid(), 1}, {b.pid(), 3}, {c.pid(), 4}})) << describe(name);
}

// On a 2-core machine: a lone job runs one worker per core, two jobs get one core each, and when one
// leaves the other gets both back at once.
TEST(ArbiterJobs, ALeavingJobHandsItsCoresBackAtOnce) {
  slaw_test::watchdog dog("ALeavingJob", "the allotment never settled", 60);
  scoped_name name;
  const arb::settings s = settings_for(name, 2);
  forked_job a(s, {4, 4.0});  // 4 workers, 2 of which run alone
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 2}}); })) << describe(name);
  {
    forked_job b(s, {4, 4.0});
    ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 1}, {b.pid(), 1}}); })) << describe(name);
    b.stop();
    const int st = b.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
    // unregister() recomputed before b exited: no quantum to wait for.
    EXPECT_TRUE(shows(name, {{a.pid(), 2}})) << describe(name);
  }
  forked_job c(s, {2, 2.0});
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 1}, {c.pid(), 1}}); })) << describe(name);
}

// SIGKILL at a random moment of a quantum: the dead job's cores go to the survivors within two quanta
// (the boundary that ends the quantum of the kill, or the next one).
TEST(ArbiterJobs, AKilledJobsCoresGoToTheSurvivorsWithinTwoQuanta) {
  slaw_test::watchdog dog("AKilledJob", "the survivors never got the cores", 120);
  std::mt19937 rng(42);
  const int rounds = static_cast<int>(slaw_test::scaled(4, 2));
  for (int round = 0; round < rounds; ++round) {
    scoped_name name;
    const double quantum_ms = 20;
    const arb::settings s = settings_for(name, 6, quantum_ms);
    forked_job a(s, {6, 6.0}), b(s, {6, 6.0}), c(s, {6, 6.0});
    ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 2}, {b.pid(), 2}, {c.pid(), 2}}); })) << describe(name);
    const std::uint64_t q0 = look(name).quantum;
    ASSERT_TRUE(eventually([&] { return look(name).quantum >= q0 + 2; }));
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20000)(rng)));
    a.kill9();  // not waited for yet: a zombie, which the reaper must see as dead
    const std::uint64_t q_kill = look(name).quantum;  // ≥ the quantum of the kill
    ASSERT_TRUE(eventually([&] { return shows(name, {{b.pid(), 3}, {c.pid(), 3}}); })) << describe(name);
    const arb::segment_view v = look(name);
    EXPECT_GE(v.reaped, 1u);
    EXPECT_LE(v.last_reap_quantum, q_kill + 2) << "killed in quantum " << q_kill << " (or before)";
    EXPECT_EQ(v.recoveries, 0u);
    const int st = a.wait();
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << st;
  }
}

// The job running a quantum boundary dies inside the critical section, holding the robust mutex, with
// only the first allotment rewritten and the table's seqlock odd. The next locker gets EOWNERDEAD,
// frees the dead holder's slot, recomputes everything and marks the mutex consistent.
TEST(ArbiterJobs, AJobKilledWhileHoldingTheMutexIsRecoveredFrom) {
  slaw_test::watchdog dog("KilledHoldingTheMutex", "the survivors never recovered the mutex", 120);
  scoped_name name;
  const arb::settings s = settings_for(name, 6, 20);
  int died_in[2];
  ASSERT_EQ(pipe(died_in), 0);
  const std::uint64_t arm_at = arb::monotonic_ns() + 300'000'000;  // once all three are steady
  const std::string segment = name.str();
  job_spec dying{6, 6.0, 200};
  const int wfd = died_in[1];
  dying.options.hook = [segment, wfd, arm_at](const char* stage) {
    if (std::string(stage) != "boundary" || arb::monotonic_ns() < arm_at) return;
    const arb::attach_result r = arb::open_readonly(segment);  // the quantum whose boundary this is
    const std::uint64_t q = r.map ? r.map->view().header.quantum.load() : 0;
    (void)!write(wfd, &q, sizeof q);
    raise(SIGKILL);
  };
  forked_job a(s, dying), b(s, {6, 6.0, 5000}), c(s, {6, 6.0, 5000});
  close(died_in[1]);
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 2}, {b.pid(), 2}, {c.pid(), 2}}); })) << describe(name);
  std::uint64_t q_death = 0;
  ASSERT_EQ(read(died_in[0], &q_death, sizeof q_death), static_cast<ssize_t>(sizeof q_death));
  close(died_in[0]);
  const int st = a.wait();
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << st;
  ASSERT_TRUE(eventually([&] { return shows(name, {{b.pid(), 3}, {c.pid(), 3}}); })) << describe(name);
  const arb::segment_view v = look(name);
  EXPECT_TRUE(v.consistent);
  EXPECT_EQ(v.recoveries, 1u);
  EXPECT_GE(v.reaped, 1u);
  EXPECT_LE(v.last_reap_quantum, q_death + 2);
  // The mutex works again: the survivors keep running boundaries.
  const std::uint64_t q = v.quantum;
  EXPECT_TRUE(eventually([&] { return look(name).quantum >= q + 3; })) << describe(name);
  EXPECT_EQ(look(name).recoveries, 1u);
}

// Entries written as other processes would leave them: a pid that is gone, a zombie, a pid reused by
// another process (a different start time), a live process, and a job of another pid namespace. The
// first boundary drops the first three; the heartbeat drops the last two after stale_quanta quanta.
TEST(ArbiterJobs, DeadReusedZombieAndStaleEntriesAreReaped) {
  scoped_name name;
  arb::client_options o;
  o.stale_quanta = 5;
  arb::client live(settings_for(name, 4), o);
  ASSERT_TRUE(live.register_job(4));
  arb::segment& seg = live.map()->seg();

  std::fflush(nullptr);
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  const pid_t zombie = fork();
  if (zombie == 0) _exit(0);
  ASSERT_TRUE(eventually([&] { return state_of(zombie) == 'Z'; }));

  const arb::process_identity me = arb::own_identity();
  const pid_t parent = getppid();
  const std::uint64_t parent_start = start_time_of(parent);
  ASSERT_GT(parent_start, 0u);
  std::vector<std::pair<std::string, arb::process_identity>> fakes = {
      {"gone", {gone, 1, me.pid_ns}},
      {"zombie", {zombie, start_time_of(zombie), me.pid_ns}},
      {"reused", {parent, parent_start + 1, me.pid_ns}},
      {"alive", {parent, parent_start, me.pid_ns}},
      {"other-ns", {999999, 5, me.pid_ns + 1}},
  };
  {
    arb::table_lock lk(seg, me, -1, arb::monotonic_ns() + 1'000'000'000);
    ASSERT_TRUE(lk.held());
    for (auto& [what, who] : fakes) {
      std::uint64_t ticket = 0;
      ASSERT_GE(arb::claim_slot(seg, {who, 77, 4, 4.0, what}, ticket), 0);
    }
    arb::recompute(seg, 0);
  }
  auto commands = [&] {
    std::set<std::string> c;
    for (const auto& j : look(name).jobs) c.insert(j.command);
    return c;
  };
  EXPECT_EQ(commands().size(), 6u);
  std::uint64_t t = arb::monotonic_ns();
  auto next_quantum = [&] {
    t += 10'000'001;
    EXPECT_TRUE(live.tick(t));
  };
  next_quantum();
  EXPECT_EQ(commands(), (std::set<std::string>{"alive", "other-ns", arb::own_command()}));
  EXPECT_EQ(look(name).reaped, 3u);
  for (int i = 0; i < 4; ++i) next_quantum();
  EXPECT_EQ(commands().size(), 3u);  // at the boundary of quantum 5 their heartbeats (quantum 1) are 4 old
  next_quantum();                    // ... and 5 old at quantum 6's
  EXPECT_EQ(commands(), (std::set<std::string>{arb::own_command()}));
  EXPECT_EQ(look(name).reaped, 5u);
  EXPECT_EQ(live.allotment(), 4u);  // alone again: all its workers
  ASSERT_EQ(waitpid(zombie, nullptr, 0), zombie);
}

// Several runtimes of one process are separate jobs; one that stops ticking (a leaked runtime, a
// stopped process) is dropped by the heartbeat, runs on one core meanwhile, and registers again when it
// ticks.
TEST(ArbiterJobs, ADroppedJobRegistersAgain) {
  scoped_name name;
  std::vector<std::string> warnings;
  arb::client_options o;
  o.stale_quanta = 3;
  o.warn = [&](const std::string& m) { warnings.push_back(m); };
  arb::client a(settings_for(name, 4), o), b(settings_for(name, 4), o);
  ASSERT_TRUE(a.register_job(4, 4));
  ASSERT_TRUE(b.register_job(4, 4));
  EXPECT_NE(a.runtime_id(), b.runtime_id());
  EXPECT_NE(a.slot(), b.slot());
  EXPECT_EQ(a.allotment(), 2u);
  EXPECT_EQ(b.allotment(), 2u);
  std::uint64_t t = arb::monotonic_ns();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(a.tick(t += 10'000'001));  // b's heartbeat: quantum 1
  EXPECT_EQ(look(name).jobs.size(), 1u);
  EXPECT_EQ(a.allotment(), 4u);
  EXPECT_EQ(b.allotment(), 1u);  // dropped: one core until it registers again
  EXPECT_FALSE(b.tick(t + 1));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("registering again"), std::string::npos) << warnings[0];
  EXPECT_TRUE(b.registered());
  EXPECT_EQ(look(name).jobs.size(), 2u);
  b.report(4);
  EXPECT_TRUE(b.tick(t += 10'000'001));
  EXPECT_EQ(a.allotment(), 2u);
  EXPECT_EQ(b.allotment(), 2u);
}

// The first job of a busy period sets cores, quantum and policy; a later job's different explicit
// settings are reported and ignored; once all have left, the next job's settings apply.
TEST(ArbiterJobs, TheFirstJobOfABusyPeriodSetsTheSettings) {
  scoped_name name;
  std::vector<std::string> warnings;
  arb::client_options o;
  o.warn = [&](const std::string& m) { warnings.push_back(m); };
  {
    arb::client a(settings_for(name, 3, 10, slaw::policy::arbiter::equi), o);
    ASSERT_TRUE(a.register_job(8));
    EXPECT_EQ(a.allotment(), 3u);  // equi: a lone job gets the cores, not all its workers
    arb::settings other = settings_for(name, 5, 2, slaw::policy::arbiter::deq);
    other.quantum_set = true;
    arb::client b(other, o);
    ASSERT_TRUE(b.register_job(8));
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_NE(warnings[0].find("SLAW_CORES=5 is ignored: the arbiter manages 3 cores"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[1].find("SLAW_QUANTUM_MS"), std::string::npos) << warnings[1];
    EXPECT_NE(warnings[2].find("SLAW_ARBITER=deq is ignored: the arbiter's policy is equi"), std::string::npos)
        << warnings[2];
    EXPECT_EQ(a.allotment() + b.allotment(), 3u);
  }
  arb::client c(settings_for(name, 5, 2, slaw::policy::arbiter::deq), o);
  ASSERT_TRUE(c.register_job(8, 8));
  const arb::segment_view v = look(name);
  EXPECT_EQ(v.cores, 5u);
  EXPECT_EQ(v.quantum_ns, 2'000'000u);
  EXPECT_EQ(v.policy, arb::policy_setting::deq);
  EXPECT_EQ(c.allotment(), 5u);
}

TEST(ArbiterJobs, OffDoesNotAttach) {
  scoped_name name;
  arb::client c(settings_for(name, 2, 10, slaw::policy::arbiter::off));
  EXPECT_FALSE(c.attached());
  EXPECT_FALSE(c.register_job(6));
  EXPECT_EQ(c.allotment(), 6u);
  EXPECT_EQ(c.off_reason(), "SLAW_ARBITER=off");
  EXPECT_FALSE(arb::open_readonly(name).map);  // nothing was created
}

// SLAW_ARBITER_NAME chooses the segment: a job attaches to the named one only.
TEST(ArbiterJobs, SlawArbiterNameIsolatesJobs) {
  scoped_name one, two;
  slaw_test::env_guard g("SLAW_ARBITER_NAME", one.str().c_str());
  arb::settings s = arb::settings::from_env();
  s.cores = 2;
  arb::client a(s);
  ASSERT_TRUE(a.register_job(2));
  arb::client b(settings_for(two, 2));
  ASSERT_TRUE(b.register_job(2));
  EXPECT_EQ(look(one).jobs.size(), 1u);
  EXPECT_EQ(look(two).jobs.size(), 1u);
  EXPECT_EQ(a.allotment(), 2u);
  EXPECT_EQ(b.allotment(), 2u);
}
