// Ctrl-C and SIGTERM in the driver: the handler only records the signal (an async-signal-safe store);
// the runner looks at interrupt_signal() between runs and while it waits for a child, stops starting
// runs, kills and reaps its children, and main writes what was measured and exits with 128 + signal, as
// shells do. A second signal while the first is being handled exits at once (same status).
//
// A terminal's Ctrl-C reaches the whole foreground process group, so the children die of SIGINT too; the
// runner checks interrupt_signal() after reaping a child before it calls the death a failure. That order
// is safe: the kernel queues the signal on every member of the group before any of them can be reaped,
// so once wait4 has returned a child killed that way, the driver's own handler has run.
#pragma once

#include <csignal>

namespace slawbench {

// Installs the handlers for SIGINT and SIGTERM (sigaction, no SA_RESTART, so a blocking read or poll
// returns EINTR and the waiting code can look at the flag).
void install_interrupt_handlers();

// 0, or the first SIGINT / SIGTERM received.
int interrupt_signal();

// Defers SIGINT and SIGTERM while it lives (writing the JSON: a second Ctrl-C must not leave half a
// file); a signal that came meanwhile is handled when it ends.
class interrupts_deferred {
 public:
  interrupts_deferred();
  ~interrupts_deferred();
  interrupts_deferred(const interrupts_deferred&) = delete;
  interrupts_deferred& operator=(const interrupts_deferred&) = delete;

 private:
  sigset_t old_;
};

}  // namespace slawbench
