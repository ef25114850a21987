// The recorded-DAG reader (dag_reader.hpp): every size is checked against the file's before it is used
// (no multiplication that can wrap, no allocation a header field sizes), then the checksum, then each
// task's events within its own range, then the rules shared with the writer (dag_rules.hpp).
#include "dag/dag_reader.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "util/read_file.hpp"

namespace slaw::dag {

namespace {

std::string hex(std::uint64_t v, int digits) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

dag_file read_dag(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  const util::read_status st = util::read_file(path, max_dag_file_bytes, bytes);
  if (st.kind == util::read_status::cannot_open || st.kind == util::read_status::read_error)
    throw std::invalid_argument(path + ": cannot read it: " + std::strerror(st.error));
  if (st.kind == util::read_status::directory) throw std::invalid_argument(path + ": cannot read it: " + std::strerror(EISDIR));
  if (!st) throw std::invalid_argument(path + ": " + st.describe() + "; a DAG file is a regular file or a pipe");
  return parse_dag(std::move(bytes), path);
}

dag_file parse_dag(std::vector<std::uint8_t> bytes, const std::string& name) {
  auto bad = [&](const std::string& what) { throw std::invalid_argument(name + ": " + what); };
  const std::uint64_t size = bytes.size();
  if (size < header_bytes + trailer_bytes)
    bad(std::to_string(size) + " bytes, shorter than a DAG file's 48-byte header and 8-byte checksum (truncated, or not "
        "a DAG file)");
  const std::uint8_t* data = bytes.data();
  const dag_header h = decode_header(data);
  if (std::memcmp(h.magic, magic, sizeof magic) != 0) bad("not a slaw DAG file (it does not begin with \"SLAWDAG\\0\")");
  if (h.version != version)
    bad("format version " + std::to_string(h.version) + " (byte 8); this reader accepts version " +
        std::to_string(version));
  if (h.header_bytes != header_bytes)
    bad("header_bytes " + std::to_string(h.header_bytes) + " (byte 12); version 1's header has 48 bytes");
  if (h.flags != 0) bad("flags " + hex(h.flags, 8) + " (byte 44); version 1 defines no flags (accepted: 0)");
  if (h.task_count == 0) bad("task_count 0 (byte 16): a DAG has at least its root task");
  // Sizes: header + task_count * 16 + stream_bytes + trailer == size, checked without overflow.
  const std::uint64_t room = size - header_bytes - trailer_bytes;
  if (h.task_count > room / task_entry_bytes)
    bad("task_count " + std::to_string(h.task_count) + " (byte 16) needs " + std::to_string(task_entry_bytes) +
        " bytes of task table per task, more than the " + std::to_string(room) +
        " bytes between the header and the checksum (truncated, or a damaged header)");
  const std::uint64_t table = h.task_count * task_entry_bytes;
  if (h.stream_bytes != room - table)
    bad("stream_bytes " + std::to_string(h.stream_bytes) + " (byte 24), but " + std::to_string(room - table) +
        " bytes lie between the task table and the checksum (truncated or extended)");
  const std::uint64_t stored = load_u64(data + size - trailer_bytes);
  const std::uint64_t computed = fnv1a(fnv_offset, data, size - trailer_bytes);
  if (stored != computed)
    bad("checksum " + hex(stored, 16) + " (byte " + std::to_string(size - trailer_bytes) + ") differs from the content's " +
        hex(computed, 16) + " (the file was altered or damaged)");

  dag_file d;
  d.name_ = name;
  d.header_ = h;
  d.stream_at_ = header_bytes + table;
  const std::uint64_t n = h.task_count, stream_at = d.stream_at_;
  const std::uint8_t* stream = data + stream_at;
  auto entry_at = [&](std::uint64_t t) { return header_bytes + t * task_entry_bytes; };
  // The table: task t's events are the bytes [offset(t), offset(t + 1)), the last task's up to the
  // stream's end; so the offsets start at 0 and never decrease.
  for (std::uint64_t t = 0; t < n; ++t) {
    const std::uint64_t off = load_u64(data + entry_at(t));
    const std::uint64_t prev = t ? load_u64(data + entry_at(t - 1)) : 0;
    if ((t == 0 && off != 0) || off < prev || off > h.stream_bytes)
      bad("task " + std::to_string(t) + ": its first event's offset " + std::to_string(off) + " (byte " +
          std::to_string(entry_at(t)) + ") is " +
          (t == 0 && off != 0 ? std::string("not 0 (the root's events begin the stream)")
           : off < prev       ? "before task " + std::to_string(t - 1) + "'s (" + std::to_string(prev) +
                                  "; the tasks' events lie in task order)"
                              : "past the stream's end (" + std::to_string(h.stream_bytes) + " bytes)"));
  }
  rules r(n);
  for (std::uint64_t t = 0; t < n; ++t) {
    const std::uint8_t* e = data + entry_at(t);
    const std::uint64_t begin = load_u64(e);
    const std::uint64_t end = t + 1 < n ? load_u64(e + task_entry_bytes) : h.stream_bytes;
    const std::uint32_t count = load_u32(e + 12);
    std::string problem = r.begin_task(t, count);
    if (!problem.empty())
      bad("task " + std::to_string(t) + " (table entry at byte " + std::to_string(entry_at(t)) + "): " + problem);
    const std::uint8_t* p = stream + begin;
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint64_t at = stream_at + static_cast<std::uint64_t>(p - stream);
      auto where = [&](const char* op) {
        return "task " + std::to_string(t) + ", event " + std::to_string(i) + (op ? std::string(" (") + op + ")" : "") +
               " at byte " + std::to_string(at) + ": ";
      };
      event ev;
      const decode_error de = decode_event(p, stream + end, ev);
      if (de != decode_error::none) bad(where(nullptr) + describe(de));
      problem = r.check(ev);
      if (!problem.empty()) bad(where(dag_op_name(ev.op)) + problem);
    }
    const std::uint64_t stop = static_cast<std::uint64_t>(p - stream);
    if (stop != end)
      bad("task " + std::to_string(t) + ": its " + std::to_string(count) + " events end at byte " +
          std::to_string(stream_at + stop) + ", but its range ends at byte " + std::to_string(stream_at + end) +
          " (the bytes between belong to no event)");
  }
  std::uint64_t which = 0;
  const std::string problem = r.check_tree(which);
  if (!problem.empty()) bad("task " + std::to_string(which) + ": " + problem);
  d.totals_ = r.totals();
  d.bytes_ = std::move(bytes);
  return d;
}

}  // namespace slaw::dag
