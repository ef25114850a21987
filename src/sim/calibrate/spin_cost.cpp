// Calibration of the simulator's `spin` cost (docs/simulation.md, "Costs"): the pause loop an idle
// worker runs between two fruitless steal rounds (worker::find_work: 32 cpu_relax(), i.e. `pause`).
#include <chrono>
#include <cstdio>

int main() {
  const int loops = 1000000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < loops; i++)
    for (int k = 0; k < 32; k++) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("32 pause instructions: %.1f ns\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / loops);
  return 0;
}
