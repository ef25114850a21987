#include "slaw/config.hpp"

#include "arbiter/settings.hpp"
#include "places/settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string_view>
#include <vector>

extern char** environ;

namespace slaw {

namespace {
constexpr unsigned max_workers = 4096;

constexpr const char* known_vars[] = {"SLAW_WORKERS", "SLAW_POLICY", "SLAW_S",     "SLAW_F",    "SLAW_INT",
                                      "SLAW_STATS",   "SLAW_SCHEDULER", "SLAW_K", "SLAW_TRACE", "SLAW_TRACE_EVENTS",
                                      "SLAW_PLACES",  "SLAW_BIND",      "SLAW_DEPLOYMENT", "SLAW_DISPLAY_PLACES",
                                      "SLAW_TOPOLOGY", "SLAW_REMOTE",   "SLAW_IDLE_ORDER", "SLAW_MAILBOX", "SLAW_RECORD",
                                      "SLAW_ARBITER", "SLAW_DESIRE",   "SLAW_QUANTUM_MS", "SLAW_BETA", "SLAW_CORES",
                                      "SLAW_ARBITER_NAME", "SLAW_LOOP_CHUNK_NS", "SLAW_LOOP_SPLIT_NS"};
constexpr std::uint64_t max_loop_chunk_ns = 1'000'000'000, max_loop_split_ns = 1'000'000'000'000;
constexpr std::size_t max_mailbox_capacity = std::size_t{1} << 24;
constexpr std::size_t min_timeline_events = 16;  // room for a few events and the buffer-full marker
constexpr std::size_t max_timeline_events = std::size_t{1} << 32;

// Each warning once per process: from_env may run for every runtime.
void warn_once(const std::string& msg) {
  static std::mutex m;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> g(m);
  if (said.insert(msg).second) std::fprintf(stderr, "slaw: warning: %s\n", msg.c_str());
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// A misspelt variable (SLAW_WORKER=2) would otherwise be ignored without a word.
void warn_unknown_vars() {
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    if (kv.substr(0, 5) != "SLAW_") continue;
    std::string_view name = kv.substr(0, kv.find('='));
    if (name.substr(0, 10) == "SLAW_TEST_") continue;  // the test suite's own settings
    if (std::find(std::begin(known_vars), std::end(known_vars), name) != std::end(known_vars)) continue;
    std::string msg = "unknown environment variable " + std::string(kv) + " ignored";
    const char* best = nullptr;
    std::size_t best_d = 3;
    for (const char* k : known_vars)
      if (std::size_t d = edit_distance(name, k); d < best_d) best = k, best_d = d;
    if (best) msg += std::string(" (did you mean ") + best + "?)";
    else {
      msg += "; slaw reads";
      for (const char* k : known_vars) msg += std::string(" ") + k;
    }
    warn_once(msg);
  }
}

bool iequals(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b)
    if (std::tolower(static_cast<unsigned char>(*a)) != std::tolower(static_cast<unsigned char>(*b))) return false;
  return *a == *b;
}

// Settings read without error that the chosen scheduler or policy does not use.
void warn_inapplicable(const config& c) {
  auto setting = [](const char* n) {  // "NAME=value", or empty if unset
    const char* v = std::getenv(n);
    return v ? std::string(n) + "=" + v : std::string();
  };
  std::string s;
  if (c.timeline_path.empty() && !(s = setting("SLAW_TRACE_EVENTS")).empty())
    warn_once(s + " is ignored: it sizes the timeline trace, and SLAW_TRACE has no timeline:PATH item");
  const bool flat = c.deployment_file.empty() && (c.places.empty() || iequals(c.places.c_str(), "flat"));
  if (flat)
    for (const char* n : {"SLAW_REMOTE", "SLAW_IDLE_ORDER", "SLAW_MAILBOX", "SLAW_TOPOLOGY"})
      if (!(s = setting(n)).empty())
        warn_once(s + " is ignored: the flat deployment (SLAW_PLACES unset or flat) has one place");
  if (c.arbiter.arbiter == policy::arbiter::off)
    for (const char* n : {"SLAW_DESIRE", "SLAW_QUANTUM_MS", "SLAW_BETA", "SLAW_CORES", "SLAW_ARBITER_NAME"})
      if (!(s = setting(n)).empty())
        warn_once(s + " is ignored: SLAW_ARBITER=off registers no job with the arbiter");
  if (c.scheduler == scheduler_kind::ws) {
    if (!(s = setting("SLAW_K")).empty())
      warn_once(s + " is ignored: it applies to SLAW_SCHEDULER=dfdeques, the scheduler is ws");
    if (c.policy != policy::mode::dyn)
      for (const char* n : {"SLAW_S", "SLAW_F", "SLAW_INT"})
        if (!(s = setting(n)).empty())
          warn_once(s + " is ignored: it applies to SLAW_POLICY=dyn, the policy is " + to_string(c.policy));
  } else {
    for (const char* n : {"SLAW_POLICY", "SLAW_S", "SLAW_F", "SLAW_INT"})
      if (!(s = setting(n)).empty())
        warn_once(s + " is ignored under SLAW_SCHEDULER=dfdeques (all its spawns are work-first)");
  }
}

// SLAW_TRACE: comma-separated items, each at most once. A path cannot hold a comma: the split is
// plain, so that `policy,timeline:t.json` and `timeline:t.json,policy` mean the same.
void parse_trace(const char* v, config& c) {
  static constexpr const char* accepted =
      "expected comma-separated items, each at most once: policy, timeline:PATH (a file path without commas); "
      "or 0 (or empty) alone for none";
  const std::string all(v);
  auto bad = [&](const std::string& why) { return config_error("SLAW_TRACE='" + all + "': " + why + "; " + accepted); };
  c.policy_trace = 0;
  c.timeline_path.clear();
  if (all.empty() || all == "0") return;
  bool policy = false, timeline = false;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = all.find(',', at);
    const std::string item = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item == "policy") {
      if (policy) throw bad("'policy' given twice");
      policy = true;
      c.policy_trace = 100000;
    } else if (item.rfind("timeline", 0) == 0 && (item.size() == 8 || item[8] == ':')) {
      if (timeline) throw bad("'timeline' given twice");
      timeline = true;
      if (item.size() <= 9) throw bad("'" + item + "' has no path (write timeline:PATH)");
      c.timeline_path = item.substr(9);
    } else if (item.empty()) {
      throw bad("an empty item");
    } else {
      throw bad("unknown item '" + item + "'");
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
}

unsigned long long parse_uint(const char* name, const char* value, unsigned long long lo, unsigned long long hi) {
  unsigned long long v = 0;
  const char* end = value + std::strlen(value);
  auto [ptr, ec] = std::from_chars(value, end, v);
  if (value == end || ec != std::errc() || ptr != end || v < lo || v > hi)
    throw config_error(std::string(name) + "='" + value + "': expected an integer in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  return v;
}
}  // namespace

const char* to_string(policy::mode m) noexcept {
  switch (m) {
    case policy::mode::wf: return "wf";
    case policy::mode::hf: return "hf";
    default: return "dyn";
  }
}

const char* to_string(scheduler_kind s) noexcept { return s == scheduler_kind::dfdeques ? "dfdeques" : "ws"; }

std::string to_string(remote_steal r) {
  if (r.mailboxes && r.deques) return "mailboxes,deques";
  if (r.mailboxes) return "mailboxes";
  if (r.deques) return "deques";
  return "none";
}

const char* to_string(idle_order o) noexcept { return o == idle_order::paper ? "paper" : "thesis"; }

namespace {
// SLAW_REMOTE: `none`, or a comma-separated set of `mailboxes` and `deques`.
remote_steal parse_remote(const char* v) {
  static constexpr const char* accepted = "expected mailboxes,deques (the default), mailboxes, deques or none";
  const std::string all(v);
  auto bad = [&](const std::string& why) { return config_error("SLAW_REMOTE='" + all + "': " + why + "; " + accepted); };
  if (all == "none") return {false, false};
  remote_steal r{false, false};
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = all.find(',', at);
    const std::string item = all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    bool* flag = item == "mailboxes" ? &r.mailboxes : item == "deques" ? &r.deques : nullptr;
    if (!flag) throw bad(item.empty() ? "an empty item" : "unknown item '" + item + "'");
    if (*flag) throw bad("'" + item + "' given twice");
    *flag = true;
    if (comma == std::string::npos) return r;
    at = comma + 1;
  }
}
}  // namespace

config config::from_env() { return from_env(config{}); }

config config::from_env(config c) {
  if (const char* v = std::getenv("SLAW_WORKERS"))
    c.workers = static_cast<unsigned>(parse_uint("SLAW_WORKERS", v, 1, max_workers));
  if (const char* v = std::getenv("SLAW_POLICY")) {
    if (!std::strcmp(v, "dyn")) c.policy = policy::mode::dyn;
    else if (!std::strcmp(v, "wf")) c.policy = policy::mode::wf;
    else if (!std::strcmp(v, "hf")) c.policy = policy::mode::hf;
    else throw config_error(std::string("SLAW_POLICY='") + v + "': expected one of wf, hf, dyn");
  }
  if (const char* v = std::getenv("SLAW_S")) c.adp.S = static_cast<std::uint32_t>(parse_uint("SLAW_S", v, 1, 1u << 30));
  if (const char* v = std::getenv("SLAW_F")) c.adp.F = static_cast<std::uint32_t>(parse_uint("SLAW_F", v, 1, 1u << 30));
  if (const char* v = std::getenv("SLAW_INT")) {
    c.adp.INT = static_cast<std::uint32_t>(parse_uint("SLAW_INT", v, 1, 1u << 30));
    c.adp.steal_threshold = c.adp.INT;
  }
  if (const char* v = std::getenv("SLAW_SCHEDULER")) {
    if (!std::strcmp(v, "ws")) c.scheduler = scheduler_kind::ws;
    else if (!std::strcmp(v, "dfdeques")) c.scheduler = scheduler_kind::dfdeques;
    else throw config_error(std::string("SLAW_SCHEDULER='") + v + "': expected one of ws, dfdeques");
  }
  if (const char* v = std::getenv("SLAW_K")) {
    if (!std::strcmp(v, "inf")) c.quota = quota_infinite;
    else {
      try {
        c.quota = parse_uint("SLAW_K", v, min_quota, std::uint64_t{1} << 50);
      } catch (const config_error& e) {
        throw config_error(std::string(e.what()) + ", or inf");
      }
    }
  }
  if (const char* v = std::getenv("SLAW_TRACE")) parse_trace(v, c);
  if (const char* v = std::getenv("SLAW_RECORD")) {
    if (!*v) throw config_error("SLAW_RECORD='': expected the path of the DAG file to write (unset it to record nothing)");
    c.record_path = v;
  }
  if (const char* v = std::getenv("SLAW_TRACE_EVENTS"))
    c.timeline_events = static_cast<std::size_t>(
        parse_uint("SLAW_TRACE_EVENTS", v, min_timeline_events, max_timeline_events));
  if (const char* v = std::getenv("SLAW_STATS")) {
    static constexpr const char* accepted = "expected 0 (off), 1 (JSON on stderr) or a file path";
    if (!*v) throw config_error(std::string("SLAW_STATS='': ") + accepted);
    // A file named `true` or `2` is surely a mistake: other words and numbers are errors (./true is a path).
    bool word = false;
    for (const char* w : {"true", "false", "yes", "no", "on", "off", "y", "n"}) word |= iequals(v, w);
    bool number = std::strspn(v, "0123456789") == std::strlen(v);
    if (!std::strcmp(v, "0")) c.stats = stats_output::off;
    else if (!std::strcmp(v, "1")) c.stats = stats_output::stderr_stream;
    else if (word || number)
      throw config_error(std::string("SLAW_STATS='") + v + "': " + accepted + " (for a file of that name write ./" + v +
                         ")");
    else {
      c.stats = stats_output::file;
      c.stats_path = v;
    }
  }
  if (const char* v = std::getenv("SLAW_TOPOLOGY")) c.topology = v;
  if (const char* v = std::getenv("SLAW_REMOTE")) c.remote = parse_remote(v);
  if (const char* v = std::getenv("SLAW_IDLE_ORDER")) {
    if (!std::strcmp(v, "thesis")) c.idle = idle_order::thesis;
    else if (!std::strcmp(v, "paper")) c.idle = idle_order::paper;
    else
      throw config_error(std::string("SLAW_IDLE_ORDER='") + v +
                         "': expected thesis (own mailbox before the place's peers) or paper (peers first)");
  }
  c.arbiter = arbiter::settings::from_env(arbiter::settings{c.arbiter});
  if (const char* v = std::getenv("SLAW_LOOP_CHUNK_NS")) c.loop.chunk_ns = parse_uint("SLAW_LOOP_CHUNK_NS", v, 0, max_loop_chunk_ns);
  if (const char* v = std::getenv("SLAW_LOOP_SPLIT_NS")) c.loop.split_ns = parse_uint("SLAW_LOOP_SPLIT_NS", v, 0, max_loop_split_ns);
  if (const char* v = std::getenv("SLAW_MAILBOX"))
    c.mailbox_capacity = static_cast<std::size_t>(parse_uint("SLAW_MAILBOX", v, 1, max_mailbox_capacity));
  {
    places::settings p{c.places, c.bind, c.deployment_file, c.display_places, c.workers, c.topology};
    p = places::settings_from_env(p);  // throws config_error naming the variable
    c.places = p.places, c.bind = p.bind, c.deployment_file = p.deployment_file, c.display_places = p.display;
  }
  c.validate();
  warn_unknown_vars();
  warn_inapplicable(c);
  return c;
}

void config::validate() const {
  if (workers > max_workers)
    throw config_error("workers=" + std::to_string(workers) + ": expected 0 (all hardware threads) or 1.." +
                       std::to_string(max_workers));
  if (adp.S == 0) throw config_error("S=0: expected an integer >= 1");
  if (adp.F == 0) throw config_error("F=0: expected an integer >= 1");
  if (adp.INT == 0) throw config_error("INT=0: expected an integer >= 1");
  if (adp.start != policy::spawn_policy::wf && adp.start != policy::spawn_policy::hf)
    throw config_error("adp.start=" + std::to_string(static_cast<int>(adp.start)) + ": expected spawn_policy::wf or spawn_policy::hf");
  if (quota < min_quota)
    throw config_error("quota=" + std::to_string(quota) + ": expected a byte count >= " + std::to_string(min_quota) +
                       " or quota_infinite");
  if (spin_rounds == 0) throw config_error("spin_rounds=0: expected an integer >= 1");
  if (stats == stats_output::file && stats_path.empty()) throw config_error("stats file path is empty");
  places::check(places::settings{places, bind, deployment_file, display_places, workers, topology});
  if (mailbox_capacity == 0 || mailbox_capacity > max_mailbox_capacity)
    throw config_error("mailbox_capacity=" + std::to_string(mailbox_capacity) + ": expected tasks per mailbox in [1, " +
                       std::to_string(max_mailbox_capacity) + "]");
  if (timeline_events < min_timeline_events || timeline_events > max_timeline_events)
    throw config_error("timeline_events=" + std::to_string(timeline_events) + ": expected events per worker in [" +
                       std::to_string(min_timeline_events) + ", " + std::to_string(max_timeline_events) + "]");
  arbiter::check(arbiter::settings{arbiter});
  if (loop.chunk_ns > max_loop_chunk_ns)
    throw config_error("loop.chunk_ns=" + std::to_string(loop.chunk_ns) + ": expected nanoseconds in [0, " +
                       std::to_string(max_loop_chunk_ns) + "]");
  if (loop.split_ns > max_loop_split_ns)
    throw config_error("loop.split_ns=" + std::to_string(loop.split_ns) + ": expected nanoseconds in [0, " +
                       std::to_string(max_loop_split_ns) + "]");
}

}  // namespace slaw
