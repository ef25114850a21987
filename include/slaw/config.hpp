// Runtime configuration: set from code, or from SLAW_* environment variables with `config::from_env()`.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "slaw/policy/adp.hpp"

namespace slaw {

// Thrown for a bad configuration value; the message names the setting and the accepted values.
class config_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class stats_output : std::uint8_t { off, stderr_stream, file };

struct config {
  unsigned workers = 0;                         // 0 = one per hardware thread
  policy::mode policy = policy::mode::dyn;      // dyn | wf | hf
  policy::adp_params adp{};                     // S, F, INT, steal threshold
  stats_output stats = stats_output::off;       // counters written as JSON when the runtime ends
  std::string stats_path;                       // for stats_output::file
  unsigned spin_rounds = 64;                    // failed steal rounds before an idle worker parks
  bool steal_preempted_first = true;            // victim deque order for thieves

  // Reads SLAW_WORKERS, SLAW_POLICY (wf|hf|dyn), SLAW_S, SLAW_F, SLAW_INT, SLAW_STATS (unset or 0 = off,
  // 1 = stderr, anything else = a file path). Unset variables keep the defaults of `base`.
  // Throws config_error for a bad value.
  static config from_env(config base);
  static config from_env();

  // Throws config_error if a field is out of range.
  void validate() const;
};

const char* to_string(policy::mode m) noexcept;

}  // namespace slaw
