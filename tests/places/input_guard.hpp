// Guards for the tests of unbounded inputs: before their fixes these inputs made the code allocate
// gigabytes or run for hours, so each such test runs under a watchdog and a limit on the address space,
// which turn a hang or a blow-up into a failure instead of a stuck or swapping machine.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace places_test {

// While it lives, the process may map at most `extra` bytes more than it has mapped now: an allocation
// beyond throws std::bad_alloc. Not under a sanitizer, whose shadow memory needs terabytes of address
// space.
class address_space_limit {
 public:
  explicit address_space_limit(unsigned long long extra) {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return;
#endif
#endif
    unsigned long long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    if (pages == 0 || getrlimit(RLIMIT_AS, &old_) != 0) return;
    rlimit lim = old_;
    lim.rlim_cur = pages * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE)) + extra;
    if (old_.rlim_cur != RLIM_INFINITY && old_.rlim_cur < lim.rlim_cur) return;
    set_ = setrlimit(RLIMIT_AS, &lim) == 0;
#else
    (void)extra;
#endif
  }
  ~address_space_limit() {
    if (set_) setrlimit(RLIMIT_AS, &old_);
  }
  address_space_limit(const address_space_limit&) = delete;
  address_space_limit& operator=(const address_space_limit&) = delete;

 private:
  rlimit old_{};
  bool set_ = false;
};

// While it lives, the process is killed (SIGALRM) if it runs `seconds` more: a hang is a failure even
// when the test is run without ctest's timeout.
class watchdog {
 public:
  explicit watchdog(unsigned seconds) { alarm(seconds); }
  ~watchdog() { alarm(0); }
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
};

}  // namespace places_test
