// What the user asked of the arbiter (docs/design/arbiter.md § Settings): SLAW_ARBITER, SLAW_DESIRE,
// SLAW_QUANTUM_MS, SLAW_BETA, SLAW_CORES and SLAW_ARBITER_NAME, parsed and checked. The machine is not
// consulted here (cores.hpp detects the default core count); nothing is attached.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slaw/config.hpp"
#include "slaw/policy/allotment.hpp"
#include "slaw/policy/desire.hpp"

namespace slaw::arbiter {

inline constexpr std::uint64_t default_quantum_ns = 10'000'000;  // L = 10 ms (the paper's; slaw::arbiter_settings's default)
inline constexpr double min_quantum_ms = 0.1, max_quantum_ms = 10000;
inline constexpr std::uint32_t max_cores = 4096;
inline constexpr std::size_t max_name_chars = 200;  // after the '/': well under NAME_MAX (255)

// The data is the public slaw::arbiter_settings (a member of slaw::config); this adds its parsing.
struct settings : slaw::arbiter_settings {
  // The settings from the environment, over `base`. Throws slaw::config_error naming the variable, the
  // bad value and the accepted values.
  static settings from_env();
  static settings from_env(settings base);

  // `name`, or the default when it is empty.
  std::string segment_name() const;
  // desire_params with β from SLAW_BETA.
  policy::desire_params desire_params() const;
};

// The machine-wide defaults a runtime applies to settings its code left unset (the arbiter is a
// decision about the whole machine, so the environment speaks for code that did not): SLAW_ARBITER when
// `arbiter` is unset, SLAW_ARBITER_NAME when `name` is empty, SLAW_CORES when `cores` is 0. Throws
// slaw::config_error for a bad value, as from_env does.
settings with_environment_defaults(settings s);

// Settings given in code (slaw::config::arbiter): throws slaw::config_error naming the field and the
// accepted values, as the environment's parsers do.
void check(const settings& s);

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
