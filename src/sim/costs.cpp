#include "sim/costs.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include "util/read_file.hpp"

namespace slaw::sim {

namespace {

struct field {
  const char* name;
  double costs::*member;
  const char* meaning;
};

const field fields[] = {
    {"call", &costs::call, "ns: a sequential call of a task, frame and return included"},
    {"spawn_wf", &costs::spawn_wf, "ns: a work-first spawn (push, child frame, pop at its return)"},
    {"spawn_hf", &costs::spawn_hf, "ns: a help-first spawn (count in the finish, push on the fresh deque)"},
    {"take", &costs::take, "ns: the idle routine takes and starts one of the worker's own tasks"},
    {"arrive", &costs::arrive, "ns: a counted unit of a finish ends (resuming the waiter if last)"},
    {"suspend", &costs::suspend, "ns: a non-trivial end of finish suspends its frame"},
    {"finish", &costs::finish, "ns: start_finish plus a trivial end_finish"},
    {"probe", &costs::probe, "ns (> 0): a thief looks at one victim (both deques)"},
    {"steal", &costs::steal, "ns: extra cost of a successful steal to the thief"},
    {"victim", &costs::victim, "ns: cost of a successful steal to its victim"},
    {"spin", &costs::spin, "ns: the pause loop between two fruitless steal rounds"},
    {"park", &costs::park, "ns: going to sleep"},
    {"wake", &costs::wake, "ns: from a wake-up call until the sleeper searches again"},
    {"wake_call", &costs::wake_call, "ns: what waking a sleeper costs the waker"},
    {"jitter", &costs::jitter, "fraction in [0, 1): probe, spin and steal costs vary uniformly by it"},
    {"dfd_lock", &costs::dfd_lock, "ns: DFDeques' list R is locked this long per steal attempt or give-up"},
    {"line", &costs::line, "ns: one cache line's transfer between cores (contended lines: deques, finish counters, R's lock)"},
    {"mem_share", &costs::mem_share, "fraction in [0, 1]: the share of each strand limited by memory bandwidth"},
    {"mem_workers", &costs::mem_workers, "workers' worth of memory bandwidth for that share (0: unlimited)"},
    {"burden_cycles", &costs::burden_cycles, "cycles: Cilkscale's burden per spawn (burdened span)"},
    {"ghz", &costs::ghz, "GHz (> 0): clock rate turning burden_cycles into time"},
};

std::string key_list() {
  std::string s;
  for (const field& f : fields) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& costs::keys() {
  static const std::vector<std::pair<std::string, std::string>> k = [] {
    std::vector<std::pair<std::string, std::string>> v;
    for (const field& f : fields) v.emplace_back(f.name, f.meaning);
    return v;
  }();
  return k;
}

void costs::set(const std::string& key, const std::string& value) {
  for (const field& f : fields) {
    if (key != f.name) continue;
    const char* s = value.c_str();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(s, &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0)
      throw std::invalid_argument("cost '" + key + "': '" + value + "' is not a number >= 0");
    if ((key == "probe" || key == "ghz") && v <= 0)
      throw std::invalid_argument("cost '" + key + "': must be > 0 (an idle worker's search must take time)");
    if (key == "jitter" && v >= 1) throw std::invalid_argument("cost 'jitter': '" + value + "' must be in [0, 1)");
    if (key == "mem_share" && v > 1) throw std::invalid_argument("cost 'mem_share': '" + value + "' must be in [0, 1]");
    this->*f.member = v;
    return;
  }
  throw std::invalid_argument("unknown cost '" + key + "'; accepted: " + key_list());
}

const std::vector<std::string>& costs::model_names() {
  static const std::vector<std::string> n = {"measured", "burdened", "slaw-java", "unit"};
  return n;
}

costs costs::named(const std::string& name) {
  costs c;
  if (name == "measured") return c;
  if (name == "burdened") {
    c.steal = c.burden_ns();
    return c;
  }
  if (name == "slaw-java") {
    // SLAW's Java runtime (Guo's thesis Table 5.4): a help-first spawn plus its context switch costs
    // about 1.6 work-first spawns, split here as spawn 0.6, take 0.5, arrival 0.5; a non-trivial end of
    // finish (an exception unwinding the Java stack) costs what makes fib's help-first run 9.70 times
    // its work-first run on one worker, as in SLAW's Table III: 342.7 ns, 26 work-first spawns (with
    // the measured model's work-first fib at 40.3 ns per inner call; thesis Table 5.4: 16-20 on Xeon).
    const double aw = c.spawn_wf;
    c.spawn_hf = 0.6 * aw;
    c.take = 0.5 * aw;
    c.arrive = 0.5 * aw;
    c.suspend = 342.7;
    return c;
  }
  if (name == "unit") {
    c.call = c.spawn_wf = c.spawn_hf = c.take = c.arrive = c.suspend = c.finish = 0;
    c.probe = 1;
    c.steal = c.victim = c.spin = c.park = c.wake = c.wake_call = c.dfd_lock = c.jitter = c.line = 0;
    c.burden_cycles = 1;
    c.ghz = 1;
    return c;
  }
  std::string all;
  for (const std::string& n : model_names()) all += (all.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown cost model '" + name + "'; accepted: " + all + ", or a file of KEY=VALUE lines");
}

void costs::load_file(const std::string& path) {
  std::string text;
  const util::read_status st = util::read_file(path, max_file_bytes, text);
  if (st.kind == util::read_status::cannot_open) {
    std::string all;
    for (const std::string& n : model_names()) all += (all.empty() ? "" : ", ") + n;
    throw std::invalid_argument("'" + path + "' is neither a cost model nor a readable file (" +
                                std::strerror(st.error) + "); accepted: " + all + ", or a file of KEY=VALUE lines");
  }
  if (!st) throw std::invalid_argument("the costs file '" + path + "': " + st.describe());
  std::map<std::string, int> seen;  // key -> the line that set it
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string l = trim(line.substr(0, line.find('#')));
    if (l.empty()) continue;
    std::size_t eq = l.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": expected KEY=VALUE, got '" + l.substr(0, 80) + "'");
    const std::string key = trim(l.substr(0, eq));
    try {
      set(key, trim(l.substr(eq + 1)));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": " + e.what());
    }
    if (const auto [it, fresh] = seen.emplace(key, n); !fresh)
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": cost '" + key + "' is set twice (first on line " +
                                  std::to_string(it->second) + "); set each key once");
  }
  if (seen.empty())
    throw std::invalid_argument("the costs file '" + path + "' sets no cost (no KEY=VALUE line); accepted keys: " +
                                key_list());
}

std::string costs::describe() const {
  std::ostringstream o;
  for (const field& f : fields) o << f.name << '=' << this->*f.member << '\n';
  return o.str();
}

cost_ps::cost_ps(const costs& c)
    : call(from_ns(c.call)),
      spawn_wf(from_ns(c.spawn_wf)),
      spawn_hf(from_ns(c.spawn_hf)),
      take(from_ns(c.take)),
      arrive(from_ns(c.arrive)),
      suspend(from_ns(c.suspend)),
      finish(from_ns(c.finish)),
      probe(std::max<time_ps>(1, from_ns(c.probe))),
      steal(from_ns(c.steal)),
      victim(from_ns(c.victim)),
      spin(from_ns(c.spin)),
      park(from_ns(c.park)),
      wake(from_ns(c.wake)),
      wake_call(from_ns(c.wake_call)),
      dfd_lock(from_ns(c.dfd_lock)),
      burden(from_ns(c.burden_ns())),
      line(from_ns(c.line)),
      jitter(c.jitter),
      mem_share(c.mem_share),
      mem_workers(c.mem_workers) {}

}  // namespace slaw::sim
