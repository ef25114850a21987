// fft: recursive radix-2 decimation-in-time complex FFT with a temporary per call (Narlikar's FFT,
// SPAA'99). Stresses: heap allocation inside parallel recursion, so the schedulers differ in peak
// memory (a depth-first serial run holds at most ~2n temporaries; work stealing holds more), plus
// memory-bound copying at the top levels.
// Algorithm: fft(a, m), in place, m a power of two: for m <= 1024 a serial iterative radix-2 FFT (bit
// reversal, then butterflies; the same noinline leaf in every variant); otherwise allocate a temporary
// of m complex values, copy the even-indexed points into its first half and the odd-indexed into its
// second, transform the two halves in parallel, then combine them back into a with the butterflies
// a[k] = t[k] + w^k t[h+k], a[h+k] = t[k] - w^k t[h+k], and free the temporary. The split and the
// combine loops are themselves split in parallel in ranges of 8192 butterflies. Twiddles come from a
// table of n/2 values exp(-2 pi i j/n) built at set-up. The slaw variant allocates the temporary with
// co_await slaw::make_buffer (a DFDeques scheduling point), the others with plain operator new.
// Input: n complex values with real and imaginary parts in [-1, 1) from std::mt19937_64, fixed seed;
// reset() restores them. Oracle: (a) Parseval: sum |X|^2 = n sum |x|^2 to 1e-9 relative; (b) bin 0 and
// 63 random bins against a direct DFT sum (long double, computed at set-up), the largest error below
// 1e-9 times the largest reference magnitude.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "slaw/memory.hpp"

namespace {

using cplx = std::complex<double>;
static_assert(std::is_trivially_copyable_v<cplx> && std::is_trivially_destructible_v<cplx>);

constexpr long leaf = 1024;        // transforms of at most this many points are serial
constexpr long loop_grain = 8192;  // split/combine loop ranges of at most this many butterflies are serial

// (a * b) without the C99 Annex G NaN/inf handling (a libgcc call) of std::complex's operator*.
inline cplx cmul(cplx a, cplx b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// The serial in-place FFT of a[0..m), twiddles W[j] = exp(-2 pi i j/n) read with stride ts = n/m.
[[gnu::noinline]] void leaf_fft(cplx* a, long m, const cplx* W, long ts) {
  for (long i = 1, j = 0; i < m; ++i) {  // bit reversal
    long bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (long len = 2; len <= m; len <<= 1) {
    long half = len >> 1, step = ts * (m / len);
    for (long i = 0; i < m; i += len)
      for (long k = 0; k < half; ++k) {
        cplx u = a[i + k], v = cmul(a[i + k + half], W[k * step]);
        a[i + k] = u + v;
        a[i + k + half] = u - v;
      }
  }
}

// t[k] = a[2k], t[h+k] = a[2k+1] for k in [lo, hi).
[[gnu::noinline]] void split_range(const cplx* a, cplx* t, long h, long lo, long hi) {
  for (long k = lo; k < hi; ++k) {
    t[k] = a[2 * k];
    t[h + k] = a[2 * k + 1];
  }
}

// The butterflies k in [lo, hi) of a size-2h transform from the half transforms in t.
[[gnu::noinline]] void combine_range(cplx* a, const cplx* t, long h, const cplx* W, long ts, long lo, long hi) {
  for (long k = lo; k < hi; ++k) {
    cplx u = t[k], v = cmul(t[h + k], W[k * ts]);
    a[k] = u + v;
    a[h + k] = u - v;
  }
}

// One loop over [lo, hi): op 0 = split, 1 = combine (of a size-m transform, table stride ts).
struct loop_args {
  int op;
  cplx* a;
  cplx* t;
  long h;
  const cplx* W;
  long ts;
};
inline void loop_leaf(const loop_args& L, long lo, long hi) {
  if (L.op == 0) split_range(L.a, L.t, L.h, lo, hi);
  else combine_range(L.a, L.t, L.h, L.W, L.ts, lo, hi);
}

// Uninitialised heap storage for the serial, oneTBB and OpenMP variants.
struct heap_buf {
  explicit heap_buf(long m) : p(static_cast<cplx*>(::operator new(m * sizeof(cplx)))) {}
  ~heap_buf() { ::operator delete(p); }
  heap_buf(const heap_buf&) = delete;
  heap_buf& operator=(const heap_buf&) = delete;
  cplx* p;
};

// ---- serial elision
void loop_serial(const loop_args& L, long lo, long hi) {
  if (hi - lo <= loop_grain) return loop_leaf(L, lo, hi);
  long mid = lo + (hi - lo) / 2;
  loop_serial(L, lo, mid);
  loop_serial(L, mid, hi);
}

void fft_serial(cplx* a, long m, const cplx* W, long n) {
  if (m <= leaf) return leaf_fft(a, m, W, n / m);
  long h = m / 2;
  heap_buf t(m);
  loop_serial({0, a, t.p, h, W, n / m}, 0, h);
  fft_serial(t.p, h, W, n);
  fft_serial(t.p + h, h, W, n);
  loop_serial({1, a, t.p, h, W, n / m}, 0, h);
}

// ---- slaw
slaw::task<> loop_slaw(loop_args L, long lo, long hi) {
  if (hi - lo <= loop_grain) {
    loop_leaf(L, lo, hi);
    co_return;
  }
  long mid = lo + (hi - lo) / 2;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(loop_slaw, L, lo, mid);
  co_await loop_slaw(L, mid, hi);
  co_await slaw::end_finish(f);
}

slaw::task<> fft_slaw(cplx* a, long m, const cplx* W, long n) {
  if (m <= leaf) {
    leaf_fft(a, m, W, n / m);
    co_return;
  }
  long h = m / 2;
  slaw::buffer<cplx> t = co_await slaw::make_buffer<cplx>(m);
  co_await loop_slaw({0, a, t.data(), h, W, n / m}, 0, h);
  {
    auto f = co_await slaw::start_finish();
    co_await slaw::async(fft_slaw, t.data(), h, W, n);
    co_await fft_slaw(t.data() + h, h, W, n);
    co_await slaw::end_finish(f);
  }
  co_await loop_slaw({1, a, t.data(), h, W, n / m}, 0, h);
}

// ---- oneTBB
void loop_tbb(const loop_args& L, long lo, long hi) {
  if (hi - lo <= loop_grain) return loop_leaf(L, lo, hi);
  long mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([&L, lo, mid] { loop_tbb(L, lo, mid); });
  loop_tbb(L, mid, hi);
  g.wait();
}

void fft_tbb(cplx* a, long m, const cplx* W, long n) {
  if (m <= leaf) return leaf_fft(a, m, W, n / m);
  long h = m / 2;
  heap_buf t(m);
  loop_tbb({0, a, t.p, h, W, n / m}, 0, h);
  cplx* tp = t.p;
  tbb::task_group g;
  g.run([=] { fft_tbb(tp, h, W, n); });
  fft_tbb(tp + h, h, W, n);
  g.wait();
  loop_tbb({1, a, t.p, h, W, n / m}, 0, h);
}

// ---- OpenMP
void loop_omp(loop_args L, long lo, long hi) {
  if (hi - lo <= loop_grain) return loop_leaf(L, lo, hi);
  long mid = lo + (hi - lo) / 2;
#pragma omp task firstprivate(L, lo, mid)
  loop_omp(L, lo, mid);
  loop_omp(L, mid, hi);
#pragma omp taskwait
}

void fft_omp(cplx* a, long m, const cplx* W, long n) {
  if (m <= leaf) return leaf_fft(a, m, W, n / m);
  long h = m / 2;
  heap_buf t(m);
  cplx* tp = t.p;
  loop_omp({0, a, tp, h, W, n / m}, 0, h);
#pragma omp task firstprivate(tp, h, W, n)
  fft_omp(tp, h, W, n);
  fft_omp(tp + h, h, W, n);
#pragma omp taskwait
  loop_omp({1, a, tp, h, W, n / m}, 0, h);
}

class fft_instance : public slawbench::instance {
 public:
  explicit fft_instance(const slawbench::params& p) : n_(p.integer("n", 2, std::int64_t{1} << 26)) {
    if (n_ & (n_ - 1)) throw slawbench::bench_error("n=" + std::to_string(n_) + ": expected a power of two in [2, 2^26]");
    input_.resize(n_), data_.resize(n_), W_.resize(n_ / 2);
    std::mt19937_64 rng(20240611);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };
    long double energy = 0;
    for (cplx& x : input_) {
      double re = uni(), im = uni();
      x = {re, im};
      energy += static_cast<long double>(re) * re + static_cast<long double>(im) * im;
    }
    in_energy_ = static_cast<double>(energy);
    const long double two_pi = 6.283185307179586476925286766559L;
    for (long j = 0; j < n_ / 2; ++j) {
      long double ang = -two_pi * j / n_;
      W_[j] = {static_cast<double>(std::cos(ang)), static_cast<double>(std::sin(ang))};
    }
    // Reference bins: bin 0 and 63 random ones, X[k] = sum_j x[j] w^(jk), w = exp(-2 pi i k/n), the
    // power w^j by a long double recurrence restarted from an exact sincos every 1024 steps.
    std::mt19937_64 pick(77);
    bins_.push_back(0);
    for (int s = 1; s < 64 && s < n_; ++s) bins_.push_back(static_cast<long>(pick() % n_));
    for (long k : bins_) {
      long double sr = 0, si = 0, zr = 1, zi = 0;
      long double wr = std::cos(-two_pi * k / n_), wi = std::sin(-two_pi * k / n_);
      for (long j = 0; j < n_; ++j) {
        if ((j & 1023) == 0) {
          long double ang = -two_pi * static_cast<long double>((static_cast<std::uint64_t>(j) * k) % n_) / n_;
          zr = std::cos(ang), zi = std::sin(ang);
        }
        long double xr = input_[j].real(), xi = input_[j].imag();
        sr += xr * zr - xi * zi;
        si += xr * zi + xi * zr;
        long double t = zr * wr - zi * wi;
        zi = zr * wi + zi * wr;
        zr = t;
      }
      ref_.push_back({static_cast<double>(sr), static_cast<double>(si)});
    }
  }
  void reset() override { std::memcpy(static_cast<void*>(data_.data()), input_.data(), n_ * sizeof(cplx)); }
  void run_serial() override { fft_serial(data_.data(), n_, W_.data(), n_); }
  void run_slaw(slaw::runtime& rt) override { rt.run(fft_slaw(data_.data(), n_, W_.data(), n_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { fft_tbb(data_.data(), n_, W_.data(), n_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    fft_omp(data_.data(), n_, W_.data(), n_);
  }
  slawbench::outcome check() override {
    long double energy = 0;
    for (const cplx& X : data_)
      energy += static_cast<long double>(X.real()) * X.real() + static_cast<long double>(X.imag()) * X.imag();
    double want = static_cast<double>(n_) * in_energy_;
    double parseval = std::fabs(static_cast<double>(energy) - want) / want;
    double err = 0, scale = 0;
    long worst = -1;
    for (std::size_t s = 0; s < bins_.size(); ++s) {
      double e = std::abs(data_[bins_[s]] - ref_[s]);
      if (!(e <= err)) err = e, worst = bins_[s];  // NaN counts as the worst
      scale = std::fmax(scale, std::abs(ref_[s]));
    }
    bool ok = parseval <= 1e-9 && err <= 1e-9 * scale;
    char msg[200];
    std::snprintf(msg, sizeof msg, "n=%ld: Parseval relative error %.3g; %zu bins vs direct DFT: max error %.3g, max |X| %.3g",
                  n_, parseval, bins_.size(), err, scale);
    return {ok, msg + (ok ? "" : ", worst bin " + std::to_string(worst))};
  }

 private:
  long n_;
  std::vector<cplx> input_, data_, W_;
  double in_energy_ = 0;
  std::vector<long> bins_;
  std::vector<cplx> ref_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "fft",
    "recursive radix-2 complex FFT, a temporary allocated per call: allocation inside parallel recursion",
    {{"n", "4096"}},
    {{"n", "4194304"}},
    {{"n", "8388608"}},
    [](const slawbench::params& p) { return std::make_unique<fft_instance>(p); },
    {{"n", "the number of points, a power of two in [2, 2^26]"}}});

}  // namespace
