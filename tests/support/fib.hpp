// fib with a finish per node (one spawn and one call inside it): the small program the tracing and
// recording tests run.
#pragma once

#include "slaw/slaw.hpp"

namespace slaw_test {

inline slaw::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  long b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

}  // namespace slaw_test
