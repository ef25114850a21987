// DFDeques' list R as an ordered list of deque ids (include/slaw/policy/deque_order.hpp).
#include "slaw/policy/deque_order.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

using namespace slaw::policy;

namespace {

using order = deque_order<int>;
using slot = deque_slot<int>;
constexpr deque_kind owned = deque_kind::owned, ownerless = deque_kind::ownerless, ph = deque_kind::placeholder;

std::vector<slot> contents(const order& r) { return {r.begin(), r.end()}; }

// R = [owned 0][ownerless 100 (2 tasks)][owned 1][ownerless 101 (1 task)], in that order.
struct four {
  order r{4};
  order::position w0, a, w1, b;
  four() {
    w0 = r.enter_root(r.end(), 0);
    auto tmp = r.enter_root(r.end(), 8);
    a = r.give_up(tmp, 100, 2);
    w1 = r.enter_root(r.end(), 1);
    tmp = r.enter_root(r.end(), 9);
    b = r.give_up(tmp, 101, 1);
  }
};

}  // namespace

TEST(DequeOrder, EmptyRHasNoVictim) {
  order r(4);
  EXPECT_EQ(r.deques(), 0u);
  EXPECT_EQ(r.pick_victim(0), r.end());
  EXPECT_EQ(r.pick_victim(3), r.end());
  EXPECT_EQ(r.pick_victim(7, true), r.end());
  EXPECT_EQ(r.nth_deque(0), r.end());
}

TEST(DequeOrder, NoWorkersNoVictim) {
  order r(0);
  r.enter_root(r.end(), 0);
  EXPECT_EQ(r.pick_victim(5), r.end());  // no division by zero
  EXPECT_NE(r.pick_victim(5, true), r.end());
}

TEST(DequeOrder, OneWorkerAlwaysPicksTheLeftmostDeque) {
  order r(1);
  auto w = r.enter_root(r.end(), 0);
  r.give_up(w, 100, 3);
  r.enter_root(r.end(), 1);
  for (std::uint64_t x : {0ull, 1ull, 2ull, ~0ull}) EXPECT_EQ(r.pick_victim(x)->id, 100);
}

TEST(DequeOrder, ThePickIsUniformAmongThePLeftmost) {
  four f;
  EXPECT_EQ(f.r.pick_victim(0)->id, 0);
  EXPECT_EQ(f.r.pick_victim(1)->id, 100);
  EXPECT_EQ(f.r.pick_victim(2)->id, 1);
  EXPECT_EQ(f.r.pick_victim(3)->id, 101);
  EXPECT_EQ(f.r.pick_victim(4 + 2)->id, 1);  // random % p
  order r(8);  // p larger than R: the pick is among the deques present; by Fig. 5's positions an index
  r.enter_root(r.end(), 0);  // past the end fails
  r.enter_root(r.end(), 1);
  for (std::uint64_t x = 0; x < 8; ++x) EXPECT_EQ(r.pick_victim(x)->id, static_cast<int>(x % 2));
  EXPECT_EQ(r.pick_victim(0, false, true)->id, 0);
  EXPECT_EQ(r.pick_victim(1, false, true)->id, 1);
  for (std::uint64_t x = 2; x < 8; ++x) EXPECT_EQ(r.pick_victim(x, false, true), r.end());
}

TEST(DequeOrder, AWaitingThiefSamplesEveryDeque) {
  order r(2);
  for (int w = 0; w < 5; ++w) r.enter_root(r.end(), w);
  EXPECT_EQ(r.pick_victim(4)->id, 0);        // 4 % p
  EXPECT_EQ(r.pick_victim(4, true)->id, 4);  // 4 % deques
  EXPECT_EQ(r.pick_victim(5, true)->id, 0);
}

TEST(DequeOrder, PlaceholdersAreNeverPickedNorCounted) {
  order r(4);
  auto w0 = r.enter_root(r.end(), 0);
  r.begin_wait(w0, {100, 0}, 200, {101, 0});  // R = [ph 200]
  auto w1 = r.enter_root(r.end(), 1);
  r.begin_wait(w1, {102, 0}, 201, {103, 0});  // R = [ph 200][ph 201]: all placeholders
  EXPECT_EQ(r.deques(), 0u);
  EXPECT_EQ(r.placeholders(), 2u);
  for (std::uint64_t x = 0; x < 4; ++x) {
    EXPECT_EQ(r.pick_victim(x), r.end());
    EXPECT_EQ(r.pick_victim(x, true), r.end());
  }
  auto w2 = r.enter_root(r.end(), 2);
  r.begin_wait(r.end(), {0, 0}, 202, {0, 0});  // owning none: at the right end
  r.enter_root(r.end(), 3);                     // R = [ph][ph][2][ph][3]
  EXPECT_EQ(r.nth_deque(0), w2);
  EXPECT_EQ(r.nth_deque(1)->id, 3);
  EXPECT_EQ(r.pick_victim(1)->id, 3);
  EXPECT_EQ(r.pick_victim(2), w2);             // 2 % 2 deques present
  EXPECT_EQ(r.pick_victim(2, false, true), r.end());  // Fig. 5's positions: none at index 2
  EXPECT_EQ(r.pick_victim(3, true)->id, 3);  // 3 % 2 deques
}

TEST(DequeOrder, AStealPutsTheThiefRightOfAnOwnedVictim) {
  four f;
  auto t = f.r.take_bottom(f.w0, {7, owned});
  EXPECT_EQ(contents(f.r),
            (std::vector<slot>{{0, owned}, {7, owned}, {100, ownerless, 2}, {1, owned}, {101, ownerless, 1}}));
  EXPECT_EQ(t->id, 7);
  EXPECT_EQ(f.r.tally().deletions, 0u);
}

TEST(DequeOrder, AStealFromAnOwnerlessDequeTakesOneOfItsTasks) {
  four f;
  f.r.take_bottom(f.a, {7, owned});
  EXPECT_EQ(contents(f.r),
            (std::vector<slot>{{0, owned}, {100, ownerless, 1}, {7, owned}, {1, owned}, {101, ownerless, 1}}));
  EXPECT_EQ(f.r.ownerless_tasks(), 2u);
}

// A capped batch (deque_list B4): the thief takes the middle of ownerless a; a keeps its top in place,
// and a's lowest tasks go right of the thief's deque as a new ownerless deque.
TEST(DequeOrder, TheRestOfACappedBatchGoesRightOfTheThief) {
  four f;
  auto t = f.r.take_bottom(f.a, {7, owned});
  auto rest = f.r.put_right_of(t, 102, 2);
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned}, {100, ownerless, 1}, {7, owned}, {102, ownerless, 2},
                                              {1, owned}, {101, ownerless, 1}}));
  EXPECT_EQ(rest->id, 102);
  EXPECT_EQ(f.r.ownerless_tasks(), 4u);
  EXPECT_EQ(f.r.nth_deque(3), rest);
  EXPECT_EQ(f.r.tally().deletions, 0u);
}

TEST(DequeOrder, TheLastTaskOfAnOwnerlessDequeDeletesItAndTheThiefTakesItsPlace) {
  four f;
  f.r.take_bottom(f.b, {7, owned});  // the rightmost: the thief goes to the right end
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned}, {100, ownerless, 2}, {1, owned}, {7, owned}}));
  EXPECT_EQ(f.r.tally().deletions, 1u);
  f.r.take_bottom(f.a, {8, owned});
  auto t = f.r.take_bottom(f.a, {9, owned});  // a emptied: 9 in its place, left of 8
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned}, {9, owned}, {8, owned}, {1, owned}, {7, owned}}));
  EXPECT_EQ(t->id, 9);
  EXPECT_EQ(f.r.ownerless_tasks(), 0u);
  EXPECT_EQ(f.r.tally().deletions, 2u);
}

TEST(DequeOrder, TheLeftmostOwnerlessDequeEmptiedLeavesTheThiefAtTheLeftEnd) {
  order r(2);
  auto w = r.enter_root(r.end(), 0);
  auto a = r.give_up(w, 100, 1);
  r.enter_root(r.end(), 1);
  r.take_bottom(a, {5, owned});
  EXPECT_EQ(contents(r), (std::vector<slot>{{5, owned}, {1, owned}}));
}

TEST(DequeOrder, AWaitingThiefLeavesATaskOutsideItsFinishWhereItsDequeWouldHaveGone) {
  four f;
  f.r.take_bottom(f.w1, {300, ownerless, 1});
  f.r.take_bottom(f.b, {301, ownerless, 1});  // from an ownerless deque emptied: in its place
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned},
                                              {100, ownerless, 2},
                                              {1, owned},
                                              {300, ownerless, 1},
                                              {301, ownerless, 1}}));
  EXPECT_EQ(f.r.ownerless_tasks(), 4u);
}

TEST(DequeOrder, AThiefsEmptyDequeLeavesRFirst) {
  four f;
  f.r.remove(f.w1);
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned}, {100, ownerless, 2}, {101, ownerless, 1}}));
  EXPECT_EQ(f.r.tally().deletions, 1u);
  EXPECT_EQ(f.r.pick_victim(2)->id, 101);  // the pick is made without it
}

TEST(DequeOrder, AGiveUpKeepsTheDequeInPlaceWithoutOwner) {
  four f;
  auto d = f.r.give_up(f.w1, 102, 3);
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned}, {100, ownerless, 2}, {102, ownerless, 3}, {101, ownerless, 1}}));
  EXPECT_EQ(d->id, 102);
  EXPECT_EQ(f.r.ownerless_tasks(), 6u);
  EXPECT_EQ(f.r.tally().deletions, 0u);
  EXPECT_EQ(f.r.give_up(f.w0, 103, 0), f.r.end());  // nothing to keep: deleted
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{100, ownerless, 2}, {102, ownerless, 3}, {101, ownerless, 1}}));
  EXPECT_EQ(f.r.tally().deletions, 1u);
}

TEST(DequeOrder, ARootGoesToTheRightEnd) {
  four f;
  auto w = f.r.enter_root(f.w0, 0);  // its old deque leaves first
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{100, ownerless, 2}, {1, owned}, {101, ownerless, 1}, {0, owned}}));
  EXPECT_EQ(w->id, 0);
  EXPECT_EQ(f.r.tally().deletions, 1u);
}

TEST(DequeOrder, AWaitSplitsTheDequeAroundAPlaceholder) {
  four f;
  auto p = f.r.begin_wait(f.w1, {110, 2}, 200, {111, 4});
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{0, owned},
                                              {100, ownerless, 2},
                                              {110, ownerless, 2},
                                              {200, ph},
                                              {111, ownerless, 4},
                                              {101, ownerless, 1}}));
  EXPECT_EQ(p->id, 200);
  EXPECT_EQ(f.r.deques(), 5u);
  EXPECT_EQ(f.r.ownerless_tasks(), 9u);
  EXPECT_EQ(f.r.tally().deletions, 0u);  // not a deletion: the deque's place is held
  EXPECT_EQ(f.r.tally().max_deques, 5u);
}

TEST(DequeOrder, EmptyPartsOfAWaitAreLeftOut) {
  four f;
  f.r.begin_wait(f.w1, {110, 0}, 200, {111, 1});
  f.r.begin_wait(f.w0, {112, 1}, 201, {113, 0});
  EXPECT_EQ(contents(f.r), (std::vector<slot>{{112, ownerless, 1},
                                              {201, ph},
                                              {100, ownerless, 2},
                                              {200, ph},
                                              {111, ownerless, 1},
                                              {101, ownerless, 1}}));
}

TEST(DequeOrder, AWaitsEndGivesTheWorkerThePlaceholdersPlace) {
  four f;
  auto p = f.r.begin_wait(f.w1, {110, 1}, 200, {111, 1});
  auto mine = f.r.take_bottom(f.b, {1, owned});  // meanwhile it stole the rightmost task
  auto back = f.r.end_wait(p, mine, 1);
  EXPECT_EQ(contents(f.r),
            (std::vector<slot>{{0, owned}, {100, ownerless, 2}, {110, ownerless, 1}, {1, owned}, {111, ownerless, 1}}));
  EXPECT_EQ(back->id, 1);
  EXPECT_EQ(f.r.placeholders(), 0u);
  EXPECT_EQ(f.r.tally().deletions, 2u);  // b emptied, then the deque it owned meanwhile
}

TEST(DequeOrder, AWaitsEndNextToTheWorkersOwnDeque) {
  order r(2);
  auto w = r.enter_root(r.end(), 0);
  auto p = r.begin_wait(w, {100, 1}, 200, {101, 0});  // [100][ph]
  auto mine = r.take_bottom(r.nth_deque(0), {0, owned});  // 100 emptied: [0][ph]
  auto back = r.end_wait(p, mine, 0);
  EXPECT_EQ(contents(r), (std::vector<slot>{{0, owned}}));
  EXPECT_EQ(back, r.begin());
}

TEST(DequeOrder, CountersMirrorTheRuntimes) {
  order r(4);
  auto w0 = r.enter_root(r.end(), 0);
  auto w1 = r.enter_root(r.end(), 1);
  EXPECT_EQ(r.tally().max_deques, 2u);
  r.remove(w1);
  EXPECT_EQ(r.tally().max_deques, 2u);
  EXPECT_EQ(r.tally().deletions, 1u);
  r.reset_counters();
  EXPECT_EQ(r.tally().deletions, 0u);
  EXPECT_EQ(r.tally().max_deques, 1u);
  r.give_up(w0, 100, 1);
  EXPECT_EQ(r.tally().max_deques, 1u);
}

// K = infinity: no give-ups, so R never holds more than p deques and DFDeques is work stealing.
TEST(DequeOrder, WithoutGiveUpsAtMostPDeques) {
  std::mt19937_64 rng(1);
  for (std::size_t p : {1u, 2u, 3u, 8u}) {
    order r(p);
    std::vector<std::optional<order::position>> own(p);
    own[0] = r.enter_root(r.end(), 0);
    for (int i = 0; i < 10000; ++i) {
      const int w = static_cast<int>(rng() % p);
      if (own[w]) r.remove(*own[w]);
      own[w].reset();
      auto v = r.pick_victim(rng());
      if (v != r.end()) own[w] = r.take_bottom(v, {w, owned});
      ASSERT_LE(r.deques(), p);
    }
    EXPECT_LE(r.tally().max_deques, p);
  }
}

// ---- the runtime's deque_list (src/sched/dfdeques/deque_list.cpp), transcribed over a vector: the reference ----

namespace {

struct reference_list {
  struct node {
    int id;
    deque_kind kind;
    std::size_t tasks;
  };
  std::size_t p;
  std::vector<node> r;
  std::size_t placeholders = 0;
  std::uint64_t deletions = 0;
  std::size_t max_deques = 0;

  long index_of(int id) const {
    for (std::size_t i = 0; i < r.size(); ++i)
      if (r[i].id == id) return static_cast<long>(i);
    return -1;
  }
  void link_after(long pos, node n) {  // pos == -1: at the left end
    r.insert(r.begin() + (pos + 1), n);
    if (r.size() - placeholders > max_deques) max_deques = r.size() - placeholders;
  }
  void unlink(long i) {
    r.erase(r.begin() + i);
    ++deletions;
  }
  void remove_own(int w) {
    long i = index_of(w);
    if (i >= 0) unlink(i);
  }
  long nth_deque(std::size_t i) const {
    for (std::size_t j = 0; j < r.size(); ++j) {
      if (r[j].kind == deque_kind::placeholder) continue;
      if (i-- == 0) return static_cast<long>(j);
    }
    return -1;
  }
  // One steal attempt; `owned_has_task`: whether an owned victim yields a task; `leave`: a waiting
  // thief leaves the task in R as the ownerless deque `leave_id`. Returns whether the thief got a deque.
  bool steal(int w, std::uint64_t random, bool waiting, bool owned_has_task, bool leave, int leave_id) {
    remove_own(w);
    const std::size_t deques = r.size() - placeholders;
    const std::size_t range = waiting ? deques : std::min(p, deques);
    long s = range ? nth_deque(static_cast<std::size_t>(random % range)) : -1;
    if (s < 0) return false;
    long insert_after = s;
    if (r[s].kind == deque_kind::owned) {
      if (!owned_has_task) return false;
    } else if (--r[s].tasks == 0) {
      insert_after = s - 1;
      unlink(s);
    }
    if (leave) {
      link_after(insert_after, {leave_id, deque_kind::ownerless, 1});
      return false;
    }
    link_after(insert_after, {w, deque_kind::owned, 0});
    return true;
  }
  void enter_root(int w) {
    remove_own(w);
    link_after(static_cast<long>(r.size()) - 1, {w, deque_kind::owned, 0});
  }
  void give_up(int w, int id, std::size_t tasks) {
    long i = index_of(w);
    unlink(i);
    if (tasks) {
      link_after(i - 1, {id, deque_kind::ownerless, tasks});
      --deletions;
    }
  }
  void begin_wait(int w, int in_id, std::size_t in_tasks, int ph_id, int out_id, std::size_t out_tasks) {
    ++placeholders;
    long i = index_of(w);
    if (i < 0) {
      link_after(static_cast<long>(r.size()) - 1, {ph_id, deque_kind::placeholder, 0});
      return;
    }
    long pos = i - 1;
    unlink(i);
    --deletions;
    if (in_tasks) link_after(pos++, {in_id, deque_kind::ownerless, in_tasks});
    link_after(pos, {ph_id, deque_kind::placeholder, 0});
    if (out_tasks) link_after(pos + 1, {out_id, deque_kind::ownerless, out_tasks});
  }
  void end_wait(int w, int ph_id) {
    remove_own(w);
    long at = index_of(ph_id);
    link_after(at - 1, {w, deque_kind::owned, 0});
    unlink(at + 1);
    --deletions;
    --placeholders;
  }
};

}  // namespace

TEST(DequeOrder, SameDecisionsAsTheRuntimesListOnRandomRuns) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const std::size_t p = 1 + seed % 6;
    order r(p);
    reference_list ref{p, {}};
    std::vector<std::optional<order::position>> own(p);
    std::vector<std::vector<order::position>> waits(p);  // each worker's placeholders, innermost last
    std::vector<std::vector<int>> wait_ids(p);
    int next_id = 1000;
    own[0] = r.enter_root(r.end(), 0);
    ref.enter_root(0);
    for (int i = 0; i < 4000; ++i) {
      const int w = static_cast<int>(rng() % p);
      const auto x = rng();
      switch (x % 8) {
        case 0:
        case 1:
        case 2: {  // a steal attempt (a waiting worker's is a waiting thief's)
          const bool waiting = !waits[w].empty();
          const std::uint64_t random = rng();
          const bool owned_has_task = (x >> 8) % 4 != 0;
          const bool leave = waiting && (x >> 12) % 3 == 0;
          const int leave_id = next_id++;
          if (own[w]) r.remove(*own[w]);
          own[w].reset();
          auto v = r.pick_victim(random, waiting);
          if (v != r.end() && (v->kind == ownerless || owned_has_task)) {
            auto t = r.take_bottom(v, leave ? slot{leave_id, ownerless, 1} : slot{w, owned});
            if (!leave) own[w] = t;
          }
          ref.steal(w, random, waiting, owned_has_task, leave, leave_id);
          break;
        }
        case 3:
          own[w] = r.enter_root(own[w].value_or(r.end()), w);
          ref.enter_root(w);
          break;
        case 4:
          if (own[w]) {
            const std::size_t tasks = (x >> 8) % 4;
            r.give_up(*own[w], next_id, tasks);
            ref.give_up(w, next_id++, tasks);
            own[w].reset();
          }
          break;
        case 5:
        case 6: {
          if (waits[w].size() >= 3) break;
          const std::size_t in = (x >> 8) % 3, out = (x >> 12) % 3;
          const int in_id = next_id++, ph_id = next_id++, out_id = next_id++;
          waits[w].push_back(r.begin_wait(own[w].value_or(r.end()), {in_id, in}, ph_id, {out_id, out}));
          wait_ids[w].push_back(ph_id);
          ref.begin_wait(w, in_id, in, ph_id, out_id, out);
          own[w].reset();
          break;
        }
        case 7:
          if (!waits[w].empty()) {
            own[w] = r.end_wait(waits[w].back(), own[w].value_or(r.end()), w);
            ref.end_wait(w, wait_ids[w].back());
            waits[w].pop_back();
            wait_ids[w].pop_back();
          }
          break;
      }
      std::vector<slot> want;
      std::size_t tasks = 0;
      for (const auto& n : ref.r) {
        want.push_back({n.id, n.kind, n.tasks});
        if (n.kind == ownerless) tasks += n.tasks;
      }
      ASSERT_EQ(contents(r), want) << "seed " << seed << " step " << i;
      ASSERT_EQ(r.placeholders(), ref.placeholders);
      ASSERT_EQ(r.ownerless_tasks(), tasks);
      ASSERT_EQ(r.tally().deletions, ref.deletions);
      ASSERT_EQ(r.tally().max_deques, ref.max_deques);
      for (std::size_t u = 0; u < p; ++u)
        if (own[u]) {
          ASSERT_EQ((*own[u])->id, static_cast<int>(u));
        }
    }
  }
}
