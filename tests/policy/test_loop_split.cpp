// How a parallel loop sizes its chunks and decides a split (include/slaw/policy/loop_split.hpp).
#include "slaw/policy/loop_split.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <cstdint>

using namespace slaw::policy;

TEST(LoopSplit, ChunksDoubleUntilTheyLastAboutChunkNs) {
  const loop_params p;  // chunk_ns 4000
  EXPECT_EQ(next_chunk(p, 1, 30, 1), 2u);
  EXPECT_EQ(next_chunk(p, 512, 1000, 1), 1024u);
  EXPECT_EQ(next_chunk(p, 1024, 3000, 1), 1024u);    // within [chunk_ns / 2, 4 chunk_ns]: kept
  EXPECT_EQ(next_chunk(p, 1024, 20000, 1), 512u);    // iterations got slower: halved
  EXPECT_EQ(next_chunk(p, 1, 20000, 1), 1u);         // never below the floor
  EXPECT_EQ(next_chunk(p, 8, 20000, 8), 8u);
}

TEST(LoopSplit, EachHalfMustHoldSplitNsOfWork) {
  const loop_params p;  // chunk_ns 4000, split_ns 8000
  // 1000 iterations of 4 ns measured: 2000 left hold 8 µs, each half 4 µs: no split.
  EXPECT_FALSE(should_split(p, 2000, 1000, 4000, 1));
  // 4000 left: each half 8 µs.
  EXPECT_TRUE(should_split(p, 4000, 1000, 4000, 1));
  EXPECT_FALSE(should_split(p, 1, 1, 4000, 1));     // one iteration cannot be split
  EXPECT_FALSE(should_split(p, 10, 1, 10000, 8));   // halves below the grain floor
  EXPECT_FALSE(should_split(p, 10, 0, 10000, 1));   // no chunk measured yet
}

// A loop of 1024 iterations of about 2 ns (2 µs in all, the fj-loop benchmark): its first chunks, of 1,
// 2, 4 ... iterations, take tens of nanoseconds each, mostly the clock reading. Their rate (30 ns per
// iteration) would predict 15 µs of work left and split a loop that holds 2 µs.
TEST(LoopSplit, AChunkFarShorterThanItsTargetGivesNoRate) {
  const loop_params p;
  EXPECT_FALSE(should_split(p, 1023, 1, 30, 1));
  EXPECT_FALSE(should_split(p, 1000, 16, 60, 1));
  EXPECT_FALSE(should_split(p, 1024 * 1024, 512, 999, 1));  // under chunk_ns / 4
  // A slow iteration measures itself: one 100 µs iteration, 100 left.
  EXPECT_TRUE(should_split(p, 100, 1, 100000, 1));
  // The tests' setting (chunk_ns = split_ns = 0) splits at every request.
  const loop_params every{0, 0};
  EXPECT_TRUE(should_split(every, 2, 1, 0, 1));
}
