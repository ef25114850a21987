#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>
#include <sstream>

#include "slaw/config.hpp"
#include "slaw/stats.hpp"

namespace slaw {

worker_stats sum_stats(const std::vector<worker_stats>& ws) {
  worker_stats t;
  for (const auto& w : ws) {
    t.spawns_wf += w.spawns_wf;
    t.spawns_hf += w.spawns_hf;
    t.steals_preempted += w.steals_preempted;
    t.steals_fresh += w.steals_fresh;
    t.stolen_preempted += w.stolen_preempted;
    t.stolen_fresh += w.stolen_fresh;
    t.failed_steals += w.failed_steals;
    t.context_switches += w.context_switches;
    t.local_takes += w.local_takes;
    t.tasks_run += w.tasks_run;
    t.policy_switches += w.policy_switches;
    t.max_wf_depth = std::max(t.max_wf_depth, w.max_wf_depth);
    t.max_fresh = std::max(t.max_fresh, w.max_fresh);
    t.parks += w.parks;
    t.wakes += w.wakes;
    t.frame_bytes_live += w.frame_bytes_live;
    t.frame_bytes_peak += w.frame_bytes_peak;
    t.frame_chunk_bytes += w.frame_chunk_bytes;
  }
  return t;
}

namespace {
void put(std::ostringstream& o, const worker_stats& w, bool with_policy) {
  o << "{\"spawns_wf\":" << w.spawns_wf << ",\"spawns_hf\":" << w.spawns_hf
    << ",\"steals_preempted\":" << w.steals_preempted << ",\"steals_fresh\":" << w.steals_fresh
    << ",\"stolen_preempted\":" << w.stolen_preempted << ",\"stolen_fresh\":" << w.stolen_fresh
    << ",\"failed_steals\":" << w.failed_steals << ",\"context_switches\":" << w.context_switches
    << ",\"local_takes\":" << w.local_takes << ",\"tasks_run\":" << w.tasks_run
    << ",\"policy_switches\":" << w.policy_switches << ",\"max_wf_depth\":" << w.max_wf_depth
    << ",\"max_fresh\":" << w.max_fresh << ",\"parks\":" << w.parks << ",\"wakes\":" << w.wakes
    << ",\"frame_bytes_live\":" << w.frame_bytes_live << ",\"frame_bytes_peak\":" << w.frame_bytes_peak
    << ",\"frame_chunk_bytes\":" << w.frame_chunk_bytes;
  if (with_policy) o << ",\"policy\":\"" << w.policy << "\"";
  o << "}";
}
}  // namespace

std::string runtime_stats::to_json() const {
  std::ostringstream o;
  o << "{\"workers\":" << workers.size() << ",\"total\":";
  put(o, total, false);
  o << ",\"per_worker\":[";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    if (i) o << ",";
    put(o, workers[i], true);
  }
  o << "]}";
  return o.str();
}

void write_stats(const runtime_stats& s, const config& cfg) {
  std::string json = s.to_json();
  if (cfg.stats == stats_output::stderr_stream) {
    std::fprintf(stderr, "%s\n", json.c_str());
    return;
  }
  static std::mutex m;
  static std::set<std::string> written;
  std::lock_guard<std::mutex> g(m);
  bool first = written.insert(cfg.stats_path).second;
  if (std::FILE* f = std::fopen(cfg.stats_path.c_str(), first ? "w" : "a")) {
    std::fprintf(f, "%s\n", json.c_str());
    std::fclose(f);
  } else {
    std::fprintf(stderr, "slaw: SLAW_STATS: cannot write '%s'\n", cfg.stats_path.c_str());
  }
}

}  // namespace slaw
