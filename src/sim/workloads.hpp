// The generated workloads and how they are named on the command line (docs/simulation.md,
// "Workloads"): `--gen NAME:VALUE[,KEY=VALUE...]`, e.g. fib:30, fj:1024,reps=100, uts:T3,
// dc:12,mem=65536. Each workload lives in its own file (wl_*.cpp) and documents its cost model.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/dag_source.hpp"

namespace slaw::sim {

// A parsed `NAME:VALUE,KEY=VALUE,...` specification. Every accessor records the key as known; after
// the factory has read what it accepts, finish() rejects any other key, naming the accepted ones.
class spec_args {
 public:
  spec_args(std::string name, std::string value, std::map<std::string, std::string> keys)
      : name_(std::move(name)), value_(std::move(value)), keys_(std::move(keys)) {}
  const std::string& name() const { return name_; }
  const std::string& value() const { return value_; }
  // The positional value as an integer in [lo, hi]; `what` names it in errors.
  std::int64_t positional(const char* what, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer(const std::string& key, std::int64_t lo, std::int64_t hi, std::int64_t dflt);
  double number(const std::string& key, double lo, double hi, double dflt);
  void finish() const;

 private:
  [[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& accepted) const;
  std::string name_, value_;
  std::map<std::string, std::string> keys_;
  std::set<std::string> known_;
};

struct workload_info {
  const char* name;
  const char* syntax;
  const char* about;
  std::unique_ptr<dag_source> (*make)(spec_args&);
};

const std::vector<workload_info>& workloads();
// Parses a --gen value; throws std::invalid_argument naming the problem and the accepted values.
std::unique_ptr<dag_source> make_workload(const std::string& spec);

// The factories (one per wl_*.cpp).
std::unique_ptr<dag_source> make_fib(spec_args&);
std::unique_ptr<dag_source> make_fj(spec_args&);
std::unique_ptr<dag_source> make_fj_rec(spec_args&);
std::unique_ptr<dag_source> make_skynet(spec_args&);
std::unique_ptr<dag_source> make_pdfs(spec_args&);
std::unique_ptr<dag_source> make_uts(spec_args&);
std::unique_ptr<dag_source> make_sor(spec_args&);
std::unique_ptr<dag_source> make_nqueens(spec_args&);
std::unique_ptr<dag_source> make_dc(spec_args&);
std::unique_ptr<dag_source> make_spawncost(spec_args&);
std::unique_ptr<dag_source> make_matmul(spec_args&);
std::unique_ptr<dag_source> make_integrate(spec_args&);
std::unique_ptr<dag_source> make_spmv(spec_args&);

// Splittable, deterministic hashing shared by the randomised workloads (uts, dc): SplitMix64's
// finaliser (Steele, Lea, Flood, OOPSLA 2014).
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// A uniform double in [0, 1) from a hash.
constexpr double unit_interval(std::uint64_t h) noexcept { return static_cast<double>(h >> 11) * 0x1.0p-53; }

}  // namespace slaw::sim
