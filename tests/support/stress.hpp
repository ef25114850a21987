// What the stress tests share: the sanitizer a build runs under, the SLAW_TEST_SCALE iteration factor,
// a small seeded PRNG, and a scoped environment variable.
//
// SLAW_TEST_SCALE is a positive number (default 1; ThreadSanitizer builds default to 0.2,
// AddressSanitizer builds to 0.25); CI raises it (.ci/run).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#if defined(__SANITIZE_THREAD__)
#define SLAW_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLAW_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SLAW_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAW_TEST_ASAN 1
#endif
#endif

namespace slaw_test {

inline double test_scale() {
  static const double s = [] {
    if (const char* env = std::getenv("SLAW_TEST_SCALE")) {
      double v = std::strtod(env, nullptr);
      if (v > 0) return v;
    }
#if defined(SLAW_TEST_TSAN)
    return 0.2;
#elif defined(SLAW_TEST_ASAN)
    return 0.25;
#else
    return 1.0;
#endif
  }();
  return s;
}

// `base` iterations scaled, at least `at_least`.
inline std::uint64_t scaled(std::uint64_t base, std::uint64_t at_least) {
  auto v = static_cast<std::uint64_t>(static_cast<double>(base) * test_scale());
  return std::max(v, at_least);
}

// SplitMix64's finaliser: a well-mixed 64-bit value from any seed (stateless, for deriving decisions
// from a program's seed and a position in it).
inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct xorshift {
  std::uint64_t s;
  explicit xorshift(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {
    if (s == 0) s = 1;
  }
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }
};

// A broken concurrent structure tends to hang rather than fail: past `seconds`, print "<what> did not
// finish within N s: <why>" and abort, instead of waiting for the ctest timeout.
class watchdog {
 public:
  watchdog(std::string what, std::string why, int seconds)
      : th_([this, what = std::move(what), why = std::move(why), seconds] {
          std::unique_lock<std::mutex> lk(m_);
          if (!cv_.wait_for(lk, std::chrono::seconds(seconds), [this] { return done_; })) {
            std::fprintf(stderr, "%s did not finish within %d s: %s\n", what.c_str(), seconds, why.c_str());
            std::fflush(stderr);
            std::abort();
          }
        }) {}
  ~watchdog() {
    {
      std::lock_guard<std::mutex> lk(m_);
      done_ = true;
    }
    cv_.notify_one();
    th_.join();
  }
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread th_;  // last: it starts in the constructor and uses the members above
};

// Sets an environment variable for a scope (tests of config::from_env).
struct env_guard {
  const char* name;
  env_guard(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~env_guard() { unsetenv(name); }
  env_guard(const env_guard&) = delete;
  env_guard& operator=(const env_guard&) = delete;
};

// The message of the config_error that config::from_env throws with `name=value` set, or "" if none.
template <class Config, class Error>
std::string from_env_error(const char* name, const char* value) {
  env_guard g(name, value);
  try {
    (void)Config::from_env();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace slaw_test
