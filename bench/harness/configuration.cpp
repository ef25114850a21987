#include "harness/configuration.hpp"

#include <omp.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "harness/benchmark.hpp"
#include "harness/subprocess.hpp"

namespace slawbench {

std::string rep_result::encode() const {
  std::string detail = oracle;
  std::replace(detail.begin(), detail.end(), '\n', ' ');
  char head[96];
  std::snprintf(head, sizeof head, "%.17g %ld %d\n", seconds, peak_rss_kb, ok ? 1 : 0);
  return head + detail + "\n" + counters;
}

std::optional<rep_result> rep_result::decode(const std::string& msg) {
  std::size_t nl1 = msg.find('\n');
  std::size_t nl2 = nl1 == std::string::npos ? nl1 : msg.find('\n', nl1 + 1);
  if (nl2 == std::string::npos) return std::nullopt;
  rep_result r;
  int ok = 0;
  std::istringstream head(msg.substr(0, nl1));
  if (!(head >> r.seconds >> r.peak_rss_kb >> ok)) return std::nullopt;
  r.ok = ok != 0;
  r.oracle = msg.substr(nl1 + 1, nl2 - nl1 - 1);
  r.counters = msg.substr(nl2 + 1);
  return r;
}

namespace {

// Peak resident set size since the last reset_peak_rss(), in KiB (Linux: VmHWM, reset via clear_refs).
void reset_peak_rss() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

long peak_rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// Whether the instance has a version for row `v` (a kernel without one is skipped for that row).
bool has_version(const variant& v, const instance& inst) {
  if (v.locality && !inst.has_locality()) return false;
  switch (v.kind) {
    case variant_kind::serial:
    case variant_kind::slaw: return true;
    case variant_kind::tbb: return inst.has_tbb() && (!v.tuned || inst.has_tbb_grain());
    case variant_kind::omp: return inst.has_omp() && (!v.tuned || inst.has_omp_dynamic());
    case variant_kind::pstl: return inst.has_pstl();
  }
  return false;
}

const benchmark* find_benchmark(const std::string& name) {
  for (const auto& b : registry())
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

int run_configuration(const options& o) {
  channel link(o.child_in, o.child_out);
  const benchmark* b = o.benches.size() == 1 ? find_benchmark(o.benches[0]) : nullptr;
  if (!b || o.variants.size() != 1 || o.workers.size() != 1) {
    std::fprintf(stderr, "slaw-bench: --child needs exactly one --bench, --variant and --workers\n");
    return 2;
  }
  const variant& v = *o.variants[0];
  const unsigned w = o.workers[0];

  std::unique_ptr<instance> inst;
  auto t0 = std::chrono::steady_clock::now();
  try {
    inst = b->make(params_of(*b, o));
  } catch (const bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s: %s\n", b->name.c_str(), e.what());
    return 2;
  }
  const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!has_version(v, *inst)) {
    link.send("skip");
    return 0;
  }

  // What the variant runs on, started before "ready" so that the first repetition does not pay for
  // creating threads (in the single-process driver the peers' thread pools outlived each benchmark).
  std::unique_ptr<slaw::runtime> rt;
  std::unique_ptr<tbb::global_control> tbb_limit;
  std::unique_ptr<tbb::task_arena> arena;
  switch (v.kind) {
    case variant_kind::serial: break;
    case variant_kind::slaw: {
      slaw::config c;
      try {
        c = v.slaw_config(w);
      } catch (const slaw::config_error& e) {
        std::fprintf(stderr, "slaw-bench: %s\n", e.what());
        return 2;
      }
      try {
        rt = std::make_unique<slaw::runtime>(c);
      } catch (const std::exception& e) {  // a deployment this machine cannot give (SLAW_BIND's CPUs)
        // The driver reports it with the configuration; said here only if the driver cannot hear it.
        if (!link.send(std::string("error ") + e.what())) std::fprintf(stderr, "slaw-bench: %s\n", e.what());
        return 3;
      }
      break;
    }
    case variant_kind::tbb:
    case variant_kind::pstl:  // libstdc++'s parallel STL runs on oneTBB: in the same arena, to follow --workers
      tbb_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, w);
      arena = std::make_unique<tbb::task_arena>(static_cast<int>(w));
      arena->execute([&] {
        tbb::task_group g;
        for (unsigned i = 0; i < 4 * w; ++i) g.run([] {});
        g.wait();
      });
      break;
    case variant_kind::omp:
      omp_set_num_threads(static_cast<int>(w));
#pragma omp parallel
      {
      }
      break;
  }

  char ready[64];
  std::snprintf(ready, sizeof ready, "ready %.9g", build_seconds);
  if (!link.send(ready)) return 0;

  while (auto cmd = link.receive()) {
    if (*cmd != "run") {
      std::fprintf(stderr, "slaw-bench: child: unexpected command '%s'\n", cmd->c_str());
      return 3;
    }
    rep_result r;
    inst->reset();
    if (rt) rt->reset_stats();
    reset_peak_rss();
    try {
      auto start = std::chrono::steady_clock::now();
      switch (v.kind) {
        case variant_kind::serial: inst->run_serial(); break;
        case variant_kind::slaw: v.locality ? inst->run_slaw_locality(*rt) : inst->run_slaw(*rt); break;
        case variant_kind::tbb:
          arena->execute([&] {
            if (v.locality) inst->run_tbb_locality(w);
            else if (v.tuned) inst->run_tbb_grain(w);
            else inst->run_tbb(w);
          });
          break;
        case variant_kind::omp:
          if (v.locality) inst->run_omp_locality(w);
          else if (v.tuned) inst->run_omp_dynamic(w);
          else inst->run_omp(w);
          break;
        case variant_kind::pstl: arena->execute([&] { inst->run_pstl(w); }); break;
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      r.peak_rss_kb = peak_rss_kb();
      outcome out = inst->check();
      r.ok = out.ok;
      r.oracle = out.detail;
    } catch (const std::exception& e) {  // a failed run, reported like a failed oracle
      r.peak_rss_kb = peak_rss_kb();
      r.ok = false;
      r.oracle = std::string("the run threw: ") + e.what();
    }
    if (rt) r.counters = rt->stats().to_json();
    if (!link.send(r.encode())) break;
  }
  return 0;
}

}  // namespace slawbench
