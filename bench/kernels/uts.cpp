// uts: Unbalanced Tree Search (Olivier et al., LCPC 2006), the reference UTS trees T1, T3, T1L, T3L.
// Stresses: load balance on an unpredictable tree, many small tasks with a little real work each (one
// SHA-1 per node), a finish per node with up to 2000 children (T3's root).
// Algorithm (the reference UTS rules): the root's state is SHA-1 of 16 zero bytes and the 4-byte
// big-endian seed; child i's state is SHA-1(parent state || 4-byte big-endian i); a node's random value
// is the last 4 state bytes as a big-endian int & 0x7FFFFFFF, over 2^31 as a probability u.
//   geometric, fixed shape (T1, T1L): b_i = b0 while depth < d, else 0; children floor(log(1-u)/log(1-p)),
//     p = 1/(1+b_i), at most 100;  binomial (T3, T3L): the root has b0 children, others m with
//     probability q, else none.
// Every variant visits a node's children as tasks (the parent computes each child's state, then spawns
// its visit, which returns the child's subtree size into a slot) under one finish per node.
// Oracle: the node count equals the published count. Input: the tree parameters below (from the UTS
// sample trees file); nothing else. SHA-1 is OpenSSL's SHA1_Init/Update/Final: the EVP one-shot
// (EVP_Digest) allocates a context and looks the digest up on every call, ~8x slower here, which would
// turn the benchmark into a libcrypto stress test.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include <omp.h>
#include <openssl/sha.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

struct tree_spec {
  const char* name;
  bool binomial;
  double b0;  // root branching factor (binomial) / expected branching factor (geometric)
  int depth;  // geometric: depth limit d
  double q;   // binomial: probability of a non-leaf
  int m;      // binomial: number of children of a non-leaf
  int seed;
  long nodes;  // published node count
};

constexpr tree_spec trees[] = {
    {"T1", false, 4, 10, 0, 0, 19, 4130071},        // -t 1 -a 3 -d 10 -b 4 -r 19
    {"T3", true, 2000, 0, 0.124875, 8, 42, 4112897},  // -t 0 -b 2000 -q 0.124875 -m 8 -r 42
    {"T1L", false, 4, 13, 0, 0, 29, 102181082},     // -t 1 -a 3 -d 13 -b 4 -r 29
    {"T3L", true, 2000, 0, 0.200014, 5, 7, 111345631},  // -t 0 -b 2000 -q 0.200014 -m 5 -r 7
};

struct node {
  unsigned char state[20];
  int height;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void sha1(const unsigned char* a, std::size_t na, const unsigned char* b, std::size_t nb, unsigned char* out) {
  SHA_CTX c;
  SHA1_Init(&c);
  SHA1_Update(&c, a, na);
  if (nb) SHA1_Update(&c, b, nb);
  SHA1_Final(out, &c);
}
#pragma GCC diagnostic pop

void be32(std::uint32_t v, unsigned char* p) {
  p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = v;
}

node root_node(const tree_spec& t) {
  unsigned char init[20] = {};
  be32(static_cast<std::uint32_t>(t.seed), init + 16);
  node r;
  sha1(init, 20, nullptr, 0, r.state);
  r.height = 0;
  return r;
}

node child(const node& parent, int i) {
  unsigned char idx[4];
  be32(static_cast<std::uint32_t>(i), idx);
  node c;
  sha1(parent.state, 20, idx, 4, c.state);
  c.height = parent.height + 1;
  return c;
}

double prob(const node& n) {
  const unsigned char* s = n.state + 16;
  std::uint32_t v = (std::uint32_t(s[0]) << 24 | std::uint32_t(s[1]) << 16 | std::uint32_t(s[2]) << 8 | s[3]) & 0x7FFFFFFF;
  return v / 2147483648.0;
}

int num_children(const tree_spec& t, const node& n) {
  if (t.binomial) {
    if (n.height == 0) return static_cast<int>(t.b0);
    return prob(n) < t.q ? t.m : 0;
  }
  double b = n.height < t.depth ? t.b0 : 0;
  if (b == 0) return 0;
  double p = 1.0 / (1.0 + b);
  int k = static_cast<int>(std::floor(std::log(1 - prob(n)) / std::log(1 - p)));
  return k < 100 ? k : 100;  // MAXNUMCHILDREN of the reference code
}

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
