// The DFDeques quota arithmetic (include/slaw/policy/quota.hpp).
#include "slaw/policy/quota.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>

using namespace slaw::policy;

namespace {

constexpr std::int64_t K = 50'000;
constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();

// The quota code of frame_allocator (src/core/frame_allocator.{hpp,cpp}) as it was written before the
// policy layer, on plain fields: the reference the value type must agree with.
struct allocator_quota {
  bool enabled = false;
  std::int64_t k = 0, base = 0, deferred = 0, reserved = 0, period_max = 0, deferred_unclaimed = 0;
  bool preempt = false;
  std::int64_t max_used = 0, overrun_bytes = 0;

  std::int64_t used(std::int64_t live) const { return live - base - deferred; }
  void enable(std::int64_t kk, std::int64_t live) {
    enabled = true;
    k = kk;
    new_period(live);
  }
  void disable() {
    enabled = false;
    preempt = false;
    deferred_unclaimed = 0;
  }
  void new_period(std::int64_t live) {
    base = live;
    deferred = 0;
    reserved = 0;
    period_max = live;
    preempt = false;
    deferred_unclaimed = 0;
  }
  void charge(std::int64_t bytes, std::int64_t live) {
    base -= bytes;
    max_used = std::max(max_used, used(live));
  }
  bool fits(std::int64_t bytes, std::int64_t live) const { return !enabled || used(live) + bytes <= k; }
  void reserve(std::int64_t bytes, std::int64_t live) {
    reserved += bytes;
    charge(bytes, live);
  }
  std::int64_t consume(std::int64_t bytes) {
    if (reserved == 0) return 0;
    std::int64_t take = std::min(bytes, reserved);
    reserved -= take;
    base += take;
    return take;
  }
  std::int64_t watermark_term() const { return enabled ? std::min(base + deferred + k, period_max) : big; }
  void crossed(std::int64_t n, bool frame, std::int64_t l) {  // the quota part of crossed_watermark
    if (!enabled) return;
    std::int64_t u = used(l);
    if (u > k) {
      if (frame) {
        deferred += n;
        deferred_unclaimed += n;
      } else {
        overrun_bytes += std::min(n, u - k);
      }
      preempt = true;
      u = used(l);
    }
    if (l > period_max) period_max = l;
    if (u > max_used) max_used = u;
  }
};

}  // namespace

TEST(Quota, DisabledFitsEverythingAndWatchesNothing) {
  quota q;
  EXPECT_FALSE(q.enabled());
  EXPECT_TRUE(q.fits(big, 0));
  EXPECT_EQ(q.watch_above(), big);
  quota::outcome o = q.after_allocation(1 << 20, memory_kind::user, 1 << 20);
  EXPECT_EQ(o.used, 0);
  EXPECT_EQ(o.overrun, 0);
  EXPECT_FALSE(q.preempt_pending());
}

TEST(Quota, APeriodStartsAtTheLiveBytesOfTheSteal) {
  quota q;
  q.enable(K, 123'456);
  EXPECT_EQ(q.used(123'456), 0);
  EXPECT_EQ(q.used(123'456 + 10), 10);
  EXPECT_EQ(q.used(123'456 - 10), -10);  // net: frees credit it
  EXPECT_EQ(q.watch_above(), 123'456);    // the period's highest live bytes so far
}

TEST(Quota, FitsUpToExactlyK) {
  quota q;
  q.enable(K, 1000);
  EXPECT_TRUE(q.fits(K, 1000));
  EXPECT_FALSE(q.fits(K + 1, 1000));
  EXPECT_TRUE(q.fits(K - 100, 1100));
  EXPECT_FALSE(q.fits(K - 99, 1100));
  EXPECT_TRUE(q.fits(K + 10, 990));  // 10 bytes freed since the steal
  EXPECT_TRUE(q.fits(0, 1000 + K));
  EXPECT_FALSE(q.fits(0, 1001 + K));
}

TEST(Quota, FitsDoesNotOverflow) {
  quota q;
  q.enable(std::int64_t{1} << 50, 0);
  EXPECT_FALSE(q.fits(big, 0));
  EXPECT_FALSE(q.fits(big, big / 2));
  EXPECT_TRUE(q.fits(std::int64_t{1} << 50, 0));
  q.enable(big, 0);  // K beyond any configuration
  EXPECT_TRUE(q.fits(big, 0));
  EXPECT_FALSE(q.fits(big, 1));
}

TEST(Quota, AllocationReachingKExactlyIsNoPreemption) {
  quota q;
  q.enable(K, 0);
  quota::outcome o = q.after_allocation(K, memory_kind::frame, K);
  EXPECT_EQ(o.used, K);
  EXPECT_FALSE(q.preempt_pending());
  EXPECT_EQ(q.watch_above(), K);  // min(base + K, period max K)
}

TEST(Quota, AFrameOverTheLimitIsDeferredToItsStarter) {
  quota q;
  q.enable(K, 0);
  quota::outcome o = q.after_allocation(300, memory_kind::frame, K + 1);
  EXPECT_TRUE(q.preempt_pending());
  EXPECT_EQ(o.used, K - 299);  // the frame is not this period's
  EXPECT_EQ(o.overrun, 0);
  EXPECT_EQ(q.used(K + 1), K - 299);
  EXPECT_EQ(q.take_deferred(), 300);
  EXPECT_EQ(q.take_deferred(), 0);  // handed over once
  EXPECT_EQ(q.used(K + 1), K - 299);  // still not this period's
  // The worker that steals the task starts a period and pays for the frame.
  quota thief;
  thief.enable(K, 5000);
  EXPECT_EQ(thief.charge(300, 5000), 300);
  EXPECT_EQ(thief.watch_above(), 5000);
}

TEST(Quota, UserMemoryOverTheLimitIsChargedAndItsExcessCounted) {
  quota q;
  q.enable(K, 0);
  quota::outcome o = q.after_allocation(1000, memory_kind::user, K + 400);
  EXPECT_TRUE(q.preempt_pending());
  EXPECT_EQ(o.used, K + 400);
  EXPECT_EQ(o.overrun, 400);
  quota::outcome o2 = q.after_allocation(1000, memory_kind::user, K + 1400);
  EXPECT_EQ(o2.overrun, 1000);  // at most the allocation itself
  EXPECT_EQ(q.take_deferred(), 0);
}

TEST(Quota, ANewPeriodForgetsEverything) {
  quota q;
  q.enable(K, 0);
  q.after_allocation(100, memory_kind::frame, K + 100);
  q.reserve(10, K + 100);
  q.new_period(K + 100);
  EXPECT_FALSE(q.preempt_pending());
  EXPECT_EQ(q.used(K + 100), 0);
  EXPECT_EQ(q.reserved(), 0);
  EXPECT_EQ(q.take_deferred(), 0);
  EXPECT_EQ(q.watch_above(), K + 100);
}

TEST(Quota, DisableDropsAPendingPreemption) {
  quota q;
  q.enable(K, 0);
  q.after_allocation(100, memory_kind::frame, K + 100);
  q.disable();
  EXPECT_FALSE(q.preempt_pending());
  EXPECT_EQ(q.take_deferred(), 0);
  EXPECT_TRUE(q.fits(big, 0));
}

TEST(Quota, AReservationIsChargedOnceAndConsumedByTheAllocationsThatFollow) {
  quota q;
  q.enable(K, 0);
  EXPECT_EQ(q.reserve(8000, 0), 8000);
  EXPECT_FALSE(q.fits(K - 7999, 0));
  EXPECT_EQ(q.consume_reservation(5000), 5000);
  EXPECT_EQ(q.used(5000), 8000);  // the allocation of 5000 is not charged again
  EXPECT_EQ(q.consume_reservation(5000), 3000);
  EXPECT_EQ(q.used(10'000), 8000 + 2000);  // the 2000 bytes beyond the reservation are charged
  EXPECT_EQ(q.consume_reservation(5000), 0);
  EXPECT_EQ(q.reserved(), 0);
}

TEST(Quota, ALargeReservationIsNotCharged) {
  quota q;
  q.enable(K, 0);
  q.reserve_large(3 * K);
  EXPECT_EQ(q.used(0), 0);
  EXPECT_EQ(q.consume_reservation(3 * K), 3 * K);
  EXPECT_EQ(q.used(3 * K), 0);  // the dummy tasks paid for it
}

TEST(Quota, WatchAboveIsTheLimitOrTheHighestLiveBytes) {
  quota q;
  q.enable(K, 1000);
  q.after_allocation(500, memory_kind::frame, 1500);
  EXPECT_EQ(q.watch_above(), 1500);
  q.after_allocation(K, memory_kind::frame, 1500 + K);  // over: deferred, the limit moves up with it
  EXPECT_EQ(q.watch_above(), 1500 + K);
  EXPECT_EQ(q.used(1500 + K), 500);
}

TEST(Quota, MirrorsTheAllocatorsQuotaOnRandomSequences) {
  std::mt19937_64 rng(5);
  for (std::int64_t k : {std::int64_t{1024}, std::int64_t{4096}, K}) {
    quota q;
    allocator_quota ref;
    std::int64_t live = 0, max_used = 0, overrun = 0;
    q.enable(k, live);
    ref.enable(k, live);
    for (int i = 0; i < 200'000; ++i) {
      const auto r = rng();
      const std::int64_t n = static_cast<std::int64_t>((r >> 8) % (k / 2)) + 1;
      switch (r % 16) {
        case 0:
          q.new_period(live);
          ref.new_period(live);
          break;
        case 1:
          max_used = std::max(max_used, q.charge(n, live));
          ref.charge(n, live);
          break;
        case 2:
          if (ref.fits(n, live)) {
            max_used = std::max(max_used, q.reserve(n, live));
            ref.reserve(n, live);
          }
          break;
        case 3:
          q.reserve_large(n);
          ref.reserved += n;
          break;
        case 4:
          ASSERT_EQ(q.take_deferred(), std::exchange(ref.deferred_unclaimed, 0));
          break;
        case 5:
        case 6:
        case 7:
          live -= std::min(live, n);  // a free
          break;
        default: {  // an allocation, through a reservation first as slaw::allocate does
          const bool frame = r % 3 != 0;
          if (!frame) {
            ASSERT_EQ(q.consume_reservation(n), ref.consume(n));
          }
          live += n;
          // The allocator reaches the quota code when live passes its watermark, which also has a
          // gauge term: sometimes below the quota's own term.
          if (live > q.watch_above() || (r >> 60) == 0) {
            quota::outcome o = q.after_allocation(n, frame ? memory_kind::frame : memory_kind::user, live);
            max_used = std::max(max_used, o.used);
            overrun += o.overrun;
            ref.crossed(n, frame, live);
          }
        }
      }
      ASSERT_EQ(q.used(live), ref.used(live)) << i;
      ASSERT_EQ(q.preempt_pending(), ref.preempt) << i;
      ASSERT_EQ(q.watch_above(), ref.watermark_term()) << i;
      ASSERT_EQ(q.reserved(), ref.reserved) << i;
      ASSERT_EQ(q.fits(n, live), ref.fits(n, live)) << i;
      ASSERT_EQ(max_used, ref.max_used) << i;
      ASSERT_EQ(overrun, ref.overrun_bytes) << i;
    }
  }
}

// ---- reserve(m): dummy tasks for m > K, and sizes no allocation can satisfy ----

namespace {
constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
reservation_plan plan(std::uint64_t m, std::int64_t k, std::uint64_t reservable = unlimited) {
  return plan_reservation(m, k, [=] { return reservable; });
}
}  // namespace

TEST(Reservation, UpToKWaitsForQuota) {
  EXPECT_EQ(plan(0, K), (reservation_plan{reservation_step::wait_for_quota, 0}));
  EXPECT_EQ(plan(1, K), (reservation_plan{reservation_step::wait_for_quota, 0}));
  EXPECT_EQ(plan(K, K), (reservation_plan{reservation_step::wait_for_quota, 0}));
}

TEST(Reservation, AboveKRunsFloorOfMOverKDummyTasks) {
  EXPECT_EQ(plan(K + 1, K), (reservation_plan{reservation_step::run_dummy_tasks, 1}));
  EXPECT_EQ(plan(2 * K - 1, K), (reservation_plan{reservation_step::run_dummy_tasks, 1}));
  EXPECT_EQ(plan(2 * K, K), (reservation_plan{reservation_step::run_dummy_tasks, 2}));
  EXPECT_EQ(plan(10 * K + 7, K), (reservation_plan{reservation_step::run_dummy_tasks, 10}));
  EXPECT_EQ(plan(5, 1), (reservation_plan{reservation_step::run_dummy_tasks, 5}));  // K = 1: one per byte
}

TEST(Reservation, ImpossibleSizesAreRefusedBeforeAnyDummy) {
  EXPECT_EQ(plan(1'000'001, K, 1'000'000), (reservation_plan{reservation_step::impossible, 0}));
  EXPECT_EQ(plan(1'000'000, K, 1'000'000), (reservation_plan{reservation_step::run_dummy_tasks, 20}));
  EXPECT_EQ(plan(unlimited, K, unlimited - 1), (reservation_plan{reservation_step::impossible, 0}));
  EXPECT_EQ(plan(unlimited, K), (reservation_plan{reservation_step::run_dummy_tasks, unlimited / K}));
}

TEST(Reservation, TheReservableSizeIsAskedOnlyAboveK) {
  int asked = 0;
  auto most = [&] {
    ++asked;
    return std::uint64_t{1} << 40;
  };
  plan_reservation(K, K, most);
  EXPECT_EQ(asked, 0);
  plan_reservation(K + 1, K, most);
  EXPECT_EQ(asked, 1);
}

TEST(Reservation, SmallerThanKIsNeverImpossible) {
  // reserve() refuses only sizes above K: one that fits a period is left to the allocation itself.
  EXPECT_EQ(plan(K, K, 0), (reservation_plan{reservation_step::wait_for_quota, 0}));
}
