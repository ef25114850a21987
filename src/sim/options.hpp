// slaw-sim's command line (docs/simulation.md, "The command"). A bad option is a usage_error naming the
// option, the value and the accepted values; main prints it and exits with status 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/costs.hpp"
#include "sim/engine.hpp"

namespace slaw::sim {

struct usage_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// One row of the results: a scheduler with its policy or quota, simulated at every worker count.
struct row_spec {
  scheduler_kind scheduler = scheduler_kind::ws;
  policy::mode mode = policy::mode::dyn;
  std::uint64_t quota = 0;  // dfdeques: K in bytes, 0 = infinite
  std::string tag;          // wf, hf, dyn, dfd(K=4096), dfd(K=inf)
};

struct options {
  bool help = false, list = false;
  std::string gen;
  std::vector<std::uint32_t> workers{1};
  std::vector<row_spec> rows;
  std::uint64_t seed = 0;
  std::string cost_model = "measured";  // or the costs file's path
  costs c;
  policy::adp_params adp;
  policy::idle_params idle;
  bool preempted_first = true;
  bool checks = false;
  std::string csv, detail, plot, python = "/usr/bin/python3";
};

options parse_options(int argc, char** argv);
std::string usage();
// 1,2,4 | 1-256 (every integer) | 1-1024*2 (doubling) | 8-64+8 (step 8), mixed with commas.
std::vector<std::uint32_t> parse_workers(const std::string& s);

}  // namespace slaw::sim
