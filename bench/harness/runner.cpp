#include "harness/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "harness/benchmark.hpp"
#include "harness/configuration.hpp"
#include "harness/subprocess.hpp"

namespace slawbench {

namespace {

// One configuration's child and what it reported so far.
struct configuration {
  std::unique_ptr<child_process> proc;
  record rec;
  bool running = false;  // the child is alive and answering
  const char* variant() const { return rec.row->name.data(); }
};

// The child's argument list for one configuration.
std::vector<std::string> child_args(const options& opt, const std::string& bench, const variant& v, unsigned w) {
  std::vector<std::string> a = {"--bench", bench, "--size", opt.size, "--variant", std::string(v.name),
                                "--workers", std::to_string(w)};
  for (const auto& [k, val] : opt.args) {
    a.push_back("--arg");
    a.push_back(k + "=" + val);
  }
  return a;
}

// Ends a child, after its repetitions (`expected`) or because it stopped answering, and records how it
// ended. Returns false when the child reported a bad benchmark argument (status 2 before "ready").
bool end_child(configuration& c, const std::string& when, bool expected) {
  exit_status st = c.proc->finish();
  c.running = false;
  c.rec.process_peak_rss_kb = st.maxrss_kb;
  if (st.ok() && expected) return true;
  if (st.exited && st.code == 2 && c.rec.build_seconds < 0) return false;
  c.rec.process_failure = (st.ok() ? "stopped answering" : st.describe()) + " " + when;
  c.rec.fail("process " + c.rec.process_failure);
  std::fprintf(stderr, "slaw-bench: PROCESS FAILED: %s %s w=%u: %s\n", c.rec.bench.c_str(), c.variant(),
               c.rec.workers, c.rec.oracle.c_str());
  return true;
}

// Starts one child per variant of `b` at `w` workers; each builds its instance before the next starts.
// Returns false (status 2) when a child could not be started or rejected its parameters.
bool start_children(const options& opt, const benchmark& b, const params& p, unsigned w,
                    std::vector<configuration>& cs) {
  for (const variant* v : opt.variants) {
    if (v->single_worker() && w != opt.workers.front()) continue;  // once is enough
    configuration c;
    c.rec.bench = b.name;
    c.rec.params = p.all();
    c.rec.row = v;
    c.rec.workers = v->single_worker() ? 1 : w;
    try {
      c.proc = std::make_unique<child_process>(child_args(opt, b.name, *v, c.rec.workers));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slaw-bench: %s\n", e.what());
      return false;
    }
    auto hello = c.proc->link().receive();
    if (hello && *hello == "skip") {  // no such variant for this instance (the kernel said why)
      c.proc->finish();
      continue;
    }
    if (hello && hello->rfind("ready ", 0) == 0) {
      c.rec.build_seconds = std::atof(hello->c_str() + 6);
      c.running = true;
    } else if (!end_child(c, "while building the instance", false)) {
      for (auto& other : cs) other.proc->finish();
      return false;  // a bad benchmark argument: the child said which
    }
    cs.push_back(std::move(c));
  }
  return true;
}

// Asks every running child for repetition `rep` in turn and records the results (`w`: the worker count
// being run, as the progress lines say it).
void run_repetition(const options& opt, std::vector<configuration>& cs, unsigned w, int rep) {
  for (auto& c : cs) {
    if (!c.running) continue;
    std::optional<rep_result> r;
    if (c.proc->link().send("run"))
      if (auto reply = c.proc->link().receive()) r = rep_result::decode(*reply);
    if (!r) {
      end_child(c, "in repetition " + std::to_string(rep + 1), false);
      continue;
    }
    c.rec.seconds.push_back(r->seconds);
    c.rec.peak_rss_reps.push_back(r->peak_rss_kb);
    if (!r->ok) {
      c.rec.oracle_ok = false;
      std::fprintf(stderr, "slaw-bench: ORACLE FAILED: %s %s w=%u rep %d: %s\n", c.rec.bench.c_str(), c.variant(), w,
                   rep, r->oracle.c_str());
    }
    if (c.rec.oracle.empty() || !r->ok) c.rec.oracle = r->oracle;
    if (!r->counters.empty()) c.rec.counters = r->counters;  // the last repetition's
    if (!opt.quiet && isatty(2))
      std::fprintf(stderr, "\r%-10s w=%-2u rep %d/%d %-9s %8.4f s   ", c.rec.bench.c_str(), w, rep + 1, opt.reps,
                   c.variant(), r->seconds);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let spinning peers settle
  }
}

}  // namespace

int run_all(const options& opt, std::vector<record>& records) {
  std::vector<const benchmark*> chosen;
  for (const auto& b : registry())
    if (opt.benches.empty() || std::find(opt.benches.begin(), opt.benches.end(), b.name) != opt.benches.end())
      chosen.push_back(&b);
  std::sort(chosen.begin(), chosen.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::map<std::string, params> ps;
  try {
    for (const auto* b : chosen) ps.emplace(b->name, params_of(*b, opt));  // every --arg, before any run
  } catch (const bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n", e.what());
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a child that died must not take the driver with it

  bool all_ok = true;
  for (const auto* b : chosen) {
    for (unsigned w : opt.workers) {
      std::vector<configuration> cs;
      if (!start_children(opt, *b, ps.at(b->name), w, cs)) return 2;
      for (int rep = 0; rep < opt.reps; ++rep) run_repetition(opt, cs, w, rep);
      for (auto& c : cs) {
        if (c.running) end_child(c, "after its repetitions", true);
        all_ok = all_ok && c.rec.oracle_ok;
        if (!opt.quiet)
          std::fprintf(stderr, "%s%-10s w=%-2u %-9s median %8.4f s  peak RSS %7.1f MB  %s\n", isatty(2) ? "\r" : "",
                       b->name.c_str(), w, c.variant(), c.rec.median(), std::max(0L, c.rec.peak_rss_kb()) / 1024.0,
                       c.rec.oracle_ok ? "ok" : "FAILED");
        records.push_back(std::move(c.rec));
      }
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace slawbench
