// The benchmark interface of slaw-bench. Each benchmark lives in bench/kernels/NAME.cpp and registers
// itself with SLAW_BENCHMARK. One `instance` is one benchmark at one parameter set: it is prepared once
// (inputs built, not timed), then run many times by the driver, each run preceded by `reset()` and
// followed by `check()`, the correctness oracle, which must pass for every run of every variant.
//
// Variants (harness/variants.hpp): the serial elision (same algorithm, no runtime), slaw (the driver
// passes a runtime configured by the variant's row: policy wf, hf or dyn, scheduler), oneTBB
// (`task_group`, run inside a task_arena of the requested size) and OpenMP (`task`/`taskwait` inside
// `parallel` + `single`, with omp_set_num_threads already called); the locality rows (slaw-places,
// tbb-places, omp-places) run the run_*_locality versions of the kernels that have them.
// All variants use the same algorithm and the same cut-offs.
//
// Loop kernels (reduce, scan, foreach, psort, sor-loop, spmv-loop, fj-loop) are the parallel loops of
// slaw/algorithm.hpp against the peers' loops: slaw's algorithm with no grain, oneTBB's parallel_* with
// its default partitioner (run_tbb) and with simple_partitioner and a hand-tuned grain (run_tbb_grain,
// the tbb-grain row), OpenMP's parallel for with schedule(static) (run_omp) and with a dynamic or
// guided schedule (run_omp_dynamic, the omp-dynamic row), and std::execution::par (run_pstl, the pstl
// row, inside the task_arena as the tbb rows). A kernel without a version for a row is not run for it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "slaw/slaw.hpp"

namespace slawbench {

// A bad benchmark argument: the message names the argument and the accepted values.
class bench_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Benchmark parameters, KEY=VALUE. Getters throw bench_error for a missing or malformed value.
class params {
 public:
  params() = default;
  explicit params(std::map<std::string, std::string> kv) : kv_(std::move(kv)) {}
  std::int64_t integer(const std::string& key, std::int64_t lo, std::int64_t hi) const;
  double real(const std::string& key, double lo, double hi) const;
  const std::string& text(const std::string& key) const;
  const std::map<std::string, std::string>& all() const { return kv_; }
  void set(const std::string& k, const std::string& v) { kv_[k] = v; }

 private:
  std::map<std::string, std::string> kv_;
};

struct outcome {
  bool ok;
  std::string detail;  // what was checked, or what was wrong
};

class instance {
 public:
  virtual ~instance() = default;
  virtual void reset() {}  // restore the inputs a run modifies (not timed)
  virtual void run_serial() = 0;
  virtual void run_slaw(slaw::runtime& rt) = 0;
  virtual bool has_tbb() const { return false; }
  virtual void run_tbb(unsigned /*workers*/) {}
  virtual bool has_omp() const { return false; }
  virtual void run_omp(unsigned /*workers*/) {}
  // Locality versions (the *-places rows): the same computation with the same data on the same place
  // (slaw: one task per place with slaw::at), thread (OpenMP static schedule) or cache (oneTBB
  // affinity_partitioner) in every iteration. Kernels without one are not run for those rows.
  virtual bool has_locality() const { return false; }
  virtual void run_slaw_locality(slaw::runtime& rt) { run_slaw(rt); }
  virtual void run_tbb_locality(unsigned workers) { run_tbb(workers); }
  virtual void run_omp_locality(unsigned workers) { run_omp(workers); }
  // Loop kernels' further peers (see above); each run inside what its row's kind sets up.
  virtual bool has_tbb_grain() const { return false; }
  virtual void run_tbb_grain(unsigned /*workers*/) {}
  virtual bool has_omp_dynamic() const { return false; }
  virtual void run_omp_dynamic(unsigned /*workers*/) {}
  virtual bool has_pstl() const { return false; }
  virtual void run_pstl(unsigned /*workers*/) {}
  virtual outcome check() = 0;  // the oracle for the last run
};

struct benchmark {
  std::string name;
  std::string what;  // one line: what it stresses
  // Parameter sets for --size test | default | large; the keys are the benchmark's parameters.
  std::map<std::string, std::string> size_test, size_default, size_large;
  std::function<std::unique_ptr<instance>(const params&)> make;
  // Each parameter (the keys of the size sets): what it means and what it accepts, for --list.
  std::map<std::string, std::string> params_doc;
};

// The parameter sets --size accepts, in --list's order.
struct size_spec {
  std::string_view name;
  std::string_view what;
  std::map<std::string, std::string> benchmark::*params;
};
inline constexpr size_spec sizes[] = {
    {"test", "tiny instances, milliseconds a run: the oracle tests (ctest) and quick checks", &benchmark::size_test},
    {"default", "make bench's size: a serial run takes about 1 ms to 1.5 s on a 2-core machine",
     &benchmark::size_default},
    {"large", "bigger instances (several times the default's work), for machines with more cores",
     &benchmark::size_large},
};
const size_spec* find_size(std::string_view name);  // nullptr: no such size

int register_benchmark(benchmark b);
const std::vector<benchmark>& registry();

#define SLAW_BENCH_CONCAT2(a, b) a##b
#define SLAW_BENCH_CONCAT(a, b) SLAW_BENCH_CONCAT2(a, b)
// SLAW_BENCHMARK(slawbench::benchmark{...}); at namespace scope in a kernel file.
#define SLAW_BENCHMARK(...) \
  static const int SLAW_BENCH_CONCAT(slaw_bench_reg_, __LINE__) = ::slawbench::register_benchmark(__VA_ARGS__)

}  // namespace slawbench
