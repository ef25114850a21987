// ...and run from another (define.cpp). Built by the same compiler, the program prints the result; a
// GCC and a clang translation unit pass slaw::task differently (include/slaw/detail/codegen.hpp), and
// the program must then fail to link instead of crashing.
#include <cstdio>

#include "slaw/slaw.hpp"

slaw::task<long> triangle(int n);

int main() {
  slaw::config c;
  c.workers = 2;
  slaw::runtime rt{c};
  const long r = rt.run(triangle(100));
  std::printf("task ABI: triangle(100) = %ld\n", r);
  return r == 5050 ? 0 : 1;
}
