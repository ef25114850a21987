// slaw-sim's output: the table on stdout, Cilkscale's CSV, the detailed CSV (docs/simulation.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/options.hpp"

namespace slaw::sim {

struct result_line {
  const row_spec* row;
  std::uint32_t workers;
  run_result r;
};

// The lines of the table, printed as the results come.
class table {
 public:
  explicit table(std::ostream& out) : out_(out) {}
  void title(const std::string& workload, const options& o);
  // The work/span analysis of the DAG (printed once; again only if a row's DAG differs, as PDFS's does).
  void analysis(const dag_analysis& a, std::uint64_t tasks, const std::string& tag);
  void header();
  void line(const result_line& l);

 private:
  std::ostream& out_;
};

// Cilkscale's CSV: tag, work (seconds), span (seconds), parallelism, burdened_span (seconds),
// burdened_parallelism, then "Nc time (seconds)" for each worker count N: one row per scheduler/policy.
// Cilkscale's plotting script (cilkscale.py) reads it as its benchmark table.
void write_cilkscale_csv(const std::string& path, const std::vector<result_line>& lines);
// Every counter of every configuration.
void write_detail_csv(const std::string& path, const std::vector<result_line>& lines, const std::string& workload,
                      const options& o);

}  // namespace slaw::sim
