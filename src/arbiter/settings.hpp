// What the user asked of the arbiter (issue 13, docs/arbiter.md § Settings): SLAW_ARBITER, SLAW_DESIRE,
// SLAW_QUANTUM_MS, SLAW_BETA, SLAW_CORES and SLAW_ARBITER_NAME, parsed and checked. The machine is not
// consulted here (cores.hpp detects the default core count); nothing is attached.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slaw/policy/allotment.hpp"
#include "slaw/policy/desire.hpp"

namespace slaw::arbiter {

inline constexpr std::uint64_t default_quantum_ns = 10'000'000;  // L = 10 ms (the paper's)
inline constexpr double min_quantum_ms = 0.1, max_quantum_ms = 10000;
inline constexpr std::uint32_t max_cores = 4096;
inline constexpr std::size_t max_name_chars = 200;  // after the '/': well under NAME_MAX (255)

struct settings {
  // SLAW_ARBITER. Unset: deq when more than one job is registered, else off (a lone job keeps all its
  // workers). off: this job does not attach at all and runs all its workers.
  std::optional<policy::arbiter> arbiter;
  policy::desire_rule desire = policy::desire_rule::adeque;  // SLAW_DESIRE
  std::uint64_t quantum_ns = default_quantum_ns;             // SLAW_QUANTUM_MS
  double beta = 2.0;                                         // SLAW_BETA (A-Deque's β)
  std::uint32_t cores = 0;                                   // SLAW_CORES; 0 = detect (cores.hpp)
  std::string name;                                          // SLAW_ARBITER_NAME; empty = default_segment_name()
  bool quantum_set = false;                                  // SLAW_QUANTUM_MS was given (for mismatch warnings)

  // The settings from the environment, over `base`. Throws slaw::config_error naming the variable, the
  // bad value and the accepted values.
  static settings from_env();
  static settings from_env(settings base);

  // `name`, or the default when it is empty.
  std::string segment_name() const;
  // desire_params with β from SLAW_BETA.
  policy::desire_params desire_params() const;
};

// "/slaw-arbiter-<euid>": one segment per user.
std::string default_segment_name();

// Why `name` cannot name a segment ("" when it can). Accepted: '/' then 1 to 200 of A-Z a-z 0-9 . _ -,
// not "/." or "/..".
std::string segment_name_problem(std::string_view name);

// Each parser throws slaw::config_error naming `variable`.
policy::arbiter parse_arbiter(std::string_view value, std::string_view variable = "SLAW_ARBITER");
policy::desire_rule parse_desire(std::string_view value, std::string_view variable = "SLAW_DESIRE");
std::uint64_t parse_quantum_ms(std::string_view value, std::string_view variable = "SLAW_QUANTUM_MS");
double parse_beta(std::string_view value, std::string_view variable = "SLAW_BETA");
std::uint32_t parse_cores(std::string_view value, std::string_view variable = "SLAW_CORES");
std::string parse_segment_name(std::string_view value, std::string_view variable = "SLAW_ARBITER_NAME");

}  // namespace slaw::arbiter
