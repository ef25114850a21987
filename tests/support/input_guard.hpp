// For the tests of unbounded inputs: before their fixes such inputs made the code allocate gigabytes
// or run for hours. Each such test runs under stress.hpp's watchdog (a hang aborts with a message) and
// under an address_space_limit, which turns a blow-up into std::bad_alloc, a failed test, instead of a
// swapping machine.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

#include "stress.hpp"  // slaw_test::watchdog, the sanitizer macros

namespace slaw_test {

// While it lives, the process may map at most `extra` bytes more than it has mapped now. Not under a
// sanitizer, whose shadow memory needs terabytes of address space.
class address_space_limit {
 public:
  explicit address_space_limit(unsigned long long extra) {
#if defined(SLAW_TEST_ASAN) || defined(SLAW_TEST_TSAN)
    (void)extra;
#else
    unsigned long long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    if (pages == 0 || getrlimit(RLIMIT_AS, &old_) != 0) return;
    rlimit lim = old_;
    lim.rlim_cur = pages * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE)) + extra;
    if (old_.rlim_cur != RLIM_INFINITY && old_.rlim_cur < lim.rlim_cur) return;
    set_ = setrlimit(RLIMIT_AS, &lim) == 0;
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

}  // namespace slaw_test
