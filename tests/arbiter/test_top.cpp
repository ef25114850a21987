// slaw-top on live segments: --once --json shows every job (pid, command, desire, allotment, workers,
// utilization, queued), the cores and the quantum; it never creates a segment, never waits for the
// mutex (a table held by a writer reads as inconsistent instead), and reports bad arguments.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "arbiter/table.hpp"
#include "support.hpp"
#include "support/stress.hpp"

using namespace arbiter_test;

#ifndef SLAW_TOP_PATH
#define SLAW_TOP_PATH "slaw-top"
#endif

namespace {

struct run_result {
  int status = -1;
  std::string out;
};

run_result run(const std::string& args, const std::string& prefix = "") {
  run_result r;
  const std::string cmd = prefix + std::string(SLAW_TOP_PATH) + " " + args;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(SlawTop, OnceJsonShowsTheJobsOfALiveSegment) {
  slaw_test::watchdog dog("SlawTop", "slaw-top or a job hung", 60);
  scoped_name name;
  const arb::settings s = settings_for(name, 4, 10);
  arb::client mine(s);
  ASSERT_TRUE(mine.register_job(4, 1.0));
  mine.report(1.0, {0.25, 3});
  forked_job other(s, {4, 8.0});
  ASSERT_TRUE(eventually([&] {  // both registered, and the forked one's first report written
    const arb::segment_view v = look(name);
    return v.jobs.size() == 2 && v.jobs[0].reports >= 1 && v.jobs[1].reports >= 1;
  }));
  const run_result r = run("--once --json --name " + name.str());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "\"segment\": \"" + name.str() + "\"")) << r.out;
  EXPECT_TRUE(has(r.out, "\"cores\": 4")) << r.out;
  EXPECT_TRUE(has(r.out, "\"policy\": \"auto\"")) << r.out;
  EXPECT_TRUE(has(r.out, "\"quantum_ms\": 10.000")) << r.out;
  EXPECT_TRUE(has(r.out, "\"consistent\": true")) << r.out;
  EXPECT_TRUE(has(r.out, "{\"pid\": " + std::to_string(getpid()) + ", \"runtime\": " + std::to_string(mine.runtime_id()) +
                             ", \"command\": \"" + arb::own_command() +
                             "\", \"desire\": 1.000, \"allotment\": 1, \"workers\": 4, \"utilization\": 0.250, \"queued\": 3"))
      << r.out;
  EXPECT_TRUE(has(r.out, "{\"pid\": " + std::to_string(other.pid()))) << r.out;
  EXPECT_TRUE(has(r.out, "\"desire\": 8.000, \"allotment\": 3, \"workers\": 4, \"utilization\": 0.500, \"queued\": 7"))
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

TEST(SlawTop, OnceTextAndTheNameFromTheEnvironment) {
  scoped_name name;
  arb::client mine(settings_for(name, 3));
  ASSERT_TRUE(mine.register_job(2));
  slaw_test::env_guard g("SLAW_ARBITER_NAME", name.str().c_str());
  const run_result t = run("--once");
  ASSERT_EQ(t.status, 0) << t.out;
  EXPECT_TRUE(has(t.out, "slaw-top  " + name.str() + "  cores 3")) << t.out;
  EXPECT_TRUE(has(t.out, "PID")) << t.out;
  EXPECT_TRUE(has(t.out, std::to_string(getpid()))) << t.out;
  EXPECT_TRUE(has(t.out, "jobs 1  allotted 2/3")) << t.out;
}

TEST(SlawTop, NeverCreatesASegment) {
  scoped_name name;
  const run_result r = run("--once --json --name " + name.str() + " 2>&1");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "does not exist")) << r.out;
  struct stat st {};
  EXPECT_NE(stat(arb::shm_file(name).c_str(), &st), 0) << "slaw-top created the segment";
}

TEST(SlawTop, NeverWaitsForTheMutex) {
  slaw_test::watchdog dog("SlawTop", "slaw-top waited for a held mutex", 60);
  scoped_name name;
  arb::client mine(settings_for(name, 2));
  ASSERT_TRUE(mine.register_job(2));
  {
    // A writer holds the table (its seqlock odd) for as long as slaw-top runs.
    arb::table_lock lk(mine.map()->seg(), arb::own_identity(), -1, arb::monotonic_ns() + 1'000'000'000);
    ASSERT_TRUE(lk.held());
    const run_result r = run("--once --json --name " + name.str());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "\"consistent\": false")) << r.out;
  }
  EXPECT_TRUE(has(run("--once --json --name " + name.str()).out, "\"consistent\": true"));
}

TEST(SlawTop, ACorruptSegmentIsReported) {
  scoped_name name;
  const int fd = shm_open(name.str().c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  close(fd);
  const run_result r = run("--once --name " + name.str() + " 2>&1");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "not a slaw arbiter segment")) << r.out;
}

TEST(SlawTop, BadArguments) {
  for (const char* args : {"--interval 0", "--interval x", "--name nope", "--name", "--frobnicate"}) {
    const run_result r = run(std::string(args) + " 2>&1");
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_TRUE(has(r.out, "usage: slaw-top")) << r.out;
  }
  slaw_test::env_guard g("SLAW_ARBITER_NAME", "bad name");
  const run_result r = run("--once 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "SLAW_ARBITER_NAME='bad name'")) << r.out;
}

// Refreshing: --json without --once prints one object per interval.
TEST(SlawTop, RefreshesAtTheInterval) {
  scoped_name name;
  arb::client mine(settings_for(name, 2));
  ASSERT_TRUE(mine.register_job(2));
  const run_result r = run("--json --interval 0.05 --name " + name.str() + " | head -n 3");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;
}

// slaw-top refuses what the jobs refuse, and never blocks or dies on what it finds at the name: a FIFO
// (opening one for reading used to wait for a writer, for ever), a segment other users may write,
// another user's segment (it used to be shown as this user's), and a segment truncated while it is read
// (SIGBUS).
TEST(SlawTop, AFifoAtTheNameIsRefusedWithoutWaiting) {
  slaw_test::watchdog dog("SlawTop", "slaw-top waited on a FIFO", 60);
  scoped_name name;
  ASSERT_EQ(mkfifo(arb::shm_file(name).c_str(), 0600), 0);
  // `timeout` ends a slaw-top that blocks, so that the failure is reported rather than hung.
  const run_result r = run("--once --name " + name.str() + " 2>&1", "timeout -s KILL 10 ");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "not a regular file")) << r.out;
}

TEST(SlawTop, ASegmentOthersMayWriteIsRefused) {
  scoped_name name;
  ASSERT_TRUE(arb::open_or_create(name, {}).map);
  ASSERT_EQ(chmod(arb::shm_file(name).c_str(), 0666), 0);
  const run_result r = run("--once --json --name " + name.str() + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "other users may write it")) << r.out;
}

TEST(SlawTop, AnotherUsersSegmentIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make a segment owned by another user";
  scoped_name name;
  ASSERT_TRUE(arb::open_or_create(name, {}).map);
  ASSERT_EQ(chown(arb::shm_file(name).c_str(), 12345, 12345), 0);
  const run_result r = run("--once --json --name " + name.str() + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "belongs to uid 12345")) << r.out;
}

// The read itself, in a child (a SIGBUS would kill it): mapped, then truncated, then copied.
TEST(SlawTop, ASegmentTruncatedWhileItIsReadIsReportedNotACrash) {
  slaw_test::watchdog dog("SlawTop", "the reader hung", 60);
  for (const long to : {0L, 4096L}) {
    scoped_name name;
    arb::client mine(settings_for(name, 2));
    ASSERT_TRUE(mine.register_job(2));
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
      alarm(30);
      arb::attach_result r = arb::open_readonly(name.str());
      if (!r.map) _exit(2);
      if (truncate(arb::shm_file(name.str()).c_str(), to) != 0) _exit(3);
      const arb::segment_view v = arb::take_snapshot(r.map->view());
      (void)v;
      if (!r.map->lost() && to == 0) _exit(4);  // every page is gone: the copy must have seen it
      const arb::read_result again = arb::read_segment(name.str());
      if (again.error.find("truncated") == std::string::npos) _exit(5);
      _exit(0);
    }
    int st = 0;
    ASSERT_EQ(waitpid(child, &st, 0), child);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
        << "truncated to " << to << ": "
        << (WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st)) : "status " + std::to_string(WEXITSTATUS(st)));
  }
}
