// foreach: a parallel loop over the rows of a Mandelbrot image, rows of very different cost.
// slaw::for_each (over a std::views::iota range, no grain) against oneTBB's parallel_for, OpenMP's
// parallel for and std::for_each(std::execution::par). Stresses: load balance of an irregular loop
// whose cost per iteration is unknown in advance (a row costs from about 2 x width to maxiter x width
// iterations of the escape loop).
// Algorithm: row r of a width x height image of the window x in [-2.2, 0.8], y in [-0.75, 1.25] (row 0
// at the top), each pixel's escape-time count (at most maxiter) written to the image; the same
// non-inlined row function in every variant. The window is not symmetric about the real axis (as a
// zoomed view rarely is): the lower half of the rows holds about 2.6 times the upper half's work, so
// that a static split in halves is unbalanced, as an image's rows generally are. omp-dynamic uses
// schedule(dynamic, chunk): guided would hand out the first half of the rows at once, the same
// imbalance as the static schedule.
// Input: none but the parameters. reset() fills the image with an impossible count.
// Oracle: the image's checksum (the sum over pixels of count x (pixel index + 1), modulo 2^64) and the
// total count equal the serial run's (computed at set-up), exactly.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ranges>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"

namespace {

// The peers' hand-tuned chunks, tuned at --size default with 2 workers on the 2-core machine of
// bench/results/loops/: each candidate side by side with the default row (tbb, omp) in one run, 5
// repetitions, 1 to 4 runs each; the ratios below are candidate / default row. Other work shared the
// machine (load 3 to 8), so differences under about 10 % are noise.
// A row costs 20 to 600 µs here.
// tbb-grain: simple_partitioner chunks of [grain/2, grain] rows. Tried 1 (1.00-1.07), 2 (1.12, one run),
// 4 (0.99-1.15), 8 (1.01, one run), 16 (0.98-1.09), 64 (0.96-1.04): none apart from the default
// partitioner or each other. Kept 1: a row is at least 20 µs, so a task per row costs well under 1 %, and
// the finest grain balances best whatever the rows' costs.
constexpr long tbb_grain = 1;
// omp-dynamic: schedule(dynamic, chunk) rows. Tried 1 (0.94-0.99), 2 (0.97, one run), 4 (0.84-1.05), 8
// (0.94, one run), 16 (0.83-0.98), 64 (0.81-1.00). Kept 16: ahead of the static schedule in all four of
// its runs; 128 dispatches, and the last chunk at most about 5 ms (under 2 % of the run).
constexpr long omp_chunk = 16;

constexpr double x_min = -2.2, x_max = 0.8, y_min = -0.75, y_max = 1.25;

struct image {
  long width, height, maxiter;
  std::uint32_t* px;
};

// Row r's escape-time counts.
[[gnu::noinline]] void mandel_row(const image& im, long r) {
  const double ci = y_max - (y_max - y_min) * (static_cast<double>(r) + 0.5) / static_cast<double>(im.height);
  std::uint32_t* out = im.px + r * im.width;
  for (long c = 0; c < im.width; ++c) {
    const double cr = x_min + (x_max - x_min) * (static_cast<double>(c) + 0.5) / static_cast<double>(im.width);
    double zr = 0, zi = 0;
    long k = 0;
    for (; k < im.maxiter; ++k) {
      const double zr2 = zr * zr, zi2 = zi * zi;
      if (zr2 + zi2 > 4.0) break;
      zi = 2 * zr * zi + ci;
      zr = zr2 - zi2 + cr;
    }
    out[c] = static_cast<std::uint32_t>(k);
  }
}

class foreach_instance : public slawbench::instance {
 public:
  explicit foreach_instance(const slawbench::params& p)
      : im_{p.integer("width", 1, 1L << 16), p.integer("height", 1, 1L << 16), p.integer("maxiter", 1, 1L << 24), nullptr},
        px_(static_cast<std::size_t>(im_.width * im_.height)), rows_(slawbench::index_vector(im_.height)) {
    im_.px = px_.data();
    reset();
    run_serial();
    sums(want_sum_, want_total_);
  }
  void reset() override { std::fill(px_.begin(), px_.end(), ~std::uint32_t{0}); }
  void run_serial() override {
    for (long r = 0; r < im_.height; ++r) mandel_row(im_, r);
  }
  void run_slaw(slaw::runtime& rt) override {
    const image* im = &im_;
    rt.run(slaw::for_each(std::views::iota(0L, im_.height), [im](long r) { mandel_row(*im, r); }));
  }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { tbb_rows(tbb::auto_partitioner(), 1); }
  bool has_tbb_grain() const override { return true; }
  void run_tbb_grain(unsigned) override { tbb_rows(tbb::simple_partitioner(), tbb_grain); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    const long h = im_.height;
#pragma omp parallel for schedule(static)
    for (long r = 0; r < h; ++r) mandel_row(im_, r);
  }
  bool has_omp_dynamic() const override { return true; }
  void run_omp_dynamic(unsigned) override {
    const long h = im_.height, chunk = omp_chunk;
#pragma omp parallel for schedule(dynamic, chunk)
    for (long r = 0; r < h; ++r) mandel_row(im_, r);
  }
  bool has_pstl() const override { return true; }
  void run_pstl(unsigned) override {
    const image* im = &im_;
    std::for_each(std::execution::par, rows_.begin(), rows_.end(), [im](long r) { mandel_row(*im, r); });
  }
  slawbench::outcome check() override {
    std::uint64_t sum = 0, total = 0;
    sums(sum, total);
    const bool ok = sum == want_sum_ && total == want_total_;
    char msg[200];
    std::snprintf(msg, sizeof msg, "%ldx%ld image, maxiter %ld: %llu iterations, checksum %016llx%s", im_.width,
                  im_.height, im_.maxiter, static_cast<unsigned long long>(total), static_cast<unsigned long long>(sum),
                  ok ? " = serial" : "");
    if (ok) return {true, msg};
    char want[96];
    std::snprintf(want, sizeof want, "; serial %llu iterations, checksum %016llx",
                  static_cast<unsigned long long>(want_total_), static_cast<unsigned long long>(want_sum_));
    return {false, std::string(msg) + want};
  }

 private:
  template <class Partitioner>
  void tbb_rows(const Partitioner& part, long grain) {
    const image* im = &im_;
    tbb::parallel_for(
        tbb::blocked_range<long>(0, im_.height, static_cast<std::size_t>(grain)),
        [im](const tbb::blocked_range<long>& r) {
          for (long i = r.begin(); i < r.end(); ++i) mandel_row(*im, i);
        },
        part);
  }
  void sums(std::uint64_t& sum, std::uint64_t& total) const {
    sum = total = 0;
    for (std::size_t i = 0; i < px_.size(); ++i) {
      sum += px_[i] * (i + 1);
      total += px_[i];
    }
  }

  image im_;
  std::vector<std::uint32_t> px_;
  std::vector<long> rows_;
  std::uint64_t want_sum_ = 0, want_total_ = 0;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "foreach",
    "parallel loop, irregular: Mandelbrot image rows of very different cost (slaw::for_each, parallel_for, "
    "omp parallel for, std::for_each(par))",
    {{"width", "256"}, {"height", "256"}, {"maxiter", "64"}},
    {{"width", "2048"}, {"height", "2048"}, {"maxiter", "128"}},
    {{"width", "4096"}, {"height", "4096"}, {"maxiter", "256"}},
    [](const slawbench::params& p) { return std::make_unique<foreach_instance>(p); },
    {{"width", "pixels per row, in [1, 2^16]"},
     {"height", "rows (the loop's iterations), in [1, 2^16]"},
     {"maxiter", "the escape loop's bound (the cost of a row inside the set), in [1, 2^24]"}}});

}  // namespace
