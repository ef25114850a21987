#include "harness/options.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

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

}  // namespace

std::string usage() {
  return "usage: slaw-bench [--list] [--bench NAME[,NAME...]] [--size test|default|large] [--arg KEY=VALUE]...\n"
         "                  [--variant " +
         joined(variant_names(), ",") +
         "] [--workers N[,N...]] [--reps N]\n"
         "                  [--json FILE] [--quiet]\n";
}

options parse_options(int argc, char** argv) {
  options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw bench_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  std::vector<std::string> bench_names;
  for (const auto& b : registry()) bench_names.push_back(b.name);
  std::sort(bench_names.begin(), bench_names.end());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--list") o.list = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--bench") o.benches = parse_names("--bench", value(i), bench_names, "benchmark");
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
      o.variants.clear();
      for (const auto& name : parse_names("--variant", value(i), variant_names(), "variant"))
        o.variants.push_back(find_variant(name));
    } else if (a == "--workers") {
      o.workers = parse_workers(value(i));
    } else if (a == "--reps") {
      o.reps = static_cast<int>(parse_uint("--reps", value(i), 1, 100000));
    } else if (a == "--json") {
      o.json = value(i);
      if (o.json.empty()) throw bench_error("--json '': expected a file name");
    } else if (a == "--child") {
      std::string v = value(i);
      auto comma = v.find(',');
      if (comma == std::string::npos) throw bench_error("--child '" + v + "': expected IN_FD,OUT_FD");
      o.child_in = static_cast<int>(parse_uint("--child", v.substr(0, comma), 0, 65535));
      o.child_out = static_cast<int>(parse_uint("--child", v.substr(comma + 1), 0, 65535));
    } else if (a == "--help" || a == "-h") {
      std::fputs(usage().c_str(), stdout);
      std::exit(0);
    } else {
      throw bench_error("unknown argument '" + a + "'");
    }
  }
  return o;
}

params params_of(const benchmark& b, const options& opt) {
  params p(opt.size == "test" ? b.size_test : opt.size == "large" ? b.size_large : b.size_default);
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
