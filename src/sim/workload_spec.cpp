// Parsing of --gen NAME:VALUE[,KEY=VALUE...] and the table of workloads.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

bool parse_int(const std::string& s, std::int64_t& out) {
  if (s.empty()) return false;
  const char* p = s.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(p, &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
  out = v;
  return true;
}

std::string range(std::int64_t lo, std::int64_t hi) { return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; }

}  // namespace

const std::vector<workload_info>& workloads() {
  static const std::vector<workload_info> w = {
      {"fib", "fib:N[,node=NS,leaf=NS,frame=B]", "recursive Fibonacci, no cut-off: finish { async fib(n-1); fib(n-2) }",
       make_fib},
      {"fj", "fj:N[,reps=R,task=NS,gap=NS,frame=B]",
       "flat fork-join: finish { for i < N: async task } per repetition (gap: the loop's work per spawn)",
       make_fj},
      {"fj-rec", "fj-rec:N[,reps=R,task=NS,node=NS,frame=B]",
       "fork-join of N tasks by recursive halving, a finish per node", make_fj_rec},
      {"skynet", "skynet:N[,leaf=NS,node=NS,frame=B]", "10-way fan-out tree with N leaves (a power of 10)", make_skynet},
      {"pdfs", "pdfs:SIDE[,label=NS,visit=NS,frame=B]",
       "parallel DFS spanning tree of a SIDE x SIDE torus, escaping asyncs under one finish", make_pdfs},
      {"uts", "uts:T1|T3|T1L|T3L[,node=NS,frame=B]",
       "unbalanced tree search, the reference UTS trees (SHA-1 splitting)", make_uts},
      {"sor", "sor:N[,iterations=I,blocks=B,cell=NS,frame=B]",
       "SOR-like flat loops: per half-iteration a finish over B row blocks", make_sor},
      {"nqueens", "nqueens:N[,cutoff=C,check=NS,frame=B]",
       "BOTS N-queens, a task per column above the cut-off depth, serial below", make_nqueens},
      {"dc", "dc:DEPTH[,work=NS,wratio=R,mem=B,mratio=R,jitter=F,seed=S,frame=B]",
       "DFDeques' synthetic divide-and-conquer: binary, work and memory decreasing geometrically per level",
       make_dc},
      {"spawncost", "spawncost:N[,reps=R,task=NS,gap=NS,frame=B]",
       "SLAW's spawn-cost loop: finish { for 1 <= i < N: async task; task } per repetition", make_spawncost},
      {"matmul", "matmul:N[,leaf=NS,frame=B]",
       "recursive matrix multiply, 64 x 64 leaves: per node two phases of finish { async x 3; call }", make_matmul},
      {"spmv", "spmv:ROWS[,iters=I,grain=G,row=NS,node=NS,frame=B]",
       "repeated sparse matrix-vector multiply: per iteration a recursive-halving fork-join down to G rows, "
       "each leaf allocating a scratch buffer",
       make_spmv},
      {"integrate", "integrate:EPS[,node=NS,frame=B]",
       "adaptive trapezoid quadrature of x^3 + x on [0, 10^4], the kernel's real splits, a finish per node",
       make_integrate},
  };
  return w;
}

std::unique_ptr<dag_source> make_workload(const std::string& spec) {
  std::string names;
  for (const auto& w : workloads()) names += (names.empty() ? "" : ", ") + std::string(w.name);
  const std::size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const workload_info* info = nullptr;
  for (const auto& w : workloads())
    if (name == w.name) info = &w;
  if (!info) throw std::invalid_argument("--gen '" + spec + "': unknown workload '" + name + "'; accepted: " + names);
  if (colon == std::string::npos || colon + 1 == spec.size())
    throw std::invalid_argument("--gen '" + spec + "': missing the value; expected " + info->syntax);
  std::string rest = spec.substr(colon + 1), value;
  std::map<std::string, std::string> keys;
  std::size_t start = 0;
  bool first = true;
  while (start <= rest.size()) {
    std::size_t comma = rest.find(',', start);
    std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (first) {
      value = item;
      first = false;
    } else {
      std::size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("--gen '" + spec + "': '" + item + "' is not KEY=VALUE; expected " + info->syntax);
      if (!keys.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
        throw std::invalid_argument("--gen '" + spec + "': key '" + item.substr(0, eq) + "' given twice");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  spec_args args(name, value, std::move(keys));
  try {
    auto src = info->make(args);
    args.finish();
    return src;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--gen '" + spec + "': " + e.what() + " (syntax: " + info->syntax + ")");
  }
}

void spec_args::bad(const std::string& key, const std::string& value, const std::string& accepted) const {
  throw std::invalid_argument(key + "='" + value + "': expected " + accepted);
}

std::int64_t spec_args::positional(const char* what, std::int64_t lo, std::int64_t hi) const {
  std::int64_t v;
  if (!parse_int(value_, v) || v < lo || v > hi) bad(what, value_, range(lo, hi));
  return v;
}

std::int64_t spec_args::integer(const std::string& key, std::int64_t lo, std::int64_t hi, std::int64_t dflt) {
  known_.insert(key);
  auto it = keys_.find(key);
  if (it == keys_.end()) return dflt;
  std::int64_t v;
  if (!parse_int(it->second, v) || v < lo || v > hi) bad(key, it->second, range(lo, hi));
  return v;
}

double spec_args::number(const std::string& key, double lo, double hi, double dflt) {
  known_.insert(key);
  auto it = keys_.find(key);
  if (it == keys_.end()) return dflt;
  const std::string& s = it->second;
  char* end = nullptr;
  errno = 0;
  double v = s.empty() ? NAN : std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < lo || v > hi)
    bad(key, s, "a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

void spec_args::finish() const {
  for (const auto& [k, v] : keys_) {
    if (known_.count(k)) continue;
    std::string acc;
    for (const std::string& n : known_) acc += (acc.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown key '" + k + "'; accepted: " + (acc.empty() ? "none" : acc));
  }
}

}  // namespace slaw::sim
