#include "sim/report.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

namespace slaw::sim {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Seconds with an SI prefix: 12.3 ms, 4.56 us.
std::string duration(double s) {
  if (s >= 1) return fmt("%.3f s", s);
  if (s >= 1e-3) return fmt("%.3f ms", s * 1e3);
  if (s >= 1e-6) return fmt("%.3f us", s * 1e6);
  return fmt("%.1f ns", s * 1e9);
}

// A CSV field: quoted when it holds a comma or a quote (workload names do: fj:1024,reps=100).
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
  f.precision(9);
  return f;
}

}  // namespace

void table::title(const std::string& workload, const options& o) {
  out_ << "slaw-sim: " << workload << ", costs " << o.cost_model << ", seed " << o.seed << ", ADP S=" << o.adp.S
       << " F=" << o.adp.F << " INT=" << o.adp.INT << "\n";
}

void table::analysis(const dag_analysis& a, std::uint64_t tasks, const std::string& tag) {
  out_ << (tag.empty() ? "" : "[" + tag + "] ") << "work " << duration(to_seconds(a.work)) << ", span "
       << duration(to_seconds(a.span)) << ", parallelism " << fmt("%.1f", a.parallelism()) << ", burdened span "
       << duration(to_seconds(a.burdened_span)) << ", burdened parallelism " << fmt("%.1f", a.burdened_parallelism())
       << ", " << tasks << " tasks\n";
}

void table::header() {
  char b[256];
  std::snprintf(b, sizeof b, "%-14s %7s %12s %8s %8s %10s %10s %8s %8s %12s %9s %9s\n", "scheduler", "workers", "time",
                "speedup", "bound", "steals", "failed", "wf_depth", "fresh", "peak_bytes", "giveups", "sim_s");
  out_ << b;
}

void table::line(const result_line& l) {
  const run_result& r = l.r;
  const double t = to_seconds(r.makespan);
  const double speedup = r.makespan ? static_cast<double>(r.dag.work) / static_cast<double>(r.makespan) : 0;
  const double bound = to_seconds(r.dag.work) / r.dag.burdened_bound_seconds(l.workers);
  const std::uint64_t steals = r.total.steals_preempted + r.total.steals_fresh;
  char b[320];
  std::snprintf(b, sizeof b, "%-14s %7u %12s %8.2f %8.2f %10llu %10llu %8llu %8llu %12lld %9llu %9.2f\n", l.row->tag.c_str(),
                l.workers, duration(t).c_str(), speedup, bound, static_cast<unsigned long long>(steals),
                static_cast<unsigned long long>(r.total.failed_steals), static_cast<unsigned long long>(r.total.max_wf_depth),
                static_cast<unsigned long long>(r.total.max_fresh), static_cast<long long>(r.peak_bytes),
                static_cast<unsigned long long>(r.total.quota_giveups), r.wall_seconds);
  out_ << b;
  out_.flush();
}

void write_cilkscale_csv(const std::string& path, const std::vector<result_line>& lines) {
  // Rows in first-seen order; each row's analysis is that of its first configuration.
  std::vector<const row_spec*> rows;
  std::map<const row_spec*, std::map<std::uint32_t, double>> times;
  std::map<const row_spec*, dag_analysis> dags;
  std::map<std::uint32_t, bool> ps;
  for (const result_line& l : lines) {
    if (!times.count(l.row)) {
      rows.push_back(l.row);
      dags[l.row] = l.r.dag;
    }
    times[l.row][l.workers] = to_seconds(l.r.makespan);
    ps[l.workers] = true;
  }
  std::ofstream f = open_out(path);
  f << "tag,work (seconds),span (seconds),parallelism,burdened_span (seconds),burdened_parallelism";
  for (const auto& [p, _] : ps) f << ',' << p << "c time (seconds)";
  f << '\n';
  for (const row_spec* r : rows) {
    const dag_analysis& a = dags[r];
    f << field(r->tag) << ',' << to_seconds(a.work) << ',' << to_seconds(a.span) << ',' << a.parallelism() << ','
      << to_seconds(a.burdened_span) << ',' << a.burdened_parallelism();
    for (const auto& [p, _] : ps) {
      f << ',';
      auto it = times[r].find(p);
      if (it != times[r].end()) f << it->second;
    }
    f << '\n';
  }
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

void write_detail_csv(const std::string& path, const std::vector<result_line>& lines, const std::string& workload,
                      const options& o) {
  std::ofstream f = open_out(path);
  f << "workload,scheduler,workers,seed,costs,time_s,work_s,span_s,burdened_span_s,speedup,tasks,spawns_wf,spawns_hf,"
       "calls,steals_preempted,steals_fresh,failed_steals,probes,context_switches,suspensions,local_takes,tasks_run,"
       "policy_switches,max_wf_depth,max_fresh,parks,peak_bytes,peak_frame_bytes,peak_user_bytes,peak_live_tasks,"
       "quota_giveups,dummy_tasks,quota_max_used,quota_overrun_bytes,dfd_steals,dfd_failed_attempts,dfd_max_deques,"
       "schedule_hash,events,sim_seconds\n";
  for (const result_line& l : lines) {
    const run_result& r = l.r;
    const worker_counters& c = r.total;
    f << field(workload) << ',' << field(l.row->tag) << ',' << l.workers << ',' << o.seed << ',' << field(o.cost_model) << ','
      << to_seconds(r.makespan) << ',' << to_seconds(r.dag.work) << ',' << to_seconds(r.dag.span) << ','
      << to_seconds(r.dag.burdened_span) << ','
      << (r.makespan ? static_cast<double>(r.dag.work) / static_cast<double>(r.makespan) : 0) << ',' << r.tasks << ','
      << c.spawns_wf << ',' << c.spawns_hf << ',' << c.calls << ',' << c.steals_preempted << ',' << c.steals_fresh << ','
      << c.failed_steals << ',' << c.probes << ',' << c.context_switches << ',' << c.suspensions << ',' << c.local_takes
      << ',' << c.tasks_run << ',' << c.policy_switches << ',' << c.max_wf_depth << ',' << c.max_fresh << ',' << c.parks
      << ',' << r.peak_bytes << ',' << r.peak_frame_bytes << ',' << r.peak_user_bytes << ',' << r.peak_live_tasks << ','
      << c.quota_giveups << ',' << c.dummy_tasks << ',' << c.quota_max_used << ',' << c.quota_overrun_bytes << ','
      << r.dfd_steals << ',' << r.dfd_failed_attempts << ',' << r.dfd_max_deques << ',' << r.schedule_hash << ','
      << r.events << ',' << r.wall_seconds << '\n';
  }
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace slaw::sim
