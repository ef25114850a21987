#include "slaw/config.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace slaw {

namespace {
constexpr unsigned max_workers = 4096;

unsigned long long parse_uint(const char* name, const char* value, unsigned long long lo, unsigned long long hi) {
  unsigned long long v = 0;
  const char* end = value + std::strlen(value);
  auto [ptr, ec] = std::from_chars(value, end, v);
  if (value == end || ec != std::errc() || ptr != end || v < lo || v > hi)
    throw config_error(std::string(name) + "='" + value + "': expected an integer in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  return v;
}
}  // namespace

const char* to_string(policy::mode m) noexcept {
  switch (m) {
    case policy::mode::wf: return "wf";
    case policy::mode::hf: return "hf";
    default: return "dyn";
  }
}

const char* to_string(scheduler_kind s) noexcept { return s == scheduler_kind::dfdeques ? "dfdeques" : "ws"; }

config config::from_env() { return from_env(config{}); }

config config::from_env(config c) {
  if (const char* v = std::getenv("SLAW_WORKERS"))
    c.workers = static_cast<unsigned>(parse_uint("SLAW_WORKERS", v, 1, max_workers));
  if (const char* v = std::getenv("SLAW_POLICY")) {
    if (!std::strcmp(v, "dyn")) c.policy = policy::mode::dyn;
    else if (!std::strcmp(v, "wf")) c.policy = policy::mode::wf;
    else if (!std::strcmp(v, "hf")) c.policy = policy::mode::hf;
    else throw config_error(std::string("SLAW_POLICY='") + v + "': expected one of wf, hf, dyn");
  }
  if (const char* v = std::getenv("SLAW_S")) c.adp.S = static_cast<std::uint32_t>(parse_uint("SLAW_S", v, 1, 1u << 30));
  if (const char* v = std::getenv("SLAW_F")) c.adp.F = static_cast<std::uint32_t>(parse_uint("SLAW_F", v, 1, 1u << 30));
  if (const char* v = std::getenv("SLAW_INT")) {
    c.adp.INT = static_cast<std::uint32_t>(parse_uint("SLAW_INT", v, 1, 1u << 30));
    c.adp.steal_threshold = c.adp.INT;
  }
  if (const char* v = std::getenv("SLAW_SCHEDULER")) {
    if (!std::strcmp(v, "ws")) c.scheduler = scheduler_kind::ws;
    else if (!std::strcmp(v, "dfdeques")) c.scheduler = scheduler_kind::dfdeques;
    else throw config_error(std::string("SLAW_SCHEDULER='") + v + "': expected one of ws, dfdeques");
  }
  if (const char* v = std::getenv("SLAW_K")) {
    if (!std::strcmp(v, "inf")) c.quota = quota_infinite;
    else {
      try {
        c.quota = parse_uint("SLAW_K", v, min_quota, std::uint64_t{1} << 50);
      } catch (const config_error& e) {
        throw config_error(std::string(e.what()) + ", or inf");
      }
    }
  }
  if (const char* v = std::getenv("SLAW_TRACE")) {
    if (!std::strcmp(v, "policy")) c.policy_trace = 100000;
    else if (!std::strcmp(v, "") || !std::strcmp(v, "0")) c.policy_trace = 0;
    else throw config_error(std::string("SLAW_TRACE='") + v + "': expected policy, or 0 for none");
  }
  if (const char* v = std::getenv("SLAW_STATS")) {
    if (!*v) throw config_error("SLAW_STATS='': expected 0 (off), 1 (stderr) or a file path");
    if (!std::strcmp(v, "0")) c.stats = stats_output::off;
    else if (!std::strcmp(v, "1")) c.stats = stats_output::stderr_stream;
    else {
      c.stats = stats_output::file;
      c.stats_path = v;
    }
  }
  c.validate();
  return c;
}

void config::validate() const {
  if (workers > max_workers)
    throw config_error("workers=" + std::to_string(workers) + ": expected 0 (all hardware threads) or 1.." +
                       std::to_string(max_workers));
  if (adp.S == 0) throw config_error("S=0: expected an integer >= 1");
  if (adp.F == 0) throw config_error("F=0: expected an integer >= 1");
  if (adp.INT == 0) throw config_error("INT=0: expected an integer >= 1");
  if (quota < min_quota)
    throw config_error("quota=" + std::to_string(quota) + ": expected a byte count >= " + std::to_string(min_quota) +
                       " or quota_infinite");
  if (spin_rounds == 0) throw config_error("spin_rounds=0: expected an integer >= 1");
  if (stats == stats_output::file && stats_path.empty()) throw config_error("stats file path is empty");
}

}  // namespace slaw
