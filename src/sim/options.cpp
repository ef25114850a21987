#include "sim/options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

bool to_u64(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
  v = x;
  return true;
}

std::uint64_t bounded(const std::string& opt, const std::string& v, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t x;
  if (!to_u64(v, x) || x < lo || x > hi)
    throw usage_error(opt + " '" + v + "': expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

}  // namespace

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) return out;
    start = p + 1;
  }
}

std::vector<std::uint32_t> parse_workers(const std::string& s) {
  const std::string accepted =
      "expected a comma-separated list of N, A-B (every integer), A-B*F (times F) or A-B+S (step S), each in [1, " +
      std::to_string(max_workers) + "]";
  std::vector<std::uint32_t> out;
  for (const std::string& item : split(s, ',')) {
    auto bad = [&] { return usage_error("--workers '" + s + "': '" + item + "' is not valid; " + accepted); };
    std::uint64_t a, b, k = 1;
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      if (!to_u64(item, a) || a < 1 || a > max_workers) throw bad();
      out.push_back(static_cast<std::uint32_t>(a));
      continue;
    }
    std::string lo = item.substr(0, dash), hi = item.substr(dash + 1);
    char kind = '+';
    const std::size_t op = hi.find_first_of("*+");
    if (op != std::string::npos) {
      kind = hi[op];
      if (!to_u64(hi.substr(op + 1), k) || k < (kind == '*' ? 2u : 1u) || k > max_workers) throw bad();
      hi = hi.substr(0, op);
    }
    if (!to_u64(lo, a) || !to_u64(hi, b) || a < 1 || b > max_workers || a > b) throw bad();
    for (std::uint64_t x = a; x <= b; x = kind == '*' ? x * k : x + k) out.push_back(static_cast<std::uint32_t>(x));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string usage() {
  std::string s =
      "usage: slaw-sim --gen WORKLOAD | --dag FILE [options]\n"
      "Simulates the slaw runtime's schedulers (the runtime's own policy code) on P = 1..1024 simulated\n"
      "workers and prints, per configuration, the simulated time, the speedup over the work, steals,\n"
      "the largest work-first depth, fresh-task count and live bytes; and the computation's work, span\n"
      "and parallelism as Cilkscale reports them. docs/simulation.md has the model and its calibration.\n"
      "\n"
      "  --gen SPEC             the workload (see --list), e.g. fib:30, fj:1024,reps=100, uts:T3, dc:12\n"
      "  --dag FILE             instead of --gen: a DAG recorded from a real run (SLAW_RECORD=FILE); also\n"
      "                         prints its own work, span and parallelism as recorded\n"
      "  --workers LIST         worker counts: 1,2,4 | 1-256 | 1-1024*2 (doubling) | 8-64+8; default 1\n"
      "  --policy LIST          spawn policies of work stealing: wf, hf, dyn (ADP); default dyn\n"
      "  --scheduler LIST       ws (SLAW's adaptive work stealing), dfdeques (DFDeques(K)); default ws\n"
      "  --K LIST               dfdeques: memory quota per worker between steals, bytes >= 1 or inf;\n"
      "                         default 50000\n"
      "  --seed N               victim choices (0: the runtime's own per-worker seeds); default 0\n"
      "  --costs NAME|FILE      cost model: measured (default), burdened, slaw-java, unit, or a file of\n"
      "                         KEY=VALUE lines\n"
      "  --cost KEY=VALUE       override one cost (repeatable; applied after --costs)\n"
      "  --S N, --F N, --INT N  ADP's stack bound, fresh-task bound, interval (defaults 256, 128, 64)\n"
      "  --steal-threshold N    ADP: steals from a worker per interval above which it goes help-first;\n"
      "                         default INT\n"
      "  --spin-rounds N        fruitless steal rounds before an idle worker sleeps; default 64\n"
      "  --what-if LIST         runtime changes to try: dfd-no-publish (a DFDeques thief does not publish\n"
      "                         its next push), dfd-pick-positions (victims among p positions, as Fig. 5:\n"
      "                         these two are DFDeques before today's), dfd-free-r (no lock on R),\n"
      "                         adp-start-hf (ADP starts help-first, as SLAW and slaw before),\n"
      "                         expose-after-request=N (the expose window: after answering a request\n"
      "                         of M different thieves, a deque publishes each of its next N pushes at\n"
      "                         once; default 4, 0 for none), expose-min-thieves=M (1 to 31; default 2)\n"
      "  --fresh-first          thieves try a victim's fresh deque before its preempted one\n"
      "  --checks               verify the runtime's invariants on every operation (slower)\n"
      "  --csv FILE             the results as Cilkscale's CSV (tag, work, span, parallelism, burdened\n"
      "                         span, burdened parallelism, then one 'Nc time (seconds)' column per N)\n"
      "  --detail FILE          every counter of every configuration, one CSV line each\n"
      "  --plot FILE.png        plot time and speedup against workers (runs src/sim/plot_sim.py)\n"
      "  --python PATH          the Python with matplotlib for --plot; default /usr/bin/python3\n"
      "  --list                 the workloads, their cost models, and the cost keys\n" + sharing_usage() +
      "  --help                 this text\n";
  return s;
}

options parse_options(int argc, char** argv) {
  options o;
  std::vector<std::string> cost_overrides;
  std::vector<std::string> policies{"dyn"}, schedulers{"ws"};
  std::vector<std::uint64_t> quotas{50000};
  bool k_given = false;
  std::int64_t threshold = -1;  // --steal-threshold, applied after --INT (which sets both)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(a + ": missing its value (see --help)");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") o.help = true;
    else if (a == "--list") o.list = true;
    else if (a == "--gen") o.gen = value();
    else if (a == "--dag") o.dag = value();
    else if (a == "--workers") {
      o.workers = parse_workers(value());
      o.workers_given = true;
    } else if (parse_sharing_option(o, a, i, argc, argv)) continue;
    else if (a == "--policy") {
      policies = split(value(), ',');
      for (const std::string& p : policies)
        if (p != "wf" && p != "hf" && p != "dyn")
          throw usage_error("--policy: '" + p + "' is not a policy; accepted: wf, hf, dyn");
    } else if (a == "--scheduler") {
      schedulers = split(value(), ',');
      for (const std::string& p : schedulers)
        if (p != "ws" && p != "dfdeques")
          throw usage_error("--scheduler: '" + p + "' is not a scheduler; accepted: ws, dfdeques");
    } else if (a == "--K") {
      const std::string v = value();
      quotas.clear();
      k_given = true;
      for (const std::string& k : split(v, ',')) {
        std::uint64_t q;
        if (k == "inf") q = 0;
        else if (!to_u64(k, q) || q < 1 || q > max_quota)
          throw usage_error("--K: '" + k + "' is not a quota; accepted: bytes 1 .. 2^62, or inf");
        quotas.push_back(q);
      }
    } else if (a == "--seed") o.seed = bounded(a, value(), 0, ~std::uint64_t{0} >> 1);
    else if (a == "--costs") o.cost_model = value();
    else if (a == "--cost") cost_overrides.push_back(value());
    else if (a == "--S") o.adp.S = static_cast<std::uint32_t>(bounded(a, value(), 1, 1u << 30));
    else if (a == "--F") o.adp.F = static_cast<std::uint32_t>(bounded(a, value(), 1, 1u << 30));
    else if (a == "--INT") {
      o.adp.INT = static_cast<std::uint32_t>(bounded(a, value(), 1, 1u << 30));
      o.adp.steal_threshold = o.adp.INT;  // as SLAW_INT sets both
    } else if (a == "--steal-threshold") {
      threshold = static_cast<std::uint32_t>(bounded(a, value(), 0, 1u << 30));
    } else if (a == "--what-if") {
      for (const std::string& w : split(value(), ',')) {
        if (w == "dfd-no-publish") o.what.dfd_no_publish = true;
        else if (w == "dfd-pick-positions") o.what.dfd_pick_positions = true;
        else if (w == "dfd-free-r") o.what.dfd_free_r = true;
        else if (w == "adp-start-hf") o.adp.start = policy::spawn_policy::hf;  // as SLAW (and slaw before)
        else if (w.rfind("expose-after-request=", 0) == 0)
          o.what.expose_after_request =
              static_cast<std::uint32_t>(bounded("--what-if expose-after-request", w.substr(21), 0, 1u << 30));
        else if (w.rfind("expose-min-thieves=", 0) == 0)
          o.what.expose_min_thieves =
              static_cast<std::uint32_t>(bounded("--what-if expose-min-thieves", w.substr(19), 1, 31));
        else
          throw usage_error("--what-if: '" + w + "' is not a change; accepted: dfd-no-publish, dfd-pick-positions, "
                            "dfd-free-r, adp-start-hf, expose-after-request=N, expose-min-thieves=M");
      }
    } else if (a == "--spin-rounds") o.idle.spin_rounds = static_cast<std::uint32_t>(bounded(a, value(), 1, 1u << 30));
    else if (a == "--fresh-first") o.preempted_first = false;
    else if (a == "--checks") o.checks = true;
    else if (a == "--csv") o.csv = value();
    else if (a == "--detail") o.detail = value();
    else if (a == "--plot") o.plot = value();
    else if (a == "--python") o.python = value();
    else throw usage_error("unknown option '" + a + "' (see --help)");
  }
  if (o.help || o.list) return o;
  if (threshold >= 0) o.adp.steal_threshold = static_cast<std::uint32_t>(threshold);
  sharing_options_done(o);
  if (o.gen.empty() && o.dag.empty() && o.jobs.empty())
    throw usage_error("--gen or --dag is required: a workload (see --list) or a recorded DAG file");
  if (!o.gen.empty() && !o.dag.empty())
    throw usage_error("--gen '" + o.gen + "' and --dag '" + o.dag + "': give one of the two, not both");
  // The cost model, then the overrides.
  bool named = false;
  for (const std::string& n : costs::model_names()) named |= n == o.cost_model;
  try {
    if (named) {
      o.c = costs::named(o.cost_model);
    } else {  // a file: errors say why it cannot be read or what is wrong in it
      o.c = costs{};
      o.c.load_file(o.cost_model);
    }
    std::vector<std::string> overridden;
    for (const std::string& kv : cost_overrides) {
      const std::size_t eq = kv.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("'" + kv + "' is not KEY=VALUE");
      const std::string key = kv.substr(0, eq);
      if (std::find(overridden.begin(), overridden.end(), key) != overridden.end())
        throw std::invalid_argument("--cost '" + key + "' is given twice; give each key once");
      overridden.push_back(key);
      o.c.set(key, kv.substr(eq + 1));
    }
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--costs/--cost: ") + e.what());
  }
  const bool has_dfd = std::find(schedulers.begin(), schedulers.end(), "dfdeques") != schedulers.end();
  if (k_given && !has_dfd) throw usage_error("--K applies to --scheduler dfdeques only");
  for (const std::string& s : schedulers) {
    if (s == "ws") {
      for (const std::string& p : policies) {
        row_spec r;
        r.mode = p == "wf" ? policy::mode::wf : p == "hf" ? policy::mode::hf : policy::mode::dyn;
        r.tag = p;
        o.rows.push_back(r);
      }
    } else {
      for (std::uint64_t q : quotas) {
        row_spec r;
        r.scheduler = scheduler_kind::dfdeques;
        r.mode = policy::mode::wf;
        r.quota = q;
        r.tag = "dfd(K=" + (q ? std::to_string(q) : std::string("inf")) + ")";
        o.rows.push_back(r);
      }
    }
  }
  return o;
}

}  // namespace slaw::sim
