#include "harness/record.hpp"

#include <string.h>
#include <sys/utsname.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace slawbench {

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

namespace {

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

double record::median() const {
  std::vector<double> s = seconds;
  std::sort(s.begin(), s.end());
  if (s.empty()) return 0;
  return s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
}

long record::peak_rss_kb() const {
  return peak_rss_reps.empty() ? -1 : *std::max_element(peak_rss_reps.begin(), peak_rss_reps.end());
}

std::string record::to_json() const {
  std::ostringstream o;
  o.precision(9);
  o << "{\"bench\":\"" << bench << "\",\"params\":{";
  bool first = true;
  for (const auto& [k, v] : params) {
    o << (first ? "" : ",") << "\"" << json_escape(k) << "\":\"" << json_escape(v) << "\"";
    first = false;
  }
  o << "},\"variant\":\"" << row->name << "\",\"workers\":" << workers << ",\"seconds\":[";
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

std::string interruption::to_json(std::size_t completed) const {
  const char* abbrev = sigabbrev_np(signal);
  std::ostringstream o;
  o.precision(6);
  o << "{\"signal\":\"" << (abbrev ? std::string("SIG") + abbrev : std::to_string(signal))
    << "\",\"after_seconds\":" << after_seconds << ",\"benchmarks\":" << benchmarks
    << ",\"configurations_completed\":" << completed << ",\"configurations_dropped\":" << configurations_dropped
    << ",\"stopped_in\":{\"benchmark_index\":" << benchmark_index << ",\"bench\":\"" << json_escape(bench)
    << "\",\"workers\":" << workers << ",\"repetitions_done\":" << repetitions_done << "}}";
  return o.str();
}

bool write_json(const std::string& path, const options& opt, const std::vector<record>& records,
                const interruption* stopped) {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\"machine\":" << machine_json() << ",\"size\":\"" << opt.size << "\",\"reps\":" << opt.reps
      << ",\"interrupted\":" << (stopped ? stopped->to_json(records.size()) : "null") << ",\"runs\":[\n";
  for (std::size_t i = 0; i < records.size(); ++i) out << (i ? ",\n" : "") << records[i].to_json();
  out << "\n]}\n";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace slawbench
