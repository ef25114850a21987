// tests/package/check.sh, "task ABI": a parallel function defined in one translation unit...
#include "slaw/slaw.hpp"

slaw::task<long> triangle(int n) {
  if (n == 0) co_return 0;
  long below = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&below, triangle, n - 1);
  co_await slaw::end_finish(f);
  co_return below + n;
}
