// A recorded DAG as a workload (recorded.hpp). Its cost model is the recording: each strand costs what
// it measured (ns since the task's previous event), each frame the bytes the runtime allocated for it;
// the simulator adds its modelled runtime costs (call, spawn, finish, ...) around them as for any
// generated workload.
#include <cstdio>

#include "dag/dag_work_span.hpp"
#include "sim/recorded.hpp"

namespace slaw::sim {

namespace {

std::string seconds(double s) {
  char b[64];
  if (s >= 1) std::snprintf(b, sizeof b, "%.3f s", s);
  else if (s >= 1e-3) std::snprintf(b, sizeof b, "%.3f ms", s * 1e3);
  else if (s >= 1e-6) std::snprintf(b, sizeof b, "%.3f us", s * 1e6);
  else std::snprintf(b, sizeof b, "%.1f ns", s * 1e9);
  return b;
}

}  // namespace

recorded_source::recorded_source(dag::dag_file file) : file_(std::move(file)) {}

std::string recorded_source::name() const {
  const std::string& p = file_.name();
  const std::size_t slash = p.find_last_of('/');
  return "dag:" + (slash == std::string::npos ? p : p.substr(slash + 1));
}

body recorded_source::root() const { return body{0, file_.first_event(0), 0, 0, 0}; }

std::uint32_t recorded_source::root_bytes() const { return file_.frame_bytes(0); }

step recorded_source::next(body& t) {
  dag::event e;
  t.b = file_.decode(t.b, e);
  step s;
  // Exact: the reader bounds the total work by 2^52 ns, so ns * 1000 fits time_ps.
  s.work = static_cast<time_ps>(e.work_ns) * 1000;
  switch (e.op) {
    case dag::dag_op::spawn:
    case dag::dag_op::call:
      s.what = e.op == dag::dag_op::spawn ? op::spawn : op::call;
      s.child = body{e.arg, file_.first_event(e.arg), 0, 0, 0};
      s.child_bytes = file_.frame_bytes(e.arg);
      s.clause = static_cast<policy::schedule>(e.clause);  // 0 dyn, 1 wf, 2 hf, as policy::schedule
      break;
    case dag::dag_op::start_finish: s.what = op::start_finish; break;
    case dag::dag_op::end_finish: s.what = op::end_finish; break;
    case dag::dag_op::alloc:
    case dag::dag_op::free:
      s.what = e.op == dag::dag_op::alloc ? op::alloc : op::free;
      s.bytes = static_cast<std::int64_t>(e.arg);  // <= 2^62 (the reader's bound)
      break;
    case dag::dag_op::ret: s.what = op::ret; break;
  }
  return s;
}

std::string recorded_source::cost_model() const {
  return "recorded: each strand costs what the run measured, each frame its recorded bytes";
}

std::string recorded_source::summary() const {
  const dag::dag_header& h = file_.header();
  const dag::work_span ws = dag::analyze(file_);
  const dag::dag_totals& t = file_.totals();
  char par[32];
  std::snprintf(par, sizeof par, "%.1f", ws.parallelism());
  return "recorded on " + std::to_string(h.workers) + " worker" + (h.workers == 1 ? "" : "s") + " in " +
         seconds(static_cast<double>(h.recorded_ns) * 1e-9) + ": " + std::to_string(file_.task_count()) + " tasks (" +
         std::to_string(t.spawns) + " spawns, " + std::to_string(t.calls) + " calls, " + std::to_string(t.finishes) +
         " finishes); the recorded strands alone: work " + seconds(static_cast<double>(ws.work) * 1e-9) + ", span " +
         seconds(static_cast<double>(ws.span) * 1e-9) + ", parallelism " + par +
         " (the simulator's line below adds its modelled runtime costs)\n";
}

std::unique_ptr<recorded_source> make_recorded(const std::string& path) {
  return std::make_unique<recorded_source>(dag::read_dag(path));
}

}  // namespace slaw::sim
