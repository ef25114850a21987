#include "harness/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

extern char** environ;

namespace slawbench {

bool channel::send(const std::string& msg) {
  std::string framed = std::to_string(msg.size()) + "\n" + msg;
  for (std::size_t done = 0; done < framed.size();) {
    ssize_t n = ::write(out_, framed.data() + done, framed.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the reader is gone (the parent ignores SIGPIPE)
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> channel::receive() { return receive(nullptr, -1); }

std::optional<std::string> channel::receive(const std::function<bool()>& waiting, int period_ms) {
  auto fill = [&] {
    char tmp[4096];
    for (;;) {
      if (waiting) {
        pollfd p{in_, POLLIN, 0};
        int r = ::poll(&p, 1, period_ms);
        if (r <= 0) {  // a timeout, or EINTR (a signal)
          if (r < 0 && errno != EINTR) return false;
          if (!waiting()) return false;
          continue;
        }
      }
      ssize_t n = ::read(in_, tmp, sizeof tmp);
      if (n < 0 && errno == EINTR) {
        if (waiting && !waiting()) return false;
        continue;
      }
      if (n <= 0) return false;
      buf_.append(tmp, static_cast<std::size_t>(n));
      return true;
    }
  };
  std::size_t nl;
  while ((nl = buf_.find('\n')) == std::string::npos)
    if (!fill()) return std::nullopt;
  std::size_t len = std::stoul(buf_.substr(0, nl));
  while (buf_.size() < nl + 1 + len)
    if (!fill()) return std::nullopt;
  std::string msg = buf_.substr(nl + 1, len);
  buf_.erase(0, nl + 1 + len);
  return msg;
}

void channel::close_out() {
  if (out_ >= 0) ::close(out_);
  out_ = -1;
}

void channel::close() {
  close_out();
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

std::string exit_status::describe() const {
  if (exited) return "exited with status " + std::to_string(code);
  if (signal == 0) return "could not be waited for";
  const char* abbrev = sigabbrev_np(signal);
  return "killed by signal " + std::to_string(signal) + " (" + (abbrev ? std::string("SIG") + abbrev + ", " : "") +
         strsignal(signal) + ")";
}

child_process::child_process(const std::vector<std::string>& args, const std::vector<std::string>& env_defaults) {
  int cmd[2], reply[2];  // parent -> child, child -> parent
  if (::pipe2(cmd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + strerror(errno));
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    ::close(cmd[0]);
    ::close(cmd[1]);
    throw std::runtime_error(std::string("pipe2: ") + strerror(errno));
  }
  // Only the child's two ends survive the exec; the parent's ends stay close-on-exec, so that a sibling
  // started later does not hold them open (the child would never see end of file).
  ::fcntl(cmd[0], F_SETFD, 0);
  ::fcntl(reply[1], F_SETFD, 0);

  std::vector<std::string> argv_s = {"slaw-bench"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  argv_s.push_back("--child");
  argv_s.push_back(std::to_string(cmd[0]) + "," + std::to_string(reply[1]));
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  // The parent ignores SIGPIPE (a dead child must not kill it); the child gets the default back.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &def);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> extra;
  for (const std::string& kv : env_defaults)
    if (!std::getenv(kv.substr(0, kv.find('=')).c_str())) extra.push_back(kv);
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e) envp.push_back(*e);
  for (auto& kv : extra) envp.push_back(kv.data());
  envp.push_back(nullptr);
  int rc = posix_spawn(&pid_, "/proc/self/exe", nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  ::close(cmd[0]);
  ::close(reply[1]);
  if (rc != 0) {
    ::close(cmd[1]);
    ::close(reply[0]);
    throw std::runtime_error(std::string("cannot start /proc/self/exe: ") + strerror(rc));
  }
  link_.open(reply[0], cmd[1]);
}

exit_status child_process::finish() {
  if (status_) return *status_;
  link_.close_out();
  exit_status s;
  int st = 0;
  rusage ru{};
  pid_t r;
  while ((r = ::wait4(pid_, &st, 0, &ru)) < 0 && errno == EINTR) {
  }
  link_.close();
  if (r == pid_) {
    s.exited = WIFEXITED(st);
    s.code = s.exited ? WEXITSTATUS(st) : 0;
    s.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    s.maxrss_kb = ru.ru_maxrss;  // KiB on Linux
  } else {
    s.code = -1;
  }
  status_ = s;
  return s;
}

exit_status child_process::kill() {
  if (!status_) ::kill(pid_, SIGKILL);
  return finish();
}

child_process::~child_process() {
  if (!status_) kill();
}

}  // namespace slawbench
