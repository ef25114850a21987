// Helpers of the recorded-DAG tests: DAGs built by hand (fib's shape, chains, random programs), an
// encoder that skips the rules (to make files the reader must reject), and replay through the simulator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "dag/dag_reader.hpp"
#include "dag/dag_work_span.hpp"
#include "dag/dag_writer.hpp"
#include "sim/engine.hpp"
#include "sim/recorded.hpp"

namespace dagtest {

using namespace slaw::dag;
using dag = std::vector<task_record>;

inline event ev(dag_op op, std::uint64_t work = 0, std::uint64_t arg = 0, std::uint8_t clause = 0) {
  return event{op, clause, work, arg};
}

// fib(n) as src/sim/wl_fib.cpp generates it: an inner call is `start_finish (half), spawn fib(n-1),
// call fib(n-2), end_finish, ret (rest)`, a leaf `ret (leaf)`; every frame `frame` bytes. Task ids in
// creation order, the spawned child first.
inline dag fib_dag(int n, std::uint64_t half, std::uint64_t rest, std::uint64_t leaf, std::uint32_t frame = 320) {
  dag d;
  std::vector<std::pair<std::uint64_t, int>> todo{{0, n}};  // (task, its n)
  d.push_back({frame, {}});
  while (!todo.empty()) {
    const auto [t, k] = todo.back();
    todo.pop_back();
    if (k < 2) {
      d[t].events = {ev(dag_op::ret, leaf)};
      continue;
    }
    const std::uint64_t a = d.size(), b = a + 1;
    d.push_back({frame, {}});
    d.push_back({frame, {}});
    d[t].events = {ev(dag_op::start_finish, half), ev(dag_op::spawn, 0, a), ev(dag_op::call, 0, b),
                   ev(dag_op::end_finish), ev(dag_op::ret, rest)};
    todo.push_back({a, k - 1});
    todo.push_back({b, k - 2});
  }
  return d;
}

// A chain of n tasks, each spawning or calling the next, optionally inside a finish of its own; 1 ns of
// work before each operation.
inline dag chain_dag(std::uint64_t n, dag_op link, bool finish) {
  dag d(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    d[i].frame_bytes = 100;
    if (i + 1 < n) {
      if (finish) d[i].events.push_back(ev(dag_op::start_finish, 1));
      d[i].events.push_back(ev(link, 1, i + 1));
      if (finish) d[i].events.push_back(ev(dag_op::end_finish, 1));
    }
    d[i].events.push_back(ev(dag_op::ret, 1));
  }
  return d;
}

// A random program: each task runs up to `ops` operations drawn from spawn (with a random clause), call,
// start_finish, end_finish, alloc and a free of its own earlier allocation (when `memory`), then closes
// its open finishes and returns; at most `max_tasks` tasks. With `shuffle`, the ids other than the
// root's are permuted, so that children may have smaller ids than their parents.
inline dag random_dag(std::uint64_t seed, std::size_t max_tasks, int ops = 6, bool memory = true, bool shuffle = true,
                      std::uint64_t max_work = 100) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng); };
  auto work = [&] { return pick(max_work + 1); };
  dag d(1);
  std::vector<std::uint64_t> todo{0};
  for (std::size_t next = 0; next < todo.size(); ++next) {
    const std::uint64_t t = todo[next];
    d[t].frame_bytes = static_cast<std::uint32_t>(64 + 8 * pick(40));
    std::vector<event> e;
    std::vector<std::uint64_t> held;  // this task's allocations not freed yet
    int depth = 0;
    const std::uint64_t n_ops = pick(static_cast<std::uint64_t>(ops) + 1);
    for (std::uint64_t i = 0; i < n_ops; ++i) {
      switch (pick(memory ? 6 : 4)) {
        case 0:
        case 1:
          if (d.size() < max_tasks) {
            const bool spawn = pick(3) != 0;
            e.push_back(ev(spawn ? dag_op::spawn : dag_op::call, work(), d.size(),
                           spawn ? static_cast<std::uint8_t>(pick(3)) : 0));
            todo.push_back(d.size());
            d.emplace_back();
          }
          break;
        case 2:
          if (depth < 4) {
            e.push_back(ev(dag_op::start_finish, work()));
            ++depth;
          }
          break;
        case 3:
          if (depth > 0) {
            e.push_back(ev(dag_op::end_finish, work()));
            --depth;
          }
          break;
        case 4: {
          const std::uint64_t b = 1 + pick(1 << 16);
          e.push_back(ev(dag_op::alloc, work(), b));
          held.push_back(b);
          break;
        }
        default:
          if (!held.empty()) {
            e.push_back(ev(dag_op::free, work(), held.back()));
            held.pop_back();
          }
          break;
      }
    }
    for (; depth > 0; --depth) e.push_back(ev(dag_op::end_finish, work()));
    e.push_back(ev(dag_op::ret, work()));
    d[t].events = std::move(e);  // d may have grown: index again
  }
  if (!shuffle || d.size() < 3) return d;
  std::vector<std::uint64_t> to(d.size());
  for (std::uint64_t i = 0; i < to.size(); ++i) to[i] = i;
  std::shuffle(to.begin() + 1, to.end(), rng);
  dag out(d.size());
  for (std::uint64_t i = 0; i < d.size(); ++i) {
    for (event& x : d[i].events)
      if (x.op == dag_op::spawn || x.op == dag_op::call) x.arg = to[x.arg];
    out[to[i]] = std::move(d[i]);
  }
  return out;
}

// Recomputes the checksum trailer of a file's bytes (at least 8 of them).
inline void reseal(std::vector<std::uint8_t>& b) {
  if (b.size() < trailer_bytes) return;
  store_u64(&b[b.size() - trailer_bytes], fnv1a(fnv_offset, b.data(), b.size() - trailer_bytes));
}

// The file's bytes without any check of the rules (the layout of dag_format.hpp, the writer's codec):
// for files the reader must reject. Events are laid out in task order.
inline std::vector<std::uint8_t> encode_unchecked(const dag& d, std::uint64_t recorded_ns = 1000, std::uint32_t workers = 2) {
  std::vector<std::uint8_t> stream;
  std::vector<std::uint8_t> table(d.size() * task_entry_bytes);
  for (std::size_t t = 0; t < d.size(); ++t) {
    store_u64(&table[t * task_entry_bytes], stream.size());
    store_u32(&table[t * task_entry_bytes + 8], d[t].frame_bytes);
    store_u32(&table[t * task_entry_bytes + 12], static_cast<std::uint32_t>(d[t].events.size()));
    for (const event& e : d[t].events) {
      std::uint8_t b[max_event_bytes];
      const std::size_t n = encode_event(b, e);
      stream.insert(stream.end(), b, b + n);
    }
  }
  dag_header h{};
  std::copy(std::begin(magic), std::end(magic), h.magic);
  h.version = version;
  h.header_bytes = header_bytes;
  h.task_count = d.size();
  h.stream_bytes = stream.size();
  h.recorded_ns = recorded_ns;
  h.workers = workers;
  std::vector<std::uint8_t> out(header_bytes + table.size() + stream.size() + trailer_bytes);
  encode_header(h, out.data());
  if (!table.empty()) std::memcpy(out.data() + header_bytes, table.data(), table.size());
  if (!stream.empty()) std::memcpy(out.data() + header_bytes + table.size(), stream.data(), stream.size());
  reseal(out);
  return out;
}

inline dag_file parse(const dag& d) { return parse_dag(encode_dag(d, 1000, 2), "test.dag"); }

// A file in the test's temporary directory, removed with it.
struct temp_file {
  std::string path;
  explicit temp_file(const std::string& name) : path("/tmp/slaw-dag-test-" + std::to_string(::getpid()) + "-" + name) {}
  ~temp_file() { std::remove(path.c_str()); }
};

// The simulator's costs with the runtime's own operations free, so that its work and span are the
// recorded strands' alone (the reader's analyze() with no weights).
inline slaw::sim::costs strands_only() {
  slaw::sim::costs c;
  c.call = c.spawn_wf = c.finish = 0;
  return c;
}

inline slaw::sim::run_result replay(const dag_file& f, const slaw::sim::run_config& cfg,
                                    const slaw::sim::costs& c = slaw::sim::costs{}) {
  slaw::sim::recorded_source src(f);
  return slaw::sim::simulate(src, c, cfg);
}

}  // namespace dagtest
