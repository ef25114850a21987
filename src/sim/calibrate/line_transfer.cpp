// Calibration of the simulator's `line` cost (docs/simulation.md, "Costs"): the time one cache line
// takes to move from one core to another, as a thief's probe moves a victim's deque line, or an arrival
// moves a finish counter. Two threads pass a token in one line: each waits until the counter is its
// turn, then increments it; a round trip is two transfers. Short runs, many of them: on a shared machine a
// run in which the host took one thread's core away measures that instead, so the low decile is the
// figure (with the median beside it).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace {
alignas(64) std::atomic<long> token{0};

void player(long parity, long rounds) {
  for (long i = 0; i < rounds; ++i) {
    const long want = 2 * i + parity;
    while (token.load(std::memory_order_acquire) != want) {
    }
    token.store(want + 1, std::memory_order_release);
  }
}
}  // namespace

int main() {
  if (std::thread::hardware_concurrency() < 2) {
    std::puts("needs two cores");
    return 1;
  }
  const long rounds = 20000;
  std::vector<double> ns;
  for (int run = 0; run < 60; ++run) {
    token.store(0);
    const auto t0 = std::chrono::steady_clock::now();
    std::thread a(player, 0, rounds), b(player, 1, rounds);
    a.join();
    b.join();
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / (2.0 * rounds));
  }
  std::sort(ns.begin(), ns.end());
  std::printf("one cache-line transfer between two cores: %.1f ns (low decile of 60 runs; min %.1f, median %.1f)\n",
              ns[6], ns[0], ns[30]);
  return 0;
}
