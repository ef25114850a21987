#include "trace/dag_recorder.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "dag/dag_writer.hpp"
#include "slaw/config.hpp"
#include "slaw/detail/record_hooks.hpp"

namespace slaw::detail {

const char dag_internal_task[] = "slaw:dummy";

dag_recorder::dag_recorder(const std::string& path, unsigned workers)
    : path_(path), workers_(workers), logs_(new dag_log[workers]) {
  // Truncated now, so that a path that cannot be written fails when the runtime is built.
  std::FILE* f = std::fopen(path_.c_str(), "w");
  if (!f) {
    const int err = errno;
    throw config_error("SLAW_RECORD='" + path_ + "': cannot open it for writing (" + std::strerror(err) + ")");
  }
  std::fclose(f);
  for (unsigned i = 0; i < workers; ++i) logs_[i].attach(this, &clock_);
}

dag_recorder::~dag_recorder() { end_run(); }

bool dag_recorder::begin_run(const void* root, std::uint32_t root_bytes) noexcept {
  if (claimed_.exchange(true, std::memory_order_relaxed)) return false;
  root_ = root;
  root_bytes_ = root_bytes;
  run_start_ = clock_.now();
  on_.store(true, std::memory_order_relaxed);
  dag_recorders_on.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void dag_recorder::end_run() noexcept {
  if (!on_.exchange(false, std::memory_order_relaxed)) return;
  run_end_ = clock_.now();
  dag_recorders_on.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

// The merged logs as one DAG: tasks numbered in the order their spawn or call was recorded (the root
// first), each with its events in program order. Events of frames outside the recorded run (another
// run of the same runtime, started meanwhile) are left out: their frames were never born in it.
// An internal spawn is left out with its whole subtree, and so is the finish that only waits for it
// (slaw::reserve's `start_finish, spawn, end_finish`); the work of a left-out event goes to the task's
// next event.
std::vector<dag::task_record> build_dag(std::vector<dag_raw_event>& all, const void* root, std::uint32_t root_bytes,
                                        double ns_per_tick) {
  constexpr std::uint64_t dropped = ~std::uint64_t{0};
  std::sort(all.begin(), all.end(), [](const dag_raw_event& a, const dag_raw_event& b) { return a.seq < b.seq; });
  std::vector<dag::task_record> tasks(1);
  std::vector<std::uint64_t> carry(1, 0);        // per task: ns of left-out events, for its next event
  std::vector<std::uint32_t> drop_ends(1, 0);    // per task: end_finish events still to leave out
  tasks[0].frame_bytes = root_bytes;
  std::unordered_map<const void*, std::uint64_t> live{{root, 0}};
  for (const dag_raw_event& e : all) {
    auto it = live.find(e.frame);
    if (it == live.end()) continue;
    const std::uint64_t id = it->second;
    const bool birth = e.op == dag::dag_op::spawn || e.op == dag::dag_op::call;
    const void* child = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(e.arg));
    if (e.op == dag::dag_op::ret) live.erase(it);
    if (id == dropped) {  // inside an internal task: its children are left out too
      if (birth && !live.emplace(child, dropped).second)
        throw std::logic_error("a frame was born twice without returning (the recorder lost an event)");
      continue;
    }
    const auto work = static_cast<std::uint64_t>(std::llround(static_cast<double>(e.ticks) * ns_per_tick));
    std::vector<dag::event>& evs = tasks[id].events;
    if (e.op == dag::dag_op::spawn && e.internal) {
      if (!live.emplace(child, dropped).second)
        throw std::logic_error("a frame was born twice without returning (the recorder lost an event)");
      carry[id] += work;
      if (!evs.empty() && evs.back().op == dag::dag_op::start_finish) {  // the finish that waits for it
        carry[id] += evs.back().work_ns;
        evs.pop_back();
        ++drop_ends[id];
      }
      continue;
    }
    if (e.op == dag::dag_op::end_finish && drop_ends[id] > 0) {
      --drop_ends[id];
      carry[id] += work;
      continue;
    }
    dag::event out;
    out.op = e.op;
    out.clause = e.clause;
    out.work_ns = work + std::exchange(carry[id], 0);
    out.arg = e.arg;
    if (birth) {
      out.arg = tasks.size();
      if (!live.emplace(child, out.arg).second)
        throw std::logic_error("a frame was born twice without returning (the recorder lost an event)");
      tasks.emplace_back();
      tasks.back().frame_bytes = e.child_bytes;
      carry.push_back(0);
      drop_ends.push_back(0);
    }
    tasks[id].events.push_back(out);
  }
  if (!live.empty())
    throw std::logic_error(std::to_string(live.size()) + " task(s) of the recorded run never returned");
  return tasks;
}

}  // namespace

void dag_recorder::write() noexcept {
  end_run();
  if (!root_) {
    std::fprintf(stderr, "slaw: SLAW_RECORD='%s': the runtime ran nothing, no DAG written (the file is empty)\n",
                 path_.c_str());
    return;
  }
  clock_.calibrate_end();
  try {
    std::vector<dag_raw_event> all;
    std::size_t n = 0;
    for (unsigned i = 0; i < workers_; ++i) n += logs_[i].events().size();
    all.reserve(n);
    for (unsigned i = 0; i < workers_; ++i) all.insert(all.end(), logs_[i].events().begin(), logs_[i].events().end());
    std::vector<dag::task_record> tasks = build_dag(all, root_, root_bytes_, clock_.ns_per_tick());
    std::size_t events = 0;
    for (const dag::task_record& t : tasks) events += t.events.size();
    const auto recorded_ns = static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, clock_.to_ns(run_end_) - clock_.to_ns(run_start_)));
    dag::write_dag(path_, tasks, recorded_ns, workers_);
    std::fprintf(stderr, "slaw: DAG of %zu tasks and %zu events recorded to %s\n", tasks.size(), events,
                 path_.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slaw: SLAW_RECORD='%s': the DAG could not be written: %s\n", path_.c_str(), e.what());
  }
}

}  // namespace slaw::detail
