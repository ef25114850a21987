// The arbiter must never take a program down (docs/design/arbiter.md § When the segment is damaged): anything
// wrong with the segment means "run as if alone" with one warning. Each test here reproduces a way a
// program used to die or lose the arbiter for good:
//   * a /dev/shm too small or full for the segment (SIGBUS while it was written): a tmpfs of the test's
//     own, in a mount namespace of its own, so that the machine's /dev/shm is never filled;
//   * a file size limit (ulimit -f) below the segment's size (SIGXFSZ, and a 0-byte segment left behind);
//   * the segment truncated while jobs use it (SIGBUS at the next access), also under a running runtime;
//   * a quantum clock in the future (no boundary, so no reaping, ever again);
//   * a registration that found the mutex busy or the table full (given up for good);
//   * the segment removed while jobs run (the jobs split into two tables).
// The ones that would kill the process run in a forked child, whose end the parent reports. A child's
// alarm is its watchdog (a hang ends in SIGALRM, reported as a failure). The tests whose children start
// a runtime's threads have no watchdog thread of their own: ThreadSanitizer does not let a child of a
// multi-threaded process start threads; their parents wait for nothing unbounded.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstring>
#include <set>
#include <vector>

#include "arbiter/table.hpp"
#include "fib_job.hpp"
#include "support.hpp"
#include "support/stress.hpp"

using namespace arbiter_test;

namespace {

constexpr int skip_status = 77;

// How a forked child ended, and what it wrote to its `say` stream (why it failed, or why it skipped).
struct outcome {
  int status = -1;
  std::string said;
  bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  bool skipped() const { return WIFEXITED(status) && WEXITSTATUS(status) == skip_status; }
  std::string how() const {
    if (WIFSIGNALED(status))
      return std::string("the child was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
             strsignal(WTERMSIG(status)) + "); it said: " + said;
    return "the child exited with status " + std::to_string(WEXITSTATUS(status)) + "; it said: " + said;
  }
};

// Runs `body` in a forked child, killed by an alarm after `alarm_s` seconds; `body` returns the child's
// exit status and writes to `say` what the parent should print.
outcome in_child(const std::function<int(FILE* say)>& body, unsigned alarm_s = 60) {
  int p[2];
  if (::pipe(p) != 0) throw std::runtime_error("pipe");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    ::close(p[0]);
    ::alarm(alarm_s);
    FILE* say = ::fdopen(p[1], "w");
    std::setvbuf(say, nullptr, _IONBF, 0);
    ::_exit(body(say));
  }
  ::close(p[1]);
  outcome o;
  char buf[512];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) o.said.append(buf, static_cast<std::size_t>(n));
  ::close(p[0]);
  ::waitpid(pid, &o.status, 0);
  return o;
}

// A check inside a child: on failure, says what failed and counts it.
struct child_checks {
  FILE* say;
  int failed = 0;
  void operator()(bool ok, const std::string& what) {
    if (ok) return;
    ++failed;
    std::fprintf(say, "[%s] ", what.c_str());
  }
  int status() const { return failed ? 1 : 0; }
};

// In a child: a mount namespace of its own with a tmpfs of `bytes` on /dev/shm, so that the test never
// fills the machine's /dev/shm (nor sees its segments). "" on success, else why it cannot be done.
std::string private_shm(std::size_t bytes) {
  if (::unshare(CLONE_NEWNS) != 0) return std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return std::string("making the mounts private: ") + std::strerror(errno);
  const std::string options = "size=" + std::to_string(bytes) + ",mode=1777";
  if (::mount("slaw-test-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
    return std::string("mounting a tmpfs on /dev/shm: ") + std::strerror(errno);
  return {};
}

std::uint64_t object_size(const std::string& name) {
  struct stat st {};
  return ::stat(arb::shm_file(name).c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The child's checks of a client that cannot use its segment: as if alone, one warning naming `why`.
void expect_alone(child_checks& check, arb::client& c, const std::vector<std::string>& warnings, const std::string& why,
                  std::uint32_t workers) {
  check(!c.attached(), "the client is still attached");
  check(!c.registered(), "the client is still registered");
  check(c.allotment() == workers, "allotment " + std::to_string(c.allotment()) + ", not all " + std::to_string(workers) + " workers");
  check(warnings.size() == 1, std::to_string(warnings.size()) + " warnings, not 1");
  for (const std::string& w : warnings) {
    check(has(w, why), "the warning does not say '" + why + "': " + w);
    check(has(w, "runs as if alone"), "the warning does not say that the job runs as if alone: " + w);
  }
}

// A runtime of 2 workers on segment `name` runs fib(18) right; its stats name why it runs alone.
void expect_runtime_runs_alone(child_checks& check, const std::string& name, const std::string& why) {
  slaw::config cfg;
  cfg.workers = 2;
  cfg.arbiter.name = name;
  cfg.arbiter.cores = 2;
  slaw::runtime rt(cfg);
  check(rt.run(fib(18)) == fib_serial(18), "fib(18) was wrong");
  const std::string j = rt.stats().arbiter_json;
  check(has(j, "\"policy\":\"off\"") && has(j, why), "the runtime's arbiter stats: " + j);
}

}  // namespace

// A /dev/shm too small for the segment, or one that is full: the segment was sized with ftruncate (which
// succeeds on tmpfs whatever the space) and then written, and the first page that tmpfs could not provide
// killed the process with SIGBUS, while the runtime was being built. Now the space is reserved first.
TEST(ArbiterHazards, ASmallOrFullDevShmMeansAsIfAloneNotSigbus) {
  for (const bool full : {false, true}) {
    const outcome o = in_child([full](FILE* say) {
      // Small: 16 KiB. Full: 1 MiB with all but 16 KiB taken by another file.
      if (std::string why = private_shm(full ? 1 << 20 : 16 << 10); !why.empty()) {
        std::fputs(why.c_str(), say);
        return skip_status;
      }
      child_checks check{say};
      if (full) {
        const int fd = ::open("/dev/shm/filler", O_RDWR | O_CREAT, 0600);
        check(fd >= 0 && ::posix_fallocate(fd, 0, (1 << 20) - (16 << 10)) == 0, "could not fill /dev/shm");
        ::close(fd);
      }
      std::vector<std::string> warnings;
      arb::client_options opts;
      opts.warn = [&](const std::string& m) { warnings.push_back(m); };
      arb::client c(settings_for("/slaw-test-full", 2), opts);
      check(!c.register_job(4), "registered in a segment that does not fit");
      expect_alone(check, c, warnings, "cannot reserve " + std::to_string(sizeof(arb::segment)) + " bytes", 4);
      check(object_size("/slaw-test-full") == 0, "the object was left with " + std::to_string(object_size("/slaw-test-full")) + " bytes");
      expect_runtime_runs_alone(check, "/slaw-test-full-runtime", "cannot reserve");
      return check.status();
    });
    if (o.skipped()) GTEST_SKIP() << "needs a mount namespace of its own (root, or CAP_SYS_ADMIN) to give the test a small "
                                     "/dev/shm without filling the machine's: "
                                  << o.said;
    EXPECT_TRUE(o.ok()) << (full ? "full" : "small") << " /dev/shm: " << o.how();
  }
}

// A file size limit below the segment's size: ftruncate raised SIGXFSZ, which killed the creator and left
// a 0-byte segment behind, and every later job under the same limit died the same way. Now the limit is
// checked before the object grows, and a later job without the limit creates the segment as usual.
TEST(ArbiterHazards, AFileSizeLimitBelowTheSegmentMeansAsIfAloneNotSigxfsz) {
  scoped_name name;
  for (int job = 0; job < 2; ++job) {  // the second meets what the first left
    const outcome o = in_child([&](FILE* say) {
      child_checks check{say};
      const rlimit limit{4096, 4096};
      check(::setrlimit(RLIMIT_FSIZE, &limit) == 0, "setrlimit");
      std::vector<std::string> warnings;
      arb::client_options opts;
      opts.warn = [&](const std::string& m) { warnings.push_back(m); };
      arb::client c(settings_for(name, 2), opts);
      check(!c.register_job(3), "registered in a segment bigger than the file size limit");
      expect_alone(check, c, warnings, "file size limit", 3);
      expect_runtime_runs_alone(check, name, "file size limit");
      return check.status();
    });
    EXPECT_TRUE(o.ok()) << "job " << job << ": " << o.how();
  }
  EXPECT_EQ(object_size(name), 0u);
  arb::client c(settings_for(name, 2));
  EXPECT_TRUE(c.register_job(2));
  EXPECT_TRUE(c.created_segment());
  EXPECT_EQ(object_size(name), sizeof(arb::segment));
}

// The segment truncated by its user while a job uses it: the next access to a page past the new end
// raised SIGBUS and killed the job. Now the fault is caught (segment.hpp, the SIGBUS guard), the job's
// mapping becomes private zeros, and the job runs as if alone with one warning. Truncated to 0, to one
// page (the header and the first slots stay, the rest is cut off), and to nothing then back to the full
// size (all zeros: no fault, but no segment either).
TEST(ArbiterHazards, ASegmentTruncatedWhileInUseMeansAsIfAloneNotSigbus) {
  slaw_test::watchdog dog("ASegmentTruncated", "a job hung", 120);
  for (const long to : {0L, 4096L, -1L}) {
    scoped_name name;
    const outcome o = in_child([&](FILE* say) {
      child_checks check{say};
      std::vector<std::string> warnings;
      arb::client_options opts;
      opts.warn = [&](const std::string& m) { warnings.push_back(m); };
      arb::client c(settings_for(name, 4), opts);
      check(c.register_job(4, 4.0), "could not register");
      std::uint64_t t = arb::monotonic_ns();
      c.tick(t);
      const std::string file = arb::shm_file(name);
      check(::truncate(file.c_str(), to < 0 ? 0 : to) == 0, "truncate");
      if (to < 0) check(::truncate(file.c_str(), sizeof(arb::segment)) == 0, "truncate back");
      for (int i = 0; i < 5; ++i) {  // quanta go by: each tick runs a boundary, which reads every slot
        c.report(2.0, {0.5, 3});
        c.tick(t += 50'000'000);
        (void)c.allotment();
        (void)c.jobs();
        (void)c.policy();
      }
      expect_alone(check, c, warnings, to < 0 ? "not a slaw arbiter segment any more" : "truncated", 4);
      return check.status();
    });
    EXPECT_TRUE(o.ok()) << "truncated to " << to << ": " << o.how();
  }
}

// The same under a running slaw::runtime: the job goes on computing right, with all its workers.
TEST(ArbiterHazards, ARuntimeWhoseSegmentIsTruncatedGoesOnAlone) {
  scoped_name name;
  forked_job job([&](int ctl) {
    slaw::config cfg;
    cfg.workers = 2;
    cfg.arbiter.name = name.str();
    cfg.arbiter.cores = 2;
    cfg.arbiter.quantum_ns = 1'000'000;
    long wrong = 0;
    std::string stats;
    {
      slaw::runtime rt(cfg);
      pollfd p{ctl, POLLIN, 0};
      while (::poll(&p, 1, 0) == 0) wrong += rt.run(fib(20)) != fib_serial(20);
      stats = rt.stats().arbiter_json;
    }
    if (wrong) std::fprintf(stderr, "%ld wrong results\n", wrong);
    if (!has(stats, "truncated") || !has(stats, "\"policy\":\"off\"")) std::fprintf(stderr, "stats: %s\n", stats.c_str());
    return wrong == 0 && has(stats, "truncated") && has(stats, "\"policy\":\"off\"") ? 0 : 1;
  });
  // Truncated once the job has run a few quanta.
  ASSERT_TRUE(eventually([&] {
    const arb::segment_view v = look(name);
    return v.jobs.size() == 1 && v.jobs[0].reports >= 3;
  })) << describe(name);
  ASSERT_EQ(::truncate(arb::shm_file(name).c_str(), 0), 0);
  // Ten more quanta, then stop.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  job.stop();
  const int st = job.wait();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
      << (WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st)) : "status " + std::to_string(st));
}

// A quantum start in the future (written by a buggy or hostile process of the same user): the expiry
// test never passed again, so no boundary ran and dead jobs were never reaped. A start more than a
// quantum ahead of the clock is now a quantum that has expired.
TEST(ArbiterHazards, AQuantumStartInTheFutureDoesNotStopTheBoundaries) {
  scoped_name name;
  arb::client a(settings_for(name, 4));
  ASSERT_TRUE(a.register_job(4, 4.0));
  arb::segment& seg = a.map()->seg();
  std::fflush(nullptr);
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  {
    arb::table_lock lk(seg, arb::own_identity(), -1, arb::monotonic_ns() + 1'000'000'000);
    ASSERT_TRUE(lk.held());
    std::uint64_t ticket = 0;
    ASSERT_GE(arb::claim_slot(seg, {{gone, 1, arb::own_identity().pid_ns}, 9, 4, 4.0, "gone"}, ticket), 0);
    arb::recompute(seg, 0);
  }
  EXPECT_EQ(a.allotment(), 2u);
  for (const std::uint64_t start : {arb::monotonic_ns() + 3'600'000'000'000ull, ~0ull - 1000}) {
    seg.header.quantum_start_ns.store(start);
    const std::uint64_t q = look(name).quantum;
    EXPECT_TRUE(a.tick(arb::monotonic_ns())) << "no boundary with the quantum's start " << start;
    EXPECT_EQ(look(name).quantum, q + 1);
    EXPECT_LE(seg.header.quantum_start_ns.load(), arb::monotonic_ns());
  }
  EXPECT_EQ(look(name).reaped, 1u);
  EXPECT_EQ(look(name).jobs.size(), 1u);
  EXPECT_EQ(a.allotment(), 4u);
}

// A job that finds the mutex busy for longer than its wait used to give up for good and run alone while
// the others shared the cores without it. It now runs as if alone only until a later tick registers it.
TEST(ArbiterHazards, ARegistrationThatFindsTheMutexBusyIsRetried) {
  scoped_name name;
  arb::client holder(settings_for(name, 4));
  ASSERT_TRUE(holder.attached());
  std::vector<std::string> warnings;
  arb::client_options opts;
  opts.lock_wait_ns = 5'000'000;
  opts.warn = [&](const std::string& m) { warnings.push_back(m); };
  arb::client late(settings_for(name, 4), opts);
  {
    arb::table_lock lk(holder.map()->seg(), arb::own_identity(), -1, arb::monotonic_ns() + 1'000'000'000);
    ASSERT_TRUE(lk.held());
    EXPECT_FALSE(late.register_job(4, 2.5));
    EXPECT_FALSE(late.registered());
    EXPECT_EQ(late.allotment(), 4u);  // as if alone meanwhile
    late.tick(arb::monotonic_ns());   // still held: still waiting
    EXPECT_FALSE(late.registered());
  }
  EXPECT_TRUE(late.attached()) << late.off_reason();
  late.tick(arb::monotonic_ns());
  EXPECT_TRUE(late.registered()) << late.off_reason();
  const arb::segment_view v = look(name);
  ASSERT_EQ(v.jobs.size(), 1u);
  EXPECT_EQ(v.jobs[0].desire, 2.5);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(has(warnings[0], "busy")) << warnings[0];
}

// The same with a full table: the job registers once a slot frees.
TEST(ArbiterHazards, AJobThatFindsTheTableFullRegistersWhenASlotFrees) {
  scoped_name name;
  arb::client first(settings_for(name, 4));
  ASSERT_TRUE(first.register_job(2));
  arb::segment& seg = first.map()->seg();
  const arb::process_identity me = arb::own_identity();
  std::vector<std::pair<int, std::uint64_t>> fakes;
  {
    arb::table_lock lk(seg, me, -1, arb::monotonic_ns() + 1'000'000'000);
    ASSERT_TRUE(lk.held());
    for (;;) {
      std::uint64_t ticket = 0;
      const int slot = arb::claim_slot(seg, {me, 1000, 1, 1.0, "filler"}, ticket);
      if (slot < 0) break;
      fakes.emplace_back(slot, ticket);
    }
    arb::recompute(seg, 0);
  }
  ASSERT_EQ(fakes.size(), arb::slot_count - 1);
  std::vector<std::string> warnings;
  arb::client_options opts;
  opts.warn = [&](const std::string& m) { warnings.push_back(m); };
  arb::client late(settings_for(name, 4), opts);
  EXPECT_FALSE(late.register_job(3, 1.5));
  late.tick(arb::monotonic_ns());
  EXPECT_FALSE(late.registered());
  EXPECT_EQ(late.allotment(), 3u);
  {
    arb::table_lock lk(seg, me, -1, arb::monotonic_ns() + 1'000'000'000);
    ASSERT_TRUE(lk.held());
    ASSERT_TRUE(arb::free_slot(seg, fakes.back().first, fakes.back().second));
  }
  late.tick(arb::monotonic_ns());
  EXPECT_TRUE(late.registered()) << late.off_reason();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(has(warnings[0], "full")) << warnings[0];
}

// Many jobs start at once (more than the table holds). Each registers, ticks a few
// quanta and leaves; every one of them must get a slot at some point. Before, a job whose wait for the
// mutex ran out (or that found the table full) never tried again.
TEST(ArbiterHazards, ManyJobsStartingAtOnceAllRegisterAtSomePoint) {
  const int procs = static_cast<int>(slaw_test::scaled(270, 40));
  slaw_test::watchdog dog("ManyJobsStartingAtOnce", "a job never registered", 280);
  scoped_name name;
  int go[2], results[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(results), 0);
  std::vector<pid_t> kids;
  std::fflush(nullptr);
  for (int i = 0; i < procs; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(240);
      close(go[1]);
      close(results[0]);
      char c;
      (void)!read(go[0], &c, 1);  // 0 when the parent closes its end: all start together
      arb::client_options o;
      o.lock_wait_ns = 1'000'000;  // the probe's 1 s, scaled down to make a busy mutex likely
      o.warn = [](const std::string&) {};
      arb::client cl(settings_for(name.str(), 8), o);
      cl.register_job(2, 2.0);
      while (!cl.registered()) {
        if (!cl.attached()) _exit(3);  // gave up for good
        ::usleep(1000);
        cl.tick(arb::monotonic_ns());
      }
      const char one = 1;
      (void)!write(results[1], &one, 1);
      for (int k = 0; k < 3; ++k) {
        ::usleep(1000);
        cl.tick(arb::monotonic_ns());
      }
      cl.unregister();
      _exit(0);
    }
    kids.push_back(pid);
  }
  close(go[0]);
  close(results[1]);
  close(go[1]);
  int registered = 0;
  char c;
  while (read(results[0], &c, 1) == 1) ++registered;
  close(results[0]);
  int failed = 0;
  for (pid_t k : kids) {
    int st = 0;
    EXPECT_EQ(waitpid(k, &st, 0), k);
    failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  EXPECT_EQ(registered, procs);
  EXPECT_EQ(failed, 0);
  // A job's unregister waits 1 ms for the mutex too, so a slot may be left: the next registration reaps
  // it (its process is gone).
  arb::client last(settings_for(name, 8));
  ASSERT_TRUE(last.register_job(1));
  const arb::segment_view v = look(name);
  EXPECT_TRUE(v.consistent);
  EXPECT_EQ(v.jobs.size(), 1u) << describe(name);
}

// The segment removed (shm_unlink) while jobs run: they kept the orphan, and the next job made a new
// segment at the name, so the machine had two tables that each shared all the cores. Jobs now compare
// the name's object with their own and rejoin the one at the name.
TEST(ArbiterHazards, JobsOfARemovedSegmentRejoinTheOneAtTheName) {
  slaw_test::watchdog dog("JobsOfARemovedSegment", "the jobs never met in one table", 120);
  scoped_name name;
  const arb::settings s = settings_for(name, 2);
  forked_job a(s, {2, 2.0}), b(s, {2, 2.0});
  ASSERT_TRUE(eventually([&] { return shows(name, {{a.pid(), 1}, {b.pid(), 1}}); })) << describe(name);
  ASSERT_TRUE(arb::remove_segment(name));
  forked_job c(s, {2, 2.0});
  auto pids = [&] {
    std::set<pid_t> p;
    for (const auto& j : look(name).jobs) p.insert(j.pid);
    return p;
  };
  EXPECT_TRUE(eventually([&] { return pids() == std::set<pid_t>{a.pid(), b.pid(), c.pid()}; })) << describe(name);
  std::uint32_t sum = 0;
  for (const auto& j : look(name).jobs) sum += j.allotment;
  EXPECT_LE(sum, 2u);
}

// Objects at the name that are not a segment of this user's: a FIFO (opening it for reading used to
// block), and a segment that other users may write. Jobs and slaw-top refuse both (test_top.cpp has
// slaw-top's side).
TEST(ArbiterHazards, AFifoOrASegmentOthersMayWriteIsRefused) {
  slaw_test::watchdog dog("AFifoOrASegmentOthersMayWrite", "opening the object hung", 60);
  {
    scoped_name name;
    ASSERT_EQ(::mkfifo(arb::shm_file(name).c_str(), 0600), 0);
    std::vector<std::string> warnings;
    arb::client_options opts;
    opts.warn = [&](const std::string& m) { warnings.push_back(m); };
    arb::client c(settings_for(name, 2), opts);
    EXPECT_FALSE(c.attached());
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(has(warnings[0], "not a regular file")) << warnings[0];
    const arb::attach_result r = arb::open_readonly(name);
    EXPECT_FALSE(r.map);
    EXPECT_TRUE(has(r.error, "not a regular file")) << r.error;
  }
  {
    scoped_name name;
    ASSERT_TRUE(arb::open_or_create(name, {}).map);  // created, then unmapped again
    ASSERT_EQ(::chmod(arb::shm_file(name).c_str(), 0622), 0);
    std::vector<std::string> warnings;
    arb::client_options opts;
    opts.warn = [&](const std::string& m) { warnings.push_back(m); };
    arb::client c(settings_for(name, 2), opts);
    EXPECT_FALSE(c.attached());
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(has(warnings[0], "other users may write it")) << warnings[0];
    const arb::attach_result ro = arb::open_readonly(name);
    EXPECT_FALSE(ro.map);
    EXPECT_TRUE(has(ro.error, "other users may write it")) << ro.error;
  }
}
