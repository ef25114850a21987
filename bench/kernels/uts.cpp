// uts: Unbalanced Tree Search (Olivier et al., LCPC 2006), the reference UTS trees T1, T3, T1L, T3L.
// Stresses: load balance on an unpredictable tree, many small tasks with a little real work each (one
// SHA-1 per node), a finish per node with up to 2000 children (T3's root).
// Algorithm: the reference UTS rules, in mpi/uts_tree.hpp (shared with the distributed bench/mpi/uts.cpp).
// Every variant visits a node's children as tasks (the parent computes each child's state, then spawns
// its visit, which returns the child's subtree size into a slot) under one finish per node.
// Oracle: the node count equals the published count. Input: the tree parameters below (from the UTS
// sample trees file); nothing else. SHA-1 is OpenSSL's SHA1_Init/Update/Final (uts_tree.hpp says why).
#include <memory>
#include <string>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "mpi/uts_tree.hpp"

namespace {

using uts_tree::child;
using uts_tree::node;
using uts_tree::num_children;
using uts_tree::root_node;
using uts_tree::tree_spec;
using uts_tree::trees;

// Result slots of one node's children: in the frame for up to 16, else on the heap (same in all variants).
struct slots {
  long inline_[16];
  std::unique_ptr<long[]> heap_;
  long* p;
  explicit slots(int k) : p(k <= 16 ? inline_ : (heap_ = std::make_unique<long[]>(k)).get()) {}
  long sum(int k) const {
    long s = 1;
    for (int i = 0; i < k; ++i) s += p[i];
    return s;
  }
};

long visit_serial(const tree_spec& t, const node& n) {
  int k = num_children(t, n);
  if (k == 0) return 1;
  slots s(k);
  for (int i = 0; i < k; ++i) s.p[i] = visit_serial(t, child(n, i));
  return s.sum(k);
}

slaw::task<long> visit_slaw(const tree_spec* t, node n) {
  int k = num_children(*t, n);
  if (k == 0) co_return 1;
  slots s(k);
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < k; ++i) co_await slaw::async(&s.p[i], visit_slaw, t, child(n, i));
  co_await slaw::end_finish(f);
  co_return s.sum(k);
}

long visit_tbb(const tree_spec& t, const node& n) {
  int k = num_children(t, n);
  if (k == 0) return 1;
  slots s(k);
  tbb::task_group g;
  for (int i = 0; i < k; ++i) g.run([&t, dst = &s.p[i], c = child(n, i)] { *dst = visit_tbb(t, c); });
  g.wait();
  return s.sum(k);
}

long visit_omp(const tree_spec& t, const node& n) {
  int k = num_children(t, n);
  if (k == 0) return 1;
  slots s(k);
  for (int i = 0; i < k; ++i) {
    node c = child(n, i);
    long* dst = &s.p[i];
#pragma omp task firstprivate(c, dst) shared(t)
    *dst = visit_omp(t, c);
  }
#pragma omp taskwait
  return s.sum(k);
}

class uts_instance : public slawbench::instance {
 public:
  explicit uts_instance(const slawbench::params& p) {
    const std::string& name = p.text("tree");
    for (const tree_spec& t : trees)
      if (name == t.name) tree_ = &t;
    if (!tree_) throw slawbench::bench_error("tree='" + name + "': expected T1, T3, T1L or T3L");
    root_ = root_node(*tree_);
  }
  void reset() override { count_ = -1; }
  void run_serial() override { count_ = visit_serial(*tree_, root_); }
  void run_slaw(slaw::runtime& rt) override { count_ = rt.run(visit_slaw(tree_, root_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { count_ = visit_tbb(*tree_, root_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = visit_omp(*tree_, root_);
    count_ = r;
  }
  slawbench::outcome check() override {
    bool ok = count_ == tree_->nodes;
    return {ok, std::string(tree_->name) + ": " + std::to_string(count_) + " nodes" +
                    (ok ? "" : ", expected " + std::to_string(tree_->nodes))};
  }

 private:
  const tree_spec* tree_ = nullptr;
  node root_;
  long count_ = -1;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "uts",
    "unbalanced tree search (SHA-1 per node), a finish per node, irregular parallelism",
    {{"tree", "T3"}},
    {{"tree", "T1"}},
    {{"tree", "T1L"}},
    [](const slawbench::params& p) { return std::make_unique<uts_instance>(p); },
    {{"tree", "the UTS sample tree: T1 or T3 (about 4.1M nodes), T1L or T3L (about 100M)"}}});

}  // namespace
