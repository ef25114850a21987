// arbiter_idle_cpu [SECONDS]: the CPU time an idle slaw::runtime costs, arbiter included (its quantum
// thread), over SECONDS (default 3) after one small run. The runtime takes every setting from the
// environment (slaw::config::from_env), so the quantum is SLAW_QUANTUM_MS; use a private segment
// (SLAW_ARBITER_NAME=/...) so that no other job shares it. docs/design/multijob.md § What the quantum costs:
//   for q in 0.1 1 10; do SLAW_WORKERS=2 SLAW_QUANTUM_MS=$q SLAW_ARBITER_NAME=/idle-$$ build/tests/arbiter/arbiter_idle_cpu 3; done
// It prints one JSON object: the quantum, the idle seconds, the CPU seconds spent in them, that as a
// percentage of one core, and the idle quanta the runtime's stats counted.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>

#include "fib_job.hpp"
#include "slaw/slaw.hpp"

namespace {
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}
}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  if (!(seconds > 0 && seconds <= 600)) {
    std::fprintf(stderr, "usage: arbiter_idle_cpu [SECONDS in (0, 600]]\n");
    return 2;
  }
  try {
    slaw::runtime rt{slaw::config::from_env()};
    if (rt.run(arbiter_test::fib(20)) != arbiter_test::fib_serial(20)) return 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the workers park
    rt.reset_stats();
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - c0;
    const std::string j = rt.stats().arbiter_json;
    std::smatch m;
    const bool has = std::regex_search(j, m, std::regex("\"idle_quanta\":([0-9]+)"));
    const char* q = std::getenv("SLAW_QUANTUM_MS");
    std::printf("{\"quantum_ms\":\"%s\",\"idle_s\":%.3f,\"cpu_s\":%.6f,\"cpu_percent_of_one_core\":%.3f,\"idle_quanta\":%s}\n",
                q ? q : "default", wall, cpu, 100.0 * cpu / wall, has ? m[1].str().c_str() : "null");
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
