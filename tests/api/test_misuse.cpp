// Misuse and bad input (docs/guide/programming.md § Misuse, in one list): a clear error, never a
// crash, a hang or silent corruption.
// Also the identities the counters obey (docs/guide/counters.md) and nested runs of two runtimes.
//
// Death tests run in a re-executed child ("threadsafe" style): a fresh process, so process-wide state
// (the memory gauge, resource limits) starts clean. Where the bug being guarded against is a hang, the
// child arms alarm() so that the old behaviour fails the test instead of blocking it.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "slaw/slaw.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLAW_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLAW_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SLAW_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLAW_TEST_TSAN 1
#endif
#endif

namespace {

slaw::config cfg_of(unsigned workers, slaw::policy::mode m = slaw::policy::mode::dyn) {
  slaw::config c;
  c.workers = workers;
  c.policy = m;
  return c;
}

slaw::config dfd_cfg(unsigned workers, std::uint64_t k) {
  slaw::config c;
  c.workers = workers;
  c.scheduler = slaw::scheduler_kind::dfdeques;
  c.quota = k;
  return c;
}

slaw::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

void threadsafe_death_tests() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }

// This process's virtual size in bytes (for RLIMIT_AS just above it).
[[maybe_unused]] std::size_t vm_bytes() {
  std::ifstream f("/proc/self/statm");
  std::size_t pages = 0;
  f >> pages;
  return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

[[maybe_unused]] void limit_address_space(std::size_t bytes) {
  rlimit rl{};
  getrlimit(RLIMIT_AS, &rl);
  rl.rlim_cur = bytes;  // soft limit only: it can be raised again
  if (setrlimit(RLIMIT_AS, &rl) != 0) std::perror("setrlimit");
}

[[maybe_unused]] void unlimit_address_space() {
  rlimit rl{};
  getrlimit(RLIMIT_AS, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_AS, &rl);
}

}  // namespace

// ---------------------------------------------------------------- allocation sizes (§4.1, §4.2)

// A negative length cast to size_t used to wrap in the chunk-size rounding and return a 64 KiB block.
TEST(Misuse, AllocateOfAHugeSizeThrowsBadAlloc) {
  const std::size_t sizes[] = {SIZE_MAX,
                               SIZE_MAX - 15,
                               static_cast<std::size_t>(-100),
                               SIZE_MAX - 64 * 1024,
                               std::size_t{1} << 63,
                               (std::size_t{1} << 62) - 100};
  for (std::size_t n : sizes) EXPECT_THROW(slaw::allocate(n), std::bad_alloc) << n;  // not a worker
  slaw::runtime rt(cfg_of(1));
  rt.reset_stats();
  rt.run([&]() -> slaw::task<> {  // a worker's allocator
    for (std::size_t n : sizes) EXPECT_THROW(slaw::allocate(n), std::bad_alloc) << n;
    void* p = slaw::allocate(100000);  // the allocator still works
    slaw::deallocate(p, 100000);
    co_return;
  }());
  slaw::worker_stats w = rt.stats().workers[0];
  EXPECT_EQ(w.user_bytes_live, 0);
  EXPECT_EQ(w.user_bytes_total, 100000u);
}

// A frame that cannot be had is a std::bad_alloc thrown by the call that makes it, caught like any other
// exception, and the runtime goes on: on a thread that is not a worker (small frames made in a plain
// loop, where clang inlines their ramps and so the allocation's slow call), and on workers (a recursion
// of 1 MiB frames: a volatile local lives across the call), under an address-space limit. The slow call
// runs in clang's preserve_most convention, which no exception may unwind through
// (include/slaw/detail/codegen.hpp): the allocation fails with a null pointer and the ramp throws.
namespace {
slaw::task<int> tiny(int i) { co_return i; }

// Makes frames until one cannot be had; returns how many were made, or -1 if the values kept across
// the allocations did not survive the throw.
[[gnu::noinline]] long make_frames_until_bad_alloc(std::vector<slaw::task<int>>& held, const volatile long& a,
                                                   const volatile long& b) {
  const long s0 = a * 3, s1 = b * 7 - a, s2 = a ^ b;
  long i = 0;
  try {
    for (;; ++i) held.push_back(tiny(static_cast<int>((i ^ s0) + s1 * (i & 7) + s2)));
  } catch (const std::bad_alloc&) {
    const long a2 = a, b2 = b;
    return s0 == a2 * 3 && s1 == b2 * 7 - a2 && s2 == (a2 ^ b2) ? i : -1;
  }
}

struct deep_fn {
  slaw::task<long> operator()(int k) const;
};
constexpr deep_fn deep{};
slaw::task<long> deep_fn::operator()(int k) const {
  volatile char pad[std::size_t{1} << 20];
  pad[static_cast<std::size_t>(k) * 4099 % sizeof pad] = static_cast<char>(k);
  long below = 0;
  try {
    below = co_await deep(k + 1);
  } catch (const std::bad_alloc&) {
    co_return k;  // the deepest frame that could be had
  }
  co_return pad[static_cast<std::size_t>(k) * 4099 % sizeof pad] == static_cast<char>(k) ? below : -1;
}

[[noreturn]] void frames_that_cannot_be_had() {
#ifndef SLAW_TEST_SANITIZED
  std::vector<slaw::task<int>> held;
  held.reserve(std::size_t{1} << 21);  // the vector's own growth must not be what fails
  limit_address_space(vm_bytes() + 24 * 1024 * 1024);
  const volatile long a = 5, b = 11;
  const long made = make_frames_until_bad_alloc(held, a, b);
  held.clear();
  unlimit_address_space();
  std::fprintf(stderr, "frames made on a plain thread: %ld\n", made);
  if (made < 1000) std::exit(1);
  for (unsigned workers : {1u, 2u}) {
    slaw::runtime rt(cfg_of(workers));
    limit_address_space(vm_bytes() + 96 * 1024 * 1024);
    const long depth = rt.run(deep(0));
    unlimit_address_space();
    std::fprintf(stderr, "deepest frame on %u workers: %ld\n", workers, depth);
    if (depth < 10) std::exit(2);
    const bool all_back = workers > 1 || rt.stats().workers[0].frame_bytes_live == 0;  // others drain later
    if (rt.run(fib(15)) != 610 || !all_back) std::exit(3);
  }
  std::exit(0);
#else
  std::exit(0);
#endif
}
}  // namespace

TEST(MisuseDeathTest, AFrameThatCannotBeHadThrowsBadAllocToItsCaller) {
#ifdef SLAW_TEST_SANITIZED
  GTEST_SKIP() << "sanitizers reserve far more address space than RLIMIT_AS can leave";
#endif
  threadsafe_death_tests();
  EXPECT_EXIT(frames_that_cannot_be_had(), testing::ExitedWithCode(0), "deepest frame on 2 workers");
}

TEST(Misuse, BufferWhoseByteSizeOverflowsThrows) {
  constexpr std::size_t n = SIZE_MAX / 8 + 3;  // n * 8 wraps to 16
  EXPECT_THROW(
      {
        slaw::buffer<std::uint64_t> b(n);
        (void)b;
      },
      std::bad_array_new_length);
  EXPECT_THROW((void)slaw::allocator<std::uint64_t>().allocate(n), std::bad_array_new_length);
  auto make = []() -> slaw::task<std::size_t> {
    slaw::buffer<std::uint64_t> b = co_await slaw::make_buffer<std::uint64_t>(n);
    co_return b.size();
  };
  slaw::runtime ws(cfg_of(2));
  EXPECT_THROW((void)ws.run(make()), std::bad_array_new_length);
  slaw::runtime dfd(dfd_cfg(2, 4096));
  EXPECT_THROW((void)dfd.run(make()), std::bad_array_new_length);
  EXPECT_EQ(ws.run(fib(10)), 55);  // both still run
  EXPECT_EQ(dfd.run(fib(10)), 55);
}

// ---------------------------------------------------------------- memory peak (§3)

// The process gauge learns of a free by another thread at once, of the owner's allocations in 16 KiB
// steps: it can lag below zero. A reset used to copy that into the peak (memory_peak -38104 in a
// benchmark run).
TEST(MisuseDeathTest, MemoryPeakIsNeverNegative) {
  threadsafe_death_tests();
  EXPECT_EXIT(
      {
        slaw::runtime rt(cfg_of(1));
        bool ok = true;
        auto check = [&](const char* when) {
          slaw::runtime_stats s = rt.stats();
          std::fprintf(stderr, "%s: memory_live %lld memory_peak %lld\n", when, (long long)s.memory_live,
                       (long long)s.memory_peak);
          ok &= s.memory_live >= 0 && s.memory_peak >= 0 && s.memory_peak >= s.memory_live &&
                s.memory_peak < (std::int64_t{1} << 24) && s.active_tasks >= 0 && s.active_tasks_peak >= 0;
        };
        std::vector<void*> blocks(14);
        auto alloc_all = [&]() -> slaw::task<> {  // 14 000 bytes: below one gauge step, not published
          for (void*& p : blocks) p = slaw::allocate(1000);
          co_return;
        };
        rt.run(alloc_all());
        for (void* p : blocks) slaw::deallocate(p, 1000);  // here, not on the owner: out of the gauge now
        rt.reset_stats();
        check("free, then reset");
        rt.run(alloc_all());
        rt.reset_stats();
        for (void* p : blocks) slaw::deallocate(p, 1000);
        check("reset, then free");
        rt.run(fib(12));
        check("after a run");
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------- worker threads (§4.3)

// Thread creation failing part-way used to leave the started threads joinable: std::terminate even
// for a caller that catches. A real limit: the address space, just above what this process uses, so
// that only a few 8 MiB thread stacks fit.
TEST(MisuseDeathTest, WorkerThreadsThatCannotStartGiveACatchableError) {
#ifdef SLAW_TEST_SANITIZED
  GTEST_SKIP() << "sanitizers reserve far more address space than RLIMIT_AS can leave";
#else
  threadsafe_death_tests();
  EXPECT_EXIT(
      {
        limit_address_space(vm_bytes() + 40 * 1024 * 1024);
        try {
          slaw::runtime rt(cfg_of(64));
          std::fprintf(stderr, "all 64 workers started: the limit did not bite\n");
          std::exit(3);
        } catch (const std::system_error& e) {
          std::fprintf(stderr, "caught: %s\n", e.what());
        }
        unlimit_address_space();
        slaw::runtime rt(cfg_of(2));  // the failed runtime left nothing behind
        std::exit(rt.run(fib(15)) == 610 ? 0 : 4);
      },
      testing::ExitedWithCode(0), "caught: slaw::runtime: could not start worker thread [0-9]+ of 64 \\([0-9]+ started");
#endif
}

// ---------------------------------------------------------------- destroying a runtime from its task (§4.4)

TEST(MisuseDeathTest, DestroyingARuntimeFromItsOwnTaskStopsWithAMessage) {
  threadsafe_death_tests();
  EXPECT_DEATH(
      {
        alarm(20);  // it used to spin forever
        auto* rt = new slaw::runtime(cfg_of(2));
        rt->run([rt]() -> slaw::task<> {
          delete rt;
          co_return;
        }());
      },
      "destroyed from one of its own tasks");
}

// ---------------------------------------------------------------- examples' arguments (§4.6)

namespace {
std::string examples_dir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<std::size_t>(n));
  std::string dir = exe.substr(0, exe.rfind('/'));  // <build>/tests
  return dir.substr(0, dir.rfind('/')) + "/examples";
}

int exit_status(const std::string& cmd) {
  int r = std::system((cmd + " >/dev/null 2>&1").c_str());
  return r != -1 && WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}
}  // namespace

// `fib 4294967296` used to print 0 and exit 0 (atoi overflow).
TEST(Misuse, ExamplesRejectBadArgumentsWithStatus2) {
  const std::string dir = examples_dir();
  if (access((dir + "/fib").c_str(), X_OK) != 0) GTEST_SKIP() << "examples not built in " << dir;
  const std::string env = "env -u SLAW_WORKERS -u SLAW_STATS SLAW_WORKERS=1 ";
  const std::string fib = env + dir + "/fib", loop = env + dir + "/spawn_loop", pdfs = env + dir + "/pdfs";
  for (const char* bad : {"4294967296", "18446744073709551617", "-1", "91", "' 5'", "+5", "5x", "abc", "''", "1 2"})
    EXPECT_EQ(exit_status(fib + " " + bad), 2) << "fib " << bad;
  for (const char* bad : {"4294967296", "100000001", "-3", "1e6", "''"})
    EXPECT_EQ(exit_status(loop + " " + bad), 2) << "spawn_loop " << bad;
  for (const char* bad : {"1", "20001", "4294967298", "-100", "--cas --cas", "10 10", "--nope"})
    EXPECT_EQ(exit_status(pdfs + " " + bad), 2) << "pdfs " << bad;
  EXPECT_EQ(exit_status(fib + " 20"), 0);
  EXPECT_EQ(exit_status(fib + " 0"), 0);
  EXPECT_EQ(exit_status(loop + " 1000"), 0);
  EXPECT_EQ(exit_status(pdfs + " 10 --cas"), 0);
  EXPECT_EQ(exit_status(env + "SLAW_STATS=true " + dir + "/fib 10"), 2);  // a bad environment: status 2 as well
}

// ---------------------------------------------------------------- DFDeques reserve (§4.9)

namespace {
slaw::task<> reserve_task(std::size_t n) { co_await slaw::reserve(n); }

// reserve(64 TiB) at K = 50 000 used to run 1.4e9 dummy tasks first; reserve(SIZE_MAX) was taken
// as a negative count and silently "reserved".
void impossible_reserves() {
  alarm(30);
  slaw::runtime rt(dfd_cfg(2, 50000));
  const std::size_t sizes[] = {std::size_t{1} << 46, SIZE_MAX, SIZE_MAX / 2, SIZE_MAX - 100};
  for (std::size_t n : sizes) {
    try {
      rt.run(reserve_task(n));
      std::fprintf(stderr, "reserve(%zu) did not throw\n", n);
      std::exit(1);
    } catch (const std::bad_alloc&) {
    }
  }
  try {
    rt.run([]() -> slaw::task<> { auto b = co_await slaw::make_buffer<char>(std::size_t{1} << 46); }());
    std::exit(1);
  } catch (const std::bad_alloc&) {
  }
#ifndef SLAW_TEST_SANITIZED
  limit_address_space(std::size_t{4} << 30);  // RLIMIT_AS counts too
  try {
    rt.run(reserve_task(std::size_t{8} << 30));
    std::fprintf(stderr, "reserve(8 GiB) under a 4 GiB RLIMIT_AS did not throw\n");
    std::exit(1);
  } catch (const std::bad_alloc&) {
  }
  unlimit_address_space();
#endif
  rt.run(reserve_task(300000));  // a possible one still runs its dummy tasks
  std::exit(rt.stats().total.dummy_tasks >= 6 ? 0 : 2);
}
}  // namespace

TEST(MisuseDeathTest, ImpossibleReserveUnderDFDequesThrowsAtOnce) {
  threadsafe_death_tests();
  EXPECT_EXIT(impossible_reserves(), testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------- ASan sees pooled memory (§4.10)

#if defined(__SANITIZE_ADDRESS__)
#define SLAW_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAW_TEST_ASAN 1
#endif
#endif

TEST(MisuseDeathTest, AddressSanitizerSeesPooledBlocks) {
#ifndef SLAW_TEST_ASAN
  GTEST_SKIP() << "an AddressSanitizer build only";
#else
  threadsafe_death_tests();
  EXPECT_DEATH(
      {
        auto* p = static_cast<volatile char*>(slaw::allocate(100));
        p[100] = 1;  // inside the 112-byte block, past the 100 bytes asked for
      },
      "AddressSanitizer");
  EXPECT_DEATH(
      {
        auto* p = static_cast<volatile char*>(slaw::allocate(5000));  // a chunk of its own
        p[5000] = 1;
      },
      "AddressSanitizer");
  EXPECT_DEATH(
      {
        auto* p = static_cast<volatile char*>(slaw::allocate(64));
        slaw::deallocate(const_cast<char*>(p), 64);
        p[8] = 1;
      },
      "AddressSanitizer: use-after-poison");
  EXPECT_DEATH(
      {
        void* p = slaw::allocate(64);
        slaw::deallocate(p, 64);
        slaw::deallocate(p, 64);
      },
      "slaw: double free");
  EXPECT_DEATH(
      {
        slaw::runtime rt(cfg_of(2));
        rt.run([]() -> slaw::task<> {  // a worker's allocator
          auto* p = static_cast<volatile char*>(slaw::allocate(40));
          slaw::deallocate(const_cast<char*>(p), 40);
          p[0] = 1;
          co_return;
        }());
      },
      "AddressSanitizer");
  // Blocks in use are fine to the last byte, also once reused.
  void* a = slaw::allocate(100);
  static_cast<char*>(a)[99] = 1;
  slaw::deallocate(a, 100);
  void* b = slaw::allocate(97);
  static_cast<char*>(b)[96] = 1;
  slaw::deallocate(b, 97);
#endif
}

// ---------------------------------------------------------------- a deque that cannot grow (§4.5)

// Growing runs inside a spawn, which cannot fail (docs/design/deques.md "Out of memory"): the process stops
// with a message instead of an anonymous std::terminate.
TEST(MisuseDeathTest, ADequeThatCannotGrowStopsWithAMessage) {
#ifdef SLAW_TEST_SANITIZED
  GTEST_SKIP() << "sanitizers reserve far more address space than RLIMIT_AS can leave";
#else
  threadsafe_death_tests();
  EXPECT_DEATH(
      {
        slaw::detail::split_deque d;
        std::uintptr_t i = 1;
        for (; i <= (std::uintptr_t{1} << 22); ++i) d.push(i);  // a 32 MiB array, full
        limit_address_space(vm_bytes() + 16 * 1024 * 1024);  // the next one needs 64 MiB
        d.push(i);
      },
      "slaw: out of memory growing a work deque to 8388608 entries");
#endif
}

// ---------------------------------------------------------------- nested runs (§4.13)

// A task of runtime A may call B.run(): its worker of A blocks until B's run ends (one worker of A is
// lost meanwhile, A's other workers go on).
TEST(Misuse, ATaskMayRunAnotherRuntime) {
  slaw::runtime a(cfg_of(2)), b(cfg_of(2));
  EXPECT_EQ(a.run([&]() -> slaw::task<long> { co_return b.run(fib(15)); }()), 610);
  // Two tasks of A in B at once, and A's own work beside them.
  std::atomic<long> sum{0};
  a.run([&]() -> slaw::task<> {
    auto f = co_await slaw::start_finish();
    for (int i = 0; i < 2; ++i)
      co_await slaw::async(slaw::hf, [&]() -> slaw::task<> {
        sum.fetch_add(b.run(fib(16)));
        co_return;
      });
    long x = co_await fib(14);
    sum.fetch_add(x);
    co_await slaw::end_finish(f);
  }());
  EXPECT_EQ(sum.load(), 2 * 987 + 377);
  // Even with one worker in A (that worker waits in B).
  slaw::runtime a1(cfg_of(1));
  EXPECT_EQ(a1.run([&]() -> slaw::task<long> { co_return b.run(fib(12)); }()), 144);
  // A run of A from A's own task is refused (it would wait for itself).
  EXPECT_THROW(a.run([&]() -> slaw::task<long> { co_return a.run(fib(3)); }()), std::logic_error);
}

// fork() with a live, idle runtime: the child has only the forking thread, none of the runtime's
// workers. The child leaves the inherited runtime alone (using it is undefined: run() would wait for
// workers that do not exist) and may build its own; the parent's runtime is unaffected.
TEST(Misuse, ForkWithALiveRuntimeLeavesTheParentsRuntimeWorking) {
#ifdef SLAW_TEST_TSAN
  GTEST_SKIP() << "ThreadSanitizer does not support starting threads after a multi-threaded fork";
#endif
  slaw::runtime rt(cfg_of(2));
  ASSERT_EQ(rt.run(fib(15)), 610);
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_NE(pid, -1);
  if (pid == 0) {
    alarm(20);
    slaw::runtime own(cfg_of(2));
    _exit(own.run(fib(12)) == 144 ? 0 : 1);  // _exit: no destructors, the inherited runtime is not touched
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(rt.run(fib(15)), 610);
}

// ---------------------------------------------------------------- counter identities (§5, docs/guide/counters.md)

namespace {

std::atomic<std::uint64_t> spawned_ran{0};

// Counts the spawned instances only (not the sequentially called ones).
slaw::task<long> counted_fib(int n, bool spawned) {
  if (spawned) spawned_ran.fetch_add(1, std::memory_order_relaxed);
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, counted_fib, n - 1, true);
  b = co_await counted_fib(n - 2, false);
  co_await slaw::end_finish(f);
  co_return a + b;
}

slaw::task<> leaf(std::atomic<long>* sum) {
  spawned_ran.fetch_add(1, std::memory_order_relaxed);
  sum->fetch_add(1, std::memory_order_relaxed);
  co_return;
}

// Spawns under every clause, a flat help-first loop (fresh steals) and user memory: 601 leaves.
slaw::task<long> workload(int n, std::atomic<long>* sum) {
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < 300; ++i) co_await slaw::async(slaw::hf, leaf, sum);
  for (int i = 0; i < 300; ++i) co_await slaw::async(slaw::wf, leaf, sum);
  long r = 0;
  co_await slaw::async(&r, counted_fib, n, true);
  // DFDeques with a finite K: a synchronous allocation over the quota makes the next spawn give up
  // the deque (worker::give_up_at_spawn); that spawn counts too.
  void* big = slaw::allocate(6000);
  co_await slaw::async(leaf, sum);
  slaw::deallocate(big, 6000);
  co_await slaw::end_finish(f);
  slaw::buffer<char> b = co_await slaw::make_buffer<char>(20000);
  b[0] = 1;
  co_return r;
}

std::string check_identities(const slaw::runtime_stats& s, std::uint64_t spawns_expected, std::uint64_t runs,
                             bool dfd) {
  const slaw::worker_stats& t = s.total;
  std::string bad;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) bad += "  " + what + "\n";
  };
  auto n = [](auto v) { return std::to_string(v); };
  if (!dfd) {
    expect(t.steals_preempted == t.stolen_preempted,
           "steals_preempted " + n(t.steals_preempted) + " != stolen_preempted " + n(t.stolen_preempted));
    expect(t.steals_fresh == t.stolen_fresh,
           "steals_fresh " + n(t.steals_fresh) + " != stolen_fresh " + n(t.stolen_fresh));
  } else {
    // Steals from ownerless deques have no victim worker: steals >= stolen, and R counts them all.
    expect(t.steals_preempted == s.dfd_steals,
           "steals_preempted " + n(t.steals_preempted) + " != dfd.steals " + n(s.dfd_steals));
    expect(t.stolen_preempted <= t.steals_preempted,
           "stolen_preempted " + n(t.stolen_preempted) + " > steals_preempted " + n(t.steals_preempted));
    expect(t.steals_fresh == 0 && t.stolen_fresh == 0 && t.spawns_hf == 0, "help-first activity under dfdeques");
    expect(t.quota_giveups == s.dfd_giveups,
           "quota_giveups " + n(t.quota_giveups) + " != dfd.giveups " + n(s.dfd_giveups));
  }
  expect(t.spawns_wf + t.spawns_hf == spawns_expected + t.dummy_tasks,
         "spawns_wf + spawns_hf " + n(t.spawns_wf + t.spawns_hf) + " != spawned tasks run " + n(spawns_expected) +
             " + dummy_tasks " + n(t.dummy_tasks));
  expect(t.tasks_run == t.local_takes + t.steals_preempted + t.steals_fresh + runs,
         "tasks_run " + n(t.tasks_run) + " != local_takes " + n(t.local_takes) + " + steals " +
             n(t.steals_preempted + t.steals_fresh) + " + roots " + n(runs));
  expect(s.memory_peak >= s.memory_live && s.memory_live >= 0, "memory_peak >= memory_live >= 0");
  expect(s.active_tasks_peak >= s.active_tasks && s.active_tasks >= 0, "active_tasks_peak >= active_tasks >= 0");
  for (const slaw::worker_stats& w : s.workers) {
    expect(w.frame_bytes_peak >= w.frame_bytes_live, "frame_bytes_peak >= frame_bytes_live");
    expect(w.user_bytes_peak >= w.user_bytes_live, "user_bytes_peak >= user_bytes_live");
    expect(w.fresh_bytes_peak >= static_cast<std::uint64_t>(w.fresh_bytes_live > 0 ? w.fresh_bytes_live : 0),
           "fresh_bytes_peak >= fresh_bytes_live");
  }
  return bad;
}

}  // namespace

// A DFDeques give-up is counted twice, by the worker (quota_giveups) and by R when it takes the deque
// (dfd_giveups), and stats() read after run() must see both. The give-up's pushes once answered a
// thief's pending request: a thief could steal the entry just published and end the run before R
// counted, and stats() saw one give-up more on the worker's side (once in CI, under ASan, in the test
// below). This stress did not reproduce it here (about 26 000 runs and 130 000 give-ups in 2 s with
// every thread on one CPU, before the fix too); it checks the identity after every run.
TEST(CounterIdentities, GiveUpsCountedByWorkerAndByRAgreeAfterEveryRun) {
  cpu_set_t saved, one;
  CPU_ZERO(&saved);
  CPU_ZERO(&one);
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  const bool pinned = sched_setaffinity(0, sizeof one, &one) == 0;  // the workers inherit it
  long runs = 0, bad = 0;
  std::string first;
  {
    slaw::runtime rt(dfd_cfg(8, 4096));
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < end) {
      std::atomic<long> sum{0};
      if (rt.run(workload(12, &sum)) != 144) ++bad;
      const slaw::runtime_stats s = rt.stats();
      ++runs;
      if (s.total.quota_giveups != s.dfd_giveups) {
        if (first.empty())
          first = "quota_giveups " + std::to_string(s.total.quota_giveups) + " != dfd_giveups " +
                  std::to_string(s.dfd_giveups) + " after run " + std::to_string(runs);
        ++bad;
        rt.reset_stats();
      }
    }
  }
  if (pinned) sched_setaffinity(0, sizeof saved, &saved);
  EXPECT_EQ(bad, 0) << bad << " of " << runs << " runs; first: " << first;
}

TEST(CounterIdentities, HoldSummedOverWorkersAlsoAfterReset) {
  struct setup {
    slaw::config cfg;
    const char* name;
  };
  std::vector<setup> setups;
  for (unsigned p : {1u, 2u, 8u}) {
    for (auto m : {slaw::policy::mode::dyn, slaw::policy::mode::hf, slaw::policy::mode::wf})
      setups.push_back({cfg_of(p, m), slaw::to_string(m)});
    setups.push_back({dfd_cfg(p, slaw::quota_infinite), "dfdeques K=inf"});
    setups.push_back({dfd_cfg(p, 4096), "dfdeques K=4096"});
  }
  for (const setup& su : setups) {
    const bool dfd = su.cfg.scheduler == slaw::scheduler_kind::dfdeques;
    slaw::runtime rt(su.cfg);
    for (int round = 0; round < 3; ++round) {  // reset_stats between runs: the identities hold again
      rt.reset_stats();
      spawned_ran.store(0);
      std::atomic<long> sum{0};
      constexpr int runs = 2;
      for (int r = 0; r < runs; ++r) ASSERT_EQ(rt.run(workload(16, &sum)), 987);
      ASSERT_EQ(sum.load(), runs * 601);
      std::string bad = check_identities(rt.stats(), spawned_ran.load(), runs, dfd);
      EXPECT_TRUE(bad.empty()) << su.name << ", " << su.cfg.workers << " workers, round " << round << ":\n"
                               << bad;
    }
  }
}
