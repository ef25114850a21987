// The work of the arbiter's runtime tests: fib with one async and one call per node, and its check.
#pragma once

#include "slaw/slaw.hpp"

namespace arbiter_test {

inline slaw::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = 0, b = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

inline long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

}  // namespace arbiter_test
