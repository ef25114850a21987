// slaw-sim --jobs (run_jobs.hpp): each configuration is a fresh run of the same jobs (fresh sources).
#include "sim/run_jobs.hpp"

#include <cmath>
#include <iostream>
#include <memory>

#include "sim/report.hpp"
#include "sim/workloads.hpp"

namespace slaw::sim {

int run_sharing(const options& o) {
  sharing_table tab(std::cout);
  tab.title(o);
  std::vector<sharing_line> lines;
  bool violations = false;
  for (std::uint32_t p : o.cores) {
    run_config base;
    base.adp = o.adp;
    base.seed = o.seed;
    base.preempted_first = o.preempted_first;
    base.what = o.what;
    base.idle = o.idle;
    double rate = 0;
    const std::vector<job_entry> plan = plan_jobs(o.job_list, p, o.c, base, &rate);
    tab.jobs(p, plan);
    tab.header();
    for (const row_spec& row : o.rows) {
      for (const sharing_row& cfg : o.sharing_rows) {
        std::vector<std::unique_ptr<dag_source>> sources;
        std::vector<job_input> inputs;
        for (const job_entry& j : plan) {
          sources.push_back(make_workload(j.gen));
          inputs.push_back({sources.back().get(), j.arrival});
        }
        run_config rc = base;
        rc.workers = o.workers_given ? o.workers.front() : p;
        rc.mode = row.mode;
        rc.scheduler = row.scheduler;
        rc.quota = row.quota;
        rc.checks = o.checks;
        sharing_config sc;
        sc.cores = p;
        sc.arbiter = cfg.arbiter;
        sc.rule = cfg.rule;
        sc.desire = o.desire;
        sc.quantum = static_cast<time_ps>(std::llround(o.quantum_ms * 1e9));
        sc.timeslice = static_cast<time_ps>(std::llround(o.timeslice_ms * 1e9));
        sc.self_picks = o.self_picks;
        sharing_line l{&row, &cfg, p, rc.workers, plan, rate, simulate_jobs(inputs, o.c, rc, sc)};
        tab.line(l);
        for (const std::string& v : l.r.run.violations) {
          std::cerr << "slaw-sim: invariant violated (" << row.tag << ", " << cfg.tag << ", P=" << p << "): " << v
                    << "\n";
          violations = true;
        }
        lines.push_back(std::move(l));
      }
    }
  }
  if (!o.csv.empty()) write_sharing_csv(o.csv, lines, o);
  if (!o.detail.empty()) write_sharing_detail_csv(o.detail, lines, o);
  if (!o.quanta.empty()) write_quanta_csv(o.quanta, lines, o);
  return violations ? 1 : 0;
}

}  // namespace slaw::sim
