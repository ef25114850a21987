// slaw-sim's options for several jobs (options.hpp; docs/simulation.md, "Several jobs"): parsed here so
// that options.cpp only hands them over. Bad values are usage_errors naming the accepted values.
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "sim/options.hpp"

namespace slaw::sim {

namespace {

double number(const std::string& opt, const std::string& v, double lo, double hi, bool open_lo) {
  char* end = nullptr;
  errno = 0;
  const double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
  const bool ok = !v.empty() && *end == '\0' && errno != ERANGE && std::isfinite(x) && (open_lo ? x > lo : x >= lo) &&
                  x <= hi;
  if (!ok) {
    char b[128];
    std::snprintf(b, sizeof b, "a number in %c%g, %g]", open_lo ? '(' : '[', lo, hi);
    throw usage_error(opt + " '" + v + "': expected " + b);
  }
  return x;
}

}  // namespace

std::string sharing_usage() {
  return "\nSeveral jobs under two-level scheduling (instead of --gen; docs/simulation.md, \"Several jobs\"):\n"
         "  --jobs SPEC            jobs separated by ';': WORKLOAD[@TIME] (TIME in ms, or s/ms/us), e.g.\n"
         "                         'fib:30@0;uts:T1@5ms', or 'poisson:N,rate=R|load=X[,seed=S];W1;W2;...':\n"
         "                         N jobs drawn from W1, W2, ... arriving as a Poisson process of R jobs per\n"
         "                         second, or at offered load X per core (lambda * mean T1 / P)\n"
         "  --cores LIST           simulated cores P (as --workers); each job has --workers workers (default P)\n"
         "  --arbiter LIST         deq (DEQ over the desires), equi (equal shares), off (every job runs all\n"
         "                         its workers; the OS time-shares the cores); default deq\n"
         "  --desire LIST          under deq: adeque (A-Deque), asteal (A-Steal's MIMD); default adeque\n"
         "  --quantum-ms X         the quantum L; default 10\n"
         "  --beta X, --rho X, --delta X  A-Deque's beta (2), A-Steal's rho (2) and delta (0.8)\n"
         "  --timeslice-ms X       off: a core's time slice among runnable workers; default 3\n"
         "  --self-picks count|skip  whether a thief's own slot in its probe window counts as a purely\n"
         "                         unsuccessful attempt (the estimator's bias fix, default) or is skipped\n"
         "  --quanta FILE          every quantum of every job (desire, allotment, counters) as CSV;\n"
         "                         --csv: one line per run; --detail: one line per job\n";
}

bool parse_sharing_option(options& o, const std::string& a, int& i, int argc, char** argv) {
  static const char* const names[] = {"--jobs",  "--cores", "--arbiter",      "--desire", "--quantum-ms", "--beta",
                                      "--rho",   "--delta", "--timeslice-ms", "--quanta", "--self-picks"};
  bool known = false;
  for (const char* n : names) known |= a == n;
  if (!known) return false;
  if (i + 1 >= argc) throw usage_error(a + ": missing its value (see --help)");
  const std::string v = argv[++i];
  if (a != "--jobs" && o.sharing_given.empty()) o.sharing_given = a;
  if (a == "--jobs") {
    o.jobs = v;
  } else if (a == "--cores") {
    try {
      o.cores = parse_workers(v);
    } catch (const usage_error& e) {
      std::string m = e.what();
      throw usage_error("--cores" + m.substr(m.find(' ')));  // the same forms as --workers
    }
  } else if (a == "--arbiter") {
    o.arbiter_names = split(v, ',');
    for (const std::string& n : o.arbiter_names) {
      bool ok = false;
      for (policy::arbiter x : policy::arbiters) ok |= n == policy::arbiter_name(x);
      if (!ok) throw usage_error("--arbiter: '" + n + "' is not an arbiter; accepted: deq, equi, off");
    }
  } else if (a == "--desire") {
    o.desire_names = split(v, ',');
    for (const std::string& n : o.desire_names) {
      bool ok = false;
      for (policy::desire_rule x : policy::desire_rules) ok |= n == policy::desire_rule_name(x);
      if (!ok) throw usage_error("--desire: '" + n + "' is not a desire rule; accepted: adeque, asteal");
    }
  } else if (a == "--quantum-ms") {
    o.quantum_ms = number(a, v, 0, 1e6, true);
  } else if (a == "--timeslice-ms") {
    o.timeslice_ms = number(a, v, 0, 1e6, true);
  } else if (a == "--beta") {
    o.desire.beta = number(a, v, 1, 1e6, false);
  } else if (a == "--rho") {
    o.desire.rho = number(a, v, 1, 1e6, true);
  } else if (a == "--delta") {
    o.desire.delta = number(a, v, 0, 1, true);
  } else if (a == "--self-picks") {
    if (v != "count" && v != "skip") throw usage_error("--self-picks: '" + v + "'; accepted: count, skip");
    o.self_picks = v == "count";
  } else {
    o.quanta = v;
  }
  return true;
}

void sharing_options_done(options& o) {
  if (o.jobs.empty()) {
    if (!o.sharing_given.empty()) throw usage_error(o.sharing_given + " applies to --jobs only");
    return;
  }
  if (!o.gen.empty() || !o.dag.empty())
    throw usage_error("--jobs and --" + std::string(o.gen.empty() ? "dag" : "gen") + ": give one of the two");
  try {
    o.job_list = parse_job_list(o.jobs);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  if (o.cores.empty()) throw usage_error("--jobs needs --cores P, the simulated cores the jobs share");
  if (o.workers_given && o.workers.size() != 1)
    throw usage_error("--workers with --jobs: one count, each job's workers (default: the cores)");
  if (!o.plot.empty()) throw usage_error("--plot applies to one job (--gen or --dag), not to --jobs");
  auto rule_of = [](const std::string& d) {
    policy::desire_rule r = policy::desire_rule::adeque;
    for (policy::desire_rule x : policy::desire_rules)
      if (d == policy::desire_rule_name(x)) r = x;
    return r;
  };
  for (const std::string& a : o.arbiter_names) {
    policy::arbiter arb = policy::arbiter::deq;
    for (policy::arbiter x : policy::arbiters)
      if (a == policy::arbiter_name(x)) arb = x;
    if (arb != policy::arbiter::deq) {  // the desire decides nothing (the first rule's is recorded): one run
      o.sharing_rows.push_back({arb, rule_of(o.desire_names.front()), a});
      continue;
    }
    for (const std::string& d : o.desire_names) o.sharing_rows.push_back({arb, rule_of(d), a + "+" + d});
  }
}

}  // namespace slaw::sim
