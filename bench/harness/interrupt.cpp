#include "harness/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

namespace slawbench {

namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void on_interrupt(int sig) {
  if (received) _exit(128 + sig);  // the second one: the user does not want to wait for the clean-up
  received = sig;
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return received; }

interrupts_deferred::interrupts_deferred() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigprocmask(SIG_BLOCK, &s, &old_);
}

interrupts_deferred::~interrupts_deferred() { sigprocmask(SIG_SETMASK, &old_, nullptr); }

}  // namespace slawbench
