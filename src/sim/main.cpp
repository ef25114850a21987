// slaw-sim: simulate slaw's schedulers on a generated workload or a recorded DAG (docs/simulation.md).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "sim/options.hpp"
#include "sim/recorded.hpp"
#include "sim/report.hpp"
#include "sim/run_jobs.hpp"
#include "sim/workloads.hpp"

extern char** environ;

namespace {

using namespace slaw::sim;

void list() {
  std::cout << "Workloads (--gen):\n";
  for (const workload_info& w : workloads()) {
    std::cout << "  " << w.syntax << "\n      " << w.about << "\n";
  }
  std::cout << "\nRecorded DAGs (--dag FILE, instead of --gen):\n"
               "  a run's DAG written by the runtime with SLAW_RECORD=FILE; each strand costs what it measured,\n"
               "  each frame its recorded bytes; the file is validated whole before use (docs/simulation.md)\n";
  std::cout << "\nCost models (--costs): ";
  for (const std::string& n : costs::model_names()) std::cout << n << ' ';
  std::cout << "\nCost keys (--cost KEY=VALUE, or lines of a --costs file):\n";
  for (const auto& [k, meaning] : costs::keys()) std::cout << "  " << k << ": " << meaning << "\n";
  std::cout << "\nThe measured model:\n" << costs{}.describe();
}

// The plotting script: beside an installed slaw-sim (bin/../share/slaw), else in the source tree.
std::string plot_script() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path() / SLAW_SIM_PLOT_INSTALLED;
    if (std::filesystem::is_regular_file(installed, ec)) return installed.lexically_normal().string();
  }
  return SLAW_SIM_PLOT_SCRIPT;
}

// Runs the plotting script without a shell: python SCRIPT CSV PNG TITLE.
int plot(const options& o, const std::string& csv, const std::string& title) {
  const std::string script = plot_script();
  std::vector<std::string> args{o.python, script, csv, o.plot, title};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, o.python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    std::cerr << "slaw-sim: --plot: cannot run '" << o.python << "' (set --python to a Python 3 with matplotlib)\n";
    return 1;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "slaw-sim: --plot: " << script << " failed (see its message above)\n";
    return 1;
  }
  return 0;
}

int run(const options& o) {
  std::unique_ptr<dag_source> src;
  std::string recorded;  // --dag: the DAG's own work and span, printed above the simulator's
  if (!o.dag.empty()) {
    std::unique_ptr<recorded_source> r = make_recorded(o.dag);
    recorded = r->summary();
    src = std::move(r);
  } else {
    src = make_workload(o.gen);
  }
  table tab(std::cout);
  tab.title(src->name(), o);
  std::cout << recorded;
  std::vector<result_line> lines;
  bool shown = false;
  dag_analysis shown_dag;
  bool violations = false;
  for (const row_spec& row : o.rows) {
    for (std::uint32_t p : o.workers) {
      run_config cfg;
      cfg.workers = p;
      cfg.mode = row.mode;
      cfg.adp = o.adp;
      cfg.scheduler = row.scheduler;
      cfg.quota = row.quota;
      cfg.seed = o.seed;
      cfg.preempted_first = o.preempted_first;
      cfg.what = o.what;
      cfg.idle = o.idle;
      cfg.checks = o.checks;
      result_line l{&row, p, simulate(*src, o.c, cfg)};
      const dag_analysis& a = l.r.dag;
      if (!shown || a.work != shown_dag.work || a.span != shown_dag.span) {
        tab.analysis(a, l.r.tasks, shown ? row.tag + " P=" + std::to_string(p) : "");
        if (!shown) tab.header();
        shown = true;
        shown_dag = a;
      }
      tab.line(l);
      for (const std::string& v : l.r.violations) {
        std::cerr << "slaw-sim: invariant violated (" << row.tag << ", P=" << p << "): " << v << "\n";
        violations = true;
      }
      lines.push_back(std::move(l));
    }
  }
  if (!o.csv.empty()) write_cilkscale_csv(o.csv, lines);
  if (!o.detail.empty()) write_detail_csv(o.detail, lines, src->name(), o);
  int rc = violations ? 1 : 0;
  if (!o.plot.empty()) {
    std::string csv = o.csv;
    std::string tmp;
    if (csv.empty()) {
      char name[] = "/tmp/slaw-sim-XXXXXX";
      int fd = mkstemp(name);
      if (fd < 0) throw std::runtime_error("--plot: cannot create a temporary file");
      close(fd);
      tmp = csv = name;
      write_cilkscale_csv(csv, lines);
    }
    if (plot(o, csv, src->name()) != 0) rc = 1;
    if (!tmp.empty()) std::remove(tmp.c_str());
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    o = parse_options(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "slaw-sim: " << e.what() << "\n";
    return 2;
  }
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.list) {
    list();
    return 0;
  }
  try {
    return o.jobs.empty() ? run(o) : run_sharing(o);  // run_sharing: several jobs (run_jobs.cpp)
  } catch (const std::invalid_argument& e) {  // a bad --gen, or a --dag file that is missing or invalid
    std::cerr << "slaw-sim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "slaw-sim: " << e.what() << "\n";
    return 1;
  }
}
