// spawn_loop [N]: one finish containing a flat loop of N escaping asyncs, each writing one element
// (out[i] = 3i + 1). Stresses spawn/complete overhead and a single wide finish; the result is checked.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "parse_arg.hpp"
#include "slaw/slaw.hpp"

slaw::task<> work(std::uint64_t i, std::uint64_t* out) {
  out[i] = i * 3 + 1;
  co_return;
}

slaw::task<> spawn_all(std::uint64_t n, std::uint64_t* out) {
  auto f = co_await slaw::start_finish();
  for (std::uint64_t i = 0; i < n; ++i) co_await slaw::async(work, i, out);
  co_await slaw::end_finish(f);
}

int main(int argc, char** argv) {
  long arg = 1000000;
  if (argc > 2 || (argc == 2 && !parse_arg(argv[1], 0, 100000000, &arg))) {
    std::fprintf(stderr, "usage: spawn_loop [N]   (N an integer in [0, 100000000], default 1000000)\n");
    return 2;
  }
  const auto n = static_cast<std::uint64_t>(arg);
  try {
    slaw::runtime rt{slaw::config::from_env()};
    std::vector<std::uint64_t> out(n);
    rt.run(spawn_all(n, out.data()));
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (out[i] != i * 3 + 1) {
        std::fprintf(stderr, "spawn_loop: WRONG out[%llu] = %llu, expected %llu\n", (unsigned long long)i,
                     (unsigned long long)out[i], (unsigned long long)(i * 3 + 1));
        return 1;
      }
      sum += out[i];
    }
    std::printf("%llu\n", (unsigned long long)sum);
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "spawn_loop: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // e.g. out of memory, worker threads that could not be started
    std::fprintf(stderr, "spawn_loop: %s\n", e.what());
    return 1;
  }
  return 0;
}
