// slaw-bench: runs the benchmark suite's variants side by side and records every repetition.
//
//   slaw-bench --list
//   slaw-bench [--bench NAME[,NAME...]] [--size test|default|large] [--arg KEY=VALUE]...
//              [--variant serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp] [--workers 1,2] [--reps N]
//              [--json FILE] [--quiet]
//
// For each benchmark and worker count the instance is built once; then, repetition by repetition, every
// variant runs once in turn (variants alternate, so a noisy machine affects them alike). Each run is
// preceded by reset() and followed by the oracle; a failed oracle is reported and makes the exit status 1.
// Per run the JSON holds each repetition's seconds, the median, the oracle's verdict, the peak RSS of
// the run (VmHWM, reset before each run) and, for slaw variants, the runtime's counters.
// The slaw variants take SLAW_S, SLAW_F, SLAW_INT, SLAW_K and SLAW_STATS from the environment; their
// policy, scheduler and worker count come from --variant (slaw-dfd = DFDeques(K)) and --workers.
#include <omp.h>
#include <sys/utsname.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/benchmark.hpp"

namespace {

using slawbench::bench_error;

const std::vector<std::string> all_variants = {"serial", "slaw-wf", "slaw-hf", "slaw-dyn", "slaw-dfd", "tbb", "omp"};

struct options {
  std::vector<std::string> benches;
  std::string size = "default";
  std::map<std::string, std::string> args;
  std::vector<std::string> variants = all_variants;
  std::vector<unsigned> workers = {1, 2};
  int reps = 5;
  std::string json;
  bool quiet = false;
  bool list = false;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

const char* usage =
    "usage: slaw-bench [--list] [--bench NAME[,NAME...]] [--size test|default|large] [--arg KEY=VALUE]...\n"
    "                  [--variant serial,slaw-wf,slaw-hf,slaw-dyn,slaw-dfd,tbb,omp] [--workers N[,N...]] [--reps N]\n"
    "                  [--json FILE] [--quiet]\n";

unsigned parse_uint(const std::string& what, const std::string& s, unsigned lo, unsigned hi) {
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])) || *end || v < lo || v > hi)
    throw bench_error(what + "='" + s + "': expected an integer in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  return static_cast<unsigned>(v);
}

options parse(int argc, char** argv) {
  options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw bench_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--list") o.list = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--bench") o.benches = split(value(i), ',');
    else if (a == "--size") {
      o.size = value(i);
      if (o.size != "test" && o.size != "default" && o.size != "large")
        throw bench_error("--size '" + o.size + "': expected test, default or large");
    } else if (a == "--arg") {
      std::string kv = value(i);
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw bench_error("--arg '" + kv + "': expected KEY=VALUE");
      o.args[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (a == "--variant") {
      o.variants = split(value(i), ',');
      for (const auto& v : o.variants)
        if (std::find(all_variants.begin(), all_variants.end(), v) == all_variants.end())
          throw bench_error("--variant '" + v + "': expected some of serial, slaw-wf, slaw-hf, slaw-dyn, tbb, omp");
    } else if (a == "--workers") {
      o.workers.clear();
      for (const auto& w : split(value(i), ',')) o.workers.push_back(parse_uint("--workers", w, 1, 4096));
    } else if (a == "--reps") {
      o.reps = static_cast<int>(parse_uint("--reps", value(i), 1, 100000));
    } else if (a == "--json") {
      o.json = value(i);
    } else if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else {
      throw bench_error("unknown argument '" + a + "'");
    }
  }
  for (const auto& b : o.benches) {
    const auto& r = slawbench::registry();
    if (std::none_of(r.begin(), r.end(), [&](const slawbench::benchmark& x) { return x.name == b; })) {
      std::string names;
      for (const auto& x : r) names += (names.empty() ? "" : ", ") + x.name;
      throw bench_error("--bench '" + b + "': unknown benchmark; known: " + names);
    }
  }
  return o;
}

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
  bool oracle_ok = true;
  std::string oracle;
  long peak_rss_kb = 0;
  std::string counters;  // JSON object or empty

  double median() const {
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    if (s.empty()) return 0;
    return s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
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
      << json_escape(oracle) << "\",\"peak_rss_kb\":" << peak_rss_kb;
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

}  // namespace

int main(int argc, char** argv) {
  options opt;
  try {
    opt = parse(argc, argv);
  } catch (const bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n%s", e.what(), usage);
    return 2;
  }
  slaw::config base_cfg;
  try {
    base_cfg = slaw::config::from_env();
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

  std::vector<record> records;
  bool all_ok = true;
  unsigned max_workers = *std::max_element(opt.workers.begin(), opt.workers.end());
  tbb::global_control tbb_limit(tbb::global_control::max_allowed_parallelism, max_workers);

  for (const auto* b : chosen) {
    slawbench::params p(opt.size == "test" ? b->size_test : opt.size == "large" ? b->size_large : b->size_default);
    for (const auto& [k, v] : opt.args) {
      if (!p.all().count(k)) {
        std::string keys;
        for (const auto& [kk, vv] : p.all()) keys += (keys.empty() ? "" : ", ") + kk;
        std::fprintf(stderr, "slaw-bench: --arg %s: %s has no parameter '%s'; its parameters: %s\n", k.c_str(),
                     b->name.c_str(), k.c_str(), keys.c_str());
        return 2;
      }
      p.set(k, v);
    }
    std::unique_ptr<slawbench::instance> inst;
    try {
      inst = b->make(p);
    } catch (const bench_error& e) {
      std::fprintf(stderr, "slaw-bench: %s: %s\n", b->name.c_str(), e.what());
      return 2;
    }
    for (unsigned w : opt.workers) {
      std::vector<std::string> vs;
      for (const auto& v : opt.variants) {
        if (v == "serial" && w != opt.workers.front() && opt.workers.size() > 1) continue;  // once is enough
        if (v == "tbb" && !inst->has_tbb()) continue;
        if (v == "omp" && !inst->has_omp()) continue;
        vs.push_back(v);
      }
      std::map<std::string, std::unique_ptr<slaw::runtime>> rts;
      std::map<std::string, record> recs;
      for (const auto& v : vs) {
        if (v.rfind("slaw-", 0) == 0) {
          slaw::config c = base_cfg;  // SLAW_S, SLAW_F, SLAW_INT, ... from the environment
          c.workers = w;
          c.policy = v == "slaw-wf" ? slaw::policy::mode::wf : v == "slaw-hf" ? slaw::policy::mode::hf
                                                                               : slaw::policy::mode::dyn;
          // slaw-dfd: the DFDeques(K) scheduler, K from SLAW_K (default 50000); the others work stealing.
          c.scheduler = v == "slaw-dfd" ? slaw::scheduler_kind::dfdeques : slaw::scheduler_kind::ws;
          rts[v] = std::make_unique<slaw::runtime>(c);
        }
        record r;
        r.bench = b->name;
        r.params = p.all();
        r.variant = v;
        r.workers = v == "serial" ? 1 : w;
        recs[v] = r;
      }
      tbb::task_arena arena(static_cast<int>(w));
      for (int rep = 0; rep < opt.reps; ++rep) {
        for (const auto& v : vs) {
          record& r = recs[v];
          inst->reset();
          if (auto it = rts.find(v); it != rts.end()) it->second->reset_stats();
          reset_peak_rss();
          auto t0 = std::chrono::steady_clock::now();
          if (v == "serial") inst->run_serial();
          else if (v == "tbb") arena.execute([&] { inst->run_tbb(w); });
          else if (v == "omp") {
            omp_set_num_threads(static_cast<int>(w));
            inst->run_omp(w);
          } else inst->run_slaw(*rts[v]);
          double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          r.peak_rss_kb = std::max(r.peak_rss_kb, peak_rss_kb());
          slawbench::outcome out = inst->check();
          r.seconds.push_back(secs);
          if (!out.ok) {
            r.oracle_ok = false;
            all_ok = false;
            std::fprintf(stderr, "slaw-bench: ORACLE FAILED: %s %s w=%u rep %d: %s\n", b->name.c_str(), v.c_str(), w,
                         rep, out.detail.c_str());
          }
          if (r.oracle.empty() || !out.ok) r.oracle = out.detail;
          if (auto it = rts.find(v); it != rts.end() && rep == opt.reps - 1)
            r.counters = it->second->stats().to_json();
          if (!opt.quiet && isatty(2))
            std::fprintf(stderr, "\r%-10s w=%-2u rep %d/%d %-9s %8.4f s   ", b->name.c_str(), w, rep + 1, opt.reps,
                         v.c_str(), secs);
          std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let spinning peers settle
        }
      }
      for (const auto& v : vs) {
        records.push_back(recs[v]);
        if (!opt.quiet)
          std::fprintf(stderr, "%s%-10s w=%-2u %-9s median %8.4f s  %s\n", isatty(2) ? "\r" : "", b->name.c_str(), w, v.c_str(),
                       recs[v].median(), recs[v].oracle_ok ? "ok" : "ORACLE FAILED");
        (void)0;
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
