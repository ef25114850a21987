// Helpers of the simulator's tests: run a generated workload under a configuration.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/engine.hpp"
#include "sim/workloads.hpp"

namespace simtest {

using namespace slaw::sim;

inline run_config ws(std::uint32_t workers, slaw::policy::mode m, bool checks = true) {
  run_config c;
  c.workers = workers;
  c.mode = m;
  c.checks = checks;
  return c;
}

inline run_config dfd(std::uint32_t workers, std::uint64_t k, bool checks = true) {
  run_config c;
  c.workers = workers;
  c.scheduler = scheduler_kind::dfdeques;
  c.quota = k;
  c.checks = checks;
  return c;
}

inline run_result sim(const std::string& gen, const run_config& cfg, const costs& c = costs{}) {
  std::unique_ptr<dag_source> src = make_workload(gen);
  return simulate(*src, c, cfg);
}

inline std::string violations(const run_result& r) {
  std::string s;
  for (const std::string& v : r.violations) s += v + "\n";
  return s;
}

}  // namespace simtest
