#include "arbiter/top_format.hpp"

#include <cmath>
#include <cstdio>

#include "arbiter/table.hpp"

namespace slaw::arbiter {

namespace {

std::string fixed(double x, int digits) {
  if (!std::isfinite(x)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else out += c;
  }
  return out + "\"";
}

}  // namespace

std::string format_text(const std::string& name, const segment_view& v, std::uint64_t now_ns) {
  std::uint32_t allotted = 0;
  for (const job_view& j : v.jobs) allotted += j.allotment;
  const double age_ms = now_ns > v.quantum_start_ns ? static_cast<double>(now_ns - v.quantum_start_ns) / 1e6 : 0.0;
  std::string out = "slaw-top  " + name + "  cores " + std::to_string(v.cores) + "  policy " + policy_name(v.policy) +
                    "  quantum " + std::to_string(v.quantum) + " (" + fixed(static_cast<double>(v.quantum_ns) / 1e6, 1) +
                    " ms, started " + fixed(age_ms, 1) + " ms ago)\n";
  out += "jobs " + std::to_string(v.jobs.size()) + "  allotted " + std::to_string(allotted) + "/" + std::to_string(v.cores) +
         "  reaped " + std::to_string(v.reaped) + "  recoveries " + std::to_string(v.recoveries) +
         (v.consistent ? "" : "  (inconsistent copy: a writer is mid-update)") + "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%8s %3s  %-20s %7s %5s %7s %5s %8s\n", "PID", "RT", "COMMAND", "DESIRE", "ALLOT",
                "WORKERS", "UTIL", "QUEUED");
  out += line;
  for (const job_view& j : v.jobs) {
    std::snprintf(line, sizeof line, "%8d %3u  %-20.20s %7s %5u %7u %4s%% %8llu\n", j.pid, j.runtime_id, j.command.c_str(),
                  fixed(j.desire, 2).c_str(), j.allotment, j.workers, fixed(100 * j.utilization, 0).c_str(),
                  static_cast<unsigned long long>(j.queued));
    out += line;
  }
  return out;
}

std::string format_json(const std::string& name, const segment_view& v) {
  std::string out = "{\"segment\": " + json_string(name) + ", \"cores\": " + std::to_string(v.cores) +
                    ", \"policy\": " + json_string(policy_name(v.policy)) + ", \"quantum\": " + std::to_string(v.quantum) +
                    ", \"quantum_ms\": " + fixed(static_cast<double>(v.quantum_ns) / 1e6, 3) +
                    ", \"consistent\": " + (v.consistent ? "true" : "false") +
                    ", \"recoveries\": " + std::to_string(v.recoveries) + ", \"reaped\": " + std::to_string(v.reaped) +
                    ", \"last_reap_quantum\": " + std::to_string(v.last_reap_quantum) + ", \"jobs\": [";
  bool first = true;
  for (const job_view& j : v.jobs) {
    out += first ? "" : ", ";
    first = false;
    out += "{\"pid\": " + std::to_string(j.pid) + ", \"runtime\": " + std::to_string(j.runtime_id) +
           ", \"command\": " + json_string(j.command) + ", \"desire\": " + fixed(j.desire, 3) +
           ", \"allotment\": " + std::to_string(j.allotment) + ", \"workers\": " + std::to_string(j.workers) +
           ", \"utilization\": " + fixed(j.utilization, 3) + ", \"queued\": " + std::to_string(j.queued) +
           ", \"heartbeat\": " + std::to_string(j.heartbeat) + ", \"slot\": " + std::to_string(j.slot) + "}";
  }
  return out + "]}";
}

}  // namespace slaw::arbiter
