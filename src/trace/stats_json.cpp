#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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
    t.frame_bytes_total += w.frame_bytes_total;
    t.user_bytes_live += w.user_bytes_live;
    t.user_bytes_peak += w.user_bytes_peak;
    t.user_bytes_total += w.user_bytes_total;
    t.frame_chunk_bytes += w.frame_chunk_bytes;
    t.fresh_bytes_live += w.fresh_bytes_live;
    t.fresh_bytes_peak += w.fresh_bytes_peak;
    t.quota_max_used = std::max(t.quota_max_used, w.quota_max_used);
    t.quota_overrun_bytes += w.quota_overrun_bytes;
    t.quota_giveups += w.quota_giveups;
    t.dummy_tasks += w.dummy_tasks;
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
    << ",\"frame_bytes_total\":" << w.frame_bytes_total << ",\"user_bytes_live\":" << w.user_bytes_live
    << ",\"user_bytes_peak\":" << w.user_bytes_peak << ",\"user_bytes_total\":" << w.user_bytes_total
    << ",\"frame_chunk_bytes\":" << w.frame_chunk_bytes << ",\"fresh_bytes_live\":" << w.fresh_bytes_live
    << ",\"fresh_bytes_peak\":" << w.fresh_bytes_peak << ",\"quota_max_used\":" << w.quota_max_used
    << ",\"quota_overrun_bytes\":" << w.quota_overrun_bytes << ",\"quota_giveups\":" << w.quota_giveups
    << ",\"dummy_tasks\":" << w.dummy_tasks;
  if (with_policy) o << ",\"policy\":\"" << w.policy << "\"";
  if (!w.policy_trace.empty()) {
    o << ",\"policy_trace\":[";
    for (std::size_t i = 0; i < w.policy_trace.size(); ++i) {
      const auto& e = w.policy_trace[i];
      o << (i ? "," : "") << "[" << e.spawn << "," << e.depth << ",\"" << (e.to_wf ? "wf" : "hf") << "\",\"" << e.reason
        << "\"]";
    }
    o << "]";
  }
  o << "}";
}
}  // namespace

std::string runtime_stats::to_json() const {
  std::ostringstream o;
  o << "{\"workers\":" << workers.size() << ",\"scheduler\":\"" << scheduler << "\",\"quota\":" << quota
    << ",\"memory_live\":" << memory_live << ",\"memory_peak\":" << memory_peak
    << ",\"active_tasks\":" << active_tasks << ",\"active_tasks_peak\":" << active_tasks_peak
    << ",\"gauge_error_bytes\":" << gauge_error_bytes << ",\"gauge_error_tasks\":" << gauge_error_tasks;
  if (scheduler == "dfdeques")
    o << ",\"dfd\":{\"steals\":" << dfd_steals << ",\"failed_attempts\":" << dfd_failed_attempts
      << ",\"giveups\":" << dfd_giveups << ",\"deletions\":" << dfd_deletions << ",\"max_deques\":" << dfd_max_deques
      << "}";
  o << ",\"total\":";
  put(o, total, false);
  o << ",\"per_worker\":[";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    if (i) o << ",";
    put(o, workers[i], true);
  }
  o << "]}";
  return o.str();
}

namespace {
std::mutex stats_files_mutex;
std::set<std::string> stats_files_opened;  // paths truncated by this process already

std::FILE* open_stats_file(const std::string& path) {
  bool first = stats_files_opened.count(path) == 0;
  std::FILE* f = std::fopen(path.c_str(), first ? "w" : "a");
  if (f && first) stats_files_opened.insert(path);
  return f;
}
}  // namespace

void open_stats_output(const config& cfg) {
  if (cfg.stats != stats_output::file) return;
  std::lock_guard<std::mutex> g(stats_files_mutex);
  std::FILE* f = open_stats_file(cfg.stats_path);
  if (!f) {
    int err = errno;
    throw config_error("SLAW_STATS='" + cfg.stats_path + "': cannot open the counters file for writing (" +
                       std::strerror(err) + ")");
  }
  std::fclose(f);
}

void write_stats(const runtime_stats& s, const config& cfg) {
  std::string json = s.to_json();
  if (cfg.stats == stats_output::stderr_stream) {
    std::fprintf(stderr, "%s\n", json.c_str());
    return;
  }
  std::lock_guard<std::mutex> g(stats_files_mutex);
  if (std::FILE* f = open_stats_file(cfg.stats_path)) {
    std::fprintf(f, "%s\n", json.c_str());
    std::fclose(f);
  } else {
    std::fprintf(stderr, "slaw: SLAW_STATS: cannot write '%s': %s\n", cfg.stats_path.c_str(), std::strerror(errno));
  }
}

}  // namespace slaw
