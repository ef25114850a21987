// Writes a recorded computation DAG in the format of dag_format.hpp (the runtime's recorder calls it
// at the end of a run with SLAW_RECORD=path; tests build DAGs by hand with it). Standard library only,
// so it is compiled into both the runtime library and the simulator.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dag/dag_event.hpp"

namespace slaw::dag {

// One task: its frame size and its events in program order, the last one `ret`.
struct task_record {
  std::uint32_t frame_bytes = 0;
  std::vector<event> events;
};

// Writes `tasks` (index = task id, 0 = the root) to `path`. Throws std::invalid_argument naming the task
// and event if the DAG breaks the format's rules (dag_rules.hpp: the reader's own checks), before
// anything is written; std::runtime_error naming the path and strerror(errno) if the file cannot be
// written (a partly written file is left as it is: the reader refuses it, its size or checksum is off).
void write_dag(const std::string& path, const std::vector<task_record>& tasks, std::uint64_t recorded_ns,
               std::uint32_t workers);
// The same bytes given to `sink(bytes, n)` in order, which returns false when it cannot take them (it
// knows why): nothing more is given to it then, and this returns false. `name` stands for the file in
// the invalid_argument's message.
bool write_dag(const std::function<bool(const std::uint8_t*, std::size_t)>& sink, const std::string& name,
               const std::vector<task_record>& tasks, std::uint64_t recorded_ns, std::uint32_t workers);

// The file's bytes, as write_dag writes them (tests mutate them; same checks and exceptions).
std::vector<std::uint8_t> encode_dag(const std::vector<task_record>& tasks, std::uint64_t recorded_ns,
                                     std::uint32_t workers);

}  // namespace slaw::dag
