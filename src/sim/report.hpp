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

// ---- several jobs (--jobs)

// One multi-job run: a scheduler row, an arbiter configuration, P cores.
struct sharing_line {
  const row_spec* row;
  const sharing_row* cfg;
  std::uint32_t cores, workers;
  std::vector<job_entry> jobs;  // the workloads and their arrivals
  double rate;                  // the generator's arrivals per second (0: a fixed list)
  sharing_result r;
};

// The quanta's desire/allotment history of one job (all jobs if job < 0).
struct history_summary {
  std::uint64_t quanta = 0;
  std::uint64_t allotment_changes = 0;  // a(q+1) != a(q)
  std::uint64_t desire_reversals = 0;   // d went up then down or down then up (oscillation)
  double mean_desire = 0, mean_allotment = 0;
  double mean_busy = 0;  // measured working workers, time-averaged per quantum
};
history_summary summarize(const std::vector<quantum_record>& quanta, long job);

// The run's figures: makespan, mean response time, utilization = busy / (P x makespan), efficiency =
// busy / allotted core time.
struct sharing_figures {
  double makespan = 0, mean_response = 0, utilization = 0, efficiency = 0;
};
sharing_figures figures(const sharing_line& l);

class sharing_table {
 public:
  explicit sharing_table(std::ostream& out) : out_(out) {}
  void title(const options& o);
  void jobs(std::uint32_t cores, const std::vector<job_entry>& jobs);
  void header();
  void line(const sharing_line& l);  // the run's summary, then each job's arrival, completion, response

 private:
  std::ostream& out_;
};

void write_sharing_csv(const std::string& path, const std::vector<sharing_line>& lines, const options& o);
void write_sharing_detail_csv(const std::string& path, const std::vector<sharing_line>& lines, const options& o);
void write_quanta_csv(const std::string& path, const std::vector<sharing_line>& lines, const options& o);

}  // namespace slaw::sim
