#include "harness/options.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "harness/benchmark.hpp"

namespace slawbench {

namespace {

std::string joined(const std::vector<std::string>& xs, const char* sep = ", ") {
  std::string s;
  for (const auto& x : xs) s += (s.empty() ? "" : sep) + x;
  return s;
}

unsigned parse_uint(const std::string& s, unsigned lo, unsigned hi, bool& ok) {
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 10);
  ok = !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && !*end && v >= lo && v <= hi;
  return static_cast<unsigned>(v);
}

unsigned parse_uint(const std::string& option, const std::string& s, unsigned lo, unsigned hi) {
  bool ok = false;
  unsigned v = parse_uint(s, lo, hi, ok);
  if (!ok)
    throw bench_error(option + " '" + s + "': expected an integer in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  return v;
}

// Splits a comma-separated list, keeping empty items (std::getline would drop a trailing one), and
// rejects an empty list or item and a duplicate. `accepted` ends the message: what the option takes.
std::vector<std::string> split_list(const std::string& option, const std::string& value,
                                    const std::string& accepted) {
  auto fail = [&](const std::string& why) {
    throw bench_error(option + " '" + value + "': " + why + "; expected a comma-separated list of " + accepted +
                      ", each at most once");
  };
  if (value.empty()) fail("empty list");
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = value.find(',', start);
    items.push_back(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items.back().empty()) fail("item " + std::to_string(items.size()) + " is empty");
    if (std::count(items.begin(), items.end() - 1, items.back())) fail("'" + items.back() + "' given twice");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<std::string> parse_names(const std::string& option, const std::string& value,
                                     const std::vector<std::string>& known, const std::string& what) {
  const std::string accepted = what + " names (" + joined(known) + ")";
  auto items = split_list(option, value, accepted);
  for (const auto& x : items)
    if (std::find(known.begin(), known.end(), x) == known.end())
      throw bench_error(option + " '" + value + "': unknown " + what + " '" + x + "'; expected a comma-separated list of " +
                        accepted + ", each at most once");
  return items;
}

std::vector<unsigned> parse_workers(const std::string& value) {
  const std::string accepted = "integers in [1, 4096]";
  std::vector<unsigned> out;
  for (const auto& x : split_list("--workers", value, accepted)) {
    bool ok = false;
    unsigned w = parse_uint(x, 1, 4096, ok);
    if (!ok)
      throw bench_error("--workers '" + value + "': '" + x + "' is not an integer in [1, 4096]; expected a " +
                        "comma-separated list of " + accepted + ", each at most once");
    if (std::count(out.begin(), out.end(), w))
      throw bench_error("--workers '" + value + "': " + std::to_string(w) + " given twice; expected a " +
                        "comma-separated list of " + accepted + ", each at most once");
    out.push_back(w);
  }
  return out;
}

// One option: its names, its value's form (nullptr for a flag), its --help text and what it sets. The
// parser, --help and --list --json all read this table, so that none of them can miss an option.
struct option_spec {
  const char* name;
  const char* alias;  // or nullptr
  std::string value;  // its form; empty: takes no value
  std::string help;
  std::function<void(options&, const std::string&)> apply;
  bool hidden = false;  // internal (--child): not in --help
};

const std::vector<option_spec>& option_table() {
  static const std::vector<option_spec> table = [] {
    std::vector<std::string> bench_names;
    for (const auto& b : registry()) bench_names.push_back(b.name);
    std::sort(bench_names.begin(), bench_names.end());
    std::vector<std::string> size_names;
    for (const auto& z : sizes) size_names.emplace_back(z.name);
    const std::string size_list = joined(size_names, "|");
    std::vector<option_spec> t;
    t.push_back({"--list", nullptr, "",
                 "describe every benchmark (what it computes, its parameters and their values at each size), "
                 "every variant (with the environment variables it reads) and every size, then exit; with "
                 "--json FILE also write that description as JSON",
                 [](options& o, const std::string&) { o.list = true; }});
    t.push_back({"--bench", nullptr, "NAME[,NAME...]",
                 "the benchmarks to run, in name order (default: all of them: " + joined(bench_names) + ")",
                 [bench_names](options& o, const std::string& v) {
                   o.benches = parse_names("--bench", v, bench_names, "benchmark");
                 }});
    t.push_back({"--size", nullptr, size_list,
                 "the benchmarks' parameter sets (default: default; --list shows them)",
                 [size_names](options& o, const std::string& v) {
                   if (!find_size(v)) {
                     std::string alts;  // "test, default or large"
                     for (std::size_t i = 0; i < size_names.size(); ++i)
                       alts += (i == 0 ? "" : i + 1 == size_names.size() ? " or " : ", ") + size_names[i];
                     throw bench_error("--size '" + v + "': expected " + alts);
                   }
                   o.size = v;
                 }});
    t.push_back({"--arg", nullptr, "KEY=VALUE",
                 "set a benchmark parameter over the size's value (repeatable, each KEY once); every selected "
                 "benchmark must have the parameter KEY (--list shows them)",
                 [](options& o, const std::string& kv) {
                   auto eq = kv.find('=');
                   if (eq == std::string::npos || eq == 0) throw bench_error("--arg '" + kv + "': expected KEY=VALUE");
                   const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
                   if (const auto it = o.args.find(key); it != o.args.end())
                     throw bench_error("--arg " + key + " given twice ('" + it->second + "' and '" + value +
                                       "'); give each parameter once");
                   o.args.emplace(key, value);
                 }});
    t.push_back({"--variant", nullptr, "NAME[,NAME...]",
                 "the variants to compare, run in this order whatever the list's (default: all: " +
                     joined(variant_names()) + ")",
                 [](options& o, const std::string& v) {
                   o.variants.clear();
                   for (const auto& name : parse_names("--variant", v, variant_names(), "variant"))
                     o.variants.push_back(find_variant(name));
                 }});
    t.push_back({"--workers", nullptr, "N[,N...]",
                 "the worker counts (default: 1,2); the serial elision runs once, at 1 worker",
                 [](options& o, const std::string& v) { o.workers = parse_workers(v); }});
    t.push_back({"--reps", nullptr, "N",
                 "repetitions of each configuration (default: 5); the variants alternate repetition by repetition",
                 [](options& o, const std::string& v) {
                   o.reps = static_cast<int>(parse_uint("--reps", v, 1, 100000));
                 }});
    t.push_back({"--json", nullptr, "FILE",
                 "write every configuration's record (each repetition's seconds, the median, the oracle's "
                 "verdict, the peak RSS, the runtime's counters) to FILE; with --list, the description",
                 [](options& o, const std::string& v) {
                   if (v.empty()) throw bench_error("--json '': expected a file name");
                   o.json = v;
                 }});
    t.push_back({"--quiet", nullptr, "",
                 "no result line per configuration on stderr, and no progress unless --progress is given",
                 [](options& o, const std::string&) { o.quiet = true; }});
    t.push_back({"--progress", nullptr, "auto|live|lines|off",
                 "progress on stderr: live rewrites one line (benchmark i of N, variant, workers, repetition, "
                 "elapsed time, an estimate of the time left) after every repetition and every second; lines "
                 "prints one line as each benchmark starts and one at the end; auto (the default) is live when "
                 "stderr is a terminal, lines otherwise, and off under --quiet",
                 [](options& o, const std::string& v) {
                   if (v == "auto") o.progress.reset();
                   else if (v == "live") o.progress = progress_mode::live;
                   else if (v == "lines") o.progress = progress_mode::lines;
                   else if (v == "off") o.progress = progress_mode::off;
                   else throw bench_error("--progress '" + v + "': expected one of auto, live, lines, off");
                 }});
    t.push_back({"--help", "-h", "", "print this help and exit",
                 [](options& o, const std::string&) { o.help = true; }});
    // The driver re-executes itself with --child IN_FD,OUT_FD for each configuration (configuration.hpp).
    t.push_back({"--child", nullptr, "IN_FD,OUT_FD", "",
                 [](options& o, const std::string& v) {
                   auto comma = v.find(',');
                   if (comma == std::string::npos) throw bench_error("--child '" + v + "': expected IN_FD,OUT_FD");
                   o.child_in = static_cast<int>(parse_uint("--child", v.substr(0, comma), 0, 65535));
                   o.child_out = static_cast<int>(parse_uint("--child", v.substr(comma + 1), 0, 65535));
                 },
                 true});
    return t;
  }();
  return table;
}

}  // namespace

std::string usage() {
  // Wrapped by option, so that none is split over two lines.
  std::string u = "usage: slaw-bench", line = u;
  for (const auto& o : option_table()) {
    if (o.hidden || std::string(o.name) == "--help") continue;
    std::string item = std::string(" [") + o.name + (o.value.empty() ? "" : " " + o.value) + "]";
    if (std::string(o.name) == "--arg") item += "...";
    if (line.size() + item.size() > 110) {
      u += "\n" + std::string(17, ' ');
      line = std::string(17, ' ');
    }
    u += item;
    line += item;
  }
  return u + "\n       slaw-bench --help | -h   (every option explained)\n";
}

std::string help() {
  std::string h = "usage: slaw-bench [OPTION]...\n" +
                  wrapped("Runs the benchmark suite's variants side by side: every configuration (benchmark, "
                          "variant, worker count) in a process of its own, the variants alternating repetition "
                          "by repetition, every run checked by the benchmark's oracle; prints one result line "
                          "per configuration on stderr.",
                          0, 110) +
                  "\n\nOptions:\n";
  constexpr std::size_t col = 28;
  for (const auto& o : option_table()) {
    if (o.hidden) continue;
    std::string head = std::string("  ") + o.name + (o.alias ? std::string(", ") + o.alias : "") +
                       (o.value.empty() ? "" : " " + o.value);
    h += head + (head.size() + 2 <= col ? std::string(col - head.size(), ' ') : "\n" + std::string(col, ' ')) +
         wrapped(o.help, col, 110) + "\n";
  }
  h += "\n" +
       wrapped("Environment: the slaw variants read SLAW_* settings and the omp variants the OpenMP runtime's OMP_* "
               "(slaw-bench --list says which variant reads which); SLAW_WORKERS, SLAW_POLICY and "
               "SLAW_SCHEDULER are set by --workers and the variant.",
               0, 110) +
       "\n\n" +
       wrapped("Exit status: 0 when every run passed its oracle; 1 when an oracle or a configuration's process "
               "failed (the other configurations still run); 2 for a bad argument or SLAW_* setting; 130 "
               "after SIGINT (Ctrl-C), 143 after SIGTERM: the runs in progress are stopped and --json still "
               "writes the configurations completed, marked \"interrupted\" with where the run stopped (a "
               "second Ctrl-C exits at once).",
               0, 110) +
       "\n";
  return h;
}

std::vector<option_doc> documented_options() {
  std::vector<option_doc> docs;
  for (const auto& o : option_table())
    if (!o.hidden) docs.push_back({o.name, o.alias ? o.alias : "", o.value});
  return docs;
}

progress_mode progress_of(const options& opt, bool stderr_is_terminal) {
  if (opt.progress) return *opt.progress;
  if (opt.quiet) return progress_mode::off;
  return stderr_is_terminal ? progress_mode::live : progress_mode::lines;
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const option_spec* spec = nullptr;
    for (const auto& s : option_table())
      if (a == s.name || (s.alias && a == s.alias)) spec = &s;
    if (!spec) throw bench_error("unknown argument '" + a + "' (slaw-bench --help lists the options)");
    std::string value;
    if (!spec->value.empty()) {
      if (i + 1 >= argc) throw bench_error(a + " needs a value: " + spec->value);
      value = argv[++i];
    }
    spec->apply(o, value);
  }
  return o;
}

std::string wrapped(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t sp = text.find(' ', pos);
    std::string word = text.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    pos = sp == std::string::npos ? text.size() : sp + 1;
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

params params_of(const benchmark& b, const options& opt) {
  params p(b.*(find_size(opt.size)->params));
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

}  // namespace slawbench
