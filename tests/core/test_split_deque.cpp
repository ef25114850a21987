// Tests for slaw::detail::split_deque (include/slaw/detail/split_deque.hpp).
//
// Part 1 (single-threaded) pins down the owner/thief semantics: LIFO pops for the owner, FIFO steals
// from the top, exposure only on request (a failed steal raises want_split, the next push exposes
// about half of the private region; requests of two thieves also open the expose window), pop_shared reclaiming from the bottom of the shared region
// (including the last entry, taken by advancing tail with head unchanged), pop_shared with `expect`
// (not_mine leaves everything unchanged), growth from tiny capacities, and a randomised comparison
// against a sequential model.
//
// Part 2 (concurrent) runs one owner against 7 thieves with a tiny initial capacity (the array grows
// many times while thieves read it). The owner checks every value it gets against its own model of
// the deque (thieves only ever remove a prefix of what the owner pushed and did not take itself, so
// whatever the owner gets must be the newest remaining entry). At the end every pushed id must have
// been taken exactly once, and nothing else (no 0, no foreign value) may have been returned.
// The second stress test mirrors the runtime's completion path: pop_shared(expect) on the owner side,
// try_lock_steal/steal/unlock_steal on the thief side with non-atomic bookkeeping inside the lock,
// and wait_for_thieves() before the owner reads that bookkeeping.
//
// Iteration counts scale with the environment variable SLAW_TEST_SCALE (a positive number, default
// 1; ThreadSanitizer builds default to 0.2, AddressSanitizer builds to 0.25). At scale 1 the
// whole file takes about 2 s in a Release build on 2 cores, and about 35 s under ThreadSanitizer.
#include "slaw/detail/split_deque.hpp"

#include "../support/stress.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using slaw::detail::split_deque;
using entry = split_deque::entry;
using shared_pop = split_deque::shared_pop;
constexpr entry none = split_deque::none;
constexpr unsigned a_thief = 0, another_thief = 1;  // thieves' indices (two of them open the expose window)

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

// Values are tagged ids: never 0, and a stale or garbage word is very unlikely to decode.
constexpr entry kTagBits = 0x5;
constexpr entry enc(std::uint64_t id) { return static_cast<entry>((id << 3) | kTagBits); }
// 0 when `e` is not a well-formed value.
constexpr std::uint64_t dec(entry e) { return (e & 7) == kTagBits ? static_cast<std::uint64_t>(e >> 3) : 0; }

using slaw_test::scaled;
using slaw_test::test_scale;
using slaw_test::xorshift;

// Exposes the whole private region (each expose() publishes about half of it).
void expose_all(split_deque& d) {
  for (int guard = 0; !d.private_empty(); ++guard) {
    ASSERT_LT(guard, 80) << "expose() does not make progress";
    d.expose();
  }
}
// Both helpers stop after 2^20 entries so that a broken deque fails the comparison instead of hanging.
std::vector<entry> steal_all(split_deque& d) {
  std::vector<entry> out;
  for (entry e; out.size() < (1u << 20) && (e = d.steal(a_thief)) != none;) out.push_back(e);
  return out;
}
std::vector<entry> pop_all(split_deque& d) {
  std::vector<entry> out;
  for (entry e; out.size() < (1u << 20) && (e = d.pop()) != none;) out.push_back(e);
  return out;
}
std::vector<entry> range(std::uint64_t from, std::uint64_t to_inclusive, bool descending = false) {
  std::vector<entry> v;
  for (std::uint64_t i = from; i <= to_inclusive; ++i) v.push_back(enc(i));
  if (descending) std::reverse(v.begin(), v.end());
  return v;
}

// ---------------------------------------------------------------------------------------------
// Part 1: single-threaded semantics
// ---------------------------------------------------------------------------------------------

TEST(SplitDeque, EmptyDeque) {
  split_deque d(2);
  EXPECT_TRUE(d.looks_empty());
  EXPECT_TRUE(d.private_empty());
  EXPECT_EQ(d.refresh_size(), 0u);
  EXPECT_EQ(d.pop(), none);
  EXPECT_EQ(d.steal(a_thief), none);
  entry out = enc(777);
  EXPECT_EQ(d.pop_shared(none, out), shared_pop::stolen);
  EXPECT_EQ(d.pop_shared(enc(1), out), shared_pop::stolen);
  EXPECT_EQ(out, enc(777)) << "pop_shared must not write `out` unless it returns got";
  EXPECT_FALSE(d.private_bottom_is(enc(1)));
  EXPECT_EQ(d.owner_steals(), 0u);
  // Still usable afterwards.
  d.push(enc(1));
  EXPECT_EQ(d.pop(), enc(1));
  EXPECT_EQ(d.pop(), none);
}

TEST(SplitDeque, OwnerPopIsLifo) {
  split_deque d;
  for (std::uint64_t i = 1; i <= 100; ++i) d.push(enc(i));
  EXPECT_EQ(d.refresh_size(), 100u);
  EXPECT_EQ(pop_all(d), range(1, 100, true));
  EXPECT_EQ(d.pop(), none);

  d.push(enc(1));
  d.push(enc(2));
  EXPECT_EQ(d.pop(), enc(2));
  d.push(enc(3));
  d.push(enc(4));
  EXPECT_EQ(d.pop(), enc(4));
  EXPECT_EQ(d.pop(), enc(3));
  EXPECT_EQ(d.pop(), enc(1));
  EXPECT_EQ(d.pop(), none);
  EXPECT_EQ(d.owner_steals(), 0u) << "no entry was ever shared";
}

TEST(SplitDeque, PushAloneExposesNothing) {
  split_deque d;
  for (std::uint64_t i = 1; i <= 10; ++i) d.push(enc(i));
  // Nobody asked for work: everything is private, thieves see an empty shared region.
  EXPECT_TRUE(d.looks_empty());
  EXPECT_FALSE(d.private_empty());
  EXPECT_EQ(d.steal(a_thief), none);
}

TEST(SplitDeque, FailedStealMakesNextPushExposeHalf) {
  split_deque d;
  for (std::uint64_t i = 1; i <= 8; ++i) d.push(enc(i));
  EXPECT_EQ(d.steal(a_thief), none);  // shared region empty: raises want_split
  EXPECT_TRUE(d.looks_empty()) << "a steal alone must not expose anything";
  d.push(enc(9));  // private region now holds 9 entries: about half becomes shared
  EXPECT_FALSE(d.looks_empty());
  d.push(enc(10));  // the request was served: this push must not expose more

  std::vector<entry> stolen = steal_all(d);
  ASSERT_GE(stolen.size(), 4u);
  ASSERT_LE(stolen.size(), 5u) << "exposed more than half of the 9 private entries, or exposed twice";
  EXPECT_EQ(stolen, range(1, stolen.size())) << "steals must take the oldest entries first";
  const std::uint64_t k = stolen.size();

  // The failed steal above (end of steal_all) raised a new request: the next push exposes half of
  // the remaining private region (entries k+1..11).
  d.push(enc(11));
  std::vector<entry> stolen2 = steal_all(d);
  const std::uint64_t priv = 11 - k;
  ASSERT_GE(stolen2.size(), priv / 2);
  ASSERT_LE(stolen2.size(), (priv + 1) / 2);
  EXPECT_EQ(stolen2, range(k + 1, k + stolen2.size()));

  // The owner gets the rest, newest first.
  EXPECT_EQ(pop_all(d), range(k + stolen2.size() + 1, 11, true));
  EXPECT_EQ(d.steal(a_thief), none);
}

// A give-up's pushes (worker::give_up) publish nothing, a pending request included, also where the
// push grows the array: the deque is about to be handed over whole, and a published entry could be
// stolen before the hand-over is counted. The request stays for the next ordinary push.
TEST(SplitDeque, UnansweredPushLeavesTheRequestPending) {
  split_deque d(1);  // two slots: the third push goes through push_at_limit (growth)
  d.push(enc(1));
  EXPECT_EQ(d.steal(a_thief), none);  // raises the request
  d.push_unanswered(enc(2));
  d.push_unanswered(enc(3));
  EXPECT_TRUE(d.looks_empty()) << "an unanswered push exposed entries";
  EXPECT_TRUE(d.split_requested());
  d.push(enc(4));  // an ordinary push answers it
  EXPECT_FALSE(d.looks_empty());
  std::vector<entry> stolen = steal_all(d);
  EXPECT_EQ(stolen, range(1, stolen.size()));
  EXPECT_EQ(pop_all(d), range(stolen.size() + 1, 4, true));
}

TEST(SplitDeque, RequestSplitAndExplicitExpose) {
  split_deque d;
  for (std::uint64_t i = 1; i <= 6; ++i) d.push(enc(i));
  d.request_split();
  EXPECT_TRUE(d.looks_empty());
  d.push(enc(7));
  EXPECT_FALSE(d.looks_empty());
  std::vector<entry> a = steal_all(d);
  ASSERT_GE(a.size(), 3u);
  ASSERT_LE(a.size(), 4u);
  EXPECT_EQ(a, range(1, a.size()));

  // expose() publishes half of the private region directly.
  for (std::uint64_t i = 8; i <= 11; ++i) d.push(enc(i));  // a pending request is served by push 8
  std::vector<entry> b = steal_all(d);
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b, range(a.size() + 1, a.size() + b.size()));
  const std::uint64_t taken = a.size() + b.size();
  const std::uint64_t priv = 11 - taken;
  ASSERT_GT(priv, 0u);
  d.expose();
  std::vector<entry> c = steal_all(d);
  EXPECT_GE(c.size(), priv / 2);
  EXPECT_LE(c.size(), (priv + 1) / 2);
  EXPECT_GE(c.size(), 1u);
  EXPECT_EQ(c, range(taken + 1, taken + c.size()));
  EXPECT_EQ(pop_all(d), range(taken + c.size() + 1, 11, true));

  // Exposing everything, one half at a time, keeps FIFO order for thieves.
  for (std::uint64_t i = 1; i <= 37; ++i) d.push(enc(100 + i));
  expose_all(d);
  EXPECT_TRUE(d.private_empty());
  EXPECT_EQ(steal_all(d), range(101, 137));
  EXPECT_EQ(d.pop(), none);
}

// Two thieves asked: the answering push exposes half, and each of the next expose_window pushes
// publishes the whole private region at once; then pushes are private again.
TEST(SplitDeque, RequestsOfTwoThievesOpenAWindowOfPushesPublishedAtOnce) {
  split_deque d;
  for (std::uint64_t i = 1; i <= 8; ++i) d.push(enc(i));
  EXPECT_EQ(d.steal(a_thief), none);
  d.request_split(another_thief);
  EXPECT_EQ(d.push(enc(9)), split_deque::pushed_exposed);  // the answer: about half of 9
  const std::uint32_t answered = d.stealable();
  ASSERT_GE(answered, 4u);
  ASSERT_LE(answered, 5u);
  EXPECT_TRUE(d.split_requested()) << "the window keeps the request raised";
  std::uint64_t id = 10;
  for (std::uint32_t k = 0; k < split_deque::expose_window; ++k, ++id) {
    EXPECT_EQ(d.push(enc(id)), 0u) << "a window push wakes nobody";
    EXPECT_TRUE(d.private_empty()) << "window push " << k << " kept entries private";
    EXPECT_EQ(d.stealable(), id);
  }
  EXPECT_FALSE(d.split_requested()) << "the window's last push lowers the request";
  d.push(enc(id));
  EXPECT_FALSE(d.private_empty()) << "a push after the window published its entry";
  EXPECT_EQ(steal_all(d), range(1, id - 1));
  EXPECT_EQ(pop_all(d), range(id, id));
}

// One thief asking again and again, or a request that is not a thief's (the owner's own after a
// continuation steal, the quantum thread's sample), opens no window: one half-exposure per answer.
TEST(SplitDeque, OneThiefOrAnOwnRequestOpensNoWindow) {
  split_deque d;
  for (std::uint64_t i = 1; i <= 8; ++i) d.push(enc(i));
  EXPECT_EQ(d.steal(a_thief), none);
  EXPECT_EQ(d.steal(a_thief), none);
  d.request_split(a_thief + 31);  // the same bit: indices count modulo 31
  d.request_split();
  d.push(enc(9));
  EXPECT_FALSE(d.split_requested());
  const std::uint32_t answered = d.stealable();
  d.push(enc(10));
  EXPECT_EQ(d.stealable(), answered) << "the push after the answer published its entry";
  EXPECT_FALSE(d.private_empty());
}

// expose() (a worker answering between tasks) and expose_all() (parking) close an open window.
TEST(SplitDeque, ExposeClosesTheWindow) {
  for (const bool all : {false, true}) {
    SCOPED_TRACE(all ? "expose_all" : "expose");
    split_deque d;
    for (std::uint64_t i = 1; i <= 16; ++i) d.push(enc(i));
    d.request_split(a_thief);
    d.request_split(another_thief);
    d.push(enc(17));
    ASSERT_TRUE(d.split_requested());
    if (all) d.expose_all();
    else d.expose();
    EXPECT_FALSE(d.split_requested());
    const std::uint32_t shared = d.stealable();
    d.push(enc(18));
    EXPECT_EQ(d.stealable(), shared) << "a push after expose() published its entry: the window is still open";
    EXPECT_EQ(steal_all(d).size() + pop_all(d).size(), 18u);
  }
}

TEST(SplitDeque, StealsAreFifoWhileOwnerPopsLifo) {
  for (std::uint64_t n : {1u, 2u, 3u, 7u, 20u, 64u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    split_deque d(1);
    for (std::uint64_t i = 1; i <= n; ++i) d.push(enc(i));
    expose_all(d);
    std::uint64_t lo = 1, hi = n;  // entries lo..hi remain
    std::uint64_t steals = 0;
    while (lo <= hi) {
      entry s = d.steal(a_thief);
      if (s != none) {
        ASSERT_EQ(s, enc(lo)) << "steal must return the oldest remaining entry";
        ++lo;
        ++steals;
      }
      if (lo > hi) break;
      entry p = d.pop();
      ASSERT_EQ(p, enc(hi)) << "pop must return the newest remaining entry";
      --hi;
    }
    EXPECT_GE(steals, 1u);
    EXPECT_EQ(d.pop(), none);
    EXPECT_EQ(d.steal(a_thief), none);
    EXPECT_EQ(d.refresh_size(), 0u);
  }
}

TEST(SplitDeque, PopSharedReclaimsFromBottom) {
  for (std::uint64_t n : {2u, 3u, 4u, 5u, 8u, 17u, 100u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    split_deque d(1);
    for (std::uint64_t i = 1; i <= n; ++i) d.push(enc(i));
    expose_all(d);
    ASSERT_TRUE(d.private_empty());
    const std::uint32_t h0 = d.head();

    entry out = none;
    ASSERT_EQ(d.pop_shared(none, out), shared_pop::got);
    EXPECT_EQ(out, enc(n)) << "pop_shared must take the bottom (newest) shared entry";
    EXPECT_EQ(d.head(), h0 - 1) << "a reclaim (n >= 2) moves head down";
    EXPECT_EQ(d.owner_steals(), 0u);
    EXPECT_EQ(d.refresh_size(), n - 1);
    EXPECT_FALSE(d.looks_empty()) << "a reclaim must leave at least one shared entry (I2)";

    // The kept shared entries still go to thieves oldest first; the reclaimed ones are private now.
    std::vector<entry> st = steal_all(d);
    ASSERT_GE(st.size(), 1u);
    EXPECT_LE(st.size(), (n + 1) / 2) << "pop_shared should reclaim about half of the shared region";
    EXPECT_EQ(st, range(1, st.size()));
    EXPECT_EQ(pop_all(d), range(st.size() + 1, n - 1, true));
    EXPECT_EQ(d.owner_steals(), 0u) << "no last-entry take happened";
  }
}

TEST(SplitDeque, OwnerDrainsSharedRegionWithExactlyOneLastEntryTake) {
  for (std::uint64_t n : {1u, 2u, 3u, 10u, 33u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    split_deque d(2);
    for (std::uint64_t i = 1; i <= n; ++i) d.push(enc(i));
    expose_all(d);
    EXPECT_EQ(pop_all(d), range(1, n, true));
    EXPECT_EQ(d.owner_steals(), 1u) << "exactly the last shared entry is taken by advancing tail";
    EXPECT_EQ(d.refresh_size(), 0u);
    EXPECT_EQ(d.steal(a_thief), none);
    EXPECT_TRUE(d.looks_empty());
  }
}

TEST(SplitDeque, PopSharedLastEntryAdvancesTail) {
  split_deque d(1);
  d.push(enc(1));
  d.expose();
  ASSERT_TRUE(d.private_empty());
  ASSERT_FALSE(d.looks_empty());
  const std::uint32_t h0 = d.head();
  entry out = none;
  ASSERT_EQ(d.pop_shared(none, out), shared_pop::got);
  EXPECT_EQ(out, enc(1));
  EXPECT_EQ(d.head(), h0) << "the last shared entry is taken by advancing tail, head unchanged";
  EXPECT_EQ(d.owner_steals(), 1u);
  EXPECT_EQ(d.refresh_size(), 0u);
  EXPECT_TRUE(d.looks_empty());
  EXPECT_TRUE(d.private_empty());
  EXPECT_EQ(d.steal(a_thief), none);  // nothing left for thieves (and this raises want_split)
  EXPECT_EQ(d.pop(), none);
  EXPECT_EQ(d.pop_shared(none, out), shared_pop::stolen);

  // The deque keeps working from the new position, across several growths of the array.
  d.push(enc(2));  // serves the request raised by the steal above
  ASSERT_FALSE(d.looks_empty());
  for (std::uint64_t i = 3; i <= 40; ++i) d.push(enc(i));
  EXPECT_EQ(d.refresh_size(), 39u);
  EXPECT_EQ(d.steal(a_thief), enc(2));
  EXPECT_EQ(d.pop(), enc(40));
  EXPECT_EQ(pop_all(d), range(3, 39, true));
  EXPECT_EQ(d.owner_steals(), 1u) << "entries 3..39 were private: no further last-entry take";
}

TEST(SplitDeque, PopSharedWithExpect) {
  split_deque d(1);
  for (std::uint64_t i = 1; i <= 4; ++i) d.push(enc(i));
  expose_all(d);
  const std::uint32_t h0 = d.head();
  entry out = enc(999);

  // Mismatch: not_mine, nothing changes.
  EXPECT_EQ(d.pop_shared(enc(99), out), shared_pop::not_mine);
  EXPECT_EQ(d.pop_shared(enc(3), out), shared_pop::not_mine) << "3 is shared but not the bottom";
  EXPECT_EQ(d.pop_shared(enc(1), out), shared_pop::not_mine) << "1 is the top, not the bottom";
  EXPECT_EQ(out, enc(999));
  EXPECT_EQ(d.head(), h0);
  EXPECT_EQ(d.refresh_size(), 4u);
  EXPECT_TRUE(d.private_empty());
  EXPECT_FALSE(d.private_bottom_is(enc(4))) << "entry 4 is shared, not private";

  // Match: got.
  EXPECT_EQ(d.pop_shared(enc(4), out), shared_pop::got);
  EXPECT_EQ(out, enc(4));
  EXPECT_EQ(d.steal(a_thief), enc(1)) << "not_mine must not have disturbed the top";

  // Drive the shared region down to a single entry, then test the last-entry case with expect.
  std::vector<entry> rest;
  while (!d.private_empty()) rest.push_back(d.pop());
  while (d.refresh_size() > 1) {
    entry s = d.steal(a_thief);
    ASSERT_NE(s, none);
    rest.push_back(s);
  }
  ASSERT_EQ(d.refresh_size(), 1u);
  ASSERT_TRUE(d.private_empty());
  ASSERT_FALSE(d.looks_empty());
  // Entries 2 and 3 remain before this; one of them is left in the shared region.
  entry last = rest.size() == 1 && rest[0] == enc(3) ? enc(2) : enc(3);
  ASSERT_TRUE((rest == std::vector<entry>{enc(3)}) || (rest == std::vector<entry>{enc(2)}));
  const std::uint64_t os = d.owner_steals();
  entry wrong = last == enc(2) ? enc(3) : enc(2);
  EXPECT_EQ(d.pop_shared(wrong, out), shared_pop::not_mine);
  EXPECT_EQ(d.owner_steals(), os);
  EXPECT_EQ(d.refresh_size(), 1u);
  EXPECT_EQ(d.pop_shared(last, out), shared_pop::got);
  EXPECT_EQ(out, last);
  EXPECT_EQ(d.owner_steals(), os + 1);
  EXPECT_EQ(d.pop_shared(last, out), shared_pop::stolen) << "empty deque";
  EXPECT_EQ(d.pop(), none);
}

TEST(SplitDeque, PopSharedReportsStolenWhenThievesEmptiedIt) {
  split_deque d(1);
  for (std::uint64_t i = 1; i <= 5; ++i) d.push(enc(i));
  expose_all(d);
  EXPECT_EQ(steal_all(d), range(1, 5));
  entry out = none;
  EXPECT_EQ(d.pop_shared(enc(5), out), shared_pop::stolen);
  EXPECT_EQ(d.pop_shared(none, out), shared_pop::stolen);
  EXPECT_EQ(out, none);
  d.wait_for_thieves();  // no thief holds the lock: returns at once
  // Capacity bookkeeping after the thieves moved tail: many pushes, LIFO pops.
  for (std::uint64_t i = 6; i <= 300; ++i) d.push(enc(i));
  EXPECT_EQ(d.refresh_size(), 295u);
  EXPECT_EQ(pop_all(d), range(6, 300, true));
}

TEST(SplitDeque, PrivateBottomIsAndDrop) {
  split_deque d(1);
  d.push(enc(1));
  d.push(enc(2));
  EXPECT_TRUE(d.private_bottom_is(enc(2)));
  EXPECT_FALSE(d.private_bottom_is(enc(1)));
  d.drop_private_bottom();
  EXPECT_TRUE(d.private_bottom_is(enc(1)));
  d.push(enc(3));
  EXPECT_TRUE(d.private_bottom_is(enc(3)));
  d.drop_private_bottom();
  d.drop_private_bottom();
  EXPECT_TRUE(d.private_empty());
  EXPECT_FALSE(d.private_bottom_is(enc(1)));
  EXPECT_EQ(d.pop(), none);

  // A shared bottom is not a private bottom (the fast path must not drop a shared entry).
  d.push(enc(4));
  d.push(enc(5));
  d.request_split();
  d.push(enc(6));  // exposes 4 and 5, keeps 6 private
  EXPECT_TRUE(d.private_bottom_is(enc(6)));
  d.drop_private_bottom();
  EXPECT_TRUE(d.private_empty());
  EXPECT_FALSE(d.private_bottom_is(enc(5)));
  entry out = none;
  EXPECT_EQ(d.pop_shared(enc(5), out), shared_pop::got);
  EXPECT_EQ(out, enc(5));
  EXPECT_EQ(d.steal(a_thief), enc(4));
  EXPECT_EQ(d.pop(), none);
}

TEST(SplitDeque, GrowthFromTinyCapacityPreservesEntries) {
  for (unsigned log : {0u, 1u, 2u}) {
    SCOPED_TRACE("log_capacity=" + std::to_string(log));
    {  // private entries only
      split_deque d(log);
      for (std::uint64_t i = 1; i <= 5000; ++i) d.push(enc(i));
      EXPECT_EQ(d.refresh_size(), 5000u);
      EXPECT_EQ(pop_all(d), range(1, 5000, true));
    }
    {  // growth with a shared region and a tail that is not at slot 0 (wrapped ring)
      split_deque d(log);
      std::uint64_t next = 1, lo = 1;
      for (int round = 0; round < 6; ++round) {
        for (int i = 0; i < 3; ++i) d.push(enc(next++));
        expose_all(d);
        entry s = d.steal(a_thief);
        ASSERT_EQ(s, enc(lo));
        ++lo;
      }
      // Entries lo..next-1 are shared; now grow several times with them in place.
      const std::uint64_t shared_hi = next - 1;
      for (int i = 0; i < 1000; ++i) d.push(enc(next++));
      EXPECT_EQ(d.refresh_size(), next - lo);
      EXPECT_EQ(steal_all(d), range(lo, shared_hi)) << "shared entries survive growth, in order";
      // The failed steal requested a split: push once more, the oldest private entries go public.
      d.push(enc(next++));
      std::vector<entry> st = steal_all(d);
      ASSERT_FALSE(st.empty());
      EXPECT_EQ(st, range(shared_hi + 1, shared_hi + st.size()));
      EXPECT_EQ(pop_all(d), range(shared_hi + st.size() + 1, next - 1, true));
    }
  }
}

// Random single-threaded operation sequences checked against a sequential model of the contents
// (front = oldest = thieves' end, back = newest = owner's end). Exposure policy is checked loosely:
// whatever the owner gets is the newest entry, whatever a thief gets is the oldest, the owner gets
// `none` only when the deque is empty, and a push following a request always exposes something.
TEST(SplitDeque, RandomOpsMatchSequentialModel) {
  const std::uint64_t ops = scaled(40000, 4000);
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    xorshift rng(seed);
    split_deque d(static_cast<unsigned>(seed % 3));
    std::deque<entry> model;
    std::uint64_t next = 1, owner_takes_via_tail = 0;
    // The requests since the last answer: a bit per thief (4 of them), bit 31 for one that is not a
    // thief; and the pushes left in an open expose window (requests meanwhile are absorbed).
    std::uint32_t requests = 0, window = 0;
    auto request = [&](std::uint32_t bit) {
      if (window == 0) requests |= bit;
    };
    unsigned push_pct = 50;
    for (std::uint64_t op = 0; op < ops; ++op) {
      if (op % 500 == 0) push_pct = 20 + static_cast<unsigned>(rng.below(70));
      const unsigned r = static_cast<unsigned>(rng.below(100));
      if (r < push_pct) {
        d.push(enc(next));
        model.push_back(enc(next++));
        if (window > 0) {
          ASSERT_TRUE(d.private_empty()) << "a push inside the expose window must publish everything";
          if (--window == 0) requests = 0;
        } else if (requests != 0) {
          ASSERT_FALSE(d.looks_empty()) << "a push after a request must expose something";
          window = std::popcount(requests & 0x7fffffffu) >= 2 ? split_deque::expose_window : 0;
          if (window == 0) requests = 0;
        }
      } else {
        switch (rng.below(8)) {
          case 0:
          case 1: {  // thief
            const unsigned thief = static_cast<unsigned>(rng.below(4));
            entry s = d.steal(thief);
            if (s != none) {
              ASSERT_FALSE(model.empty());
              ASSERT_EQ(s, model.front());
              model.pop_front();
            } else {
              request(1u << thief);
            }
            break;
          }
          case 2:
            d.expose();
            if (!d.private_empty() || !model.empty()) {
              // After expose() at least one entry is shared unless the deque is empty.
              ASSERT_EQ(d.looks_empty(), model.empty());
            }
            requests = window = 0;
            break;
          case 3: {  // completion path with a right or a wrong expected value
            entry x = model.empty() || rng.chance(30)
                          ? (model.empty() || rng.chance(50) ? enc(next + 1000) : model[rng.below(model.size())])
                          : model.back();
            const bool right = !model.empty() && x == model.back();
            if (d.private_bottom_is(x)) {
              ASSERT_TRUE(right);
              d.drop_private_bottom();
              model.pop_back();
            } else if (d.private_empty()) {
              entry out = none;
              const std::uint32_t h = d.head();
              const std::uint64_t os = d.owner_steals();
              shared_pop res = d.pop_shared(x, out);
              if (model.empty()) {
                ASSERT_EQ(res, shared_pop::stolen);
              } else if (right) {
                ASSERT_EQ(res, shared_pop::got);
                ASSERT_EQ(out, x);
                model.pop_back();
                if (d.head() == h) {
                  ASSERT_EQ(d.owner_steals(), os + 1);
                  ++owner_takes_via_tail;
                } else {
                  ASSERT_EQ(d.head(), h - 1);
                  ASSERT_EQ(d.owner_steals(), os);
                }
              } else {
                ASSERT_EQ(res, shared_pop::not_mine);
                ASSERT_EQ(d.head(), h);
              }
            } else {
              ASSERT_FALSE(right) << "the newest entry is private but private_bottom_is denies it";
            }
            break;
          }
          case 4:
            if (rng.chance(50)) {
              d.request_split();  // not a thief
              request(1u << 31);
            } else {
              const unsigned thief = static_cast<unsigned>(rng.below(4));
              d.request_split(thief);
              request(1u << thief);
            }
            break;
          default: {  // owner pop
            const std::uint64_t os = d.owner_steals();
            entry p = d.pop();
            if (model.empty()) {
              ASSERT_EQ(p, none);
            } else {
              ASSERT_EQ(p, model.back());
              model.pop_back();
            }
            owner_takes_via_tail += d.owner_steals() - os;
            break;
          }
        }
      }
      ASSERT_EQ(d.refresh_size(), model.size());
      ASSERT_EQ(d.split_requested(), requests != 0 || window > 0);
      if (model.empty()) {
        ASSERT_TRUE(d.looks_empty());
        ASSERT_TRUE(d.private_empty());
      }
    }
    EXPECT_EQ(d.owner_steals(), owner_takes_via_tail);
    // Drain: thieves first (oldest first), then the owner (newest first).
    std::vector<entry> st = steal_all(d);
    for (entry e : st) {
      ASSERT_EQ(e, model.front());
      model.pop_front();
    }
    std::vector<entry> rest = pop_all(d);
    ASSERT_EQ(rest, std::vector<entry>(model.rbegin(), model.rend()));
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: one owner against several thieves
// ---------------------------------------------------------------------------------------------

constexpr int kThieves = 7;

// Collects failures from the owner's online checks (first few messages kept).
struct failures {
  std::uint64_t count = 0;
  std::vector<std::string> msgs;
  void add(std::string m) {
    if (++count <= 8) msgs.push_back(std::move(m));
  }
  std::string text() const {
    std::string s;
    for (const auto& m : msgs) s += "  " + m + "\n";
    return s;
  }
};

void backoff(unsigned& fails) {
  if (++fails < 16) {
    slaw::detail::cpu_relax();
  } else {
    std::this_thread::yield();
  }
}

// Plain (non-atomic) data passed between the owner and the thieves; ThreadSanitizer checks that the
// deque's synchronisation orders these accesses.
//  * payload[id]: written by the owner before it pushes id, read by the thief that steals id (as the
//    runtime's thieves read the promise an entry points to). Needs the owner's release (expose) and
//    the thief's acquire (steal).
//  * stolen_by[id] (locked variant): written by the thief inside try_lock_steal/unlock_steal, read by
//    the owner after pop_shared reported `stolen` and wait_for_thieves() returned.
struct side_data {
  std::uint64_t id_cap;
  std::vector<std::uint64_t> payload;
  std::vector<std::uint8_t> stolen_by;
  std::atomic<std::uint64_t> bad_payload{0};
  explicit side_data(std::uint64_t cap) : id_cap(cap), payload(cap, 0), stolen_by(cap, 0) {}
  static std::uint64_t payload_of(std::uint64_t id) { return id * 0x9E3779B97F4A7C15ull + 1; }
};

// Thief loop. `locked`: the preempted-deque protocol (try_lock_steal/steal/bookkeeping/unlock_steal).
void thief_loop(split_deque& d, const std::atomic<bool>& stop, std::atomic<int>& started, std::vector<entry>& out,
                int tid, bool locked, side_data& side) {
  started.fetch_add(1, std::memory_order_relaxed);
  xorshift rng(1000 + static_cast<std::uint64_t>(tid));
  const bool prefilter = (tid % 2) == 0;  // like the runtime: looks_empty() -> request_split()
  unsigned fails = 0;
  while (!stop.load(std::memory_order_acquire)) {
    if (prefilter && d.looks_empty()) {
      d.request_split(static_cast<unsigned>(tid));
      backoff(fails);
      continue;
    }
    entry e = none;
    if (locked) {
      if (!d.try_lock_steal()) {
        backoff(fails);
        continue;
      }
      e = d.steal(static_cast<unsigned>(tid));
      if (e != none) {
        // Widen the window between winning the entry and finishing the bookkeeping.
        if (rng.below(32) == 0) {
          std::this_thread::yield();
        } else {
          for (int i = static_cast<int>(rng.below(8)); i > 0; --i) slaw::detail::cpu_relax();
        }
        std::uint64_t id = dec(e);
        if (id >= 1 && id < side.id_cap) side.stolen_by[id] = static_cast<std::uint8_t>(tid + 1);
      }
      d.unlock_steal();
    } else {
      e = d.steal(static_cast<unsigned>(tid));
    }
    if (e != none) {
      std::uint64_t id = dec(e);
      if (id >= 1 && id < side.id_cap && side.payload[id] != side_data::payload_of(id))
        side.bad_payload.fetch_add(1, std::memory_order_relaxed);
      out.push_back(e);
      fails = 0;
    } else {
      backoff(fails);
    }
  }
}

// The owner's view: `model` holds, oldest first, every value it pushed and has not taken itself.
// Thieves remove a prefix of it, so any value the owner obtains must be model.back(); when the owner
// finds the deque empty, every remaining model entry must have been stolen.
struct owner_state {
  split_deque& d;
  failures& fail;
  bool locked;
  side_data& side;
  std::deque<entry> model;
  std::vector<entry> taken;
  std::uint64_t next_id = 1;
  xorshift rng;
  // statistics
  std::uint64_t pushes = 0, pops_got = 0, empties = 0, empties_after_steals = 0, completions_fast = 0,
                completions_got = 0, completions_stolen = 0, completions_stolen_by_thieves = 0,
                completions_not_mine = 0, shared_reclaims = 0, expose_calls = 0;

  owner_state(split_deque& dq, failures& f, bool lk, side_data& sd, std::uint64_t seed)
      : d(dq), fail(f), locked(lk), side(sd), rng(seed) {}

  // Callers keep next_id below side.id_cap.
  entry push_new() {
    const std::uint64_t id = next_id++;
    side.payload[id] = side_data::payload_of(id);
    entry v = enc(id);
    // head - (cached) tail is huge only if the indices are corrupted (tail overtook head); pushing
    // then makes the deque try to grow to 2^32 slots. Stop instead (reading the cache changes nothing).
    if (d.size_estimate() > (1u << 28)) {
      fail.add("index corruption: head - tail = " + std::to_string(d.size_estimate()));
      return v;  // the owner's loops stop once a failure is recorded
    }
    d.push(v);
    model.push_back(v);
    ++pushes;
    return v;
  }
  void took(entry v, const char* how) {
    if (model.empty() || v != model.back()) {
      fail.add(std::string(how) + ": got id " + std::to_string(dec(v)) + " (raw " + std::to_string(v) +
               "), expected " + (model.empty() ? std::string("nothing") : std::to_string(dec(model.back()))));
      // Resynchronise so one error does not cascade.
      auto it = std::find(model.begin(), model.end(), v);
      if (it != model.end()) model.erase(it, model.end());
    } else {
      model.pop_back();
    }
    taken.push_back(v);
  }
  // The owner observed an empty deque (pop() returned none or pop_shared reported stolen).
  void all_stolen(const char* how) {
    ++empties;
    if (!model.empty()) ++empties_after_steals;  // thieves really took what the owner had left
    if (locked) {
      d.wait_for_thieves();
      for (entry v : model) {
        std::uint64_t id = dec(v);
        if (side.stolen_by[id] == 0) {
          fail.add(std::string(how) + ": id " + std::to_string(id) +
                   " reported stolen but the thief's bookkeeping is not visible after wait_for_thieves()");
          break;
        }
      }
    }
    model.clear();
  }
  void pop_once() {
    entry v = d.pop();
    if (v != none) {
      ++pops_got;
      took(v, "pop");
    } else {
      all_stolen("pop");
    }
  }
  // The runtime's completion path for the frame whose entry is `x`. `x_is_newest` says whether x is
  // the owner's newest untaken value (then got/stolen are the only acceptable outcomes).
  void complete(entry x) {
    const bool newest = !model.empty() && model.back() == x;
    if (d.private_bottom_is(x)) {
      ++completions_fast;
      d.drop_private_bottom();
      if (!newest) fail.add("private_bottom_is accepted id " + std::to_string(dec(x)) + " that is not the newest");
      took(x, "drop_private_bottom");
      return;
    }
    if (!d.private_empty()) {
      if (newest) fail.add("newest entry is private but private_bottom_is denies it");
      return;
    }
    entry out = none;
    switch (d.pop_shared(x, out)) {
      case shared_pop::got:
        ++completions_got;
        if (out != x) fail.add("pop_shared(expect) returned got with a different value");
        if (!newest) fail.add("pop_shared(expect) returned got for an entry that is not the bottom");
        took(out, "pop_shared(expect)");
        break;
      case shared_pop::stolen:
        ++completions_stolen;
        if (!model.empty()) ++completions_stolen_by_thieves;
        all_stolen("pop_shared(expect)");
        break;
      case shared_pop::not_mine:
        ++completions_not_mine;
        if (newest) fail.add("pop_shared(expect) said not_mine for the bottom entry");
        break;
    }
  }
  // detach_bottom() of the runtime: take the bottom entry, whatever it is.
  void take_bottom_explicitly() {
    if (!d.private_empty()) {
      pop_once();
      return;
    }
    entry out = none;
    switch (d.pop_shared(none, out)) {
      case shared_pop::got:
        ++shared_reclaims;
        took(out, "pop_shared(none)");
        break;
      case shared_pop::stolen:
        all_stolen("pop_shared(none)");
        break;
      case shared_pop::not_mine:
        fail.add("pop_shared(none) returned not_mine");
        break;
    }
  }
  void check_size() {
    std::uint32_t sz = d.refresh_size();
    if (sz > model.size())
      fail.add("refresh_size() " + std::to_string(sz) + " exceeds the untaken count " + std::to_string(model.size()));
  }
  void drain() {
    for (std::uint64_t left = next_id; left > 0; --left) {  // bounded: a broken deque may never run dry
      entry v = d.pop();
      if (v == none) break;
      took(v, "final drain");
    }
    all_stolen("final drain");
    if (d.steal(a_thief) != none) fail.add("steal() found an entry after the owner drained the deque");
    if (!d.looks_empty() || d.refresh_size() != 0) fail.add("deque not empty after drain");
  }
};

// Checks that every id in 1..max_id was taken exactly once and nothing else was returned.
void check_exactly_once(std::uint64_t max_id, const std::vector<const std::vector<entry>*>& lists, failures& fail) {
  std::vector<std::uint8_t> seen(max_id + 1, 0);
  for (const auto* l : lists) {
    for (entry e : *l) {
      std::uint64_t id = dec(e);
      if (e == none || id == 0 || id > max_id || e != enc(id)) {
        fail.add("taken value " + std::to_string(e) + " was never pushed");
        continue;
      }
      if (seen[id]++ != 0) fail.add("id " + std::to_string(id) + " taken more than once");
    }
  }
  std::uint64_t missing = 0;
  for (std::uint64_t id = 1; id <= max_id; ++id) {
    if (seen[id] == 0 && ++missing <= 3) fail.add("id " + std::to_string(id) + " was pushed but never taken");
  }
  if (missing > 3) fail.add(std::to_string(missing) + " ids missing in total");
}

struct round_result {
  std::uint64_t pushed = 0, stolen = 0, owner = 0, owner_tail_takes = 0, empties = 0, empties_after_steals = 0,
                fast = 0, c_got = 0, c_stolen = 0, c_stolen_by_thieves = 0, c_not_mine = 0, reclaims = 0;
  void operator+=(const round_result& r) {
    pushed += r.pushed;
    stolen += r.stolen;
    owner += r.owner;
    owner_tail_takes += r.owner_tail_takes;
    empties += r.empties;
    empties_after_steals += r.empties_after_steals;
    fast += r.fast;
    c_got += r.c_got;
    c_stolen += r.c_stolen;
    c_stolen_by_thieves += r.c_stolen_by_thieves;
    c_not_mine += r.c_not_mine;
    reclaims += r.reclaims;
  }
  void print(int rounds, double secs) const {
    std::printf("[ stats    ] %d rounds, %.2fs: pushed %llu, stolen %llu, owner took %llu (%llu via tail), found "
                "empty %llu times (%llu after steals), shared reclaims %llu, completions fast/got/stolen(by "
                "thieves)/not_mine %llu/%llu/%llu(%llu)/%llu\n",
                rounds, secs, (unsigned long long)pushed, (unsigned long long)stolen, (unsigned long long)owner,
                (unsigned long long)owner_tail_takes, (unsigned long long)empties,
                (unsigned long long)empties_after_steals, (unsigned long long)reclaims, (unsigned long long)fast,
                (unsigned long long)c_got, (unsigned long long)c_stolen, (unsigned long long)c_stolen_by_thieves,
                (unsigned long long)c_not_mine);
  }
};

// One round: a fresh deque with a tiny array, kThieves thief threads, the owner running `body` on
// this thread, then the final drain and the exactly-once check.
// A corrupted deque tends to hang rather than fail (e.g. tail overtaking head makes the owner's
// growth copy 2^32 slots): abort with a message instead of waiting for the ctest timeout.
struct watchdog : slaw_test::watchdog {
  watchdog(std::uint64_t seed, int seconds)
      : slaw_test::watchdog("split_deque stress round with seed " + std::to_string(seed),
                            "the deque is corrupted or livelocked", seconds) {}
};

template <class OwnerBody>
round_result run_round(std::uint64_t seed, unsigned log_capacity, bool locked, std::uint64_t id_cap, failures& fail,
                       OwnerBody body) {
  watchdog dog(seed, 120);  // a round takes well under 2 s even under ThreadSanitizer at scale 1
  split_deque d(log_capacity);
  side_data side(id_cap);
  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::vector<std::vector<entry>> thief_takes(kThieves);
  owner_state o(d, fail, locked, side, seed);
  std::vector<std::thread> thieves;
  for (int t = 0; t < kThieves; ++t)
    thieves.emplace_back(thief_loop, std::ref(d), std::cref(stop), std::ref(started), std::ref(thief_takes[t]), t,
                         locked, std::ref(side));
  while (started.load(std::memory_order_relaxed) < kThieves) std::this_thread::yield();
  body(o);
  stop.store(true, std::memory_order_release);
  for (auto& th : thieves) th.join();
  o.drain();

  round_result r;
  r.pushed = o.next_id - 1;
  r.owner = o.taken.size();
  r.owner_tail_takes = d.owner_steals();
  r.empties = o.empties;
  r.empties_after_steals = o.empties_after_steals;
  r.fast = o.completions_fast;
  r.c_got = o.completions_got;
  r.c_stolen = o.completions_stolen;
  r.c_stolen_by_thieves = o.completions_stolen_by_thieves;
  r.c_not_mine = o.completions_not_mine;
  r.reclaims = o.shared_reclaims;
  std::vector<const std::vector<entry>*> lists{&o.taken};
  for (auto& v : thief_takes) {
    lists.push_back(&v);
    r.stolen += v.size();
    if (locked) {
      for (entry e : v) {
        std::uint64_t id = dec(e);
        if (id >= 1 && id < id_cap && side.stolen_by[id] == 0) fail.add("thief bookkeeping missing for a stolen id");
      }
    }
  }
  if (std::uint64_t bad = side.bad_payload.load())
    fail.add(std::to_string(bad) + " stolen entries whose payload (written before the push) was not visible");
  check_exactly_once(r.pushed, lists, fail);
  return r;
}

// Owner: a random mix of pushes and pops in phases (push-heavy phases grow the deque, pop-heavy
// phases drain it and reach into the shared region), plus expose() calls and completion-path pops
// with right and wrong expected values. Thieves: plain steal().
TEST(SplitDequeStress, OwnerPushPopAgainstThieves) {
  const std::uint64_t ops = scaled(1000000, 20000);
  const int rounds = static_cast<int>(scaled(24, 4));
  round_result tot;
  const auto t0 = std::chrono::steady_clock::now();
  auto covered = [&] { return tot.stolen > 0 && tot.empties_after_steals > 0; };
  int round = 0;
  // Extra rounds (bounded) only if the thieves never got going, e.g. at a tiny SLAW_TEST_SCALE.
  for (; round < rounds || (!covered() && round < 10 * rounds); ++round) {
    const std::uint64_t seed = 0xC0FFEEu + static_cast<std::uint64_t>(round) * 7919u;
    SCOPED_TRACE("round=" + std::to_string(round) + " seed=" + std::to_string(seed));
    failures fail;
    round_result r = run_round(seed, round % 2 == 0 ? 1u : 2u, /*locked=*/false, ops + 2, fail, [&](owner_state& s) {
      unsigned push_pct = 50;
      std::uint64_t phase_left = 0;
      for (std::uint64_t op = 0; op < ops && s.fail.count == 0; ++op) {
        if (phase_left-- == 0) {
          static constexpr unsigned pcts[] = {15, 40, 50, 60, 85, 97};
          push_pct = pcts[s.rng.below(6)];
          phase_left = 1 + s.rng.below(push_pct >= 85 ? 6000 : 2000);
        }
        if (s.rng.below(100) < push_pct) {
          s.push_new();
          continue;
        }
        switch (s.rng.below(16)) {
          case 0:
            s.d.expose();
            ++s.expose_calls;
            break;
          case 1:
          case 2: {  // completion path; 1 in 4 with a wrong expected value
            entry x = s.model.empty() ? enc(s.next_id + 5) : s.model.back();
            if (s.rng.chance(25))
              x = s.model.empty() || s.rng.chance(50) ? enc(s.next_id + 5) : s.model[s.rng.below(s.model.size())];
            s.complete(x);
            break;
          }
          case 3:
            s.take_bottom_explicitly();
            break;
          case 4:
            s.check_size();
            break;
          default:
            s.pop_once();
            break;
        }
      }
    });
    EXPECT_EQ(fail.count, 0u) << fail.text();
    tot += r;
    if (fail.count) break;
  }
  tot.print(round, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  // The test is only meaningful if the thieves really competed with the owner.
  EXPECT_GT(tot.stolen, 0u);
  EXPECT_GT(tot.empties_after_steals, 0u) << "the owner never found its remaining entries stolen";
}

// Owner: a work-first spawn tree like the runtime's. Spawning child C pushes C's entry, runs C (which
// may spawn, push bursts of plain tasks and pop them back, or detach the bottom entry like
// detach_bottom() and push a tagged replacement), then completes C: private_bottom_is/drop, else
// pop_shared(C) -> got / stolen (+ wait_for_thieves, then read the thieves' bookkeeping) / not_mine.
// Thieves: try_lock_steal/steal/unlock_steal with a non-atomic write of the bookkeeping.
TEST(SplitDequeStress, CompletionPathWithStealLock) {
  const std::uint64_t target_pushes = scaled(1000000, 15000);
  const std::uint64_t id_cap = target_pushes + 20000;  // bursts and tags may overshoot the target
  const int rounds = static_cast<int>(scaled(24, 4));
  round_result tot;
  const auto t0 = std::chrono::steady_clock::now();
  auto covered = [&] { return tot.stolen > 0 && tot.c_stolen_by_thieves > 0 && tot.c_got > 0; };
  int round = 0;
  for (; round < rounds || (!covered() && round < 10 * rounds); ++round) {
    const std::uint64_t seed = 0xBADC0DEu + static_cast<std::uint64_t>(round) * 104729u;
    SCOPED_TRACE("round=" + std::to_string(round) + " seed=" + std::to_string(seed));
    failures fail;
    round_result r = run_round(seed, round % 2 == 0 ? 1u : 2u, /*locked=*/true, id_cap, fail, [&](owner_state& s) {
      // Recursive spawn tree; returns when the push budget is used up.
      auto node = [&](auto& self, int depth) -> void {
        constexpr int max_depth = 14;
        const int children = depth >= max_depth ? 0 : static_cast<int>(s.rng.below(depth < 3 ? 5 : 3));
        for (int c = 0; c < children && s.next_id < target_pushes && s.fail.count == 0; ++c) {
          const entry me = s.push_new();
          // Inside the child, before it spawns: sometimes extra local work.
          switch (s.rng.below(24)) {
            case 0: {  // a burst of plain tasks pushed, then popped back (forces growth)
              const std::uint64_t n = 1 + s.rng.below(s.rng.chance(10) ? 3000 : 100);
              std::uint64_t pushed = 0;
              for (; pushed < n && s.next_id < id_cap - 1 && s.fail.count == 0; ++pushed) s.push_new();
              for (std::uint64_t i = 0; i < pushed; ++i) s.pop_once();
              break;
            }
            case 1: {  // detach_bottom(): take the bottom entry, push a tagged replacement
              const entry before = s.model.empty() ? none : s.model.back();
              const std::size_t taken_before = s.taken.size();
              s.take_bottom_explicitly();
              if (s.taken.size() != taken_before && s.taken.back() == before && s.next_id < id_cap - 1)
                s.push_new();  // the tagged parent entry (a fresh id stands for it)
              break;
            }
            case 2:
              s.d.expose();
              break;
            default:
              break;
          }
          self(self, depth + 1);
          s.complete(me);
          if (!s.model.empty() && s.model.back() != me && s.rng.chance(50)) {
            // The child was detached; the scheduler takes its own work (the tagged entry) next.
            s.pop_once();
          }
          if (s.rng.below(64) == 0) s.check_size();
        }
      };
      while (s.next_id < target_pushes && s.fail.count == 0) {
        node(node, 0);
        // Whatever the tree left behind (tagged entries), the scheduler pops it.
        while (!s.model.empty() && s.fail.count == 0) s.pop_once();
      }
    });
    EXPECT_EQ(fail.count, 0u) << fail.text();
    tot += r;
    if (fail.count) break;
  }
  tot.print(round, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_GT(tot.stolen, 0u);
  EXPECT_GT(tot.c_stolen_by_thieves, 0u) << "the stolen completion path (wait_for_thieves) was never exercised";
  EXPECT_GT(tot.c_got, 0u) << "the shared-region completion path was never exercised";
}

}  // namespace
