// fib N: two-way recursive Fibonacci with no cut-off, one finish per call (HJ Fig 4.5 shape).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "parse_arg.hpp"
#include "slaw/slaw.hpp"

slaw::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

static long fib_iterative(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long t = a + b;
    a = b;
    b = t;
  }
  return a;
}

int main(int argc, char** argv) {
  long n = 30;
  if (argc > 2 || (argc == 2 && !parse_arg(argv[1], 0, 90, &n))) {
    std::fprintf(stderr, "usage: fib [N]   (N an integer in [0, 90], default 30)\n");
    return 2;
  }
  try {
    slaw::runtime rt{slaw::config::from_env()};
    long r = rt.run(fib(static_cast<int>(n)));
    std::printf("%ld\n", r);
    if (r != fib_iterative(static_cast<int>(n))) {
      std::fprintf(stderr, "fib: WRONG result, expected %ld\n", fib_iterative(static_cast<int>(n)));
      return 1;
    }
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "fib: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // e.g. worker threads that could not be started
    std::fprintf(stderr, "fib: %s\n", e.what());
    return 1;
  }
  return 0;
}
