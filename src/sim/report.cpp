#include "sim/report.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include "slaw/policy/allotment.hpp"
#include "slaw/policy/desire.hpp"

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

// ---------------------------------------------------------------- several jobs

history_summary summarize(const std::vector<quantum_record>& quanta, long job) {
  history_summary h;
  std::map<std::uint32_t, double> last_step;  // per job, the last nonzero change of its desire
  for (const quantum_record& q : quanta) {
    if (job >= 0 && q.job != static_cast<std::uint32_t>(job)) continue;
    ++h.quanta;
    h.mean_desire += q.desire;
    h.mean_allotment += q.sample.allotment;
    h.mean_busy += q.busy_measured;
    if (q.next_allotment != q.sample.allotment) ++h.allotment_changes;
    const double step = q.next_desire - q.desire;
    if (std::abs(step) < 1e-9) continue;
    auto it = last_step.find(q.job);
    if (it != last_step.end() && (it->second > 0) != (step > 0)) ++h.desire_reversals;
    last_step[q.job] = step;
  }
  if (h.quanta) {
    h.mean_desire /= static_cast<double>(h.quanta);
    h.mean_allotment /= static_cast<double>(h.quanta);
    h.mean_busy /= static_cast<double>(h.quanta);
  }
  return h;
}

sharing_figures figures(const sharing_line& l) {
  sharing_figures f;
  const sharing_result& r = l.r;
  f.makespan = to_seconds(r.run.makespan);
  for (const job_result& j : r.jobs) f.mean_response += to_seconds(j.response()) / static_cast<double>(r.jobs.size());
  if (f.makespan > 0) f.utilization = to_seconds(r.busy) / (l.cores * f.makespan);
  if (r.allotted > 0) f.efficiency = static_cast<double>(r.busy) / static_cast<double>(r.allotted);
  return f;
}

void sharing_table::title(const options& o) {
  out_ << "slaw-sim: --jobs '" << o.jobs << "', costs " << o.cost_model << ", seed " << o.seed << ", quantum "
       << o.quantum_ms << " ms, beta " << o.desire.beta << ", rho " << o.desire.rho << ", delta " << o.desire.delta
       << "\n";
}

void sharing_table::jobs(std::uint32_t cores, const std::vector<job_entry>& jobs) {
  out_ << "\n" << jobs.size() << " jobs on " << cores << " cores:";
  for (std::size_t j = 0; j < jobs.size(); ++j)
    out_ << (j % 4 ? "  " : "\n  ") << "[" << j << "] " << jobs[j].gen << " @ " << duration(to_seconds(jobs[j].arrival));
  out_ << "\n";
}

void sharing_table::header() {
  char b[256];
  std::snprintf(b, sizeof b, "%-5s %-10s %-11s %12s %12s %6s %6s %7s %6s %6s %7s %7s %9s %8s %8s %7s\n", "cores",
                "scheduler", "arbiter", "makespan", "mean_resp", "util", "eff", "quanta", "a_chg", "d_rev", "mean_d",
                "mean_a", "steals", "mugs", "preempt", "sim_s");
  out_ << b;
}

void sharing_table::line(const sharing_line& l) {
  const sharing_figures f = figures(l);
  const history_summary h = summarize(l.r.quanta, -1);
  const worker_counters& c = l.r.run.total;
  char b[384];
  std::snprintf(b, sizeof b, "%-5u %-10s %-11s %12s %12s %6.3f %6.3f %7llu %6llu %6llu %7.2f %7.2f %9llu %8llu %8llu %7.2f\n",
                l.cores, l.row->tag.c_str(), l.cfg->tag.c_str(), duration(f.makespan).c_str(),
                duration(f.mean_response).c_str(), f.utilization, f.efficiency,
                static_cast<unsigned long long>(h.quanta), static_cast<unsigned long long>(h.allotment_changes),
                static_cast<unsigned long long>(h.desire_reversals), h.mean_desire, h.mean_allotment,
                static_cast<unsigned long long>(c.steals_preempted + c.steals_fresh),
                static_cast<unsigned long long>(c.mugs), static_cast<unsigned long long>(c.preemptions),
                l.r.run.wall_seconds);
  out_ << b;
  for (std::size_t j = 0; j < l.r.jobs.size(); ++j) {
    const job_result& r = l.r.jobs[j];
    const history_summary hj = summarize(l.r.quanta, static_cast<long>(j));
    std::snprintf(b, sizeof b, "      job %-3zu arrival %11s  completion %11s  response %11s  quanta %5llu  mean d %6.2f  mean a %6.2f\n",
                  j, duration(to_seconds(r.arrival)).c_str(), duration(to_seconds(r.end)).c_str(),
                  duration(to_seconds(r.response())).c_str(), static_cast<unsigned long long>(hj.quanta), hj.mean_desire,
                  hj.mean_allotment);
    out_ << b;
  }
  out_.flush();
}

namespace {
// What identifies a run: its configuration, and the generator's load, rate and seed (empty for a list).
void sharing_key(std::ofstream& f, const sharing_line& l, const options& o) {
  f << l.cores << ',' << l.workers << ',' << field(l.row->tag) << ',' << field(l.cfg->tag) << ','
    << policy::desire_rule_name(l.cfg->rule) << ',';
  if (o.job_list.poisson) f << o.job_list.load << ',' << l.rate << ',' << o.job_list.seed;
  else f << ",,";
}
const char* const sharing_key_header = "cores,workers,scheduler,arbiter,desire,load,rate_per_s,gen_seed";
}  // namespace

void write_sharing_csv(const std::string& path, const std::vector<sharing_line>& lines, const options& o) {
  std::ofstream f = open_out(path);
  f << sharing_key_header
    << ",quantum_ms,beta,rho,delta,self_picks,jobs,seed,costs,makespan_s,mean_response_s,"
       "utilization,efficiency,busy_core_s,allotted_core_s,quanta,allotment_changes,desire_reversals,mean_desire,"
       "mean_allotment,mean_busy,steals,mugs,drains,preemptions,overrun_core_s,events,schedule_hash,sim_seconds\n";
  for (const sharing_line& l : lines) {
    const sharing_figures x = figures(l);
    const history_summary h = summarize(l.r.quanta, -1);
    const worker_counters& c = l.r.run.total;
    sharing_key(f, l, o);
    f << ',' << o.quantum_ms << ',' << o.desire.beta << ',' << o.desire.rho << ',' << o.desire.delta << ','
      << (o.self_picks ? "count" : "skip") << ',' << l.r.jobs.size() << ',' << o.seed << ',' << field(o.cost_model) << ',' << x.makespan << ',' << x.mean_response
      << ',' << x.utilization << ',' << x.efficiency << ',' << to_seconds(l.r.busy) << ',' << to_seconds(l.r.allotted)
      << ',' << h.quanta << ',' << h.allotment_changes << ',' << h.desire_reversals << ',' << h.mean_desire << ','
      << h.mean_allotment << ',' << h.mean_busy << ',' << c.steals_preempted + c.steals_fresh << ',' << c.mugs << ','
      << c.drains << ',' << c.preemptions << ',' << to_seconds(c.overrun) << ',' << l.r.run.events << ','
      << l.r.run.schedule_hash << ',' << l.r.run.wall_seconds << '\n';
  }
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

void write_sharing_detail_csv(const std::string& path, const std::vector<sharing_line>& lines, const options& o) {
  std::ofstream f = open_out(path);
  f << sharing_key_header << ",seed,job,workload,arrival_s,completion_s,response_s,work_s,span_s,"
       "parallelism,tasks,quanta,mean_desire,mean_allotment,allotment_changes,desire_reversals,mean_busy,steals,mugs,"
       "drains,preemptions\n";
  for (const sharing_line& l : lines) {
    for (std::size_t j = 0; j < l.r.jobs.size(); ++j) {
      const job_result& r = l.r.jobs[j];
      const history_summary h = summarize(l.r.quanta, static_cast<long>(j));
      sharing_key(f, l, o);
      f << ',' << o.seed << ',' << j << ',' << field(l.jobs[j].gen) << ',' << to_seconds(r.arrival) << ','
        << to_seconds(r.end) << ',' << to_seconds(r.response()) << ',' << to_seconds(r.dag.work) << ','
        << to_seconds(r.dag.span) << ',' << r.dag.parallelism() << ',' << r.tasks << ',' << h.quanta << ','
        << h.mean_desire << ',' << h.mean_allotment << ',' << h.allotment_changes << ',' << h.desire_reversals << ','
        << h.mean_busy << ',' << r.total.steals_preempted + r.total.steals_fresh << ',' << r.total.mugs << ','
        << r.total.drains << ',' << r.total.preemptions << '\n';
    }
  }
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

void write_quanta_csv(const std::string& path, const std::vector<sharing_line>& lines, const options& o) {
  std::ofstream f = open_out(path);
  f << sharing_key_header << ",job,quantum,start_s,end_s,allotment,desire_in_force,next_desire,"
       "next_allotment,busy_measured,utilization_est,busy_est,sampled_queue,snapshot_queue,alpha,steal_attempts,"
       "purely_unsuccessful,sampled_length,mugs,max_steal_attempts,active_deques,queued\n";
  for (const sharing_line& l : lines) {
    for (const quantum_record& q : l.r.quanta) {
      const policy::quantum_sample& x = q.sample;
      sharing_key(f, l, o);
      f << ',' << q.job << ',' << q.quantum << ',' << to_seconds(q.start) << ',' << to_seconds(q.end) << ','
        << x.allotment << ',' << q.desire << ',' << q.next_desire << ',' << q.next_allotment << ',' << q.busy_measured
        << ',' << q.terms.utilization << ',' << q.terms.busy << ',' << q.terms.sampled_queue << ','
        << q.terms.snapshot_queue << ',' << q.terms.alpha << ',' << x.steal_attempts << ',' << x.purely_unsuccessful
        << ',' << x.sampled_length << ',' << x.mugs << ',' << x.max_steal_attempts << ',' << x.active_deques << ','
        << x.queued << '\n';
    }
  }
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace slaw::sim
