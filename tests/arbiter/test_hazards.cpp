// The arbiter must never take a program down (docs/arbiter.md § When the segment is damaged): anything
// wrong with the segment means "run as if alone" with one warning. Each test here reproduces a way a
// program used to die or lose the arbiter for good:
//   * a /dev/shm too small or full for the segment (SIGBUS while it was written): a tmpfs of the test's
//     own, in a mount namespace of its own, so that the machine's /dev/shm is never filled;
//   * a file size limit (ulimit -f) below the segment's size (SIGXFSZ, and a 0-byte segment left behind);
//   * a FIFO at the name (a reader blocked on it), a segment other users may write.
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
