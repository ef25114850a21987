#include "arbiter/process_identity.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace slaw::arbiter {

namespace {

// The first line of a /proc file with plain read(2): no stdio, as this runs once per job per quantum.
bool read_small(const char* path, std::string& out) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n;
  do n = ::read(fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return false;
  out.assign(buf, static_cast<std::size_t>(n));
  return true;
}

std::uint64_t ns_inode(pid_t pid) {
  struct stat st {};
  const std::string path = pid == 0 ? "/proc/self/ns/pid" : "/proc/" + std::to_string(pid) + "/ns/pid";
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_ino) : 0;
}

}  // namespace

bool parse_proc_stat(const std::string& line, proc_stat& out) {
  const std::size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  // After ") " come field 3 (state), 4, 5, ...: field 22 is the 20th of them.
  const char* p = line.c_str() + close + 1;
  int field = 2;
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p || *p == '\n') break;
    ++field;
    const char* tok = p;
    while (*p && *p != ' ' && *p != '\n') ++p;
    if (field == 3) out.state = *tok;
    if (field == 22) {
      char* end = nullptr;
      out.start_time = std::strtoull(tok, &end, 10);
      return end == p;
    }
  }
  return false;
}

process_identity own_identity() {
  process_identity me;
  me.pid = ::getpid();
  std::string line;
  proc_stat st;
  if (read_small("/proc/self/stat", line) && parse_proc_stat(line, st)) me.start_time = st.start_time;
  me.pid_ns = ns_inode(0);
  return me;
}

liveness check_liveness(const process_identity& who, std::uint64_t own_ns) {
  if (who.pid <= 0) return liveness::gone;
  // A pid of another namespace names a different process here (or none): only the heartbeat can tell.
  if (who.pid_ns != 0 && own_ns != 0 && who.pid_ns != own_ns) return liveness::unknown;
  std::string line;
  const std::string path = "/proc/" + std::to_string(who.pid) + "/stat";
  if (!read_small(path.c_str(), line)) {
    if (errno == ENOENT || errno == ESRCH) return liveness::gone;
    return liveness::unknown;
  }
  proc_stat st;
  if (!parse_proc_stat(line, st)) return liveness::unknown;
  // A killed child whose parent has not waited for it is a zombie: it no longer runs.
  if (st.state == 'Z' || st.state == 'X') return liveness::gone;
  if (who.start_time != 0 && st.start_time != who.start_time) return liveness::reused;
  return liveness::alive;
}

std::string own_command() { return program_invocation_short_name ? program_invocation_short_name : "?"; }

}  // namespace slaw::arbiter
