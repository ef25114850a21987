// A distributed sample sort of N 64-bit keys per rank, three ways:
//   flat:  one MPI rank per core, no threads: std::sort, regular sampling, blocking collectives
//          (allgather of the samples, alltoall of the counts, alltoallv of the keys), then a serial merge
//          of the p received runs;
//   omp:   MPI + OpenMP: the same collectives from one thread; the local sort sorts one block per
//          thread in parallel and merges the blocks in rounds of pairwise merges, each merge cut into
//          pieces by co-ranking (merge path) so that every thread has a piece; the received runs are
//          merged the same way;
//   slaw:  MPI + slaw: slaw::sort, the samples and the counts with slaw::mpi::allgather / alltoall, and
//          the keys as point-to-point messages (slaw::mpi::send / recv, one task each) received straight
//          into a merge tree over the sources: two neighbouring runs are merged (a parallel merge,
//          slaw::for_each_index over co-ranked pieces) as soon as both have arrived, while later
//          messages are still in flight.
// Keys are splitmix64 of (seed, rank, index), so any rank can recompute any key; --dup D draws them
// from [0, D) instead (many equal keys). Splitters are (key, rank, position) triples, so that runs of
// equal keys are divided among ranks like any other keys.
// The check always runs: every rank's output sorted, the last key of a rank <= the first key of the
// next non-empty rank, N x ranks keys in all, and the sum and xor of mix(key) over the output equal to
// those of the input as the generator gives it (computed from the generator, not from the input array).
// Output, on rank 0, one JSON line: time_s is the slowest rank's time from the generated input to the
// sorted output, exchange_s the slowest rank's time in the key exchange (the alltoall of the counts and
// the keys themselves; for slaw, until the last run has arrived), peak_rss_kb the largest rank's.
//
//   mpirun -np R samplesort --mode flat|omp|slaw --n N [--dup D] [--seed S]
//   (omp: OMP_NUM_THREADS, slaw: SLAW_WORKERS set the threads of a rank)
#include <sys/resource.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "slaw/mpi.hpp"
#include "slaw/slaw.hpp"

namespace {

using clk = std::chrono::steady_clock;
using key64 = std::uint64_t;
double seconds(clk::duration d) { return std::chrono::duration<double>(d).count(); }

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "samplesort: %s\nusage: samplesort --mode flat|omp|slaw --n N (keys per rank, N x ranks < 2^31) "
               "[--dup D (keys from [0, D))] [--seed S]\n",
               why.c_str());
  std::exit(2);
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The input: key i of rank r.
struct generator {
  std::uint64_t seed = 1, dup = 0;  // dup 0: full 64-bit keys
  key64 operator()(int r, std::uint64_t i) const {
    const key64 k = splitmix64(splitmix64(seed) ^ ((static_cast<std::uint64_t>(r) << 32) | i));
    return dup ? k % dup : k;
  }
};

// The checksum's mix (murmur3's finaliser: not the generator's function).
std::uint64_t mix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  return k ^ (k >> 33);
}

// ---- merging ----

// One piece of a merge: src[a0, a1) and src[b0, b1) merged into dst[out, ...).
struct merge_piece {
  std::size_t a0, a1, b0, b1, out;
};

// The co-rank of k in the merge of a[0, na) and b[0, nb) (ties taken from a first): the i such that the
// first k outputs are a[0, i) and b[0, k - i).
std::size_t corank(const key64* a, std::size_t na, const key64* b, std::size_t nb, std::size_t k) {
  std::size_t lo = k > nb ? k - nb : 0, hi = std::min(k, na);
  while (lo < hi) {
    const std::size_t i = lo + (hi - lo) / 2;
    if (a[i] <= b[k - i - 1]) lo = i + 1;
    else hi = i;
  }
  return lo;
}

// Cuts the merge of src[a, a + na) and src[b, b + nb) into dst[out, ...) into pieces of about `piece`
// outputs each.
void cut_merge(const key64* src, std::size_t a, std::size_t na, std::size_t b, std::size_t nb, std::size_t out,
               std::size_t piece, std::vector<merge_piece>& pieces) {
  const std::size_t total = na + nb;
  const std::size_t count = std::max<std::size_t>(1, total / piece + (total % piece != 0));
  std::size_t k0 = 0, i0 = 0;
  for (std::size_t q = 1; q <= count; ++q) {
    const std::size_t k1 = total / count * q + std::min(q, total % count);
    const std::size_t i1 = corank(src + a, na, src + b, nb, k1);
    pieces.push_back({a + i0, a + i1, b + (k0 - i0), b + (k1 - i1), out + k0});
    k0 = k1, i0 = i1;
  }
}

void run_piece(const merge_piece& m, const key64* src, key64* dst) {
  std::merge(src + m.a0, src + m.a1, src + m.b0, src + m.b1, dst + m.out);
}

// Merges the sorted runs data[bounds[r], bounds[r + 1]) into one sorted run, in rounds of pairwise
// merges between data and tmp (the result ends in data; tmp is scratch). With `parallel`, each round's
// pieces run as an OpenMP loop.
void merge_runs(std::vector<key64>& data, std::vector<key64>& tmp, std::vector<std::size_t> bounds, std::size_t piece,
                bool parallel) {
  if (bounds.size() <= 2) return;
  tmp.resize(data.size());
  std::vector<merge_piece> pieces;
  std::vector<std::size_t> next;
  while (bounds.size() > 2) {
    pieces.clear();
    next.assign(1, 0);
    const std::size_t runs = bounds.size() - 1;
    for (std::size_t r = 0; r < runs; r += 2) {
      const std::size_t a = bounds[r], b = bounds[std::min(r + 1, runs)], e = bounds[std::min(r + 2, runs)];
      cut_merge(data.data(), a, b - a, b, e - b, a, piece, pieces);  // an odd last run: a copy
      next.push_back(e);
    }
    const key64* src = data.data();
    key64* dst = tmp.data();
    const long count = static_cast<long>(pieces.size());
    if (parallel) {
#pragma omp parallel for schedule(dynamic, 1)
      for (long i = 0; i < count; ++i) run_piece(pieces[static_cast<std::size_t>(i)], src, dst);
    } else {
      for (long i = 0; i < count; ++i) run_piece(pieces[static_cast<std::size_t>(i)], src, dst);
    }
    data.swap(tmp);
    bounds.swap(next);
  }
}

// OpenMP's local sort: one block per thread sorted in parallel, then merged.
void omp_sort(std::vector<key64>& v, std::vector<key64>& tmp, int threads) {
  const std::size_t n = v.size();
  const std::size_t blocks = n >= 4096 ? static_cast<std::size_t>(std::max(1, threads)) : 1;
  std::vector<std::size_t> bounds(blocks + 1);
  for (std::size_t b = 0; b <= blocks; ++b) bounds[b] = n / blocks * b + std::min(b, n % blocks);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < static_cast<long>(blocks); ++b)
    std::sort(v.begin() + static_cast<long>(bounds[static_cast<std::size_t>(b)]),
              v.begin() + static_cast<long>(bounds[static_cast<std::size_t>(b) + 1]));
  merge_runs(v, tmp, bounds, std::max<std::size_t>(4096, n / (2 * static_cast<std::size_t>(std::max(1, threads)))), true);
}

// ---- splitters ----

// A sample: a key with its place in the global order (rank, position in the rank's sorted input), so
// that samples, and splitters, are distinct even when keys are equal.
struct sample {
  std::uint64_t key, rank, pos;
  bool operator<(const sample& o) const { return std::tie(key, rank, pos) < std::tie(o.key, o.rank, o.pos); }
};

// p - 1 regular samples of the sorted local keys.
std::vector<sample> take_samples(const std::vector<key64>& v, int me, int np) {
  std::vector<sample> s;
  for (int k = 1; k < np; ++k) {
    const std::size_t pos = v.size() * static_cast<std::size_t>(k) / static_cast<std::size_t>(np);
    s.push_back({v[pos], static_cast<std::uint64_t>(me), pos});
  }
  return s;
}

// From all ranks' samples (np x (np - 1)), the np - 1 splitters.
std::vector<sample> pick_splitters(std::vector<sample> all, int np) {
  std::sort(all.begin(), all.end());
  std::vector<sample> sp;
  for (int k = 1; k < np; ++k) sp.push_back(all[static_cast<std::size_t>(k) * static_cast<std::size_t>(np - 1)]);
  return sp;
}

// bounds[d] .. bounds[d + 1]: the local keys for rank d, those (key, me, position) below splitter d and
// not below splitter d - 1.
std::vector<std::size_t> partition(const std::vector<key64>& v, const std::vector<sample>& sp, int me) {
  const int np = static_cast<int>(sp.size()) + 1;
  std::vector<std::size_t> bounds(static_cast<std::size_t>(np) + 1);
  bounds[0] = 0;
  bounds[static_cast<std::size_t>(np)] = v.size();
  for (int d = 1; d < np; ++d) {
    const sample& s = sp[static_cast<std::size_t>(d - 1)];
    const auto lo = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), s.key) - v.begin());
    const auto hi = static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), s.key) - v.begin());
    const auto mine = static_cast<std::uint64_t>(me);
    std::size_t b = mine < s.rank ? hi : mine > s.rank ? lo : std::clamp<std::size_t>(s.pos, lo, hi);
    bounds[static_cast<std::size_t>(d)] = std::max(b, bounds[static_cast<std::size_t>(d - 1)]);
  }
  return bounds;
}

MPI_Datatype sample_type() {
  static_assert(sizeof(sample) == 3 * sizeof(std::uint64_t));
  return MPI_UINT64_T;  // a sample travels as three uint64s
}

// ---- slaw: the merge tree over the sources ----

constexpr int keys_tag = 17;
constexpr std::size_t slaw_piece = 32768;

struct tree {
  std::vector<key64> buf[2];       // a node's output goes to buf[dst], its children's to the other
  const key64* local = nullptr;    // this rank's sorted keys (its own run is copied from there)
  std::size_t local_first = 0;
  std::vector<int> rcount;
  std::vector<std::size_t> rdispl;  // size np + 1
  int me = 0;
  clk::time_point t0;
  std::vector<double> arrived;     // per source: when its run was in place (seconds after t0)
};

slaw::task<> merge_node(tree& t, int lo, int hi, int dst) {
  if (hi - lo == 1) {
    key64* out = t.buf[dst].data() + t.rdispl[static_cast<std::size_t>(lo)];
    const int count = t.rcount[static_cast<std::size_t>(lo)];
    if (lo == t.me) {
      if (count > 0) std::memcpy(out, t.local + t.local_first, sizeof(key64) * static_cast<std::size_t>(count));
    } else if (count > 0) {
      co_await slaw::mpi::recv(out, count, lo, keys_tag);
    }
    t.arrived[static_cast<std::size_t>(lo)] = seconds(clk::now() - t.t0);
    co_return;
  }
  const int mid = lo + (hi - lo) / 2;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(merge_node(t, lo, mid, 1 - dst));
  co_await merge_node(t, mid, hi, 1 - dst);
  co_await slaw::end_finish(f);
  const key64* src = t.buf[1 - dst].data();
  key64* out = t.buf[dst].data();
  const std::size_t a = t.rdispl[static_cast<std::size_t>(lo)], b = t.rdispl[static_cast<std::size_t>(mid)],
                    e = t.rdispl[static_cast<std::size_t>(hi)];
  std::vector<merge_piece> pieces;
  cut_merge(src, a, b - a, b, e - b, a, slaw_piece, pieces);
  if (pieces.size() == 1) run_piece(pieces[0], src, out);
  else co_await slaw::for_each_index(std::size_t{0}, pieces.size(), [&](std::size_t i) { run_piece(pieces[i], src, out); });
}

}  // namespace

int main(int argc, char** argv) {
  slaw::mpi::environment env(argc, argv);
  const int me = env.rank(), np = env.size();
  std::string mode;
  long n = 0;
  generator gen;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](bool zero_ok) -> unsigned long long {
      if (i + 1 >= argc) usage(a + " needs a value");
      const std::string s = argv[++i];
      char* end = nullptr;
      errno = 0;
      const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end || s[0] == '-' || s[0] == '+' || errno == ERANGE || (!zero_ok && v == 0))
        usage(a + " '" + s + "': " + (zero_ok ? "a non-negative integer" : "a positive integer"));
      return v;
    };
    if (a == "--mode") {
      if (i + 1 >= argc) usage("--mode needs a value");
      mode = argv[++i];
    } else if (a == "--n") {
      const unsigned long long v = value(false);
      if (v > static_cast<unsigned long long>(INT_MAX)) usage("--n " + std::to_string(v) + ": N x ranks must be below 2^31");
      n = static_cast<long>(v);
    } else if (a == "--dup") gen.dup = value(false);
    else if (a == "--seed") gen.seed = value(true);
    else usage("unknown argument '" + a + "'");
  }
  if (mode.empty()) usage("--mode is required: accepted values are flat, omp, slaw");
  if (mode != "flat" && mode != "omp" && mode != "slaw") usage("--mode '" + mode + "': accepted values are flat, omp, slaw");
  if (n == 0) usage("--n is required");
  if (n > INT_MAX / np) usage("--n " + std::to_string(n) + ": N x ranks must be below 2^31 (" + std::to_string(np) + " ranks)");

  const auto N = static_cast<std::size_t>(n);
  std::vector<key64> input(N);
  for (std::size_t i = 0; i < N; ++i) input[i] = gen(me, i);

  std::vector<key64> result;  // this rank's part of the sorted keys
  double elapsed = 0, exchange = 0;
  int threads = 1;
  const auto P = static_cast<std::size_t>(np);

  if (mode != "slaw") {
    const bool omp = mode == "omp";
    if (omp) {
      threads = omp_get_max_threads();
#pragma omp parallel
      {  // starts the team before the clock
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = clk::now();
    std::vector<key64> local = std::move(input), tmp;
    if (omp) omp_sort(local, tmp, threads);
    else std::sort(local.begin(), local.end());
    // Splitters.
    std::vector<sample> mine = take_samples(local, me, np), all(P * (P - 1));
    MPI_Allgather(mine.data(), 3 * (np - 1), sample_type(), all.data(), 3 * (np - 1), sample_type(), MPI_COMM_WORLD);
    const std::vector<sample> sp = pick_splitters(std::move(all), np);
    const std::vector<std::size_t> bounds = partition(local, sp, me);
    // The exchange.
    const auto e0 = clk::now();
    std::vector<int> scount(P), sdispl(P), rcount(P), rdispl(P);
    for (std::size_t d = 0; d < P; ++d) {
      scount[d] = static_cast<int>(bounds[d + 1] - bounds[d]);
      sdispl[d] = static_cast<int>(bounds[d]);
    }
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<std::size_t> rbounds(P + 1, 0);
    for (std::size_t s = 0; s < P; ++s) {
      rdispl[s] = static_cast<int>(rbounds[s]);
      rbounds[s + 1] = rbounds[s] + static_cast<std::size_t>(rcount[s]);
    }
    result.resize(rbounds[P]);
    MPI_Alltoallv(local.data(), scount.data(), sdispl.data(), MPI_UINT64_T, result.data(), rcount.data(), rdispl.data(),
                  MPI_UINT64_T, MPI_COMM_WORLD);
    exchange = seconds(clk::now() - e0);
    // The merge of the received runs.
    merge_runs(result, tmp, rbounds,
               omp ? std::max<std::size_t>(4096, result.size() / (2 * static_cast<std::size_t>(threads))) : SIZE_MAX, omp);
    elapsed = seconds(clk::now() - t0);
  } else {
    slaw::runtime rt;
    threads = static_cast<int>(rt.workers());
    tree t;
    rt.run([&]() -> slaw::task<> {
      co_await slaw::mpi::barrier();
      const auto t0 = clk::now();
      std::vector<key64> local = std::move(input);
      co_await slaw::sort(local.begin(), local.end());
      std::vector<sample> mine = take_samples(local, me, np), all(P * (P - 1));
      co_await slaw::mpi::allgather(mine.data(), 3 * (np - 1), sample_type(), all.data(), 3 * (np - 1), sample_type());
      const std::vector<sample> sp = pick_splitters(std::move(all), np);
      const std::vector<std::size_t> bounds = partition(local, sp, me);
      const auto e0 = clk::now();
      std::vector<int> scount(P);
      t.rcount.assign(P, 0);
      for (std::size_t d = 0; d < P; ++d) scount[d] = static_cast<int>(bounds[d + 1] - bounds[d]);
      co_await slaw::mpi::alltoall(scount.data(), 1, MPI_INT, t.rcount.data(), 1, MPI_INT);
      t.rdispl.assign(P + 1, 0);
      for (std::size_t s = 0; s < P; ++s) t.rdispl[s + 1] = t.rdispl[s] + static_cast<std::size_t>(t.rcount[s]);
      t.buf[0].resize(t.rdispl[P]);
      if (np > 1) t.buf[1].resize(t.rdispl[P]);
      t.local = local.data();
      t.local_first = bounds[static_cast<std::size_t>(me)];
      t.me = me;
      t.t0 = e0;
      t.arrived.assign(P, 0.0);
      {
        auto f = co_await slaw::start_finish();
        for (int d = 0; d < np; ++d) {
          const int count = scount[static_cast<std::size_t>(d)];
          if (d == me || count == 0) continue;
          const key64* from = local.data() + bounds[static_cast<std::size_t>(d)];
          co_await slaw::async([from, count, d]() -> slaw::task<> { co_await slaw::mpi::send(from, count, d, keys_tag); });
        }
        co_await merge_node(t, 0, np, 0);
        co_await slaw::end_finish(f);
      }
      exchange = *std::max_element(t.arrived.begin(), t.arrived.end());
      elapsed = seconds(clk::now() - t0);
    }());
    result = std::move(t.buf[0]);
  }

  // ---- the check ----
  int ok = std::is_sorted(result.begin(), result.end()) ? 1 : 0;
  if (!ok) std::fprintf(stderr, "samplesort: rank %d: its keys are not sorted\n", me);
  {  // the boundaries: the last key of each rank <= the first key of the next non-empty rank
    std::uint64_t edge[3] = {result.empty() ? 0u : 1u, result.empty() ? 0 : result.front(), result.empty() ? 0 : result.back()};
    std::vector<std::uint64_t> edges(3 * P);
    MPI_Allgather(edge, 3, MPI_UINT64_T, edges.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD);
    bool seen = false;
    std::uint64_t last = 0;
    for (std::size_t r = 0; r < P; ++r) {
      if (!edges[3 * r]) continue;
      if (seen && edges[3 * r + 1] < last) {
        ok = 0;
        if (me == 0) std::fprintf(stderr, "samplesort: rank %zu starts below the end of an earlier rank\n", r);
      }
      seen = true;
      last = edges[3 * r + 2];
    }
  }
  // Counts and checksums: [0] keys, [1] sum of mix over the output, [2] the same over the generator's keys;
  // xors apart.
  std::uint64_t sums[3] = {result.size(), 0, 0}, xors[2] = {0, 0}, gsums[3], gxors[2];
  for (key64 k : result) sums[1] += mix(k), xors[0] ^= mix(k);
  for (std::size_t i = 0; i < N; ++i) {
    const std::uint64_t m = mix(gen(me, i));
    sums[2] += m, xors[1] ^= m;
  }
  MPI_Allreduce(sums, gsums, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(xors, gxors, 2, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
  if (gsums[0] != static_cast<std::uint64_t>(n) * P) {
    ok = 0;
    if (me == 0) std::fprintf(stderr, "samplesort: %llu keys in the output, %llu expected\n", static_cast<unsigned long long>(gsums[0]),
                              static_cast<unsigned long long>(n) * P);
  }
  if (gsums[1] != gsums[2] || gxors[0] != gxors[1]) {
    ok = 0;
    if (me == 0) std::fprintf(stderr, "samplesort: the output's checksum differs from the input's\n");
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  double mx[2] = {elapsed, exchange}, gmx[2];
  MPI_Reduce(mx, gmx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  long rss = ru.ru_maxrss, max_rss = 0;
  MPI_Reduce(&rss, &max_rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0)
    std::printf("{\"mode\": \"%s\", \"ranks\": %d, \"threads_per_rank\": %d, \"n_per_rank\": %ld, \"time_s\": %.6f, "
                "\"exchange_s\": %.6f, \"peak_rss_kb\": %ld, \"check\": \"%s\"}\n",
                mode.c_str(), np, threads, n, gmx[0], gmx[1], max_rss, all_ok ? "ok" : "WRONG");
  return all_ok ? 0 : 1;
}
