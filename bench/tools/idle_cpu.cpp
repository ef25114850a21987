// idle_cpu [WORKERS] [SECONDS]: CPU time a runtime uses while idle, after one run (parked workers).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "slaw/slaw.hpp"

static double cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static slaw::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

int main(int argc, char** argv) {
  int workers = argc > 1 ? std::atoi(argv[1]) : 2;
  double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
  if (workers < 1 || workers > 4096 || !(seconds > 0 && seconds <= 600)) {
    std::fprintf(stderr, "usage: idle_cpu [WORKERS in 1..4096] [SECONDS in (0, 600]]\n");
    return 2;
  }
  slaw::config c;
  c.workers = static_cast<unsigned>(workers);
  slaw::runtime rt(c);
  rt.run(fib(25));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let the workers park
  double c0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = cpu_seconds() - c0;
  std::printf("{\"workers\":%d,\"idle_wall_s\":%.3f,\"idle_cpu_s\":%.6f,\"cpu_percent_of_one_core\":%.3f}\n", workers,
              wall, cpu, 100.0 * cpu / wall);
  return 0;
}
