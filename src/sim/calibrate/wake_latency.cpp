// Calibration of the simulator's `wake` and `wake_call` costs (docs/simulation.md, "Costs"): how long
// a thread sleeping on a futex takes to run after another thread wakes it, and what the waking system
// call costs the waker. usage: sim_wake_latency [WAKES]
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

std::atomic<std::uint32_t> word{0};
std::atomic<long> stamp{0};

long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (n < 10) {
    std::fprintf(stderr, "sim_wake_latency: WAKES='%s': expected an integer >= 10\n", argv[1]);
    return 2;
  }
  std::vector<long> lat;
  lat.reserve(n);
  std::atomic<int> ready{0};
  std::thread sleeper([&] {
    for (int i = 0; i < n; i++) {
      std::uint32_t e = word.load();
      ready.store(i + 1);
      while (word.load() == e) syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, e, nullptr, nullptr, 0);
      lat.push_back(now_ns() - stamp.load());
    }
  });
  for (int i = 0; i < n; i++) {
    while (ready.load() != i + 1) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the sleeper reach the futex
    stamp.store(now_ns());
    word.fetch_add(1);
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  sleeper.join();
  std::sort(lat.begin(), lat.end());
  std::printf("futex wake-to-run latency over %d wakes: min %ld ns, median %ld ns, p90 %ld ns\n", n, lat[0], lat[n / 2],
              lat[n * 9 / 10]);
  const long t0 = now_ns();
  const int calls = 100000;
  for (int i = 0; i < calls; i++) syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  std::printf("futex_wake system call (no sleeper): %.1f ns\n", static_cast<double>(now_ns() - t0) / calls);
  return 0;
}
