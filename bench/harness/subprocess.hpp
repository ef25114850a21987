// Re-executing slaw-bench as a child process connected by a pair of pipes. The driver measures every
// configuration in a process of its own, so that a configuration's peak RSS is its own: memory an
// earlier benchmark freed but the process kept (the C library's heap, the runtime's frame chunks) would
// otherwise stay resident and count again.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace slawbench {

// Framed messages over two pipe ends: a message is its length in decimal, a newline, then its bytes.
class channel {
 public:
  channel() = default;
  channel(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {}
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;
  ~channel() { close(); }

  bool send(const std::string& msg);     // false: the other side is gone
  std::optional<std::string> receive();  // nullopt: end of file (the other side closed or died)
  // The same, calling `waiting` every `period_ms` while nothing arrives and whenever a signal interrupts
  // the wait; nullopt also when `waiting` returns false (the driver's Ctrl-C, its live progress line).
  std::optional<std::string> receive(const std::function<bool()>& waiting, int period_ms);
  void close_out();                      // the other side's receive() then sees end of file
  void close();
  void open(int in_fd, int out_fd) {
    close();
    in_ = in_fd;
    out_ = out_fd;
    buf_.clear();
  }

 private:
  int in_ = -1, out_ = -1;
  std::string buf_;  // bytes read but not yet returned
};

// How a child ended.
struct exit_status {
  bool exited = false;   // exited normally with `code`; otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  long maxrss_kb = -1;   // the child's peak resident set over its whole life (wait4's ru_maxrss)
  bool ok() const { return exited && code == 0; }
  std::string describe() const;  // "exited with status 3", "killed by signal 11 (SIGSEGV, Segmentation fault)"
};

// This program (/proc/self/exe) started again with `args` plus "--child IN_FD,OUT_FD", its commands
// coming from the parent's link() and its replies going back to it.
class child_process {
 public:
  // `env_defaults` ("NAME=value"): set in the child's environment unless the parent's has NAME.
  explicit child_process(const std::vector<std::string>& args,
                         const std::vector<std::string>& env_defaults = {});  // throws std::runtime_error
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();

  channel& link() { return link_; }
  pid_t pid() const { return pid_; }
  // Closes the link (the child sees end of file and should exit) and waits for the child.
  exit_status finish();
  // Kills the child (SIGKILL: it may be in the middle of a long run) and waits for it.
  exit_status kill();

 private:
  pid_t pid_ = -1;
  channel link_;
  std::optional<exit_status> status_;
};

}  // namespace slawbench
