// What the loop kernels (benchmark.hpp: reduce, scan, foreach, psort, sor-loop, spmv-loop, fj-loop)
// share: the pstl row's headers, checked to run on oneTBB; a fast fixed-seed generator for their large
// inputs; a multiset hash for the oracles that check a permutation.
#pragma once

#include <cstdint>
#include <execution>  // after it, libstdc++ says which backend its parallel algorithms run on
#include <numeric>
#include <vector>

// The pstl row measures std::execution::par on oneTBB, in the task_arena the harness sizes to --workers
// (configuration.cpp). libstdc++ picks the TBB backend only when <tbb/tbb.h> is found; without it the
// "parallel" algorithms would run serially and the row would measure nothing parallel.
#if !defined(_PSTL_PAR_BACKEND_TBB) && !defined(__PSTL_PAR_BACKEND_TBB)
#error "slaw-bench: the pstl row needs libstdc++'s parallel STL on its oneTBB backend (<tbb/tbb.h> not found?)"
#endif

namespace slawbench {

// splitmix64 (Steele, Lea, Flood): a 10^8-element input in a fraction of a second, the same on every
// platform, where std::mt19937_64 would take seconds per child process.
struct splitmix64 {
  std::uint64_t s;
  std::uint64_t next() noexcept {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
};

// A hash of a multiset of 64-bit keys: the count, the sum and the xor of a mixed image of each key;
// equal for every permutation of the same keys, different (with high probability) otherwise.
struct multiset_hash {
  std::uint64_t count = 0, sum = 0, xr = 0;
  static std::uint64_t mix(std::uint64_t x) noexcept {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
  }
  void add(std::uint64_t x) noexcept {
    ++count;
    const std::uint64_t m = mix(x);
    sum += m;
    xr ^= m;
  }
  bool operator==(const multiset_hash&) const = default;
};

// 0, 1, ..., n - 1: what the pstl row's algorithms loop over where the others loop over an index range
// (std::views::iota's iterators are not C++17 random-access iterators: libstdc++'s parallel algorithms
// would run them serially).
inline std::vector<long> index_vector(long n) {
  std::vector<long> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0L);
  return v;
}

}  // namespace slawbench
