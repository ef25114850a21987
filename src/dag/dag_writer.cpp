// The recorded-DAG writer (dag_writer.hpp): checks the DAG with the reader's rules, then streams the
// header, the task table, the events and the checksum trailer through a small buffer.
#include "dag/dag_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "dag/dag_rules.hpp"

namespace slaw::dag {

namespace {

// Throws std::invalid_argument "WHO: task T, event E (OP): PROBLEM" for the first broken rule.
void validate(const std::vector<task_record>& tasks, const std::string& who) {
  if (tasks.empty()) throw std::invalid_argument(who + ": no tasks (task 0, the root, is required)");
  rules r(tasks.size());
  for (std::uint64_t id = 0; id < tasks.size(); ++id) {
    const std::vector<event>& ev = tasks[id].events;
    auto fail = [&](std::uint64_t i, const std::string& problem) {
      std::string where = who + ": task " + std::to_string(id);
      if (i < ev.size()) {
        where += ", event " + std::to_string(i);
        if (static_cast<unsigned>(ev[i].op) < dag_op_count) where += std::string(" (") + dag_op_name(ev[i].op) + ")";
      }
      throw std::invalid_argument(where + ": " + problem);
    };
    if (ev.size() > std::numeric_limits<std::uint32_t>::max())
      fail(ev.size(), std::to_string(ev.size()) + " events, more than a task table entry counts (2^32 - 1)");
    std::string problem = r.begin_task(id, ev.size());
    if (!problem.empty()) fail(ev.size(), problem);
    for (std::uint64_t i = 0; i < ev.size(); ++i) {
      problem = r.check(ev[i]);
      if (!problem.empty()) fail(i, problem);
    }
  }
  std::uint64_t bad = 0;
  const std::string problem = r.check_tree(bad);
  if (!problem.empty()) throw std::invalid_argument(who + ": task " + std::to_string(bad) + ": " + problem);
}

// Produces the file's bytes in order, in chunks, through sink(const uint8_t*, size_t).
template <class Sink>
void produce(const std::vector<task_record>& tasks, std::uint64_t recorded_ns, std::uint32_t workers, Sink&& sink) {
  std::uint64_t h = fnv_offset;
  std::vector<std::uint8_t> buf;
  buf.reserve(1 << 16);
  auto flush = [&] {
    h = fnv1a(h, buf.data(), buf.size());
    sink(buf.data(), buf.size());
    buf.clear();
  };
  auto room = [&](std::size_t n) {
    if (buf.size() + n > buf.capacity()) flush();
    const std::size_t at = buf.size();
    buf.resize(at + n);
    return buf.data() + at;
  };
  // Each task's encoded size, once: the header needs the total and the table the offsets, both before
  // the first event is written.
  std::vector<std::uint64_t> task_bytes(tasks.size(), 0);
  std::uint64_t stream = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    for (const event& e : tasks[t].events) task_bytes[t] += encoded_size(e);
    stream += task_bytes[t];
  }
  dag_header hd{};
  std::memcpy(hd.magic, magic, sizeof magic);
  hd.version = version;
  hd.header_bytes = header_bytes;
  hd.task_count = tasks.size();
  hd.stream_bytes = stream;
  hd.recorded_ns = recorded_ns;
  hd.workers = workers;
  hd.flags = 0;
  encode_header(hd, room(header_bytes));
  std::uint64_t offset = 0;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    std::uint8_t* p = room(task_entry_bytes);
    store_u64(p, offset);
    store_u32(p + 8, tasks[t].frame_bytes);
    store_u32(p + 12, static_cast<std::uint32_t>(tasks[t].events.size()));
    offset += task_bytes[t];
  }
  for (const task_record& t : tasks) {
    for (const event& e : t.events) {
      std::uint8_t tmp[max_event_bytes];
      const std::size_t n = encode_event(tmp, e);
      std::memcpy(room(n), tmp, n);
    }
  }
  flush();
  std::uint8_t trailer[trailer_bytes];
  store_u64(trailer, h);
  sink(trailer, trailer_bytes);
}

}  // namespace

std::vector<std::uint8_t> encode_dag(const std::vector<task_record>& tasks, std::uint64_t recorded_ns,
                                     std::uint32_t workers) {
  validate(tasks, "encode_dag");
  std::vector<std::uint8_t> out;
  produce(tasks, recorded_ns, workers, [&](const std::uint8_t* p, std::size_t n) { out.insert(out.end(), p, p + n); });
  return out;
}

bool write_dag(const std::function<bool(const std::uint8_t*, std::size_t)>& sink, const std::string& name,
               const std::vector<task_record>& tasks, std::uint64_t recorded_ns, std::uint32_t workers) {
  validate(tasks, "write_dag '" + name + "'");
  bool ok = true;
  produce(tasks, recorded_ns, workers, [&](const std::uint8_t* p, std::size_t n) {
    if (ok && n) ok = sink(p, n);
  });
  return ok;
}

void write_dag(const std::string& path, const std::vector<task_record>& tasks, std::uint64_t recorded_ns,
               std::uint32_t workers) {
  validate(tasks, "write_dag '" + path + "'");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    const int err = errno;
    throw std::runtime_error("write_dag: cannot write '" + path + "': " + std::strerror(err));
  }
  int err = 0;
  produce(tasks, recorded_ns, workers, [&](const std::uint8_t* p, std::size_t n) {
    if (!err && n && std::fwrite(p, 1, n, f) != n) err = errno ? errno : EIO;
  });
  if (err) {
    std::fclose(f);
    throw std::runtime_error("write_dag: cannot write '" + path + "': " + std::strerror(err));
  }
  if (std::fclose(f) != 0) {
    const int close_err = errno;
    throw std::runtime_error("write_dag: cannot write '" + path + "': " + std::strerror(close_err));
  }
}

}  // namespace slaw::dag
