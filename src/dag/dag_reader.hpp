// Reads a recorded DAG file (dag_format.hpp) into memory and validates all of it before anything uses
// it: the header (magic, version, sizes, flags), the sizes against the file's, the checksum, every
// task's events (decoded exactly within the task's range) and the rules of dag_rules.hpp (ret last,
// finishes paired, children in range with one parent each, every task reachable from the root). A
// bad file throws std::invalid_argument naming the file, the problem and where it is (byte offset,
// task, event). After that the file is trusted: decode() cannot fail.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dag/dag_event.hpp"
#include "dag/dag_rules.hpp"

namespace slaw::dag {

class dag_file {
 public:
  const std::string& name() const noexcept { return name_; }  // the path it was read from
  const dag_header& header() const noexcept { return header_; }
  std::uint64_t task_count() const noexcept { return header_.task_count; }
  // Task `id`'s frame size, and the stream offset of its first event (id < task_count()).
  std::uint32_t frame_bytes(std::uint64_t id) const noexcept { return load_u32(entry(id) + 8); }
  std::uint64_t first_event(std::uint64_t id) const noexcept { return load_u64(entry(id)); }
  std::uint32_t event_count(std::uint64_t id) const noexcept { return load_u32(entry(id) + 12); }
  // Decodes the event at stream offset `pos` (a task's first event, or what the previous decode
  // returned) into `e` and returns the offset of the task's next event.
  std::uint64_t decode(std::uint64_t pos, event& e) const noexcept {
    const std::uint8_t* stream = bytes_.data() + stream_at_;
    const std::uint8_t* p = stream + pos;
    (void)decode_event(p, stream + header_.stream_bytes, e);  // validated when the file was read
    return static_cast<std::uint64_t>(p - stream);
  }
  // Counts and sums over all events (work_ns is the total work).
  const dag_totals& totals() const noexcept { return totals_; }

 private:
  friend dag_file parse_dag(std::vector<std::uint8_t> bytes, const std::string& name);
  const std::uint8_t* entry(std::uint64_t id) const noexcept { return bytes_.data() + header_bytes + id * task_entry_bytes; }
  std::string name_;
  std::vector<std::uint8_t> bytes_;
  std::uint64_t stream_at_ = 0;  // the stream's first byte in the file
  dag_header header_{};
  dag_totals totals_;
};

// The largest file read_dag reads (it holds the whole file in memory): fib(36)'s 48 million tasks take
// about 1.2 GB.
inline constexpr std::uint64_t max_dag_file_bytes = std::uint64_t{2} << 30;

// Reads and validates the file at `path`, a regular file or a pipe of at most max_dag_file_bytes (a
// device or a larger file is refused before anything is read). Throws std::invalid_argument for a file
// that cannot be read or is not a valid DAG file: "PATH: PROBLEM" with the byte offset, task and event
// where it lies.
dag_file read_dag(const std::string& path);
// Validates a file's bytes already in memory; `name` stands for the path in messages.
dag_file parse_dag(std::vector<std::uint8_t> bytes, const std::string& name);

}  // namespace slaw::dag
