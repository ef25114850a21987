// slaw-bench: runs the benchmark suite's variants side by side and records every repetition.
//
//   slaw-bench --list
//   slaw-bench [--bench NAME[,NAME...]] [--size test|default|large] [--arg KEY=VALUE]...
//              [--variant serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp] [--workers 1,2] [--reps N]
//              [--json FILE] [--quiet]
//
// Every configuration (benchmark, variant, worker count) runs in a process of its own, so that its peak
// RSS is its own: in one process, memory that an earlier benchmark freed but the process kept (the C
// library's heap, the runtime's frame chunks) stays resident and would count again (uts after pdfs read
// 450 MB instead of its 7 MB). The driver re-executes itself (/proc/self/exe, hidden option --child; see
// configuration.hpp) once per configuration and builds no instance itself.
//
// For each benchmark and worker count, one child per variant is started and builds its instance (one
// after the other, nothing timed meanwhile); the children then stay alive side by side and the driver
// asks them for one repetition at a time, every variant in turn, repetition by repetition (variants
// alternate, so a noisy machine affects them alike, and every repetition but a child's first runs warm,
// as in a single process). Instances are thus built once per configuration, not once per repetition:
// at the default size building takes 5.5 s for the 17 benchmarks (fft 3.9 s for its reference DFT
// bins, the others at most 0.4 s; the JSON's build_seconds), so ~70 s for the 13 configurations of a
// `make bench`, where a child per repetition would take ~6 min; starting a child takes ~10 ms.
//
// Each run is preceded by reset() and followed by the oracle. A failed oracle, a run that throws, and a
// child that dies (a signal, a non-zero exit) are reported on stderr and in the JSON (oracle_ok false,
// "process" saying how it ended) and make the exit status 1; the other configurations go on.
// Per configuration the JSON holds each repetition's seconds, the median, the oracle's verdict, the peak
// RSS (peak_rss_kb: the largest over the repetitions of the child's VmHWM during the run, reset before
// each run; the instance's inputs are resident and count, its construction does not; each repetition's
// in peak_rss_kb_reps), the child's peak over its whole life (process_peak_rss_kb, from wait4: building
// included), the instance's build time and, for slaw variants, the runtime's counters (last repetition).
// The slaw variants take SLAW_S, SLAW_F, SLAW_INT, SLAW_K and SLAW_STATS from the environment; their
// policy, scheduler and worker count come from --variant (slaw-dfd = DFDeques(K)) and --workers.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/benchmark.hpp"
#include "harness/configuration.hpp"
#include "harness/options.hpp"
#include "harness/subprocess.hpp"

namespace {

using slawbench::bench_error;

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
      continue;
    }
    o += c;
  }
  return o;
}

struct record {
  std::string bench;
  std::map<std::string, std::string> params;
  std::string variant;
  unsigned workers;
  std::vector<double> seconds;
  std::vector<long> peak_rss_reps;
  bool oracle_ok = true;
  std::string oracle;
  std::string counters;  // JSON object or empty
  double build_seconds = -1;
  long process_peak_rss_kb = -1;
  std::string process_failure;  // how the child ended, when not normally

  void fail(const std::string& why) {
    oracle_ok = false;
    oracle = why;
  }
  double median() const {
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    if (s.empty()) return 0;
    return s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  }
  long peak_rss_kb() const {
    return peak_rss_reps.empty() ? -1 : *std::max_element(peak_rss_reps.begin(), peak_rss_reps.end());
  }
  std::string to_json() const {
    std::ostringstream o;
    o.precision(9);
    o << "{\"bench\":\"" << bench << "\",\"params\":{";
    bool first = true;
    for (const auto& [k, v] : params) {
      o << (first ? "" : ",") << "\"" << json_escape(k) << "\":\"" << json_escape(v) << "\"";
      first = false;
    }
    o << "},\"variant\":\"" << variant << "\",\"workers\":" << workers << ",\"seconds\":[";
    for (std::size_t i = 0; i < seconds.size(); ++i) o << (i ? "," : "") << seconds[i];
    o << "],\"median\":" << median() << ",\"oracle_ok\":" << (oracle_ok ? "true" : "false") << ",\"oracle\":\""
      << json_escape(oracle) << "\",\"peak_rss_kb\":" << peak_rss_kb() << ",\"peak_rss_kb_reps\":[";
    for (std::size_t i = 0; i < peak_rss_reps.size(); ++i) o << (i ? "," : "") << peak_rss_reps[i];
    o << "],\"process_peak_rss_kb\":" << process_peak_rss_kb << ",\"build_seconds\":" << build_seconds;
    if (!process_failure.empty()) o << ",\"process\":\"" << json_escape(process_failure) << "\"";
    if (!counters.empty()) o << ",\"counters\":" << counters;
    o << "}";
    return o.str();
  }
};

std::string machine_json() {
  utsname u{};
  uname(&u);
  std::ostringstream o;
  o << "{\"nodename\":\"" << json_escape(u.nodename) << "\",\"kernel\":\"" << json_escape(u.release)
    << "\",\"hardware_threads\":" << std::thread::hardware_concurrency() << ",\"compiler\":\""
#if defined(__clang__)
    << "clang " << __clang_major__ << "." << __clang_minor__
#else
    << "gcc " << __GNUC__ << "." << __GNUC_MINOR__
#endif
    << "\"}";
  return o.str();
}

slawbench::params params_of(const slawbench::benchmark& b, const slawbench::options& opt) {
  slawbench::params p(opt.size == "test" ? b.size_test : opt.size == "large" ? b.size_large : b.size_default);
  for (const auto& [k, v] : opt.args) {
    if (!p.all().count(k)) {
      std::string keys;
      for (const auto& [kk, vv] : p.all()) keys += (keys.empty() ? "" : ", ") + kk;
      throw bench_error("--arg " + k + ": " + b.name + " has no parameter '" + k + "'; its parameters: " + keys);
    }
    p.set(k, v);
  }
  return p;
}

// One configuration's child and what it reported so far.
struct configuration {
  std::string variant;
  std::unique_ptr<slawbench::child_process> proc;
  record rec;
  bool running = false;  // the child is alive and answering
};

// The child's argument list for one configuration.
std::vector<std::string> child_args(const slawbench::options& opt, const std::string& bench,
                                    const slawbench::variant& v, unsigned w) {
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
  slawbench::exit_status st = c.proc->finish();
  c.running = false;
  c.rec.process_peak_rss_kb = st.maxrss_kb;
  if (st.ok() && expected) return true;
  if (st.exited && st.code == 2 && c.rec.build_seconds < 0) return false;
  c.rec.process_failure = (st.ok() ? "stopped answering" : st.describe()) + " " + when;
  c.rec.fail("process " + c.rec.process_failure);
  std::fprintf(stderr, "slaw-bench: PROCESS FAILED: %s %s w=%u: %s\n", c.rec.bench.c_str(), c.variant.c_str(),
               c.rec.workers, c.rec.oracle.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  slawbench::options opt;
  try {
    opt = slawbench::parse_options(argc, argv);
  } catch (const bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n%s", e.what(), slawbench::usage().c_str());
    return 2;
  }
  if (opt.is_child()) return slawbench::run_configuration(opt);
  try {
    (void)slaw::config::from_env();  // checked here once; the children read it again
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n", e.what());
    return 2;
  }
  const auto& reg = slawbench::registry();
  if (opt.list) {
    for (const auto& b : reg) std::printf("%-10s %s\n", b.name.c_str(), b.what.c_str());
    return 0;
  }
  std::vector<const slawbench::benchmark*> chosen;
  for (const auto& b : reg)
    if (opt.benches.empty() || std::find(opt.benches.begin(), opt.benches.end(), b.name) != opt.benches.end())
      chosen.push_back(&b);
  std::sort(chosen.begin(), chosen.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::map<std::string, slawbench::params> params;
  try {
    for (const auto* b : chosen) params.emplace(b->name, params_of(*b, opt));  // every --arg, before any run
  } catch (const bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n", e.what());
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a child that died must not take the driver with it

  std::vector<record> records;
  bool all_ok = true;
  for (const auto* b : chosen) {
    for (unsigned w : opt.workers) {
      std::vector<configuration> cs;
      for (const slawbench::variant* v : opt.variants) {
        if (v->single_worker() && w != opt.workers.front()) continue;  // once is enough
        configuration c;
        c.variant = std::string(v->name);
        c.rec.bench = b->name;
        c.rec.params = params.at(b->name).all();
        c.rec.variant = std::string(v->name);
        c.rec.workers = v->single_worker() ? 1 : w;
        try {
          c.proc = std::make_unique<slawbench::child_process>(child_args(opt, b->name, *v, c.rec.workers));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "slaw-bench: %s\n", e.what());
          return 2;
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
          return 2;  // a bad benchmark argument: the child said which
        }
        cs.push_back(std::move(c));
      }
      for (int rep = 0; rep < opt.reps; ++rep) {
        for (auto& c : cs) {
          if (!c.running) continue;
          std::optional<slawbench::rep_result> r;
          if (c.proc->link().send("run"))
            if (auto reply = c.proc->link().receive()) r = slawbench::rep_result::decode(*reply);
          if (!r) {
            end_child(c, "in repetition " + std::to_string(rep + 1), false);
            continue;
          }
          c.rec.seconds.push_back(r->seconds);
          c.rec.peak_rss_reps.push_back(r->peak_rss_kb);
          if (!r->ok) {
            c.rec.oracle_ok = false;
            std::fprintf(stderr, "slaw-bench: ORACLE FAILED: %s %s w=%u rep %d: %s\n", b->name.c_str(),
                         c.variant.c_str(), w, rep, r->oracle.c_str());
          }
          if (c.rec.oracle.empty() || !r->ok) c.rec.oracle = r->oracle;
          if (!r->counters.empty()) c.rec.counters = r->counters;  // the last repetition's
          if (!opt.quiet && isatty(2))
            std::fprintf(stderr, "\r%-10s w=%-2u rep %d/%d %-9s %8.4f s   ", b->name.c_str(), w, rep + 1, opt.reps,
                         c.variant.c_str(), r->seconds);
          std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let spinning peers settle
        }
      }
      for (auto& c : cs) {
        if (c.running) end_child(c, "after its repetitions", true);
        all_ok = all_ok && c.rec.oracle_ok;
        if (!opt.quiet)
          std::fprintf(stderr, "%s%-10s w=%-2u %-9s median %8.4f s  peak RSS %7.1f MB  %s\n", isatty(2) ? "\r" : "",
                       b->name.c_str(), w, c.variant.c_str(), c.rec.median(),
                       std::max(0L, c.rec.peak_rss_kb()) / 1024.0, c.rec.oracle_ok ? "ok" : "FAILED");
        records.push_back(std::move(c.rec));
      }
    }
  }

  if (!opt.json.empty()) {
    std::ofstream out(opt.json);
    if (!out) {
      std::fprintf(stderr, "slaw-bench: --json %s: cannot write the file\n", opt.json.c_str());
      return 2;
    }
    out << "{\"machine\":" << machine_json() << ",\"size\":\"" << opt.size << "\",\"reps\":" << opt.reps
        << ",\"runs\":[\n";
    for (std::size_t i = 0; i < records.size(); ++i) out << (i ? ",\n" : "") << records[i].to_json();
    out << "\n]}\n";
  }
  return all_ok ? 0 : 1;
}
