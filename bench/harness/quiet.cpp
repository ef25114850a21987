#include "harness/quiet.hpp"

#include <dirent.h>

#include <cstdio>
#include <string>
#include <thread>

namespace slawbench {

long long process_cpu_ns(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(tasks.c_str());
  if (!d) return 0;
  long long sum = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::FILE* f = std::fopen((tasks + "/" + e->d_name + "/schedstat").c_str(), "r");
    if (!f) continue;  // the thread just ended
    long long on_cpu = 0;
    if (std::fscanf(f, "%lld", &on_cpu) == 1) sum += on_cpu;
    std::fclose(f);
  }
  closedir(d);
  return sum;
}

quiet_wait wait_until_quiet(const std::vector<pid_t>& pids, std::chrono::milliseconds window, double busy_fraction,
                            std::chrono::milliseconds limit) {
  using clock = std::chrono::steady_clock;
  auto total = [&] {
    long long s = 0;
    for (pid_t p : pids) s += process_cpu_ns(p);
    return s;
  };
  const auto start = clock::now();
  const auto allowed = static_cast<long long>(busy_fraction * std::chrono::nanoseconds(window).count());
  long long before = total();
  for (;;) {
    std::this_thread::sleep_for(window);
    const long long now = total();
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
    if (now - before <= allowed) return {waited, true};
    if (waited >= limit) return {waited, false};
    before = now;
  }
}

}  // namespace slawbench
