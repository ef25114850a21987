// Distributed Unbalanced Tree Search (UTS, Olivier et al., LCPC 2006) over MPI ranks, three ways:
//   flat:  one thread per rank: the rank explores its pool depth-first and every --poll nodes probes
//          (MPI_Iprobe) for steal requests, replies and the termination token;
//   omp:   MPI + OpenMP: the rank's threads explore from one shared pool (each thread a local stack, a
//          mutex-protected shared pool for the surplus); only the master thread calls MPI (funneled);
//   slaw:  MPI + slaw: exploration as slaw tasks (one explorer task per worker and epoch, each pulling
//          chunks from the rank's pool), communication as slaw::mpi awaits in tasks (a responder task,
//          a token task, a controller task that steals): no worker ever blocks in MPI.
// The tree rules are those of bench/kernels/uts.cpp (mpi/uts_tree.hpp).
//
// Work stealing between ranks (the UTS-MPI scheme): a rank whose pool is empty sends a steal request
// to a random other rank and waits for the reply; every rank answers every request with a chunk of its
// oldest unexplored nodes (half its pool, at most --chunk nodes) or with an empty chunk ("none").
// Termination: Safra's token ring (Dijkstra, EWD998): each rank counts work chunks sent minus received
// and turns black when it receives one; rank 0 sends a white token round the ring 0 -> 1 -> ... -> 0 when
// passive, a passive rank adds its count, blackens the token if it is black, and whitens itself; a round
// that comes back white to a white rank 0 with a total count of zero proves that every rank is passive
// and no chunk is in flight. Rank 0 then sends "done" to every rank. Outstanding steal requests are
// drained before the end: a rank enters a final barrier only when its own request has its reply, and
// keeps answering requests ("none") until the barrier completes, so no message is left unmatched.
//
// Oracle: the total node count (MPI_Reduce to rank 0) equals the published count.
// Output, on rank 0, one JSON line: nodes, expected, time (the slowest rank, from a barrier to the end
// of the search), steal requests sent and non-empty chunks sent (summed over ranks), peak RSS (largest
// rank) and the check.
//
//   mpirun -np R mpi_uts --mode flat|omp|slaw --tree T1|T3|T1S|T3S [--chunk N] [--poll N]
//   (omp: OMP_NUM_THREADS sets threads; slaw: SLAW_WORKERS sets workers)
#include <sys/resource.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mpi/uts_tree.hpp"
#include "slaw/mpi.hpp"
#include "slaw/slaw.hpp"

namespace {

using uts_tree::node;
using uts_tree::tree_spec;
using clk = std::chrono::steady_clock;

// The published trees, and two small ones for tests (their counts from a sequential traversal).
constexpr tree_spec small_trees[] = {
    {"T1S", false, 4, 7, 0, 0, 19, 63914},            // geometric -d 7 -b 4 -r 19
    {"T3S", true, 2000, 0, 0.12, 8, 42, 62689},       // binomial -b 2000 -q 0.12 -m 8 -r 42
};

constexpr int tag_request = 1;  // payload: one int, the requester's rank (-1: the slaw responder stops)
constexpr int tag_work = 2;     // payload: 0..chunk nodes (bytes); 0 nodes is "none"
constexpr int tag_token = 3;    // payload: three longs {count, black, done}
const int node_bytes = static_cast<int>(sizeof(node));

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "uts: %s\nusage: uts --mode flat|omp|slaw --tree T1|T3|T1S|T3S [--chunk N (1..4096, default 32)] "
               "[--poll N (1..1000000, default 64)]\n",
               why.c_str());
  std::exit(2);
}

// Pushes n's children onto s.
inline void expand(const tree_spec& t, const node& n, std::vector<node>& s) {
  const int k = uts_tree::num_children(t, n);
  for (int i = k - 1; i >= 0; --i) s.push_back(uts_tree::child(n, i));
}

// Moves the oldest `k` nodes (the bottom) of `from` into `to` (appended).
void take_bottom(std::vector<node>& from, std::size_t k, std::vector<node>& to) {
  to.insert(to.end(), from.begin(), from.begin() + static_cast<std::ptrdiff_t>(k));
  from.erase(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(k));
}

// How many nodes a rank whose pool holds `n` gives a thief: half, at most `chunk`; none below two.
std::size_t share_of(std::size_t n, std::size_t chunk) { return n >= 2 ? std::min(n / 2, chunk) : 0; }

struct settings {
  const tree_spec* tree = nullptr;
  std::size_t chunk = 32;
  long poll = 64;
  int me = 0, np = 1;
};

struct result {
  long nodes = 0, steal_requests = 0, chunks_sent = 0;
  int threads = 1;
};

// ---- Safra's termination detection, the part common to every mode ----
struct safra {
  long count = 0;           // work chunks sent minus received
  bool black = false;       // received a chunk since the token last left
  bool have_token = false;  // a token is here (for rank 0: the round has come back)
  long token_count = 0;
  bool token_black = false;
  bool round = false;  // rank 0: a round is under way
  bool done = false;   // "done" received (or, on rank 0, termination detected)

  // A token message arrived.
  void on_token(const long m[3]) {
    if (m[2]) {
      done = true;
      return;
    }
    have_token = true, token_count = m[0], token_black = m[1] != 0;
  }
  // The rank is passive: what to send. Returns true when rank 0 has detected termination (the caller
  // sends "done" to every rank); sets dest >= 0 with msg when a token must go on.
  bool passive_step(const settings& s, int& dest, long msg[3]) {
    dest = -1;
    if (s.me == 0) {
      if (s.np == 1) return true;
      if (round && !have_token) return false;
      if (round) {  // the token is back
        have_token = false;
        if (!token_black && !black && token_count + count == 0) return true;
      }
      round = true, black = false;
      msg[0] = 0, msg[1] = 0, msg[2] = 0, dest = 1;
      return false;
    }
    if (!have_token) return false;
    have_token = false;
    msg[0] = token_count + count, msg[1] = (token_black || black) ? 1 : 0, msg[2] = 0;
    dest = (s.me + 1) % s.np;
    black = false;
    return false;
  }
};

int random_victim(std::mt19937& rng, const settings& s) {
  std::uniform_int_distribution<int> d(0, s.np - 2);
  const int v = d(rng);
  return v >= s.me ? v + 1 : v;
}

// ---- flat and omp: the rank's MPI side, driven by one thread (the only thread, or the master) ----
// `pool` is the rank's shareable pool (flat: the whole stack; omp: the shared surplus), guarded by `mu`
// when not null.
struct funneled_comm {
  const settings& s;
  safra term;
  std::mt19937 rng;
  bool waiting = false;  // a steal request is out
  long steal_requests = 0, chunks_sent = 0;
  std::vector<node> out;
  std::atomic<std::size_t>* pool_n = nullptr;  // omp: the pool's size, stored under the lock

  explicit funneled_comm(const settings& st) : s(st), rng(static_cast<unsigned>(st.me) * 7919u + 17u) {}

  // Handles every message that is there. Received work is appended to pool.
  template <class Lock>
  void poll(std::vector<node>& pool, Lock&& lock) {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      if (st.MPI_TAG == tag_request) {
        int who = 0;
        MPI_Recv(&who, 1, MPI_INT, st.MPI_SOURCE, tag_request, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        out.clear();
        {
          [[maybe_unused]] auto g = lock();
          take_bottom(pool, share_of(pool.size(), s.chunk), out);
          if (pool_n) pool_n->store(pool.size(), std::memory_order_relaxed);
        }
        if (!out.empty()) ++term.count, ++chunks_sent;
        MPI_Send(out.data(), static_cast<int>(out.size()) * node_bytes, MPI_BYTE, st.MPI_SOURCE, tag_work, MPI_COMM_WORLD);
      } else if (st.MPI_TAG == tag_work) {
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        std::vector<node> got(static_cast<std::size_t>(bytes / node_bytes));
        MPI_Recv(got.data(), bytes, MPI_BYTE, st.MPI_SOURCE, tag_work, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        waiting = false;
        if (!got.empty()) {
          if (term.done) {
            std::fprintf(stderr, "uts: rank %d received work after termination\n", s.me);
            MPI_Abort(MPI_COMM_WORLD, 3);
          }
          --term.count, term.black = true;
          [[maybe_unused]] auto g = lock();
          pool.insert(pool.end(), got.begin(), got.end());
          if (pool_n) pool_n->store(pool.size(), std::memory_order_relaxed);
        }
      } else if (st.MPI_TAG == tag_token) {
        long m[3];
        MPI_Recv(m, 3, MPI_LONG, st.MPI_SOURCE, tag_token, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        term.on_token(m);
      } else {
        std::fprintf(stderr, "uts: rank %d: unexpected tag %d\n", s.me, st.MPI_TAG);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  }

  // The rank is passive (no work anywhere in it): the token, and a steal request if none is out.
  void passive() {
    int dest;
    long msg[3];
    if (term.passive_step(s, dest, msg)) {
      const long done_msg[3] = {0, 0, 1};
      for (int r = 1; r < s.np; ++r) MPI_Send(done_msg, 3, MPI_LONG, r, tag_token, MPI_COMM_WORLD);
      term.done = true;
      return;
    }
    if (dest >= 0) MPI_Send(msg, 3, MPI_LONG, dest, tag_token, MPI_COMM_WORLD);
    if (!waiting && s.np > 1) {
      const int victim = random_victim(rng, s);
      MPI_Send(&s.me, 1, MPI_INT, victim, tag_request, MPI_COMM_WORLD);
      waiting = true, ++steal_requests;
    }
  }

  // After "done": wait for the reply to our own request, then a barrier while answering requests.
  template <class Lock>
  void drain(std::vector<node>& pool, Lock&& lock) {
    while (waiting) {
      poll(pool, lock);
      if (waiting) std::this_thread::yield();
    }
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
      int flag = 0;
      MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      if (flag) break;
      poll(pool, lock);
      std::this_thread::yield();
    }
  }
};

struct no_lock {
  int operator()() const { return 0; }
};

result run_flat(const settings& s) {
  const tree_spec& t = *s.tree;
  std::vector<node> pool;
  if (s.me == 0) pool.push_back(uts_tree::root_node(t));
  funneled_comm comm(s);
  long nodes = 0;
  while (!comm.term.done) {
    if (!pool.empty()) {
      for (long i = 0; i < s.poll && !pool.empty(); ++i) {
        const node n = pool.back();
        pool.pop_back();
        expand(t, n, pool);
        ++nodes;
      }
      comm.poll(pool, no_lock{});
    } else {
      comm.passive();
      if (comm.term.done) break;
      comm.poll(pool, no_lock{});
      if (pool.empty()) std::this_thread::yield();
    }
  }
  comm.drain(pool, no_lock{});
  return {nodes, comm.steal_requests, comm.chunks_sent, 1};
}

result run_omp(const settings& s) {
  const tree_spec& t = *s.tree;
  std::mutex mu;
  std::vector<node> shared;  // the rank's surplus, guarded by mu
  std::atomic<std::size_t> shared_n{0};
  int busy = 0;  // threads whose local stack is not empty, guarded by mu
  std::atomic<bool> done{false};
  if (s.me == 0) shared.push_back(uts_tree::root_node(t)), shared_n = 1;
  funneled_comm comm(s);
  comm.pool_n = &shared_n;
  auto lock = [&] { return std::unique_lock<std::mutex>(mu); };
  long nodes = 0;
  int threads = 1;
#pragma omp parallel reduction(+ : nodes)
  {
    const int me = omp_get_thread_num();
#pragma omp single nowait
    threads = omp_get_num_threads();
    std::vector<node> local;
    for (;;) {
      if (done.load(std::memory_order_acquire)) break;
      if (local.empty()) {
        bool passive = false;
        {
          std::lock_guard<std::mutex> g(mu);
          if (!shared.empty()) {  // the newest nodes, for depth-first locality
            const std::size_t k = std::min<std::size_t>(shared.size(), 8);
            local.assign(shared.end() - static_cast<std::ptrdiff_t>(k), shared.end());
            shared.resize(shared.size() - k);
            shared_n.store(shared.size(), std::memory_order_relaxed);
            ++busy;
          } else {
            passive = busy == 0;
          }
        }
        if (local.empty()) {
          if (me == 0) {
            if (passive) comm.passive();
            if (comm.term.done) {
              done.store(true, std::memory_order_release);
              break;
            }
            comm.poll(shared, lock);
            if (comm.term.done) {
              done.store(true, std::memory_order_release);
              break;
            }
          }
          std::this_thread::yield();
          continue;
        }
      }
      for (long i = 0; i < s.poll && !local.empty(); ++i) {
        const node n = local.back();
        local.pop_back();
        expand(t, n, local);
        ++nodes;
      }
      if (local.empty()) {
        std::lock_guard<std::mutex> g(mu);
        --busy;
      } else if (local.size() >= 2 && shared_n.load(std::memory_order_relaxed) < s.chunk) {
        std::lock_guard<std::mutex> g(mu);  // give the surplus to the other threads and to thieves
        take_bottom(local, std::min(local.size() / 2, s.chunk), shared);
        shared_n.store(shared.size(), std::memory_order_relaxed);
      }
      if (me == 0) comm.poll(shared, lock);
    }
  }
  comm.drain(shared, lock);
  return {nodes, comm.steal_requests, comm.chunks_sent, threads};
}

// ---- slaw: tasks for exploration and for communication ----
struct slaw_rank {
  const settings& s;
  std::size_t epoch_budget;  // nodes an explorer explores before its epoch ends
  std::mutex mu;             // guards pool, active, pending, term (but term.count: atomic below)
  std::vector<node> pool;    // the rank's unexplored nodes between (and shared during) epochs
  std::atomic<std::size_t> pool_n{0};
  bool active = false;       // the controller is in its active phase
  std::vector<int> pending;  // thieves waiting for this rank's next epoch boundary
  safra term;                // count and black: the controller's; token fields: set by the token task
  std::atomic<long> sent{0};  // chunks sent (Safra's count is sent - received)
  std::atomic<long> nodes{0}, chunks_sent{0};
  long received = 0;  // chunks received (the controller's)
  std::mt19937 rng;   // the controller's choice of victims (kept out of its frame: 5 KB)
  long steal_requests = 0;
  // The epoch the controller waits for.
  std::atomic<int> epoch_left{0};
  std::optional<slaw::completion> epoch_done;

  slaw_rank(const settings& st, std::size_t budget)
      : s(st), epoch_budget(budget), rng(static_cast<unsigned>(st.me) * 7919u + 17u) {}
};

// Sends a chunk (possibly empty: "none") that the task owns.
slaw::task<> send_chunk(std::vector<node> v, int dest) {
  co_await slaw::mpi::send(v.data(), static_cast<int>(v.size()) * node_bytes, MPI_BYTE, dest, tag_work);
}

// One explorer of an epoch: pulls nodes from the rank's pool, explores depth-first up to the budget,
// gives surplus back when the pool is empty (for the other explorers and thieves), returns the rest.
slaw::task<> explore(slaw_rank* r) {
  const tree_spec& t = *r->s.tree;
  std::vector<node> local;
  long count = 0;
  long budget = static_cast<long>(r->epoch_budget);
  while (budget > 0) {
    if (local.empty()) {
      std::lock_guard<std::mutex> g(r->mu);
      const std::size_t k = std::min<std::size_t>(r->pool.size(), 8);
      local.assign(r->pool.end() - static_cast<std::ptrdiff_t>(k), r->pool.end());
      r->pool.resize(r->pool.size() - k);
      r->pool_n.store(r->pool.size(), std::memory_order_relaxed);
      if (local.empty()) break;
    }
    for (long i = 0; i < r->s.poll && !local.empty(); ++i) {
      const node n = local.back();
      local.pop_back();
      expand(t, n, local);
      ++count;
    }
    budget -= r->s.poll;
    if (local.size() >= 2 && r->pool_n.load(std::memory_order_relaxed) < r->s.chunk) {
      std::lock_guard<std::mutex> g(r->mu);
      take_bottom(local, std::min(local.size() / 2, r->s.chunk), r->pool);
      r->pool_n.store(r->pool.size(), std::memory_order_relaxed);
    }
  }
  if (!local.empty()) {
    std::lock_guard<std::mutex> g(r->mu);
    r->pool.insert(r->pool.end(), local.begin(), local.end());
    r->pool_n.store(r->pool.size(), std::memory_order_relaxed);
  }
  r->nodes.fetch_add(count, std::memory_order_relaxed);
  if (r->epoch_left.fetch_sub(1, std::memory_order_acq_rel) == 1) r->epoch_done->complete();
  co_return;
}

// Answers steal requests until the stop message (-1 from this rank): a chunk from the pool if it has
// two nodes or more; else, while the rank is active, the request waits for the controller's next epoch
// boundary; else "none".
slaw::task<> responder(slaw_rank* r) {
  for (;;) {
    int who = 0;
    const MPI_Status st = co_await slaw::mpi::recv(&who, 1, MPI_ANY_SOURCE, tag_request);
    if (who < 0) co_return;
    std::vector<node> give;
    {
      std::lock_guard<std::mutex> g(r->mu);
      const std::size_t k = share_of(r->pool.size(), r->s.chunk);
      if (k == 0 && r->active) {
        r->pending.push_back(st.MPI_SOURCE);
        continue;
      }
      take_bottom(r->pool, k, give);
      r->pool_n.store(r->pool.size(), std::memory_order_relaxed);
      if (k) r->sent.fetch_add(1, std::memory_order_relaxed), r->chunks_sent.fetch_add(1, std::memory_order_relaxed);
    }
    co_await slaw::async(send_chunk, std::move(give), st.MPI_SOURCE);
  }
}

// Receives the token and the final "done" (tag_token); ends at "done".
slaw::task<> token_keeper(slaw_rank* r) {
  for (;;) {
    long m[3];
    co_await slaw::mpi::recv(m, 3, MPI_ANY_SOURCE, tag_token);
    std::lock_guard<std::mutex> g(r->mu);
    r->term.on_token(m);
    if (r->term.done) co_return;
  }
}

// Answers the pending requests from the pool (or with "none" once the rank is passive). Called by the
// controller between epochs.
slaw::task<> serve_pending(slaw_rank* r) {
  std::vector<std::pair<int, std::vector<node>>> replies;
  {
    std::lock_guard<std::mutex> g(r->mu);
    while (!r->pending.empty()) {
      const std::size_t k = share_of(r->pool.size(), r->s.chunk);
      if (k == 0 && r->active) break;  // they wait for a later boundary
      std::vector<node> give;
      take_bottom(r->pool, k, give);
      if (k) r->sent.fetch_add(1, std::memory_order_relaxed), r->chunks_sent.fetch_add(1, std::memory_order_relaxed);
      replies.emplace_back(r->pending.back(), std::move(give));
      r->pending.pop_back();
    }
    r->pool_n.store(r->pool.size(), std::memory_order_relaxed);
  }
  for (auto& [dest, give] : replies) co_await slaw::async(send_chunk, std::move(give), dest);
}

// The rank's control loop: epochs of explorer tasks while the rank has work; when it has none, the
// token and steal requests until a chunk arrives or "done".
slaw::task<> controller(slaw_rank* r, unsigned workers) {
  const settings& s = r->s;
  {
    std::lock_guard<std::mutex> g(r->mu);
    if (s.me == 0) r->pool.push_back(uts_tree::root_node(*s.tree)), r->pool_n = 1;
    r->active = s.me == 0;
  }
  for (;;) {
    // Active: epochs while the pool has nodes.
    for (;;) {
      {
        std::lock_guard<std::mutex> g(r->mu);
        if (r->pool.empty()) r->active = false;
      }
      co_await serve_pending(r);
      {
        std::lock_guard<std::mutex> g(r->mu);
        if (!r->active) break;
      }
      // One explorer per worker; the controller waits through slaw::wait_for, completed by the last
      // explorer, so that it resumes from the runtime's queue: the worker goes idle in between and runs
      // the communication tasks whose messages have come (the responder above all).
      r->epoch_left.store(static_cast<int>(workers) + 1, std::memory_order_relaxed);
      for (unsigned w = 0; w < workers; ++w) co_await slaw::async(slaw::hf, explore, r);
      bool inline_completion = false;
      co_await slaw::wait_for([&](slaw::completion c) {
        r->epoch_done.emplace(c);
        if (r->epoch_left.fetch_sub(1, std::memory_order_acq_rel) == 1) inline_completion = true, c.complete();
      });
      // Every explorer had ended before the controller waited (a work-first policy): make the worker
      // pass through the runtime's queue anyway, by a no-op message operation.
      if (inline_completion) co_await slaw::mpi::send(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0);
    }
    // Passive: the token, then steal.
    bool finished = false;
    for (;;) {
      int dest;
      long msg[3];
      bool detected;
      {
        std::lock_guard<std::mutex> g(r->mu);
        if (r->term.done) {
          finished = true;
          break;
        }
        r->term.count = r->sent.load(std::memory_order_relaxed) - r->received;
        detected = r->term.passive_step(s, dest, msg);
      }
      if (dest >= 0) co_await slaw::mpi::send(msg, 3, dest, tag_token);
      if (detected) {
        const long done_msg[3] = {0, 0, 1};
        for (int q = 0; q < s.np; ++q) co_await slaw::mpi::send(done_msg, 3, q, tag_token);
        finished = true;
        break;
      }
      if (s.np == 1) continue;
      const int victim = random_victim(r->rng, s);
      ++r->steal_requests;
      co_await slaw::mpi::send(&s.me, 1, victim, tag_request);
      std::vector<node> buf(s.chunk);
      const MPI_Status st = co_await slaw::mpi::recv(buf.data(), static_cast<int>(s.chunk) * node_bytes, MPI_BYTE, victim, tag_work);
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      if (bytes > 0) {
        std::lock_guard<std::mutex> g(r->mu);
        r->received += 1;
        r->term.black = true;
        r->active = true;
        r->pool.assign(buf.begin(), buf.begin() + bytes / node_bytes);
        r->pool_n.store(r->pool.size(), std::memory_order_relaxed);
        break;
      }
    }
    if (finished) break;
  }
  // Every rank is passive and nothing is in flight but steal requests and their replies: once every
  // rank has passed the barrier (each after the reply to its last request), none is left, and the
  // responder can be stopped.
  co_await slaw::mpi::barrier();
  const int stop = -1;
  co_await slaw::mpi::send(&stop, 1, s.me, tag_request);
}

result run_slaw(const settings& s) {
  slaw::runtime rt;
  const unsigned workers = rt.workers();
  slaw_rank r(s, 4096);  // about 0.4 ms of work per explorer and epoch
  rt.run([&]() -> slaw::task<> {
    co_await slaw::async(responder, &r);
    co_await slaw::async(token_keeper, &r);
    co_await controller(&r, workers);
  }());
  return {r.nodes.load(), r.steal_requests, r.chunks_sent.load(), static_cast<int>(workers)};
}

}  // namespace

int main(int argc, char** argv) {
  slaw::mpi::environment env(argc, argv);
  settings s;
  s.me = env.rank(), s.np = env.size();
  std::string mode, tree;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](long lo, long hi) -> long {
      if (i + 1 >= argc) usage(a + " needs a value");
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end || end == argv[i] || v < lo || v > hi)
        usage(a + " '" + argv[i] + "': an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
      return v;
    };
    if (a == "--mode") {
      if (i + 1 >= argc) usage("--mode needs a value");
      mode = argv[++i];
    } else if (a == "--tree") {
      if (i + 1 >= argc) usage("--tree needs a value");
      tree = argv[++i];
    } else if (a == "--chunk") s.chunk = static_cast<std::size_t>(value(1, 4096));
    else if (a == "--poll") s.poll = value(1, 1000000);
    else usage("unknown argument '" + a + "'");
  }
  if (mode != "flat" && mode != "omp" && mode != "slaw") usage("--mode '" + mode + "': accepted values are flat, omp, slaw");
  for (const tree_spec& t : uts_tree::trees)
    if (tree == t.name && (tree == "T1" || tree == "T3")) s.tree = &t;
  for (const tree_spec& t : small_trees)
    if (tree == t.name) s.tree = &t;
  if (!s.tree) usage("--tree '" + tree + "': accepted values are T1, T3, T1S, T3S");

  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = clk::now();
  const result res = mode == "flat" ? run_flat(s) : mode == "omp" ? run_omp(s) : run_slaw(s);
  const double elapsed = std::chrono::duration<double>(clk::now() - t0).count();

  long local[3] = {res.nodes, res.steal_requests, res.chunks_sent}, sum[3] = {0, 0, 0};
  MPI_Reduce(local, sum, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double max_time = 0;
  MPI_Reduce(&elapsed, &max_time, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  long rss = ru.ru_maxrss, max_rss = 0;
  MPI_Reduce(&rss, &max_rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (s.me == 0) {
    ok = sum[0] == s.tree->nodes;
    if (!ok) std::fprintf(stderr, "uts: %ld nodes, expected %ld\n", sum[0], s.tree->nodes);
    std::printf("{\"mode\": \"%s\", \"tree\": \"%s\", \"ranks\": %d, \"threads_per_rank\": %d, \"nodes\": %ld, "
                "\"expected\": %ld, \"time_s\": %.6f, \"steal_requests\": %ld, \"chunks_sent\": %ld, "
                "\"peak_rss_kb\": %ld, \"check\": \"%s\"}\n",
                mode.c_str(), s.tree->name, s.np, res.threads, sum[0], s.tree->nodes, max_time, sum[1], sum[2], max_rss,
                ok ? "ok" : "WRONG");
    std::fflush(stdout);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : 1;
}
