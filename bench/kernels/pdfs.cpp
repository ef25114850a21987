// pdfs: parallel depth-first search building a spanning tree of a side x side 2-D torus (HJ PDFS kernel,
// the algorithm of examples/pdfs.cpp). Stresses: escaping asyncs (no finish below the root), tiny tasks,
// a task tree as deep as the graph, contention on a shared array.
// Algorithm: compute(v) tries to label each torus neighbour e of v with parent v (a compare-and-swap
// on std::atomic<int> parent[e]); whoever labels e spawns compute(e), which escapes: every task joins the
// one finish around the root's compute (slaw: a finish scope; oneTBB: one task_group passed down and
// waited for once at the root; OpenMP: tasks without taskwait inside one taskgroup at the root).
// Serial elision: the same recursion as plain calls, labelling with a plain load and store. Its depth
// can reach side^2, so for side <= 1000 it runs on a helper thread with a side^2 * 512-byte stack
// (created once per instance); for side > 1000 it uses an explicit stack of (vertex, next neighbour)
// pairs that visits in exactly the recursion's order.
// OpenMP: libgomp runs a new task inline (undeferred) once 64 tasks per thread are queued, so these
// escaping tasks recurse on the team threads' native stacks: measured ~530 bytes per level and up to
// ~side^2/2 levels (248 MB at side=1000, 2 threads). has_omp() is true only when every team thread's
// stack holds side^2 * 640 bytes (probed when the driver asks, in the OpenMP run's process only; 8 MiB
// stacks allow side <= ~110); otherwise the variant is skipped with a note on stderr. Run with
// OMP_STACKSIZE and `ulimit -s` raised to enable it.
// serial_stack=MiB (default "fit") makes the serial elision the plain recursion on a thread with a stack
// of that size, as a C program on a default 8 MiB stack would run it: on large tori it overflows and the
// process dies of SIGSEGV (experiment A5 runs it in a child process and reports that).
// Input: none but side. Oracle: the labels form a spanning tree rooted at vertex 0 (every vertex
// labelled with a torus neighbour, every parent chain reaches the root without a cycle).
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

constexpr auto relaxed = std::memory_order_relaxed;

struct torus {
  int side;
  std::vector<std::atomic<int>> parent;  // -1 = unlabelled
  explicit torus(int s) : side(s), parent(static_cast<std::size_t>(s) * s) {}

  // The distinct neighbours of v (up, down, left, right; fewer when side == 2). Returns the count.
  int neighbours(int v, int (&nb)[4]) const {
    int r = v / side, c = v % side, k = 0;
    int cand[4] = {(r + side - 1) % side * side + c, (r + 1) % side * side + c, r * side + (c + side - 1) % side,
                   r * side + (c + 1) % side};
    for (int e : cand) {
      bool dup = false;
      for (int j = 0; j < k; ++j) dup |= nb[j] == e;
      if (!dup) nb[k++] = e;
    }
    return k;
  }
  bool try_label(int e, int v) {
    int expected = -1;
    return parent[e].compare_exchange_strong(expected, v, relaxed);
  }
  bool try_label_serial(int e, int v) {
    if (parent[e].load(relaxed) != -1) return false;
    parent[e].store(v, relaxed);
    return true;
  }
};

// ---- serial elision
void compute_serial(torus& t, int v) {
  int nb[4], k = t.neighbours(v, nb);
  for (int i = 0; i < k; ++i)
    if (t.try_label_serial(nb[i], v)) compute_serial(t, nb[i]);
}

void compute_explicit_stack(torus& t, int root, std::vector<std::pair<int, int>>& stack) {
  stack.clear();
  stack.push_back({root, 0});
  while (!stack.empty()) {
    auto& [v, i] = stack.back();
    int nb[4], k = t.neighbours(v, nb);
    if (i == k) {
      stack.pop_back();
      continue;
    }
    int e = nb[i++];
    if (t.try_label_serial(e, v)) stack.push_back({e, 0});
  }
}

// ---- slaw
slaw::task<> compute_slaw(torus* t, int v) {
  int nb[4], k = t->neighbours(v, nb);
  for (int i = 0; i < k; ++i)
    if (t->try_label(nb[i], v)) co_await slaw::async(compute_slaw, t, nb[i]);
}

slaw::task<> root_slaw(torus* t, int root) {
  auto f = co_await slaw::start_finish();
  co_await compute_slaw(t, root);
  co_await slaw::end_finish(f);
}

// ---- oneTBB
void compute_tbb(tbb::task_group& g, torus& t, int v) {
  int nb[4], k = t.neighbours(v, nb);
  for (int i = 0; i < k; ++i)
    if (t.try_label(nb[i], v)) g.run([&g, &t, e = nb[i]] { compute_tbb(g, t, e); });
}

// ---- OpenMP
void compute_omp(torus& t, int v) {
  int nb[4], k = t.neighbours(v, nb);
  for (int i = 0; i < k; ++i)
    if (t.try_label(nb[i], v)) {
      int e = nb[i];
#pragma omp task firstprivate(e) shared(t)
      compute_omp(t, e);
    }
}

// The smallest native stack among the threads of an OpenMP team of two (the calling thread included).
std::size_t omp_min_stack() {
  std::size_t least = SIZE_MAX;
#pragma omp parallel num_threads(2) reduction(min : least)
  {
    pthread_attr_t a;
    std::size_t s = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      pthread_attr_getstacksize(&a, &s);
      pthread_attr_destroy(&a);
    }
    least = s < least ? s : least;
  }
  return least;
}

// One thread with a large stack that runs jobs on request; created once, so its stack pages stay mapped.
class big_stack_thread {
 public:
  explicit big_stack_thread(std::size_t stack_bytes) {
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, stack_bytes);
    int rc = pthread_create(&thread_, &a, &main, this);
    pthread_attr_destroy(&a);
    if (rc) throw slawbench::bench_error("cannot start a thread with a " + std::to_string(stack_bytes >> 20) + " MiB stack");
  }
  ~big_stack_thread() {
    {
      std::lock_guard l(m_);
      quit_ = true;
    }
    cv_.notify_all();
    pthread_join(thread_, nullptr);
  }
  void run(const std::function<void()>& f) {
    std::unique_lock l(m_);
    job_ = &f;
    cv_.notify_all();
    cv_.wait(l, [&] { return job_ == nullptr; });
  }

 private:
  static void* main(void* p) {
    auto* self = static_cast<big_stack_thread*>(p);
    std::unique_lock l(self->m_);
    for (;;) {
      self->cv_.wait(l, [&] { return self->job_ || self->quit_; });
      if (self->quit_) return nullptr;
      (*self->job_)();
      self->job_ = nullptr;
      self->cv_.notify_all();
    }
  }
  pthread_t thread_;
  std::mutex m_;
  std::condition_variable cv_;
  const std::function<void()>* job_ = nullptr;
  bool quit_ = false;
};

class pdfs_instance : public slawbench::instance {
 public:
  explicit pdfs_instance(const slawbench::params& p) : t_(static_cast<int>(p.integer("side", 2, 10000))) {
    const std::size_t vertices = std::size_t(t_.side) * t_.side;
    if (p.text("serial_stack") != "fit") {
      std::int64_t mib = 0;
      try {
        mib = p.integer("serial_stack", 1, 65536);
      } catch (const slawbench::bench_error& e) {
        throw slawbench::bench_error(std::string(e.what()) + ", or fit");
      }
      helper_ = std::make_unique<big_stack_thread>(static_cast<std::size_t>(mib) << 20);
    } else if (t_.side <= 1000) {
      helper_ = std::make_unique<big_stack_thread>(vertices * 512 + (1 << 20));
    }
  }
  void reset() override {
    for (auto& x : t_.parent) x.store(-1, relaxed);
    t_.parent[0].store(0, relaxed);  // the root
  }
  void run_serial() override {
    if (helper_) helper_->run([this] { compute_serial(t_, 0); });
    else compute_explicit_stack(t_, 0, stack_);
  }
  void run_slaw(slaw::runtime& rt) override { rt.run(root_slaw(&t_, 0)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override {
    tbb::task_group g;
    compute_tbb(g, t_, 0);
    g.wait();
  }
  // Checked here, not when the instance is built: slaw-bench asks only in the OpenMP configuration's
  // process, so the other variants' processes start no OpenMP team and print no note.
  bool has_omp() const override {
    const std::size_t have = omp_min_stack(), need = std::size_t(t_.side) * t_.side * 640;
    if (have >= need) return true;
    std::fprintf(stderr, "pdfs: side=%d: OpenMP variant skipped: its threads' stacks (%zu MiB) are below the %zu MiB "
                 "that libgomp's inline task execution may need here (raise OMP_STACKSIZE and ulimit -s)\n",
                 t_.side, have >> 20, (need >> 20) + 1);
    return false;
  }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup
    compute_omp(t_, 0);
  }
  slawbench::outcome check() override {
    const int n = t_.side * t_.side;
    std::vector<int> par(n);
    for (int v = 0; v < n; ++v) par[v] = t_.parent[v].load(relaxed);
    auto bad = [&](int v, const char* why) {
      return slawbench::outcome{false, std::string("not a spanning tree: ") + why + " (vertex " + std::to_string(v) +
                                           ", parent " + std::to_string(par[v]) + ")"};
    };
    if (par[0] != 0) return bad(0, "the root's parent is not itself");
    for (int v = 1; v < n; ++v) {
      if (par[v] == -1) return bad(v, "vertex unlabelled");
      int nb[4], k = t_.neighbours(v, nb);
      bool adj = false;
      for (int i = 0; i < k; ++i) adj |= nb[i] == par[v];
      if (!adj) return bad(v, "parent is not a torus neighbour");
    }
    std::vector<unsigned char> state(n, 0);  // 0 new, 1 on the current chain, 2 reaches the root
    std::vector<int> chain;
    state[0] = 2;
    for (int v = 0; v < n; ++v) {
      chain.clear();
      int u = v;
      for (; state[u] == 0; u = par[u]) state[u] = 1, chain.push_back(u);
      if (state[u] == 1) return bad(u, "parent chain has a cycle");
      for (int w : chain) state[w] = 2;
    }
    return {true, "spanning tree of the " + std::to_string(t_.side) + "x" + std::to_string(t_.side) + " torus"};
  }

 private:
  torus t_;
  std::unique_ptr<big_stack_thread> helper_;
  std::vector<std::pair<int, int>> stack_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "pdfs",
    "parallel DFS spanning tree of a 2-D torus: escaping asyncs under one finish, tiny tasks",
    {{"side", "100"}, {"serial_stack", "fit"}},
    {{"side", "1000"}, {"serial_stack", "fit"}},
    {{"side", "2000"}, {"serial_stack", "fit"}},
    [](const slawbench::params& p) { return std::make_unique<pdfs_instance>(p); },
    {{"side", "the torus's side (side^2 vertices), in [2, 10000]"},
     {"serial_stack", "the serial elision's stack: fit (large enough for the recursion) or a size in MiB in "
                      "[1, 65536] (too small a stack dies of SIGSEGV)"}}});

}  // namespace
