#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "harness/benchmark.hpp"

namespace slawbench {

namespace {
std::vector<benchmark>& mutable_registry() {
  static std::vector<benchmark> r;
  return r;
}
}  // namespace

int register_benchmark(benchmark b) {
  mutable_registry().push_back(std::move(b));
  return 0;
}

const std::vector<benchmark>& registry() { return mutable_registry(); }

const size_spec* find_size(std::string_view name) {
  for (const auto& s : sizes)
    if (s.name == name) return &s;
  return nullptr;
}

const std::string& params::text(const std::string& key) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) throw bench_error("missing parameter '" + key + "'");
  return it->second;
}

std::int64_t params::integer(const std::string& key, std::int64_t lo, std::int64_t hi) const {
  const std::string& s = text(key);
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < lo || v > hi)
    throw bench_error("parameter " + key + "='" + s + "': expected an integer in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  return v;
}

double params::real(const std::string& key, double lo, double hi) const {
  const std::string& s = text(key);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < lo || v > hi) {
    char range[96];
    std::snprintf(range, sizeof range, "[%g, %g]", lo, hi);
    throw bench_error("parameter " + key + "='" + s + "': expected a number in " + range);
  }
  return v;
}

}  // namespace slawbench
