#include "arbiter/settings.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "slaw/config.hpp"

namespace slaw::arbiter {

namespace {

[[noreturn]] void bad(std::string_view variable, std::string_view value, std::string_view accepted) {
  throw config_error(std::string(variable) + "='" + std::string(value) + "': " + std::string(accepted));
}

// A finite decimal number filling all of `v`, or nullopt.
std::optional<double> parse_number(std::string_view v) {
  double x = 0;
  const char* end = v.data() + v.size();
  auto [ptr, ec] = std::from_chars(v.data(), end, x, std::chars_format::fixed | std::chars_format::scientific);
  if (v.empty() || ec != std::errc() || ptr != end || !std::isfinite(x)) return std::nullopt;
  return x;
}

}  // namespace

policy::arbiter parse_arbiter(std::string_view value, std::string_view variable) {
  for (policy::arbiter a : policy::arbiters)
    if (value == policy::arbiter_name(a)) return a;
  bad(variable, value, "expected one of deq, equi, off (unset: deq when more than one job is registered)");
}

policy::desire_rule parse_desire(std::string_view value, std::string_view variable) {
  for (policy::desire_rule r : policy::desire_rules)
    if (value == policy::desire_rule_name(r)) return r;
  bad(variable, value, "expected one of adeque, asteal");
}

std::uint64_t parse_quantum_ms(std::string_view value, std::string_view variable) {
  const auto x = parse_number(value);
  if (!x || *x < min_quantum_ms || *x > max_quantum_ms)
    bad(variable, value, "expected a number of milliseconds in [0.1, 10000] (default 10)");
  return static_cast<std::uint64_t>(std::llround(*x * 1e6));
}

double parse_beta(std::string_view value, std::string_view variable) {
  const auto x = parse_number(value);
  policy::desire_params p;
  if (x) p.beta = *x;
  const std::string_view why = x ? policy::invalid_reason(p) : std::string_view("not a number");
  if (!why.empty()) bad(variable, value, std::string(why) + " (A-Deque's beta, default 2: expected a number in [1, 1e6])");
  return *x;
}

std::uint32_t parse_cores(std::string_view value, std::string_view variable) {
  unsigned long v = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec != std::errc() || ptr != end || v < 1 || v > max_cores)
    bad(variable, value,
        "expected an integer in [1, " + std::to_string(max_cores) +
            "] (unset: the CPUs of the affinity mask, capped by the cgroup's cpu.max)");
  return static_cast<std::uint32_t>(v);
}

std::string segment_name_problem(std::string_view name) {
  if (name.empty() || name.front() != '/') return "it does not start with '/'";
  const std::string_view rest = name.substr(1);
  if (rest.empty()) return "nothing follows the '/'";
  if (rest.size() > max_name_chars) return "longer than " + std::to_string(max_name_chars) + " characters after the '/'";
  if (rest == "." || rest == "..") return "'.' and '..' are not names";
  for (char c : rest) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return std::string("the character '") + c + "' is not accepted";
  }
  return {};
}

std::string parse_segment_name(std::string_view value, std::string_view variable) {
  const std::string why = segment_name_problem(value);
  if (!why.empty())
    bad(variable, value,
        why + "; expected /NAME, NAME being 1 to " + std::to_string(max_name_chars) +
            " of the characters A-Z a-z 0-9 . _ - (a POSIX shared-memory name; the default is " +
            default_segment_name() + ")");
  return std::string(value);
}

std::string default_segment_name() { return "/slaw-arbiter-" + std::to_string(::geteuid()); }

void check(const settings& s) {
  if (s.quantum_ns < static_cast<std::uint64_t>(min_quantum_ms * 1e6) ||
      s.quantum_ns > static_cast<std::uint64_t>(max_quantum_ms * 1e6))
    throw config_error("arbiter.quantum_ns=" + std::to_string(s.quantum_ns) +
                       ": expected nanoseconds in [100000, 10000000000] (default 10000000)");
  policy::desire_params p;
  p.beta = s.beta;
  if (std::string_view why = policy::invalid_reason(p); !why.empty())
    throw config_error("arbiter.beta=" + std::to_string(s.beta) + ": " + std::string(why));
  if (s.cores > max_cores)
    throw config_error("arbiter.cores=" + std::to_string(s.cores) + ": expected 0 (detect) or 1.." +
                       std::to_string(max_cores));
  if (!s.name.empty())
    if (std::string why = segment_name_problem(s.name); !why.empty())
      throw config_error("arbiter.name='" + s.name + "': " + why +
                         " (expected '/' then 1 to 200 of A-Z a-z 0-9 . _ -; empty: the default)");
}

settings with_environment_defaults(settings s) {
  if (const char* v = std::getenv("SLAW_ARBITER"); v && !s.arbiter) s.arbiter = parse_arbiter(v);
  if (const char* v = std::getenv("SLAW_ARBITER_NAME"); v && s.name.empty()) s.name = parse_segment_name(v);
  if (const char* v = std::getenv("SLAW_CORES"); v && !s.cores) s.cores = parse_cores(v);
  return s;
}

settings settings::from_env() { return from_env(settings{}); }

settings settings::from_env(settings s) {
  if (const char* v = std::getenv("SLAW_ARBITER")) s.arbiter = parse_arbiter(v);
  if (const char* v = std::getenv("SLAW_DESIRE")) s.desire = parse_desire(v);
  if (const char* v = std::getenv("SLAW_QUANTUM_MS")) {
    s.quantum_ns = parse_quantum_ms(v);
    s.quantum_set = true;
  }
  if (const char* v = std::getenv("SLAW_BETA")) s.beta = parse_beta(v);
  if (const char* v = std::getenv("SLAW_CORES")) s.cores = parse_cores(v);
  if (const char* v = std::getenv("SLAW_ARBITER_NAME")) s.name = parse_segment_name(v);
  return s;
}

std::string settings::segment_name() const { return name.empty() ? default_segment_name() : name; }

policy::desire_params settings::desire_params() const {
  policy::desire_params p;
  p.beta = beta;
  return p;
}

}  // namespace slaw::arbiter
