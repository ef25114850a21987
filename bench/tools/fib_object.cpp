// fib_object N: examples/fib with the parallel function written as a function object instead of a
// free function, the way libfork's fib must be written (a lambda). Same work, same runtime; only the
// compiler's view differs: clang inlines a function object's ramp (frame allocation and set-up) into
// its own resume function, and then runs a spawned child's body without leaving that function, which
// it does not do for a directly recursive free function (docs/design/fast_path.md, "The rules the fast path keeps").
// Used beside examples/fib by bench/scripts/fibnode_callgrind.sh and fib_side_by_side.py
// (bench/results/fastpath/). Prints fib(N) and exits 1 if it is wrong, 2 on bad arguments.
#include <cstdio>
#include <cstdlib>

#include "slaw/slaw.hpp"

namespace {

struct fib_fn {
  slaw::task<long> operator()(int n) const;
};
constexpr fib_fn fib{};

slaw::task<long> fib_fn::operator()(int n) const {
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

long fib_iterative(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const long t = a + b;
    a = b;
    b = t;
  }
  return a;
}

}  // namespace

// fib_object N [W]: W workers (default: SLAW_WORKERS, as for examples/fib), so that
// fib_side_by_side.py --other runs it as `fib_object N 1`.
int main(int argc, char** argv) {
  char* end_n = nullptr;
  char* end_w = nullptr;
  const long n = argc >= 2 ? std::strtol(argv[1], &end_n, 10) : -1;
  const long w = argc == 3 ? std::strtol(argv[2], &end_w, 10) : 0;
  if (argc < 2 || argc > 3 || *end_n != '\0' || n < 0 || n > 90 || (argc == 3 && (*end_w != '\0' || w < 1 || w > 4096))) {
    std::fprintf(stderr, "usage: fib_object N [W]   (N an integer in [0, 90], W workers in [1, 4096])\n");
    return 2;
  }
  try {
    slaw::config c = slaw::config::from_env();
    if (argc == 3) c.workers = static_cast<unsigned>(w);
    slaw::runtime rt{c};
    const long r = rt.run(fib(static_cast<int>(n)));
    std::printf("%ld\n", r);
    return r == fib_iterative(static_cast<int>(n)) ? 0 : 1;
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "fib_object: %s\n", e.what());
    return 2;
  }
}
