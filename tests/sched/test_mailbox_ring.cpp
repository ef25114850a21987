// Tests for slaw::detail::mailbox_ring (src/sched/places/mailbox_ring.hpp), the bounded MPMC ring
// behind a place's mailbox.
//
// Part 1 (single-threaded): FIFO order, full at capacity (and room again after one take), capacity
// rounding to a power of two >= 2, capacity 0 rejected, failed takes leave `out` alone, size_estimate,
// a randomised comparison against std::deque, and millions of post/take pairs through a ring of 4 (the
// positions go round the cells millions of times).
//
// Part 2 (concurrent): P producers x C consumers on a small ring (4x4, 8x2, 1x8, 4x1, 2x2 on a ring of
// 2, and 16x16, oversubscribed on any ordinary machine). Every producer posts N distinct values,
// retrying when full; consumers take until all are taken. Checked: every value taken exactly once,
// the values of one producer seen by one consumer in increasing order (with a single consumer:
// consecutive), and at the end nonempty() false, size_estimate() 0, try_take false.
// The payload test posts pointers to structs whose fields the producer writes with plain stores; the
// consumer checks them, writes a field back and returns the struct to its producer through a second
// ring, and the producer checks that field before refilling the struct. A missing release/acquire on
// either ring is a data race on those fields, which ThreadSanitizer reports (and which can show up as
// a wrong field without it).
// The parking test runs the eventcount protocol of docs/design/parking.md on nonempty(): consumers that find
// nothing register as sleepers, re-check nonempty() and wait on an epoch; producers post, bump the
// epoch and wake if someone sleeps. A lost wake-up leaves values in the ring with every consumer asleep:
// the watchdog aborts.
//
// Iteration counts scale with the environment variable SLAW_TEST_SCALE (a positive number, default 1;
// ThreadSanitizer builds default to 0.2, AddressSanitizer builds to 0.25), as in test_split_deque.
// (The header is internal, under src/; slaw_test targets see only include/, hence the relative path.)
#include "../../src/sched/places/mailbox_ring.hpp"
#include "../support/stress.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using slaw::detail::mailbox_ring;

using slaw_test::scaled;
using slaw_test::test_scale;
using slaw_test::xorshift;

// A broken ring tends to hang (a consumer waiting for a value that was lost, a producer for room that
// never comes): abort with a message instead of waiting for the ctest timeout.
struct watchdog : slaw_test::watchdog {
  watchdog(const char* what, int seconds)
      : slaw_test::watchdog(std::string("mailbox_ring test '") + what + "'", "values lost, or a lost wake-up", seconds) {}
};

// Retry helper for the concurrent tests: spin a little, then let the other threads run (the machine
// may have far fewer cores than threads).
struct backoff {
  unsigned n = 0;
  void pause() {
    if (++n < 16) return;
    std::this_thread::yield();
  }
  void reset() { n = 0; }
};

// ---------------------------------------------------------------------------------------------
// Part 1: single-threaded semantics
// ---------------------------------------------------------------------------------------------

TEST(MailboxRing, EmptyRing) {
  mailbox_ring<std::uint64_t> r(8);
  EXPECT_FALSE(r.nonempty());
  EXPECT_EQ(r.size_estimate(), 0u);
  std::uint64_t out = 12345;
  EXPECT_FALSE(r.try_take(out));
  EXPECT_EQ(out, 12345u) << "a failed take must leave `out` alone";
}

TEST(MailboxRing, FifoOrder) {
  mailbox_ring<std::uint64_t> r(16);
  for (std::uint64_t i = 1; i <= 10; ++i) ASSERT_TRUE(r.try_post(i * 7));
  EXPECT_TRUE(r.nonempty());
  EXPECT_EQ(r.size_estimate(), 10u);
  for (std::uint64_t i = 1; i <= 10; ++i) {
    std::uint64_t out = 0;
    ASSERT_TRUE(r.try_take(out));
    EXPECT_EQ(out, i * 7);
  }
  EXPECT_FALSE(r.nonempty());
  std::uint64_t out = 0;
  EXPECT_FALSE(r.try_take(out));
}

TEST(MailboxRing, FullAtCapacity) {
  mailbox_ring<int*> r(8);
  ASSERT_EQ(r.capacity(), 8u);
  int objs[10] = {};
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(r.try_post(&objs[i])) << i;
  EXPECT_EQ(r.size_estimate(), 8u);
  EXPECT_FALSE(r.try_post(&objs[8])) << "a post beyond capacity must fail";
  EXPECT_FALSE(r.try_post(&objs[8])) << "and keep failing";
  int* out = nullptr;
  ASSERT_TRUE(r.try_take(out));
  EXPECT_EQ(out, &objs[0]);
  EXPECT_TRUE(r.try_post(&objs[8])) << "one take makes room for one post";
  EXPECT_FALSE(r.try_post(&objs[9]));
  for (int i = 1; i <= 8; ++i) {
    ASSERT_TRUE(r.try_take(out));
    EXPECT_EQ(out, &objs[i]);
  }
  EXPECT_FALSE(r.try_take(out));
  EXPECT_FALSE(r.nonempty());
}

TEST(MailboxRing, CapacityRounding) {
  struct c {
    std::size_t asked, got;
  };
  for (c x : {c{1, 2}, c{2, 2}, c{3, 4}, c{4, 4}, c{5, 8}, c{63, 64}, c{64, 64}, c{65, 128}, c{1000, 1024}}) {
    mailbox_ring<std::uint64_t> r(x.asked);
    EXPECT_EQ(r.capacity(), x.got) << "asked " << x.asked;
    // The ring holds exactly capacity() values.
    for (std::size_t i = 0; i < x.got; ++i) ASSERT_TRUE(r.try_post(i)) << "asked " << x.asked << ", post " << i;
    EXPECT_FALSE(r.try_post(0)) << "asked " << x.asked;
    for (std::size_t i = 0; i < x.got; ++i) {
      std::uint64_t out = ~0ull;
      ASSERT_TRUE(r.try_take(out));
      ASSERT_EQ(out, i);
    }
  }
}

TEST(MailboxRing, CapacityZeroRejected) {
  EXPECT_THROW(mailbox_ring<std::uint64_t>(0), std::invalid_argument);
  EXPECT_THROW(mailbox_ring<void*>(0), std::invalid_argument);
}

TEST(MailboxRing, HugeCapacityRejected) {
  EXPECT_THROW(mailbox_ring<std::uint64_t>(~std::size_t{0}), std::bad_alloc);
}

// Millions of post/take pairs through a ring of 4 with 0 to 3 values resident: every cell's sequence
// number goes round millions of times.
TEST(MailboxRing, WrapAroundManyTimes) {
  mailbox_ring<std::uint64_t> r(4);
  const std::uint64_t pairs = scaled(10'000'000, 200'000);
  std::uint64_t next_post = 0, next_take = 0;
  for (std::uint64_t k = 0; k < pairs; ++k) {
    const std::uint64_t resident = k % 4;  // 0..3 values stay in the ring across this pair
    while (next_post - next_take < resident + 1) ASSERT_TRUE(r.try_post(next_post++));
    std::uint64_t out = ~0ull;
    ASSERT_TRUE(r.try_take(out));
    ASSERT_EQ(out, next_take) << "after " << k << " pairs";
    ++next_take;
  }
  while (next_take != next_post) {
    std::uint64_t out = ~0ull;
    ASSERT_TRUE(r.try_take(out));
    ASSERT_EQ(out, next_take++);
  }
  EXPECT_FALSE(r.nonempty());
  EXPECT_EQ(r.size_estimate(), 0u);
  EXPECT_GE(next_post, pairs);
}

// Random posts and takes against std::deque, on rings of several sizes.
TEST(MailboxRing, MatchesSequentialModel) {
  for (std::size_t cap : {2u, 4u, 8u, 32u}) {
    mailbox_ring<std::uint64_t> r(cap);
    std::deque<std::uint64_t> model;
    xorshift rng(cap);
    std::uint64_t next = 1;
    const std::uint64_t ops = scaled(200'000, 20'000);
    for (std::uint64_t k = 0; k < ops; ++k) {
      // Drift between mostly-posting and mostly-taking phases so the ring goes full and empty often.
      const bool post_bias = (k / 1000) % 2 == 0;
      if (rng.below(100) < (post_bias ? 70u : 30u)) {
        const bool ok = r.try_post(next);
        ASSERT_EQ(ok, model.size() < cap) << "cap " << cap << ", op " << k;
        if (ok) model.push_back(next);
        ++next;
      } else {
        std::uint64_t out = 0;
        const bool ok = r.try_take(out);
        ASSERT_EQ(ok, !model.empty()) << "cap " << cap << ", op " << k;
        if (ok) {
          ASSERT_EQ(out, model.front());
          model.pop_front();
        }
      }
      ASSERT_EQ(r.nonempty(), !model.empty());
      ASSERT_EQ(r.size_estimate(), model.size());
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: concurrent
// ---------------------------------------------------------------------------------------------

struct stress_config {
  unsigned producers, consumers;
  std::size_t capacity;
  std::uint64_t per_producer;  // at scale 1
};
std::string name_of(const testing::TestParamInfo<stress_config>& info) {
  const stress_config& c = info.param;
  return std::to_string(c.producers) + "x" + std::to_string(c.consumers) + "_cap" + std::to_string(c.capacity);
}

class MailboxRingStress : public testing::TestWithParam<stress_config> {};

// Values are producer * n + i (i = 0, 1, ... in posting order).
TEST_P(MailboxRingStress, EveryValueOnceInProducerOrder) {
  const stress_config cfg = GetParam();
  const unsigned P = cfg.producers, C = cfg.consumers;
  const std::uint64_t n = scaled(cfg.per_producer, 2000);
  const std::uint64_t total = P * n;
  watchdog dog("stress", 120);

  mailbox_ring<std::uint64_t> r(cfg.capacity);
  std::vector<std::atomic<int>> count(total);
  for (auto& c : count) c.store(0, std::memory_order_relaxed);
  std::atomic<std::uint64_t> taken{0};
  std::atomic<std::uint64_t> order_errors{0}, foreign{0}, full_retries{0}, empty_retries{0};
  std::atomic<bool> go{false};

  std::vector<std::thread> threads;
  for (unsigned p = 0; p < P; ++p) {
    threads.emplace_back([&, p] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      backoff b;
      std::uint64_t retries = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        while (!r.try_post(p * n + i)) {
          ++retries;
          b.pause();
        }
        b.reset();
      }
      full_retries.fetch_add(retries, std::memory_order_relaxed);
    });
  }
  for (unsigned c = 0; c < C; ++c) {
    threads.emplace_back([&] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      std::vector<std::int64_t> last(P, -1);  // this consumer's last index seen, per producer
      backoff b;
      std::uint64_t retries = 0;
      while (taken.load(std::memory_order_relaxed) < total) {
        std::uint64_t v = 0;
        if (!r.try_take(v)) {
          ++retries;
          b.pause();
          continue;
        }
        b.reset();
        if (v >= total) {
          foreign.fetch_add(1, std::memory_order_relaxed);
        } else {
          count[v].fetch_add(1, std::memory_order_relaxed);
          const auto p = static_cast<unsigned>(v / n);
          const auto i = static_cast<std::int64_t>(v % n);
          // Increasing for every consumer; consecutive when this is the only consumer.
          const bool ok = C == 1 ? i == last[p] + 1 : i > last[p];
          if (!ok) order_errors.fetch_add(1, std::memory_order_relaxed);
          last[p] = i;
        }
        taken.fetch_add(1, std::memory_order_relaxed);
      }
      empty_retries.fetch_add(retries, std::memory_order_relaxed);
    });
  }
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();

  EXPECT_EQ(foreign.load(), 0u) << "values that were never posted";
  EXPECT_EQ(order_errors.load(), 0u) << "values of one producer out of order at one consumer";
  EXPECT_EQ(taken.load(), total);
  std::uint64_t missing = 0, dup = 0, first_bad = total;
  for (std::uint64_t v = 0; v < total; ++v) {
    const int k = count[v].load(std::memory_order_relaxed);
    if (k == 1) continue;
    if (k == 0) ++missing;
    else ++dup;
    first_bad = std::min(first_bad, v);
  }
  EXPECT_EQ(missing, 0u) << "first bad value " << first_bad;
  EXPECT_EQ(dup, 0u) << "first bad value " << first_bad;
  EXPECT_FALSE(r.nonempty());
  EXPECT_EQ(r.size_estimate(), 0u);
  std::uint64_t out = 0;
  EXPECT_FALSE(r.try_take(out));
  RecordProperty("full_retries", std::to_string(full_retries.load()));
  RecordProperty("empty_retries", std::to_string(empty_retries.load()));
}

INSTANTIATE_TEST_SUITE_P(Shapes, MailboxRingStress,
                         testing::Values(stress_config{4, 4, 8, 400'000}, stress_config{8, 2, 16, 200'000},
                                         stress_config{1, 8, 8, 1'000'000}, stress_config{4, 1, 4, 400'000},
                                         stress_config{2, 2, 2, 300'000}, stress_config{16, 16, 8, 80'000}),
                         name_of);

// Pointers to structs filled with plain stores by the producer, checked by the consumer, handed back
// to the producer through a per-producer ring and checked there again before being refilled.
struct payload {
  unsigned owner = 0;
  std::uint64_t serial = 0;       // written by the producer
  std::uint64_t words[6] = {};    // written by the producer
  std::uint64_t seen_serial = 0;  // written by the consumer, read by the producer
  unsigned seen_by = 0;           // written by the consumer
};
std::uint64_t word_of(unsigned owner, std::uint64_t serial, int j) {
  return (serial * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{owner} << 48) ^ static_cast<std::uint64_t>(j * 0x1001);
}

TEST(MailboxRingPayload, FieldsWrittenBeforePostAreSeenAfterTake) {
  constexpr unsigned P = 4, C = 4, kObjects = 8;  // objects per producer
  const std::uint64_t n = scaled(400'000, 5000);  // posts per producer
  watchdog dog("payload", 120);

  mailbox_ring<payload*> r(8);
  std::vector<std::unique_ptr<mailbox_ring<payload*>>> free_ring;  // consumer -> producer
  std::vector<std::vector<payload>> objects(P, std::vector<payload>(kObjects));
  for (unsigned p = 0; p < P; ++p) {
    free_ring.push_back(std::make_unique<mailbox_ring<payload*>>(kObjects));
    for (payload& o : objects[p]) ASSERT_TRUE(free_ring[p]->try_post(&o));
  }
  std::atomic<std::uint64_t> taken{0}, bad_payload{0}, bad_return{0};
  std::atomic<bool> go{false};

  std::vector<std::thread> threads;
  for (unsigned p = 0; p < P; ++p) {
    threads.emplace_back([&, p] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      backoff b;
      std::uint64_t bad = 0;
      for (std::uint64_t i = 1; i <= n; ++i) {
        payload* o = nullptr;
        while (!free_ring[p]->try_take(o)) b.pause();
        b.reset();
        // The consumer's plain writes must be visible here (its post to free_ring[p] released them).
        if (o->serial != 0 && (o->seen_serial != o->serial || o->seen_by == 0)) ++bad;
        o->owner = p;
        o->serial = i;
        for (int j = 0; j < 6; ++j) o->words[j] = word_of(p, i, j);
        o->seen_serial = 0;
        o->seen_by = 0;
        while (!r.try_post(o)) b.pause();
        b.reset();
      }
      bad_return.fetch_add(bad, std::memory_order_relaxed);
    });
  }
  for (unsigned c = 0; c < C; ++c) {
    threads.emplace_back([&, c] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      backoff b;
      std::uint64_t bad = 0;
      while (taken.load(std::memory_order_relaxed) < P * n) {
        payload* o = nullptr;
        if (!r.try_take(o)) {
          b.pause();
          continue;
        }
        b.reset();
        const unsigned owner = o->owner;
        bool ok = owner < P && o->serial >= 1 && o->serial <= n && o->seen_serial == 0 && o->seen_by == 0;
        for (int j = 0; ok && j < 6; ++j) ok = o->words[j] == word_of(owner, o->serial, j);
        if (!ok) ++bad;
        o->seen_serial = o->serial;
        o->seen_by = c + 1;
        taken.fetch_add(1, std::memory_order_relaxed);
        if (owner < P) {
          while (!free_ring[owner]->try_post(o)) b.pause();  // never full: it holds kObjects at most
          b.reset();
        }
      }
      bad_payload.fetch_add(bad, std::memory_order_relaxed);
    });
  }
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();

  EXPECT_EQ(taken.load(), P * n);
  EXPECT_EQ(bad_payload.load(), 0u) << "a consumer saw fields its producer had not written yet";
  EXPECT_EQ(bad_return.load(), 0u) << "a producer did not see the consumer's writes";
  EXPECT_FALSE(r.nonempty());
  for (unsigned p = 0; p < P; ++p) EXPECT_EQ(free_ring[p]->size_estimate(), kObjects);
}

// The eventcount protocol on nonempty() (docs/design/parking.md): a consumer that finds nothing registers as a
// sleeper (seq_cst), reads the epoch, re-checks nonempty() and only then waits for the epoch to change;
// a producer posts, bumps the epoch (seq_cst) and wakes if it sees a sleeper. Producers post in bursts
// with pauses, so consumers do go to sleep. A lost wake-up with nothing posted after it hangs (watchdog).
TEST(MailboxRingParking, NoLostWakeups) {
  constexpr unsigned P = 2, C = 3;
  const std::uint64_t n = scaled(80'000, 2000);
  const std::uint64_t total = P * n;
  watchdog dog("parking", 60);

  mailbox_ring<std::uint64_t> r(16);
  std::atomic<std::uint64_t> epoch{0};
  std::atomic<unsigned> sleepers{0};
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> taken{0}, sleeps{0}, wakes{0}, order_errors{0};
  std::vector<std::atomic<int>> count(total);
  for (auto& c : count) c.store(0, std::memory_order_relaxed);

  auto wake = [&] {
    epoch.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) != 0) {
      wakes.fetch_add(1, std::memory_order_relaxed);
      epoch.notify_all();
    }
  };

  std::vector<std::thread> threads;
  for (unsigned p = 0; p < P; ++p) {
    threads.emplace_back([&, p] {
      xorshift rng(p + 1);
      for (std::uint64_t i = 0; i < n; ++i) {
        while (!r.try_post(p * n + i)) std::this_thread::yield();
        wake();
        if (rng.below(64) == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng.below(200)));
      }
    });
  }
  for (unsigned c = 0; c < C; ++c) {
    threads.emplace_back([&] {
      std::vector<std::int64_t> last(P, -1);
      for (;;) {
        std::uint64_t v = 0;
        bool got = false;
        for (int spin = 0; spin < 32 && !(got = r.try_take(v)); ++spin) {
          if (done.load(std::memory_order_seq_cst)) return;
        }
        if (got) {
          count[v].fetch_add(1, std::memory_order_relaxed);
          const auto p = static_cast<unsigned>(v / n);
          const auto i = static_cast<std::int64_t>(v % n);
          if (i <= last[p]) order_errors.fetch_add(1, std::memory_order_relaxed);
          last[p] = i;
          if (taken.fetch_add(1, std::memory_order_relaxed) + 1 == total) {
            done.store(true, std::memory_order_seq_cst);
            wake();
            return;
          }
          continue;
        }
        // Park: register, read the epoch, re-check, wait.
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        const std::uint64_t key = epoch.load(std::memory_order_seq_cst);
        if (r.nonempty() || done.load(std::memory_order_seq_cst)) {
          sleepers.fetch_sub(1, std::memory_order_seq_cst);
          continue;
        }
        sleeps.fetch_add(1, std::memory_order_relaxed);
        epoch.wait(key, std::memory_order_seq_cst);
        sleepers.fetch_sub(1, std::memory_order_seq_cst);
      }
    });
  }
  for (auto& t : threads) t.join();

  EXPECT_EQ(taken.load(), total);
  EXPECT_EQ(order_errors.load(), 0u);
  std::uint64_t bad = 0;
  for (auto& k : count) bad += k.load(std::memory_order_relaxed) != 1;
  EXPECT_EQ(bad, 0u) << "values taken other than exactly once";
  EXPECT_FALSE(r.nonempty());
  RecordProperty("sleeps", std::to_string(sleeps.load()));
  RecordProperty("wakes", std::to_string(wakes.load()));
}

}  // namespace
