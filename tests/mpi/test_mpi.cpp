// slaw::mpi under mpirun (tests/CMakeLists.txt runs it at 2 and 4 ranks, oversubscribed): point to
// point and every collective, each checked against values computed from the ranks alone, under every
// scheduler x policy at 1, 2 and 4 workers; generated exchanges whose sends and receives are the leaves of
// random task trees, checked against contents computed from the seed; an MPI error as an exception; the
// progress thread idle.
// Each rank prints its failures; the exit status is non-zero on every rank if any rank failed.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "../support/stress.hpp"
#include "slaw/mpi.hpp"
#include "slaw/slaw.hpp"

namespace {

int failures = 0;
int me = 0, np = 1;

#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      ++failures;                                               \
      std::fprintf(stderr, "rank %d: FAILED %s: ", me, #cond);  \
      std::fprintf(stderr, __VA_ARGS__);                        \
      std::fprintf(stderr, "\n");                               \
    }                                                           \
  } while (0)

long message(int from, int to, int i) { return from * 1000000L + to * 1000L + i; }

// Every rank sends `k` messages to every other rank, each from its own task (spawned with `clause`),
// and receives the k from each in tasks too, with specific tags, in an order that differs per rank.
template <class Clause>
slaw::task<> all_pairs(Clause clause, int k, std::vector<long>& got) {
  got.assign(static_cast<std::size_t>(np * k), -1);
  auto s = co_await slaw::start_finish();
  for (int i = 0; i < k; ++i)
    for (int d = 0; d < np; ++d) {
      const int peer = (me + 1 + d + i) % np;
      if (peer == me) continue;
      co_await slaw::async(clause, [peer, i, &got]() -> slaw::task<> {
        long v = 0;
        MPI_Status st = co_await slaw::mpi::recv(&v, 1, peer, i);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == i, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        got[static_cast<std::size_t>(peer * static_cast<int>(got.size() / np) + i)] = v;
      });
      co_await slaw::async(clause, [peer, i]() -> slaw::task<> {
        const long v = message(me, peer, i);
        co_await slaw::mpi::send(&v, 1, peer, i);
      });
    }
  co_await slaw::end_finish(s);
}

slaw::task<> collectives() {
  // allreduce, one value and a vector (in place).
  const long sum = co_await slaw::mpi::allreduce(static_cast<long>(me + 1), MPI_SUM);
  CHECK(sum == static_cast<long>(np) * (np + 1) / 2, "allreduce %ld", sum);
  std::vector<double> v(100);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i * (me + 1));
  co_await slaw::mpi::allreduce(MPI_IN_PLACE, v.data(), 100, MPI_DOUBLE, MPI_MAX);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i] == static_cast<double>(i * np), "allreduce max [%zu] %g", i, v[i]);
  // bcast from the last rank.
  std::vector<int> b(50, me == np - 1 ? 7 : 0);
  co_await slaw::mpi::bcast(b.data(), 50, np - 1);
  CHECK(std::all_of(b.begin(), b.end(), [](int x) { return x == 7; }), "bcast");
  co_await slaw::mpi::barrier();
  // reduce to rank 0.
  int r = 0, one = me;
  co_await slaw::mpi::reduce(&one, &r, 1, MPI_INT, MPI_SUM, 0);
  if (me == 0) CHECK(r == np * (np - 1) / 2, "reduce %d", r);
  // allgather.
  std::vector<int> all(static_cast<std::size_t>(np));
  co_await slaw::mpi::allgather(&me, 1, MPI_INT, all.data(), 1, MPI_INT);
  for (int i = 0; i < np; ++i) CHECK(all[static_cast<std::size_t>(i)] == i, "allgather [%d] %d", i, all[static_cast<std::size_t>(i)]);
  // alltoall: rank r sends r*100 + i to rank i.
  std::vector<int> out(static_cast<std::size_t>(np)), in(static_cast<std::size_t>(np));
  for (int i = 0; i < np; ++i) out[static_cast<std::size_t>(i)] = me * 100 + i;
  co_await slaw::mpi::alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT);
  for (int i = 0; i < np; ++i) CHECK(in[static_cast<std::size_t>(i)] == i * 100 + me, "alltoall [%d] %d", i, in[static_cast<std::size_t>(i)]);
  // alltoallv: rank r sends i + 1 copies of r to rank i.
  std::vector<int> sc(static_cast<std::size_t>(np)), sd(static_cast<std::size_t>(np)), rc(static_cast<std::size_t>(np)), rd(static_cast<std::size_t>(np));
  int stotal = 0, rtotal = 0;
  for (int i = 0; i < np; ++i) {
    sc[static_cast<std::size_t>(i)] = i + 1, sd[static_cast<std::size_t>(i)] = stotal, stotal += i + 1;
    rc[static_cast<std::size_t>(i)] = me + 1, rd[static_cast<std::size_t>(i)] = rtotal, rtotal += me + 1;
  }
  std::vector<int> sv(static_cast<std::size_t>(stotal), me), rv(static_cast<std::size_t>(rtotal), -1);
  co_await slaw::mpi::alltoallv(sv.data(), sc.data(), sd.data(), MPI_INT, rv.data(), rc.data(), rd.data(), MPI_INT);
  for (int i = 0; i < np; ++i)
    for (int j = 0; j < me + 1; ++j)
      CHECK(rv[static_cast<std::size_t>(rd[static_cast<std::size_t>(i)] + j)] == i, "alltoallv from %d", i);
}

slaw::task<> an_error_is_an_exception() {
  const long v = 1;
  bool thrown = false;
  try {
    co_await slaw::mpi::send(&v, 1, np + 5, 0);  // no such rank
  } catch (const slaw::mpi::error& e) {
    thrown = std::string(e.what()).find("slaw::mpi::send: ") == 0 && e.code() != MPI_SUCCESS;
    if (!thrown) std::fprintf(stderr, "rank %d: unexpected message: %s\n", me, e.what());
  }
  CHECK(thrown, "a send to rank %d did not throw slaw::mpi::error", np + 5);
}


// Generated exchanges: from a seed every rank knows, the messages between each ordered pair of ranks
// (0-4 per pair, 1-64 values each, contents a function of the seed, the pair and the index). Each rank
// runs its sends and its receives as the leaves of random task trees (calls, spawns of every kind, nested
// finish scopes) and checks every message received against the contents computed from the seed: the
// oracle is the program text, not another run.
using slaw_test::splitmix;
struct exchange_op {
  bool send;
  int peer, tag, len;
};
long content(std::uint64_t seed, int src, int dst, int tag, int k) {
  return static_cast<long>(splitmix(seed ^ splitmix(static_cast<std::uint64_t>(src) * 1000003 + static_cast<std::uint64_t>(dst) * 1009 +
                                            static_cast<std::uint64_t>(tag) * 64 + static_cast<std::uint64_t>(k))) >> 2);
}
std::vector<exchange_op> my_ops(std::uint64_t seed) {
  std::vector<exchange_op> ops;
  for (int a = 0; a < np; ++a)
    for (int b = 0; b < np; ++b) {
      if (a == b || (a != me && b != me)) continue;
      const int m = static_cast<int>(splitmix(seed + static_cast<std::uint64_t>(a * np + b)) % 5);
      for (int t = 0; t < m; ++t) {
        const int len = 1 + static_cast<int>(splitmix(seed * 31 + static_cast<std::uint64_t>(a * np + b) * 7 + static_cast<std::uint64_t>(t)) % 64);
        ops.push_back({a == me, a == me ? b : a, t, len});
      }
    }
  return ops;
}
slaw::task<> run_op(std::uint64_t seed, exchange_op op, std::atomic<int>* received) {
  std::vector<long> buf(static_cast<std::size_t>(op.len));
  if (op.send) {
    for (int k = 0; k < op.len; ++k) buf[static_cast<std::size_t>(k)] = content(seed, me, op.peer, op.tag, k);
    co_await slaw::mpi::send(buf.data(), op.len, op.peer, op.tag);
  } else {
    MPI_Status st = co_await slaw::mpi::recv(buf.data(), op.len, op.peer, op.tag);
    int count = -1;
    MPI_Get_count(&st, MPI_LONG, &count);
    CHECK(count == op.len, "seed %llu: %d values from %d tag %d, want %d", static_cast<unsigned long long>(seed), count, op.peer, op.tag, op.len);
    for (int k = 0; k < op.len; ++k)
      CHECK(buf[static_cast<std::size_t>(k)] == content(seed, op.peer, me, op.tag, k), "seed %llu: value %d from %d tag %d",
            static_cast<unsigned long long>(seed), k, op.peer, op.tag);
    received->fetch_add(1);
  }
}
// Runs ops[lo, hi) as a random tree of tasks.
slaw::task<> run_ops(std::uint64_t seed, std::uint64_t path, const std::vector<exchange_op>* ops, std::size_t lo, std::size_t hi,
                     std::atomic<int>* received) {
  if (hi - lo == 1) {
    co_await run_op(seed, (*ops)[lo], received);
    co_return;
  }
  if (hi == lo) co_return;
  const std::uint64_t r = splitmix(seed ^ path);
  const std::size_t mid = lo + 1 + static_cast<std::size_t>(r % (hi - lo - 1));
  // The bounds from an array: written `b = half ? hi : mid`, GCC 12.2's SLP vectorizer packed {mid, hi}
  // before loading hi from the frame and passed garbage (README, Known limitations).
  const std::size_t bounds[3] = {lo, mid, hi};
  auto s = co_await slaw::start_finish();
  for (int half = 0; half < 2; ++half) {
    const std::size_t a = bounds[half], b = bounds[half + 1];
    const std::uint64_t p = path * 2 + static_cast<std::uint64_t>(half) + 1;
    switch ((r >> (8 + 2 * half)) % 4) {
      case 0: co_await run_ops(seed, p, ops, a, b, received); break;  // a call: its receives block this branch in order
      case 1: co_await slaw::async(slaw::wf, run_ops, seed, p, ops, a, b, received); break;
      case 2: co_await slaw::async(slaw::hf, run_ops, seed, p, ops, a, b, received); break;
      default: co_await slaw::async(slaw::dyn, run_ops, seed, p, ops, a, b, received); break;
    }
  }
  co_await slaw::end_finish(s);
}
// The sends and the receives are two trees that run side by side: a tree that mixed them could order a
// receive before a send sequentially on both ranks of a pair and deadlock, as any MPI program would.
// Messages are at most 512 bytes, under Open MPI's eager limit, so a send never waits for its receive.
slaw::task<> generated_exchange(std::uint64_t seed) {
  std::vector<exchange_op> sends, recvs;
  for (const exchange_op& o : my_ops(seed)) (o.send ? sends : recvs).push_back(o);
  std::atomic<int> received{0};
  auto s = co_await slaw::start_finish();
  co_await slaw::async(run_ops, seed, std::uint64_t{1}, &sends, std::size_t{0}, sends.size(), &received);
  co_await slaw::async(run_ops, seed, std::uint64_t{2}, &recvs, std::size_t{0}, recvs.size(), &received);
  co_await slaw::end_finish(s);
  const int want = static_cast<int>(recvs.size());
  CHECK(received.load() == want, "seed %llu: %d messages received, want %d", static_cast<unsigned long long>(seed), received.load(), want);
}

}  // namespace

int main(int argc, char** argv) {
  slaw::mpi::environment env(argc, argv);
  me = env.rank();
  np = env.size();
  CHECK(env.thread_level() >= MPI_THREAD_SERIALIZED, "thread level %d", env.thread_level());
  const int k = 20;
  for (auto sched : {slaw::scheduler_kind::ws, slaw::scheduler_kind::dfdeques})
    for (auto pol : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
      for (unsigned w : {1u, 2u, 4u}) {
        if (sched == slaw::scheduler_kind::dfdeques && pol != slaw::policy::mode::wf) continue;
        slaw::config cfg;
        cfg.workers = w;
        cfg.policy = pol;
        cfg.scheduler = sched;
        slaw::runtime rt{cfg};
        for (int clause = 0; clause < 3; ++clause) {
          std::vector<long> got;
          if (clause == 0) rt.run(all_pairs(slaw::wf, k, got));
          else if (clause == 1) rt.run(all_pairs(slaw::hf, k, got));
          else rt.run(all_pairs(slaw::dyn, k, got));
          for (int p = 0; p < np; ++p)
            for (int i = 0; i < k; ++i)
              if (p != me)
                CHECK(got[static_cast<std::size_t>(p * k + i)] == message(p, me, i), "message %d from %d: %ld (%s %s %u workers)", i, p,
                      got[static_cast<std::size_t>(p * k + i)], slaw::to_string(sched), slaw::to_string(pol), w);
        }
        rt.run(collectives());
        rt.run(an_error_is_an_exception());
        for (std::uint64_t seed = 1; seed <= 20; ++seed) rt.run(generated_exchange(seed * 977 + w));
      }
  // Idle: the progress thread sleeps (no busy spin) while nothing is outstanding.
  const double before = env.stats().cpu_seconds;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double idle_cpu = env.stats().cpu_seconds - before;
  CHECK(idle_cpu < 0.03, "the progress thread used %.3f s of CPU in 0.3 s idle", idle_cpu);
  const slaw::mpi::progress_stats ps = env.stats();
  CHECK(ps.issued == ps.completed, "issued %llu, completed %llu", static_cast<unsigned long long>(ps.issued),
        static_cast<unsigned long long>(ps.completed));
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) std::printf("slaw::mpi tests at %d ranks: %s (%d failures)\n", np, total ? "FAILED" : "passed", total);
  return total ? 1 : 0;
}
