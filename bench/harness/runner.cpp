#include "harness/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/benchmark.hpp"
#include "harness/configuration.hpp"
#include "harness/interrupt.hpp"
#include "harness/progress.hpp"
#include "harness/quiet.hpp"
#include "harness/subprocess.hpp"

namespace slawbench {

namespace {

// A row's child_env, "A=x B=y", as "A=x", "B=y".
std::vector<std::string> split_env(std::string_view env) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < env.size()) {
    std::size_t sp = env.find(' ', at);
    if (sp == std::string_view::npos) sp = env.size();
    if (sp > at) out.emplace_back(env.substr(at, sp - at));
    at = sp + 1;
  }
  return out;
}


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

std::string formatted(const char* fmt, auto... args) {
  std::string s(static_cast<std::size_t>(std::snprintf(nullptr, 0, fmt, args...)), '\0');
  std::snprintf(s.data(), s.size() + 1, fmt, args...);
  return s;
}

// The child's next message; nullopt when it closed its end (it died) or when the driver was interrupted.
// Meanwhile the live progress line's clock keeps going.
std::optional<std::string> next_message(configuration& c, progress& prog) {
  return c.proc->link().receive(
      [&] {
        prog.tick();
        return interrupt_signal() == 0;
      },
      1000);
}

// Ends a child, after its repetitions (`expected`) or because it stopped answering, and records how it
// ended. Returns false when the child reported a bad benchmark argument (status 2 before "ready").
bool end_child(configuration& c, progress& prog, const std::string& when, bool expected) {
  // Interrupted, the driver does not wait for a child that is still building or running.
  exit_status st = interrupt_signal() ? c.proc->kill() : c.proc->finish();
  c.running = false;
  c.rec.process_peak_rss_kb = st.maxrss_kb;
  if (st.ok() && expected) return true;
  // Killed by the terminal's Ctrl-C with the driver, or cut short by the driver's interruption: the
  // configuration is left out, it did not fail. (Once wait4 has returned such a child, the driver's own
  // handler has run: interrupt.hpp.)
  if (interrupt_signal()) return true;
  if (st.exited && st.code == 2 && c.rec.build_seconds < 0) return false;
  c.rec.process_failure = (st.ok() ? "stopped answering" : st.describe()) + " " + when;
  c.rec.fail("process " + c.rec.process_failure);
  prog.note(formatted("slaw-bench: PROCESS FAILED: %s %s w=%u: %s", c.rec.bench.c_str(), c.variant(), c.rec.workers,
                      c.rec.oracle.c_str()));
  return true;
}

// Starts one child per variant of `b` at `w` workers; each builds its instance before the next starts.
// Returns false (status 2) when a child could not be started or rejected its parameters. Stops early,
// returning true, when the driver is interrupted.
bool start_children(const options& opt, progress& prog, const benchmark& b, const params& p, unsigned w,
                    std::vector<configuration>& cs) {
  for (const variant* v : opt.variants) {
    if (v->single_worker() && w != opt.workers.front()) continue;  // once is enough
    if (interrupt_signal()) return true;
    configuration c;
    c.rec.bench = b.name;
    c.rec.params = p.all();
    c.rec.row = v;
    c.rec.workers = v->single_worker() ? 1 : w;
    prog.now(std::string(v->name), c.rec.workers, 0, opt.reps);
    try {
      c.proc = std::make_unique<child_process>(child_args(opt, b.name, *v, c.rec.workers), split_env(v->child_env));
    } catch (const std::exception& e) {
      prog.note(std::string("slaw-bench: ") + e.what());
      return false;
    }
    auto hello = next_message(c, prog);
    if (hello && *hello == "skip") {  // no such variant for this instance (the kernel said why)
      c.proc->finish();
      prog.unplan(opt.reps);
      continue;
    }
    if (hello && hello->rfind("ready ", 0) == 0) {
      c.rec.build_seconds = std::atof(hello->c_str() + 6);
      c.running = true;
    } else {
      std::string when = "while building the instance";
      if (hello && hello->rfind("error ", 0) == 0) when += ": " + hello->substr(6);  // its runtime's error
      if (!end_child(c, prog, when, false)) {
        for (auto& other : cs) other.proc->finish();
        return false;  // a bad benchmark argument: the child said which
      }
      prog.unplan(opt.reps);
    }
    cs.push_back(std::move(c));
  }
  return true;
}

// Asks every running child for repetition `rep` in turn and records the results (`w`: the worker count
// being run, as the messages say it). Returns false when the driver was interrupted before every child
// had run it.
bool run_repetition(const options& opt, progress& prog, std::vector<configuration>& cs, unsigned w, int rep) {
  for (auto& c : cs) {
    if (!c.running) continue;
    if (interrupt_signal()) return false;
    prog.now(c.variant(), c.rec.workers, rep + 1, opt.reps);
    std::vector<pid_t> others;  // the other variants' processes, which may still be spinning
    for (const auto& o : cs)
      if (&o != &c && o.running) others.push_back(o.proc->pid());
    if (const quiet_wait q = wait_until_quiet(others); !q.quiet)
      prog.note(formatted("slaw-bench: warning: %s w=%u rep %d starts while other variants' processes still use "
                          "CPU after %lld ms",
                          c.variant(), w, rep + 1, static_cast<long long>(q.waited.count())));
    std::optional<rep_result> r;
    if (c.proc->link().send("run"))
      if (auto reply = next_message(c, prog)) r = rep_result::decode(*reply);
    if (!r) {
      if (interrupt_signal()) return false;  // the child is killed with the others, not reported
      end_child(c, prog, "in repetition " + std::to_string(rep + 1), false);
      prog.unplan(opt.reps - rep);
      continue;
    }
    prog.run_done();
    c.rec.seconds.push_back(r->seconds);
    c.rec.peak_rss_reps.push_back(r->peak_rss_kb);
    if (!r->ok) {
      c.rec.oracle_ok = false;
      prog.note(formatted("slaw-bench: ORACLE FAILED: %s %s w=%u rep %d: %s", c.rec.bench.c_str(), c.variant(), w, rep,
                          r->oracle.c_str()));
    }
    if (c.rec.oracle.empty() || !r->ok) c.rec.oracle = r->oracle;
    if (!r->counters.empty()) c.rec.counters = r->counters;  // the last repetition's
  }
  return true;
}

}  // namespace

int run_all(const options& opt, std::vector<record>& records, interruption& stopped) {
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

  long planned = 0;  // repetitions; a variant a benchmark turns out not to have leaves the plan later
  for (unsigned w : opt.workers)
    for (const variant* v : opt.variants)
      if (!v->single_worker() || w == opt.workers.front()) planned += opt.reps;
  progress prog(progress_of(opt, isatty(2)), static_cast<int>(chosen.size()), planned * static_cast<long>(chosen.size()));

  bool all_ok = true;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const benchmark& b = *chosen[i];
    prog.start_benchmark(static_cast<int>(i + 1), b.name);
    for (unsigned w : opt.workers) {
      std::vector<configuration> cs;
      if (!start_children(opt, prog, b, ps.at(b.name), w, cs)) return 2;
      int reps_done = 0;
      while (reps_done < opt.reps && !interrupt_signal() && run_repetition(opt, prog, cs, w, reps_done)) ++reps_done;
      if (reps_done < opt.reps) {  // interrupted in this group: its configurations are incomplete
        for (auto& c : cs) c.proc->kill();
        prog.done(false);
        stopped.signal = interrupt_signal();
        stopped.after_seconds = prog.elapsed();
        stopped.benchmarks = static_cast<int>(chosen.size());
        stopped.benchmark_index = static_cast<int>(i + 1);
        stopped.bench = b.name;
        stopped.workers = w;
        stopped.repetitions_done = reps_done;
        stopped.configurations_dropped = static_cast<int>(cs.size());
        const char* abbrev = sigabbrev_np(stopped.signal);
        std::fprintf(stderr,
                     "slaw-bench: interrupted by SIG%s after %s, in benchmark %d of %d (%s w=%u, %d of %d repetitions "
                     "done): %zu configurations completed%s\n",
                     abbrev ? abbrev : "?", format_duration(stopped.after_seconds).c_str(), stopped.benchmark_index,
                     stopped.benchmarks, b.name.c_str(), w, reps_done, opt.reps, records.size(),
                     cs.empty() ? "" : formatted(", the %zu of %s w=%u left out", cs.size(), b.name.c_str(), w).c_str());
        return 128 + stopped.signal;
      }
      for (auto& c : cs) {
        if (c.running) end_child(c, prog, "after its repetitions", true);
        all_ok = all_ok && c.rec.oracle_ok;
        if (!opt.quiet)
          prog.note(formatted("%-10s w=%-2u %-9s median %8.4f s  peak RSS %7.1f MB  %s", b.name.c_str(), w, c.variant(),
                              c.rec.median(), std::max(0L, c.rec.peak_rss_kb()) / 1024.0,
                              c.rec.oracle_ok ? "ok" : "FAILED"));
        records.push_back(std::move(c.rec));
      }
    }
  }
  prog.done(true);
  return all_ok ? 0 : 1;
}

}  // namespace slawbench
