#include "arbiter/cores.hpp"

#include <sched.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace slaw::arbiter {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return out;
    at = next + 1;
  }
}

// mountinfo escapes blanks and backslashes in paths as \ooo.
std::string unescape_octal(std::string_view s) {
  const auto oct = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && oct(s[i + 1]) && oct(s[i + 2]) && oct(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

}  // namespace

unsigned affinity_cpu_count() {
  // A mask large enough for any machine: CPU_ALLOC grows past the 1024 CPUs of cpu_set_t.
  for (int n = 1024; n <= (1 << 16); n *= 4) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (!set) return 1;
    const std::size_t bytes = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      const int c = CPU_COUNT_S(bytes, set);
      CPU_FREE(set);
      return c > 0 ? static_cast<unsigned>(c) : 1u;
    }
    CPU_FREE(set);
  }
  return 1;
}

std::optional<std::string> cgroup2_path(std::string_view text) {
  for (std::string_view line : split(text, '\n')) {
    if (line.substr(0, 3) == "0::") {
      std::string p(line.substr(3));
      if (p.empty() || p.front() != '/') return std::nullopt;
      return p;
    }
  }
  return std::nullopt;
}

std::optional<cgroup2_mount> find_cgroup2_mount(std::string_view text) {
  // "36 35 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw": optional fields end at " - ",
  // after which comes the file-system type.
  for (std::string_view line : split(text, '\n')) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    const auto after = split(line.substr(dash + 3), ' ');
    if (after.empty() || after[0] != "cgroup2") continue;
    const auto before = split(line.substr(0, dash), ' ');
    if (before.size() < 5) continue;
    return cgroup2_mount{unescape_octal(before[3]), unescape_octal(before[4])};
  }
  return std::nullopt;
}

std::optional<double> parse_cpu_max(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const auto f = split(text, ' ');
  if (f.empty() || f[0] == "max") return std::nullopt;
  unsigned long long quota = 0, period = 100000;  // the kernel's default period when only a quota is written
  auto num = [](std::string_view s, unsigned long long& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
  };
  if (!num(f[0], quota) || quota == 0) return std::nullopt;
  if (f.size() >= 2 && (!num(f[1], period) || period == 0)) return std::nullopt;
  return static_cast<double>(quota) / static_cast<double>(period);
}

std::optional<double> cgroup_cpu_limit(const std::string& mount_point, const std::string& relative) {
  std::optional<double> best;
  std::string rel = relative;
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  for (;;) {
    if (auto lim = parse_cpu_max(read_text(mount_point + rel + "/cpu.max")))
      if (!best || *lim < *best) best = lim;
    if (rel.empty()) return best;
    const std::size_t slash = rel.rfind('/');
    rel.resize(slash == std::string::npos ? 0 : slash);
  }
}

unsigned cores_from(unsigned affinity, std::optional<double> limit) {
  unsigned c = affinity > 0 ? affinity : 1;
  if (limit && *limit > 0) {
    const double cap = std::ceil(*limit - 1e-9);
    if (cap < static_cast<double>(c)) c = cap < 1 ? 1u : static_cast<unsigned>(cap);
  }
  return c;
}

std::optional<double> own_cgroup_cpu_limit() {
  const auto path = cgroup2_path(read_text("/proc/self/cgroup"));
  if (!path) return std::nullopt;
  const auto mount = find_cgroup2_mount(read_text("/proc/self/mountinfo"));
  if (!mount) return std::nullopt;
  // The mount shows the tree from mount->root down: a cgroup namespace or a bind mount of a subtree
  // shows "/" for the process's own cgroup, with the path relative to that root.
  std::string rel = *path;
  const std::string& root = mount->root;
  if (root != "/") {
    if (rel.compare(0, root.size(), root) == 0 && (rel.size() == root.size() || rel[root.size()] == '/'))
      rel = rel.substr(root.size());
    else
      return std::nullopt;  // the process's cgroup is outside the mounted subtree: nothing to read
  }
  if (rel == "/") rel.clear();
  return cgroup_cpu_limit(mount->point, rel);
}

unsigned default_cores() { return cores_from(affinity_cpu_count(), own_cgroup_cpu_limit()); }

}  // namespace slaw::arbiter
