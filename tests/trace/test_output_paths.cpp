// The runtime's output files, SLAW_STATS=PATH, SLAW_TRACE=timeline:PATH and SLAW_RECORD=PATH
// (docs/guide/tracing.md, "Output files"): none ever removes, replaces or follows what the runtime did not
// create, and a write that fails is reported with the path and the reason, and a non-zero exit status.
//
// Each case runs a small program in a child process (fork), as a user's program runs: it builds a
// runtime with the output, runs fib, and ends the runtime by its destructor (or by close(), catching
// output_error). A config_error makes it print the message and exit with status 2, as the examples
// do; output_error from close() exits with 3. The parent checks the exit status, the child's stderr
// and what is left at the path. A child that has not ended after 30 s is killed, which fails the case
// (a runtime waiting forever for a FIFO's reader).
//
// The device-full case makes its own device node when it runs as root (the real /dev/full is only
// ever written to, by an unprivileged run, which could not remove it anyway).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/fib.hpp"
#include "dag/dag_reader.hpp"
#include "slaw/slaw.hpp"

namespace {

namespace fs = std::filesystem;

using slaw_test::fib;

// One of the three outputs: how a config names it, and whether bytes are what it writes.
struct output {
  const char* var;
  void (*set)(slaw::config&, const std::string&);
  bool (*valid)(const std::string&);
};

const std::vector<output>& outputs() {
  static const std::vector<output> all = {
      {"SLAW_STATS",
       [](slaw::config& c, const std::string& p) {
         c.stats = slaw::stats_output::file;
         c.stats_path = p;
       },
       [](const std::string& b) { return !b.empty() && b[0] == '{' && b.find("\"per_worker\"") != std::string::npos; }},
      {"SLAW_TRACE",
       [](slaw::config& c, const std::string& p) {
         c.timeline_path = p;
         c.timeline_events = 4096;
       },
       [](const std::string& b) { return b.find("\"traceEvents\"") != std::string::npos; }},
      {"SLAW_RECORD", [](slaw::config& c, const std::string& p) { c.record_path = p; },
       [](const std::string& b) {
         try {
           (void)slaw::dag::parse_dag(std::vector<std::uint8_t>(b.begin(), b.end()), "the output");
           return true;
         } catch (const std::invalid_argument&) {
           return false;
         }
       }},
  };
  return all;
}

enum class ending { destructor, close };

struct outcome {
  int status = -1;     // the exit status; -N for signal N
  std::string err;     // the child's stderr
  std::string data;    // what the parent read from `reader`, if given
  bool hung = false;   // killed after the deadline
};

// Runs the program in a child; `reader` (optional) is a descriptor the parent drains meanwhile (the
// read end of a pipe or FIFO the child writes to), closed in the child; `writer` (optional) is the
// pipe's write end, which only the child keeps.
outcome run_child(const output& o, const std::string& path, ending how, int reader = -1, int writer = -1) {
  outcome r;
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return r;
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(err_pipe[1], 2);
    if (reader >= 0) ::close(reader);
    int code = 0;
    try {
      slaw::config cfg;
      cfg.workers = 2;
      o.set(cfg, path);
      slaw::runtime rt(cfg);
      if (rt.run(fib(15)) != 610) code = 4;
      if (how == ending::close) rt.close();
    } catch (const slaw::config_error& e) {
      std::fprintf(stderr, "config_error: %s\n", e.what());
      code = 2;
    } catch (const slaw::output_error& e) {
      std::fprintf(stderr, "output_error: %s\n", e.what());
      code = 3;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "exception: %s\n", e.what());
      code = 1;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  ::close(err_pipe[1]);
  if (writer >= 0) ::close(writer);
  if (child < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    ::close(err_pipe[0]);
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool err_open = true, reader_open = reader >= 0;
  int status = 0;
  bool exited = false;
  char buf[65536];
  while (err_open || reader_open || !exited) {
    if (!exited && ::waitpid(child, &status, WNOHANG) == child) exited = true;
    if (std::chrono::steady_clock::now() > deadline) {
      r.hung = true;
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      exited = true;
      break;
    }
    pollfd fds[2] = {{err_open ? err_pipe[0] : -1, POLLIN, 0}, {reader_open ? reader : -1, POLLIN, 0}};
    if (::poll(fds, 2, 50) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) (i == 0 ? r.err : r.data).append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EAGAIN) (i == 0 ? err_open : reader_open) = false;
    }
  }
  ::close(err_pipe[0]);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
  return r;
}

std::string describe(const output& o, ending how, const outcome& r) {
  return std::string(o.var) + (how == ending::close ? ", ended by close()" : ", ended by the destructor") +
         ": status " + std::to_string(r.status) + (r.hung ? " (killed: it hung)" : "") + ", stderr:\n" + r.err;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// A directory of the test's own, removed with everything in it at the end.
struct scratch {
  fs::path dir;
  scratch() {
    std::string t = ::testing::TempDir() + "slaw_outputs_XXXXXX";
    if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
    dir = t;
  }
  ~scratch() {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

struct stat stat_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) st.st_mode = 0;  // gone
  return st;
}

constexpr ending both[] = {ending::destructor, ending::close};

}  // namespace

// A device whose writes fail (ENOSPC): reported with the path and the reason, status 1 from the
// destructor (3: close() threw output_error), and the device node is still there. The recorder used
// to remove the path when its write failed (as root: /dev/full itself), with status 0; the counters
// and the trace were lost with status 0.
TEST(OutputPaths, FullDeviceFailsWithANonZeroStatusAndStaysADevice) {
  scratch s;
  std::string path = "/dev/full";
  if (::geteuid() == 0) {
    path = s / "full";
    ASSERT_EQ(::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 7)), 0) << std::strerror(errno);
  } else if (::access("/dev/full", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/full";
  }
  const struct stat before = stat_of(path);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  for (const output& o : outputs())
    for (ending how : both) {
      const outcome r = run_child(o, path, how);
      EXPECT_EQ(r.status, how == ending::close ? 3 : 1) << describe(o, how, r);
      EXPECT_TRUE(has(r.err, std::string(o.var) + "=") || has(r.err, std::string(o.var) + "='")) << describe(o, how, r);
      EXPECT_TRUE(has(r.err, "'" + path + "'")) << describe(o, how, r);
      EXPECT_TRUE(has(r.err, "No space left on device")) << describe(o, how, r);
      const struct stat after = stat_of(path);
      EXPECT_TRUE(S_ISCHR(after.st_mode)) << describe(o, how, r);
      EXPECT_EQ(after.st_ino, before.st_ino) << describe(o, how, r);
      EXPECT_EQ(after.st_rdev, before.st_rdev) << describe(o, how, r);
    }
}

// A symbolic link is not followed: refused when the runtime is built (status 2), the link and the file
// it points to unchanged; a dangling link does not create its target.
TEST(OutputPaths, SymbolicLinkIsRefusedAndNeitherItNorItsTargetChanges) {
  scratch s;
  const std::string target = s / "precious.txt", link = s / "link", dangling = s / "dangling", absent = s / "absent";
  write_file(target, "precious\n");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ASSERT_EQ(::symlink(absent.c_str(), dangling.c_str()), 0);
  const struct stat before = stat_of(target);
  for (const output& o : outputs())
    for (const std::string& path : {link, dangling}) {
      const outcome r = run_child(o, path, ending::destructor);
      EXPECT_EQ(r.status, 2) << describe(o, ending::destructor, r);
      EXPECT_TRUE(has(r.err, std::string(o.var))) << describe(o, ending::destructor, r);
      EXPECT_TRUE(has(r.err, "'" + path + "'")) << describe(o, ending::destructor, r);
      EXPECT_TRUE(has(r.err, "symbolic link")) << describe(o, ending::destructor, r);
      EXPECT_TRUE(S_ISLNK(stat_of(path).st_mode)) << path;
    }
  EXPECT_EQ(read_all(target), "precious\n");
  EXPECT_EQ(stat_of(target).st_ino, before.st_ino);
  EXPECT_EQ(fs::read_symlink(link).string(), target);
  EXPECT_FALSE(fs::exists(fs::symlink_status(absent))) << "the dangling link's target was created";
}

// A FIFO nobody reads: refused when the runtime is built (status 2), instead of waiting forever; the
// FIFO stays.
TEST(OutputPaths, FifoWithoutAReaderIsRefused) {
  scratch s;
  const std::string path = s / "fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0666), 0);
  const struct stat before = stat_of(path);
  for (const output& o : outputs()) {
    const outcome r = run_child(o, path, ending::destructor);
    EXPECT_EQ(r.status, 2) << describe(o, ending::destructor, r);
    EXPECT_TRUE(has(r.err, "'" + path + "'")) << describe(o, ending::destructor, r);
    EXPECT_TRUE(has(r.err, "FIFO")) << describe(o, ending::destructor, r);
    EXPECT_TRUE(S_ISFIFO(stat_of(path).st_mode));
    EXPECT_EQ(stat_of(path).st_ino, before.st_ino);
  }
}

// A FIFO with a reader gets the whole output, once, at the end; it stays a FIFO.
TEST(OutputPaths, FifoWithAReaderGetsTheOutput) {
  scratch s;
  const std::string path = s / "fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0666), 0);
  for (const output& o : outputs()) {
    const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ASSERT_GE(reader, 0) << std::strerror(errno);
    const outcome r = run_child(o, path, ending::destructor, reader);
    ::close(reader);
    EXPECT_EQ(r.status, 0) << describe(o, ending::destructor, r);
    EXPECT_TRUE(o.valid(r.data)) << describe(o, ending::destructor, r) << "\nread " << r.data.size() << " bytes";
    EXPECT_TRUE(S_ISFIFO(stat_of(path).st_mode));
  }
}

// An existing regular file is overwritten in place, as `>` does: the same inode (a hard link to it
// sees the output), nothing renamed over it.
TEST(OutputPaths, ExistingFileIsOverwrittenInPlace) {
  scratch s;
  for (const output& o : outputs())
    for (ending how : both) {
      const std::string path = s / "out", other = s / "hard_link";
      std::string old;
      while (old.size() < 100000) old += "OLD CONTENT\n";  // longer than the counters: the rest must go
      write_file(path, old);
      ASSERT_EQ(::link(path.c_str(), other.c_str()), 0);
      const struct stat before = stat_of(path);
      const outcome r = run_child(o, path, how);
      EXPECT_EQ(r.status, 0) << describe(o, how, r);
      EXPECT_EQ(stat_of(path).st_ino, before.st_ino) << describe(o, how, r);
      const std::string written = read_all(path);
      EXPECT_TRUE(o.valid(written)) << describe(o, how, r);
      EXPECT_FALSE(has(written, "OLD CONTENT")) << describe(o, how, r);
      EXPECT_EQ(read_all(other), written);
      fs::remove(path);
      fs::remove(other);
    }
}

// A directory: refused when the runtime is built (status 2); it keeps what it holds.
TEST(OutputPaths, DirectoryIsRefused) {
  scratch s;
  const std::string dir = s / "dir";
  fs::create_directory(dir);
  write_file(dir + "/kept", "kept\n");
  for (const output& o : outputs()) {
    const outcome r = run_child(o, dir, ending::destructor);
    EXPECT_EQ(r.status, 2) << describe(o, ending::destructor, r);
    EXPECT_TRUE(has(r.err, "'" + dir + "'")) << describe(o, ending::destructor, r);
    EXPECT_TRUE(has(r.err, "directory")) << describe(o, ending::destructor, r);
    EXPECT_TRUE(fs::is_directory(dir));
    EXPECT_EQ(read_all(dir + "/kept"), "kept\n");
  }
}

// A place where no file can be made (a read-only directory; as root, which ignores the mode, sysfs):
// refused when the runtime is built (status 2), nothing made.
TEST(OutputPaths, UnwritablePlaceIsRefused) {
  scratch s;
  std::string path;
  if (::geteuid() == 0) {
    path = "/sys/slaw_output_test_" + std::to_string(::getpid());
  } else {
    fs::create_directory(s / "ro");
    fs::permissions(s / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    path = s / "ro/out";
  }
  for (const output& o : outputs()) {
    const outcome r = run_child(o, path, ending::destructor);
    EXPECT_EQ(r.status, 2) << describe(o, ending::destructor, r);
    EXPECT_TRUE(has(r.err, std::string(o.var))) << describe(o, ending::destructor, r);
    EXPECT_TRUE(has(r.err, "'" + path + "'")) << describe(o, ending::destructor, r);
    EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
  }
}

// A file that opens but refuses writes (procfs): the failure is reported with the path, status 1
// (or 2 where it cannot even be opened, without root); the counters used to be lost with status 0.
TEST(OutputPaths, FileThatRefusesWritesIsReported) {
  const std::string path = "/proc/self/status";
  for (const output& o : outputs())
    for (ending how : both) {
      const outcome r = run_child(o, path, how);
      EXPECT_NE(r.status, 0) << describe(o, how, r);
      EXPECT_FALSE(r.hung) << describe(o, how, r);
      EXPECT_TRUE(has(r.err, "'" + path + "'")) << describe(o, how, r);
    }
}

// /dev/fd/N and /dev/stderr are this process's descriptors: the output goes there (these links are
// the only ones taken, and they are not looked up).
TEST(OutputPaths, DescriptorPathsWriteToTheDescriptor) {
  for (const output& o : outputs()) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    ::fcntl(p[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(p[0], F_SETFL, O_NONBLOCK);
    const std::string path = "/dev/fd/" + std::to_string(p[1]);
    // The child writes to p[1]; the parent closes its copy, so that the reader sees the end.
    const outcome r = run_child(o, path, ending::close, p[0], p[1]);
    ::close(p[0]);
    EXPECT_EQ(r.status, 0) << describe(o, ending::close, r);
    EXPECT_TRUE(o.valid(r.data)) << describe(o, ending::close, r) << "\nread " << r.data.size() << " bytes";
  }
  for (const output& o : outputs()) {
    const outcome r = run_child(o, "/dev/stderr", ending::destructor);
    EXPECT_EQ(r.status, 0) << describe(o, ending::destructor, r);
    if (std::string(o.var) != "SLAW_RECORD") EXPECT_TRUE(o.valid(r.err.substr(r.err.find_first_of("{")))) << r.err;
    else EXPECT_TRUE(has(r.err, "SLAWDAG")) << describe(o, ending::destructor, r);
  }
  // A descriptor that is not open is refused by name.
  const outcome r = run_child(outputs()[0], "/dev/fd/999", ending::destructor);
  EXPECT_EQ(r.status, 2) << describe(outputs()[0], ending::destructor, r);
  EXPECT_TRUE(has(r.err, "descriptor 999")) << r.err;
}

// close(): ends the runtime once (a second call does nothing), run() afterwards is refused, the
// counters can still be read; the destructor then does nothing more.
TEST(OutputPaths, CloseEndsTheRuntimeOnce) {
  scratch s;
  slaw::config cfg;
  cfg.workers = 2;
  cfg.stats = slaw::stats_output::file;
  cfg.stats_path = s / "stats.json";
  slaw::runtime rt(cfg);
  EXPECT_EQ(rt.run(fib(10)), 55);
  rt.close();
  EXPECT_TRUE(outputs()[0].valid(read_all(cfg.stats_path)));
  rt.close();
  EXPECT_THROW(rt.run(fib(3)), std::logic_error);
  EXPECT_GT(rt.stats().total.spawns_wf + rt.stats().total.spawns_hf, 0u);
}
