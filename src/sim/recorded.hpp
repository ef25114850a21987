// A DAG recorded from a real run (SLAW_RECORD=path; `slaw-sim --dag path`) as a simulator workload
// (docs/simulation.md, "Recorded DAGs"). The file is read and validated whole (src/dag/dag_reader.hpp)
// before the first simulated run; then each task's body is its id (a) and the stream offset of its
// next event (b), and next() decodes one event per operation.
#pragma once

#include <memory>
#include <string>

#include "dag/dag_reader.hpp"
#include "sim/dag_source.hpp"

namespace slaw::sim {

class recorded_source final : public dag_source {
 public:
  explicit recorded_source(dag::dag_file file);
  std::string name() const override;
  body root() const override;
  std::uint32_t root_bytes() const override;
  step next(body& t) override;
  std::uint64_t expected_tasks() const override { return file_.task_count(); }
  std::string cost_model() const override;
  const dag::dag_file& file() const noexcept { return file_; }
  // One line for the table: the recorded run and the DAG's own work, span and parallelism (the strands
  // as recorded, without the simulator's modelled runtime costs).
  std::string summary() const;

 private:
  dag::dag_file file_;
};

// Reads and validates `path`; throws std::invalid_argument naming the file and the problem.
std::unique_ptr<recorded_source> make_recorded(const std::string& path);

}  // namespace slaw::sim
