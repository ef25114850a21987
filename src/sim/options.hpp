// slaw-sim's command line (docs/simulation.md, "The command"). A bad option is a usage_error naming the
// option, the value and the accepted values; main prints it and exits with status 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/costs.hpp"
#include "sim/engine.hpp"
#include "sim/job_list.hpp"

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

// One configuration of a multi-job run: the arbiter and, under deq, the desire rule.
struct sharing_row {
  policy::arbiter arbiter = policy::arbiter::deq;
  policy::desire_rule rule = policy::desire_rule::adeque;
  std::string tag;  // deq+adeque, deq+asteal, equi, off
};

struct options {
  bool help = false, list = false;
  std::string gen;
  std::string dag;  // --dag: a recorded DAG file instead of --gen (exactly one of the two)
  std::vector<std::uint32_t> workers{1};
  std::vector<row_spec> rows;
  std::uint64_t seed = 0;
  std::string cost_model = "measured";  // or the costs file's path
  costs c;
  policy::adp_params adp;
  policy::idle_params idle;
  bool preempted_first = true;
  what_if what;
  bool checks = false;
  std::string csv, detail, plot, python = "/usr/bin/python3";
  // Several jobs (--jobs; docs/simulation.md, "Several jobs"; parse_sharing_option in job_options.cpp).
  std::string jobs;
  job_list_spec job_list;
  std::vector<std::uint32_t> cores;
  std::vector<sharing_row> sharing_rows;
  policy::desire_params desire;
  double quantum_ms = 10, timeslice_ms = 3;
  bool workers_given = false;
  std::string quanta;  // --quanta FILE: every quantum of every job
  bool self_picks = true;  // --self-picks count|skip
  std::string sharing_given;  // the first multi-job option seen (an error without --jobs)
  std::vector<std::string> arbiter_names{"deq"}, desire_names{"adeque"};
};

options parse_options(int argc, char** argv);
std::string usage();
// Several jobs (job_options.cpp): consumes the multi-job option argv[i] (and its value) into `o`, or
// returns false if `a` is not one; after the loop, sharing_options_done checks and completes them.
bool parse_sharing_option(options& o, const std::string& a, int& i, int argc, char** argv);
void sharing_options_done(options& o);
std::string sharing_usage();
// `s` cut at every `sep` (empty pieces kept: the callers reject them with their own message).
std::vector<std::string> split(const std::string& s, char sep);
// 1,2,4 | 1-256 (every integer) | 1-1024*2 (doubling) | 8-64+8 (step 8), mixed with commas.
std::vector<std::uint32_t> parse_workers(const std::string& s);

}  // namespace slaw::sim
