// How a parallel loop (include/slaw/algorithm.hpp, docs/guide/algorithms.md) cuts its range: chunk sizes
// measured in time, and splits made only when a thief asks and the work left pays for them.
//
// A loop runs its range [lo, hi) in chunks, left to right, on the worker that owns it. Between two
// chunks it reads the clock and one flag. The chunk size doubles from the grain floor until a chunk
// lasts `chunk_ns`, so that the test costs under 1 % of the work, and halves again when iterations
// become slower (an irregular loop). The range is split only when
//   * a thief asked this worker for work (it found its deques empty: split_deque's want_split), and
//     nothing of this worker is stealable already, and
//   * each half of what is left holds at least `split_ns` of work, estimated from the last chunk's time
//     per iteration, once a chunk has lasted at least a quarter of `chunk_ns` (a shorter one times the
//     clock more than the iterations).
// Splitting is lazy binary splitting (Tzannes, Caragea, Barua, Vishkin, PPoPP 2010) driven by the
// thieves' requests instead of by the deque's emptiness alone, with a floor in time instead of in
// iterations: a loop that no thief asks for runs as one serial loop (T1 = Ts), and a loop whose whole
// work is below 2 * split_ns is never split, so that workers beyond its parallelism cost it nothing
// (a steal and a join cost about a microsecond when the thief is awake, tens when it must be woken).
// A split is a spawn like any other: ADP chooses work-first or help-first for it, and the half it
// hands over is the spawned child or the stolen continuation, whichever the policy leaves stealable.
//
// Pure arithmetic over plain numbers, unit-tested without threads (tests/policy/test_loop_split.cpp).
#pragma once

#include <cstdint>

namespace slaw::policy {

struct loop_params {
  // A chunk's target duration. The test between chunks (a steady_clock reading and a flag) costs
  // about 25 ns: 4 µs keeps it under 1 %, and a thief waits at most about a chunk for its split.
  std::uint64_t chunk_ns = 4000;
  // The least estimated work each half of a split must hold: several times what a split, its steal
  // and its join cost, so that splitting never makes a loop slower than running it alone.
  std::uint64_t split_ns = 8000;
};

// The next chunk's size after one of `n` iterations that took `ns`; never below `floor` (>= 1).
constexpr std::uint64_t next_chunk(const loop_params& p, std::uint64_t n, std::uint64_t ns, std::uint64_t floor) noexcept {
  if (ns < p.chunk_ns / 2 && n < (std::uint64_t{1} << 40)) return n * 2;
  if (ns > 4 * p.chunk_ns && n / 2 >= floor) return n / 2;
  return n < floor ? floor : n;
}

// Whether to split the `left` iterations still to run, when a thief asked: each half must hold
// `floor` iterations and, at the last chunk's rate (`n` iterations in `ns`), `split_ns` of work.
constexpr bool should_split(const loop_params& p, std::uint64_t left, std::uint64_t n, std::uint64_t ns,
                            std::uint64_t floor) noexcept {
  if (left < 2 * floor || left < 2 || n == 0) return false;
  // A chunk much shorter than its target measures the clock reading and the cold start more than the
  // iterations (a first chunk of one 2 ns iteration takes about 30 ns): no rate from it. Without this,
  // a 2 µs loop of tiny iterations was split at its first chunks whenever a thief asked.
  if (4 * ns < p.chunk_ns) return false;
  // (left / 2) * ns / n >= split_ns, in floating point: left * ns may exceed 64 bits.
  return static_cast<double>(left / 2) * static_cast<double>(ns) >= static_cast<double>(p.split_ns) * static_cast<double>(n);
}

}  // namespace slaw::policy
