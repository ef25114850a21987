// slaw::wait_for (include/slaw/external.hpp) in generated programs against an oracle computed from the
// program text. A program is a tree of tasks; each node, from its seed, adds a value, waits for external
// events (completed synchronously inside `start`, or later by a pool of completer threads in random
// order), calls or spawns (wf / hf / dyn) its children inside a finish scope, and may throw, before its
// scope ends (a scope left without end_finish: its thread waits in place for tasks that wait on
// events) or after. The oracle walks the same decisions sequentially. Every scheduler x policy x 1/2/8
// workers, plus places; live frames are counted; a hang aborts with every thread's stack.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../random/watchdog.hpp"
#include "../support/stress.hpp"
#include "slaw/external.hpp"
#include "slaw/slaw.hpp"

namespace {

using slaw_test::splitmix;

// What a node does, from its seed alone.
struct plan {
  long base = 0;
  int kids = 0;
  std::array<int, 3> how{};        // 0 call, 1 wf, 2 hf, 3 dyn
  std::array<int, 4> wait{};       // before child i (i == kids: after the last): 0 none, 1 sync, 2 pool
  std::array<long, 4> event{};     // the value each wait delivers
  bool throws_early = false;       // throws with its scope open (the scope waits in place)
  bool throws_late = false;        // throws after its scope ended
};

plan make_plan(std::uint64_t seed, int depth, int max_depth) {
  plan p;
  std::uint64_t r = splitmix(seed);
  auto next = [&r](unsigned n) {
    r = splitmix(r);
    return static_cast<int>(r % n);
  };
  p.base = static_cast<long>(seed % 1000);
  p.kids = depth < max_depth ? next(4) : 0;
  for (int i = 0; i < p.kids; ++i) p.how[i] = next(4);
  for (int i = 0; i <= p.kids; ++i) {
    const int w = next(6);
    p.wait[i] = w < 3 ? 0 : (w == 3 ? 1 : 2);
    p.event[i] = next(100000);
  }
  if (depth > 0) {
    const int t = next(24);
    p.throws_early = t == 0;
    p.throws_late = t == 1;
  }
  return p;
}

std::uint64_t child_seed(std::uint64_t seed, int i) { return splitmix(seed * 4 + static_cast<std::uint64_t>(i) + 1); }

constexpr long call_failed = 7;
constexpr long children_failed = 1000003;

// The oracle: the node's value, or nothing if it throws.
std::optional<long> expected(std::uint64_t seed, int depth, int max_depth) {
  const plan p = make_plan(seed, depth, max_depth);
  long v = p.base;
  bool child_threw = false;
  for (int i = 0; i <= p.kids; ++i) {
    if (p.wait[i]) v += p.event[i];
    if (i == p.kids) break;
    std::optional<long> c = expected(child_seed(seed, i), depth + 1, max_depth);
    if (c) v += *c;
    else if (p.how[i] == 0) v += call_failed;
    else child_threw = true;
  }
  if (p.throws_early || p.throws_late) return std::nullopt;
  if (child_threw) v += children_failed;
  return v;
}

struct node_error : std::runtime_error {
  node_error() : std::runtime_error("node") {}
};

// Threads outside the runtime that complete waits in random order, after random short delays.
class completer_pool {
 public:
  explicit completer_pool(unsigned threads) {
    for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this, t] { loop(t); });
  }
  ~completer_pool() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void post(slaw::completion c, long* out, long value) {
    {
      std::lock_guard<std::mutex> g(m_);
      q_.push_back({c, out, value});
    }
    cv_.notify_one();
  }

 private:
  struct item {
    slaw::completion c;
    long* out;
    long value;
  };
  void loop(unsigned t) {
    slaw_test::xorshift rng(t + 1);
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      cv_.wait(lk, [this] { return stop_ || !q_.empty(); });
      if (q_.empty()) return;
      const std::size_t i = rng.next() % q_.size();
      item it = q_[i];
      q_[i] = q_.back();
      q_.pop_back();
      lk.unlock();
      if (rng.next() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng.next() % 50));
      *it.out = it.value;
      it.c.complete();
      lk.lock();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<item> q_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

std::atomic<long> live_frames{0};
struct tracked {
  tracked() { live_frames.fetch_add(1, std::memory_order_relaxed); }
  ~tracked() { live_frames.fetch_sub(1, std::memory_order_relaxed); }
};

struct ctx {
  completer_pool* pool;
  int max_depth;
};

slaw::task<long> node(std::uint64_t seed, int depth, const ctx* c) {
  tracked t;
  const plan p = make_plan(seed, depth, c->max_depth);
  long v = p.base;
  std::array<long, 3> slot{};
  std::array<bool, 3> call_threw{};
  auto scope = co_await slaw::start_finish();
  for (int i = 0; i <= p.kids; ++i) {
    if (p.wait[i]) {
      long got = -1;
      const long value = p.event[i];
      if (p.wait[i] == 1) {
        co_await slaw::wait_for([&](slaw::completion k) {
          got = value;
          k.complete();
        });
      } else {
        co_await slaw::wait_for([&](slaw::completion k) { c->pool->post(k, &got, value); });
      }
      v += got;
    }
    if (i == p.kids) break;
    const std::uint64_t cs = child_seed(seed, i);
    switch (p.how[i]) {
      case 0:
        try {
          slot[i] = co_await node(cs, depth + 1, c);
        } catch (const node_error&) {
          call_threw[i] = true;
        }
        break;
      case 1: co_await slaw::async(slaw::wf, &slot[i], node, cs, depth + 1, c); break;
      case 2: co_await slaw::async(slaw::hf, &slot[i], node, cs, depth + 1, c); break;
      default: co_await slaw::async(slaw::dyn, &slot[i], node, cs, depth + 1, c); break;
    }
  }
  if (p.throws_early) throw node_error();  // the scope's destructor waits in place for the children
  bool child_threw = false;
  try {
    co_await slaw::end_finish(scope);
  } catch (const node_error&) {
    child_threw = true;
  }
  if (p.throws_late) throw node_error();
  for (int i = 0; i < p.kids; ++i) v += call_threw[i] ? call_failed : slot[i];
  if (child_threw) v += children_failed;
  co_return v;
}

struct setup {
  const char* name;
  slaw::scheduler_kind scheduler;
  slaw::policy::mode policy;
  unsigned workers;
  const char* places;
};

std::string label(const ::testing::TestParamInfo<setup>& i) { return i.param.name; }

std::vector<setup> setups() {
  std::vector<setup> v;
  static std::vector<std::string> names;
  names.reserve(64);
  for (auto s : {slaw::scheduler_kind::ws, slaw::scheduler_kind::dfdeques})
    for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
      for (unsigned w : {1u, 2u, 8u}) {
        if (s == slaw::scheduler_kind::dfdeques && m != slaw::policy::mode::wf) continue;  // work-first by definition
        names.push_back(std::string(s == slaw::scheduler_kind::ws ? "ws_" : "dfd_") + slaw::to_string(m) + "_" +
                        std::to_string(w));
        v.push_back({names.back().c_str(), s, m, w, ""});
      }
  v.push_back({"ws_dyn_8_places", slaw::scheduler_kind::ws, slaw::policy::mode::dyn, 8, "cores"});
  return v;
}

class ExternalWaits : public ::testing::TestWithParam<setup> {};

TEST_P(ExternalWaits, MatchTheOracle) {
  const setup& s = GetParam();
  slaw::config cfg;
  cfg.workers = s.workers;
  cfg.policy = s.policy;
  cfg.scheduler = s.scheduler;
  cfg.places = s.places;
  if (s.scheduler == slaw::scheduler_kind::dfdeques) cfg.quota = 4096;  // give-ups too
  slaw::runtime rt{cfg};
  completer_pool pool(2);
  const int programs = static_cast<int>(slaw_test::scaled(300, 10));
  std::uint64_t resumed_off_workers = 0;
  for (int k = 0; k < programs; ++k) {
    const std::uint64_t seed = splitmix(static_cast<std::uint64_t>(k) * 7919 + s.workers);
    const ctx c{&pool, 2 + k % 4};
    const std::optional<long> want = expected(seed, 0, c.max_depth);
    rp::watchdog::instance().arm(std::string(s.name) + " program " + std::to_string(k) + " seed " + std::to_string(seed),
                                 rp::scaled_limit(30));
    std::optional<long> got;
    try {
      got = rt.run(node(seed, 0, &c));
    } catch (const node_error&) {
    }
    rp::watchdog::instance().disarm();
    ASSERT_EQ(want, got) << s.name << " program " << k << " seed " << seed;
    ASSERT_EQ(live_frames.load(), 0) << "frames left alive: program " << k;
  }
  resumed_off_workers = rt.stats().total.external_resumes;
  // Pool completions that came after the frame suspended resume through the queue: with ~1/3 of the
  // waits on the pool, some must have.
  EXPECT_GT(resumed_off_workers, 0u) << s.name;
}

INSTANTIATE_TEST_SUITE_P(All, ExternalWaits, ::testing::ValuesIn(setups()), label);

slaw::config workers(unsigned n) {
  slaw::config c;
  c.workers = n;
  return c;
}

// A completion is a plain value: a task of another runtime may complete it.
TEST(ExternalWait, ATaskOfAnotherRuntimeMayComplete) {
  slaw::runtime a{workers(2)}, b{workers(2)};
  std::mutex m;
  std::optional<slaw::completion> handed;
  long got = 0;
  std::thread waiting([&] {
    got = a.run([&]() -> slaw::task<long> {
      long v = 0;
      co_await slaw::wait_for([&](slaw::completion k) {
        std::lock_guard<std::mutex> g(m);
        handed = k;
      });
      v = 42;
      co_return v;
    }());
  });
  b.run([&]() -> slaw::task<> {
    for (;;) {
      {
        std::lock_guard<std::mutex> g(m);
        if (handed) break;
      }
      std::this_thread::yield();
    }
    handed->complete();
    co_return;
  }());
  waiting.join();
  EXPECT_EQ(got, 42);
}

// `start` throwing before it hands the completion on: the co_await throws, nothing waits, and the task
// goes on (its finish scopes too).
TEST(ExternalWait, AStartThatThrowsLeavesTheAwait) {
  slaw::runtime rt{workers(2)};
  const long r = rt.run([]() -> slaw::task<long> {
    long child = 0, v = 0;
    auto s = co_await slaw::start_finish();
    co_await slaw::async([&child]() -> slaw::task<> {
      child = 1;
      co_return;
    });
    try {
      co_await slaw::wait_for([](slaw::completion) { throw std::runtime_error("cannot start"); });
    } catch (const std::runtime_error&) {
      v = 10;
    }
    co_await slaw::end_finish(s);
    co_return v + child;
  }());
  EXPECT_EQ(r, 11);
}

}  // namespace
