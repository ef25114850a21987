// slaw::runtime jobs in separate processes (docs/design/multijob.md): three forked
// processes, each a runtime of 3 workers kept busy with checked fib runs, share 3 cores: each is allotted
// one. One is killed with SIGKILL mid-quantum; within two quanta the survivors hold its core, and they
// go on computing correctly. Each survivor's stats show its workers parked by the allotment.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>

#include <fstream>
#include <random>
#include <sstream>

#include "fib_job.hpp"
#include "support.hpp"

using namespace arbiter_test;

namespace {

// The child of a forked_job: a runtime of `cfg` running checked fib(24) until the parent says stop; it
// writes how many results were wrong and its stats to `out` and exits 0 if every result was right.
int run_runtime_job(const slaw::config& cfg, const std::string& out, int ctl) {
  long wrong = 0, runs = 0;
  std::string stats;
  {
    slaw::runtime rt(cfg);
    const long want = fib_serial(24);
    pollfd p{ctl, POLLIN, 0};
    while (::poll(&p, 1, 0) == 0) {
      wrong += rt.run(fib(24)) != want;
      ++runs;
    }
    stats = rt.stats().to_json();
  }
  std::ofstream(out) << "wrong " << wrong << " runs " << runs << "\n" << stats << "\n";
  return wrong == 0 ? 0 : 1;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ArbiterProcesses, ThreeRuntimesShareThreeCoresAndAKilledOnesCoreGoesToTheOthers) {
  scoped_name name;
  slaw::config cfg;
  cfg.workers = 3;
  cfg.arbiter.name = name;
  cfg.arbiter.cores = 3;
  cfg.arbiter.quantum_ns = 5'000'000;
  const std::string dir = ::testing::TempDir();
  const std::string tag = std::to_string(::getpid());
  const std::string out[3] = {dir + "/slaw-job-a-" + tag, dir + "/slaw-job-b-" + tag, dir + "/slaw-job-c-" + tag};
  forked_job a([&](int ctl) { return run_runtime_job(cfg, out[0], ctl); }, 120),
      b([&](int ctl) { return run_runtime_job(cfg, out[1], ctl); }, 120),
      c([&](int ctl) { return run_runtime_job(cfg, out[2], ctl); }, 120);
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 1}, {b.pid(), 1}, {c.pid(), 1}}); }, 30)) << describe(name);
  const std::uint64_t q0 = look(name).quantum;
  ASSERT_TRUE(eventually([&] { return look(name).quantum >= q0 + 3; }));
  std::mt19937 rng(7);
  std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 5000)(rng)));
  a.kill9();  // a zombie until waited for: the reaper must see it as dead
  const std::uint64_t q_kill = look(name).quantum;
  // The survivors hold all 3 cores between them (DEQ: 2 + 1, the odd core rotating).
  auto survivors_hold_all = [&] {
    const arb::segment_view v = look(name);
    const auto m = allotments_by_pid(v);
    return v.consistent && m.size() == 2 && m.count(b.pid()) && m.count(c.pid()) && m.at(b.pid()) + m.at(c.pid()) == 3;
  };
  ASSERT_TRUE(eventually(survivors_hold_all, 30)) << describe(name);
  const arb::segment_view v = look(name);
  EXPECT_GE(v.reaped, 1u);
  EXPECT_LE(v.last_reap_quantum, q_kill + 2) << "killed in quantum " << q_kill << " (or before)";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the survivors run on their new allotments
  b.stop();
  c.stop();
  for (int i : {1, 2}) {
    const int st = (i == 1 ? b : c).wait();
    const std::string output = read_file(out[i]);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st << "\n" << output;
    EXPECT_NE(output.find("wrong 0 "), std::string::npos) << output;
    EXPECT_NE(output.find("\"allotment_min\":1,"), std::string::npos) << output;
    const std::size_t total = output.find("\"total\":{");
    ASSERT_NE(total, std::string::npos) << output;
    const std::string totals = output.substr(total, output.find('}', total) - total);
    EXPECT_EQ(totals.find("\"allotment_parks\":0,"), std::string::npos) << "no worker was parked:\n" << output;
  }
  const int st = a.wait();
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << st;
}

}  // namespace
