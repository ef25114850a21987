// Parsing of --jobs and the Poisson generator (job_list.hpp).
#include "sim/job_list.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "sim/options.hpp"
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

const char* const forms =
    "expected items separated by ';': WORKLOAD[@TIME] (TIME in ms, or with s, ms, us), or one "
    "poisson:N,rate=JOBS_PER_S|load=PER_CORE[,seed=S] followed by the workloads it draws from";

bool to_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno != ERANGE && std::isfinite(v);
}

void check_workload(const std::string& gen) { (void)make_workload(gen); }  // throws naming the problem

}  // namespace

time_ps parse_duration(const std::string& text) {
  std::string num = text;
  double scale = 1e9;  // ms in ps
  for (const auto& [suffix, ps] : {std::pair<const char*, double>{"us", 1e6}, {"ms", 1e9}, {"s", 1e12}}) {
    const std::string suf = suffix;
    if (num.size() > suf.size() && num.compare(num.size() - suf.size(), suf.size(), suf) == 0) {
      num = num.substr(0, num.size() - suf.size());
      scale = ps;
      break;
    }
  }
  double v;
  if (!to_double(num, v) || v < 0 || v * scale > 9e18)
    throw std::invalid_argument("'" + text + "' is not a time: expected a number >= 0 of ms, or with s, ms or us");
  return static_cast<time_ps>(std::llround(v * scale));
}

job_list_spec parse_job_list(const std::string& spec) {
  job_list_spec s;
  s.text = spec;
  auto bad = [&](const std::string& why) {
    return std::invalid_argument("--jobs '" + spec + "': " + why + "; " + forms);
  };
  bool timed = false;  // some item has @TIME
  for (const std::string& item : split(spec, ';')) {
    if (item.empty()) throw bad("an empty item");
    if (item.rfind("poisson:", 0) == 0) {
      if (s.poisson) throw bad("two generators");
      s.poisson = true;
      const std::vector<std::string> parts = split(item.substr(8), ',');
      double n;
      if (!to_double(parts[0], n) || n < 1 || n > 100000 || n != std::floor(n))
        throw bad("poisson:" + parts[0] + ": the job count must be an integer in [1, 100000]");
      s.count = static_cast<std::uint32_t>(n);
      bool have_seed = false;
      for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::size_t eq = parts[i].find('=');
        const std::string k = parts[i].substr(0, eq), v = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
        double x;
        if (k == "rate" && to_double(v, x) && x > 0 && x <= 1e12) s.rate = x;
        else if (k == "load" && to_double(v, x) && x > 0 && x <= 1e6) s.load = x;
        else if (k == "seed" && to_double(v, x) && x >= 0 && x < 9e15 && x == std::floor(x) && !have_seed) {
          s.seed = static_cast<std::uint64_t>(x);
          have_seed = true;
        } else {
          throw bad("'" + parts[i] + "': the generator accepts rate=R (jobs per second, > 0), load=X (offered " +
                    "load per core, > 0) and seed=S (an integer >= 0)");
        }
      }
      if ((s.rate > 0) == (s.load > 0)) throw bad("the generator needs exactly one of rate= and load=");
      continue;
    }
    const std::size_t at = item.rfind('@');
    job_entry e;
    e.gen = item.substr(0, at);
    if (at != std::string::npos) {
      try {
        e.arrival = parse_duration(item.substr(at + 1));
      } catch (const std::invalid_argument& x) {
        throw bad("'" + item + "': " + x.what());
      }
    }
    try {
      check_workload(e.gen);
    } catch (const std::invalid_argument& x) {
      throw std::invalid_argument("--jobs: " + std::string(x.what()));
    }
    timed |= at != std::string::npos;
    s.fixed.push_back(e);
  }
  if (s.poisson) {
    if (timed) throw bad("the generator's workloads take no @TIME");
    for (const job_entry& e : s.fixed) s.mix.push_back(e.gen);
    s.fixed.clear();
    if (s.mix.empty()) throw bad("the generator has no workloads to draw from");
  }
  if (!s.poisson && s.fixed.empty()) throw bad("no jobs");
  return s;
}

std::vector<job_entry> plan_jobs(const job_list_spec& s, std::uint32_t cores, const costs& c, const run_config& base,
                                 double* rate_out) {
  if (rate_out) *rate_out = 0;
  if (!s.poisson) return s.fixed;
  double rate = s.rate;  // per second
  if (rate == 0) {
    double mean = 0;
    for (const std::string& g : s.mix) {
      run_config one = base;
      one.workers = 1;
      one.mode = policy::mode::wf;
      one.scheduler = scheduler_kind::ws;
      one.checks = false;
      std::unique_ptr<dag_source> src = make_workload(g);
      mean += to_seconds(simulate(*src, c, one).dag.work) / static_cast<double>(s.mix.size());
    }
    rate = s.load * cores / mean;
  }
  if (rate_out) *rate_out = rate;
  std::vector<job_entry> out;
  double t = 0;
  for (std::uint32_t k = 0; k < s.count; ++k) {
    const double pick = unit_interval(mix64(s.seed * 0x9E3779B97F4A7C15ull + 2 * k));
    const double gap = unit_interval(mix64(s.seed * 0x9E3779B97F4A7C15ull + 2 * k + 1));
    if (k > 0) t += -std::log1p(-gap) / rate;
    const auto which = std::min<std::size_t>(static_cast<std::size_t>(pick * static_cast<double>(s.mix.size())),
                                             s.mix.size() - 1);
    out.push_back({s.mix[which], static_cast<time_ps>(std::llround(t * 1e12))});
  }
  return out;
}

}  // namespace slaw::sim
