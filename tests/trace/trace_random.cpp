// trace_random OUTDIR PROGRAMS [FIRST_SEED]: runs random async/finish programs (tests/random's
// generator, with escaping asyncs, wf/hf/dyn clauses, exceptions, early exits and DFDeques' quota
// give-ups) with a timeline trace, one runtime per program, on each configuration below. For program
// `seed` on configuration `C` it writes OUTDIR/C-seed.json (the trace) and OUTDIR/C-seed.stats.json
// (SLAW_STATS's counters of the same runtime), for check_traces.py to compare. Every run is also
// checked against the sequential oracle: a wrong run is not a trace worth checking (exit status 1).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../random/check.hpp"
#include "../random/oracle.hpp"
#include "../random/program.hpp"
#include "../random/runner.hpp"
#include "slaw/slaw.hpp"

namespace {

struct tconfig {
  const char* name;
  slaw::scheduler_kind scheduler;
  slaw::policy::mode policy;
  std::uint64_t quota;
  unsigned workers;
};

const tconfig configs[] = {
    {"ws_wf_1w", slaw::scheduler_kind::ws, slaw::policy::mode::wf, slaw::quota_infinite, 1},
    {"ws_hf_1w", slaw::scheduler_kind::ws, slaw::policy::mode::hf, slaw::quota_infinite, 1},
    {"ws_dyn_1w", slaw::scheduler_kind::ws, slaw::policy::mode::dyn, slaw::quota_infinite, 1},
    {"ws_wf_2w", slaw::scheduler_kind::ws, slaw::policy::mode::wf, slaw::quota_infinite, 2},
    {"ws_hf_2w", slaw::scheduler_kind::ws, slaw::policy::mode::hf, slaw::quota_infinite, 2},
    {"ws_dyn_2w", slaw::scheduler_kind::ws, slaw::policy::mode::dyn, slaw::quota_infinite, 2},
    {"ws_wf_8w", slaw::scheduler_kind::ws, slaw::policy::mode::wf, slaw::quota_infinite, 8},
    {"ws_hf_8w", slaw::scheduler_kind::ws, slaw::policy::mode::hf, slaw::quota_infinite, 8},
    {"ws_dyn_8w", slaw::scheduler_kind::ws, slaw::policy::mode::dyn, slaw::quota_infinite, 8},
    {"dfd_K1024_2w", slaw::scheduler_kind::dfdeques, slaw::policy::mode::dyn, 1024, 2},
    {"dfd_K1024_8w", slaw::scheduler_kind::dfdeques, slaw::policy::mode::dyn, 1024, 8},
};

}  // namespace

int main(int argc, char** argv) {
  long programs = 0, first = 1;
  if (argc < 3 || argc > 4 || (programs = std::atol(argv[2])) <= 0 || (argc == 4 && (first = std::atol(argv[3])) <= 0)) {
    std::fprintf(stderr, "usage: trace_random OUTDIR PROGRAMS [FIRST_SEED]   (PROGRAMS, FIRST_SEED >= 1)\n");
    return 2;
  }
  const std::string dir = argv[1];
  int wrong = 0;
  for (const tconfig& c : configs) {
    for (long i = 0; i < programs; ++i) {
      const auto seed = static_cast<std::uint64_t>(first + i);
      const rp::program p = rp::generate(seed, rp::gen_params{});
      const rp::expectation e = rp::interpret(p);
      const std::string base = dir + "/" + c.name + "-" + std::to_string(seed);
      slaw::config cfg;
      cfg.workers = c.workers;
      cfg.scheduler = c.scheduler;
      cfg.policy = c.policy;
      cfg.quota = c.quota;
      cfg.adp.S = 4;  // tiny bounds, as in tests/random: every policy path is taken
      cfg.adp.F = 4;
      cfg.adp.INT = 8;
      cfg.adp.steal_threshold = 1;
      cfg.timeline_path = base + ".json";
      cfg.timeline_events = std::size_t{1} << 16;  // far more than these programs record
      cfg.stats = slaw::stats_output::file;
      cfg.stats_path = base + ".stats.json";
      std::vector<std::string> errors;
      {
        slaw::runtime rt(cfg);
        errors = rp::check(p, e, rp::run_program(rt, p, e));
      }  // the runtime writes the trace and the counters here
      if (!errors.empty()) {
        std::fprintf(stderr, "trace_random: %s seed %llu ran wrong:\n", c.name, static_cast<unsigned long long>(seed));
        for (const std::string& l : errors) std::fprintf(stderr, "  %s\n", l.c_str());
        ++wrong;
      }
    }
  }
  return wrong ? 1 : 0;
}
