// Turns a hang into a failure: a program still running after its time limit gets its description (seed,
// configuration, how to rerun it) and every thread's stack printed, then the process aborts.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace rp {

class watchdog {
 public:
  static watchdog& instance();
  // Starts the clock for one program; if it runs out, `what` is printed and `details` called (on the
  // watchdog's thread, while the program hangs) before the stacks.
  void arm(const std::string& what, std::chrono::milliseconds limit, std::function<void()> details = {});
  void disarm();

  watchdog(const watchdog&) = delete;
  ~watchdog();

 private:
  watchdog();
  struct state;
  state* s_;
};

// Every thread's stack on stderr: gdb if it can attach (SLAW_RANDOM_GDB=0 skips it), else each thread
// prints its own backtrace from a signal handler.
void dump_all_stacks();

// The limit scaled for the build: sanitizer builds run several times slower.
std::chrono::milliseconds scaled_limit(double seconds);

}  // namespace rp
