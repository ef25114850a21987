// The oracle of the matrix-multiply kernels (matmul, densemm): C = A*B (n x n, row-major), checked
// entry by entry against a reference product when one was computed at set-up, else on 256 random
// entries computed directly as dot products. The largest error must be below 1e-9 times the largest
// reference entry; a NaN (an entry never written) is the worst error and fails.
#pragma once

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "harness/benchmark.hpp"

namespace slawbench {

inline outcome check_product(const double* C, const double* A, const double* B, long n, const std::vector<double>& ref) {
  double err = 0, scale = 0;
  long worst = 0, checked = 0;
  auto cmp = [&](long i, long j, double want) {
    double e = std::fabs(C[i * n + j] - want);
    if (!(e <= err) && err == err) err = e, worst = i * n + j;  // a NaN is the worst, and stays
    scale = std::fmax(scale, std::fabs(want));
    ++checked;
  };
  if (!ref.empty()) {
    for (long x = 0; x < n * n; ++x) cmp(x / n, x % n, ref[x]);
  } else {
    std::mt19937_64 rng(99);
    for (int s = 0; s < 256; ++s) {
      long i = static_cast<long>(rng() % n), j = static_cast<long>(rng() % n);
      double want = 0;
      for (long k = 0; k < n; ++k) want += A[i * n + k] * B[k * n + j];
      cmp(i, j, want);
    }
  }
  bool ok = err <= 1e-9 * scale;
  char msg[160];
  std::snprintf(msg, sizeof msg, "%ld entries of C (n=%ld): max error %.3g, max |C| %.3g", checked, n, err, scale);
  return {ok, msg + (ok ? "" : ", worst at index " + std::to_string(worst))};
}

}  // namespace slawbench
