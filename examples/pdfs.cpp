// pdfs [SIDE] [--cas]: parallel depth-first search building a spanning tree of a SIDE x SIDE 2-D torus
// (HJ PDFS kernel). compute(v) tries to label each neighbour e of v with parent v; whoever labels e
// spawns compute(e) as an ESCAPING async (compute opens no finish), so every task joins the single
// finish around the root's compute. Labels are taken in an isolated block (default, as in HJ) or with a
// compare-and-swap (--cas). Parents are std::atomic<int> so the unguarded read in try_label is
// race-free; inside isolated, relaxed accesses suffice (the isolated mutex orders them).
// The result is checked to be a spanning tree rooted at vertex 0.
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "parse_arg.hpp"
#include "slaw/slaw.hpp"

namespace {

int side;                                 // the torus is side x side, vertex (r, c) = r * side + c
std::vector<std::atomic<int>>* parent;    // -1 = unlabeled
bool use_cas = false;
constexpr auto relaxed = std::memory_order_relaxed;

// The distinct torus neighbours of v (up, down, left, right; fewer when side == 2). Returns the count.
int neighbours(int v, int (&nb)[4]) {
  int r = v / side, c = v % side, k = 0;
  int cand[4] = {(r + side - 1) % side * side + c, (r + 1) % side * side + c,  //
                 r * side + (c + side - 1) % side, r * side + (c + 1) % side};
  for (int e : cand) {
    bool dup = false;
    for (int j = 0; j < k; ++j) dup |= nb[j] == e;
    if (!dup) nb[k++] = e;
  }
  return k;
}

bool try_labeling(int e, int v) {
  std::atomic<int>& p = (*parent)[e];
  if (use_cas) {
    int expected = -1;
    p.compare_exchange_strong(expected, v, relaxed);
  } else {
    slaw::isolated([&] {
      if (p.load(relaxed) == -1) p.store(v, relaxed);
    });
  }
  return p.load(relaxed) == v;
}

slaw::task<> compute(int v) {
  int nb[4];
  int k = neighbours(v, nb);
  for (int i = 0; i < k; ++i)
    if (try_labeling(nb[i], v)) co_await slaw::async(compute, nb[i]);
}

slaw::task<> pdfs(int root) {
  (*parent)[root].store(root, relaxed);
  co_await slaw::finish([&]() -> slaw::task<> { co_await compute(root); });
}

// A spanning tree rooted at `root`: every vertex labeled with a neighbour (root: itself), and every
// parent chain reaches the root without a cycle. Each vertex is walked once (state: 0 new, 1 on the
// current chain, 2 known to reach the root). Returns null if ok, else a message about vertex *bad.
const char* check_tree(int root, int* bad) {
  const int n = side * side;
  std::vector<int> par(n);
  for (int v = 0; v < n; ++v) par[v] = (*parent)[v].load(relaxed);
  if (par[root] != root) return (*bad = root, "the root's parent is not itself");
  for (int v = 0; v < n; ++v) {
    if (v == root) continue;
    if (par[v] == -1) return (*bad = v, "vertex unlabeled");
    int nb[4], k = neighbours(v, nb);
    bool adj = false;
    for (int i = 0; i < k; ++i) adj |= nb[i] == par[v];
    if (!adj) return (*bad = v, "parent is not a torus neighbour");
  }
  std::vector<unsigned char> state(n, 0);
  std::vector<int> chain;
  state[root] = 2;
  for (int v = 0; v < n; ++v) {
    chain.clear();
    int u = v;
    for (; state[u] == 0; u = par[u]) {
      state[u] = 1;
      chain.push_back(u);
    }
    if (state[u] == 1) return (*bad = u, "parent chain has a cycle");
    for (int w : chain) state[w] = 2;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  side = 100;
  bool have_side = false, bad_args = argc > 3;
  for (int i = 1; i < argc && !bad_args; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--cas") == 0 && !use_cas) {
      use_cas = true;
    } else if (long v = 0; !have_side && parse_arg(a, 2, 20000, &v)) {
      side = static_cast<int>(v);
      have_side = true;
    } else {
      bad_args = true;
    }
  }
  if (bad_args) {
    std::fprintf(stderr, "usage: pdfs [SIDE] [--cas]   (SIDE an integer in [2, 20000], default 100)\n");
    return 2;
  }
  try {
    slaw::runtime rt{slaw::config::from_env()};
    const int n = side * side;
    std::vector<std::atomic<int>> par(n);
    for (auto& p : par) p.store(-1, relaxed);
    parent = &par;
    rt.run(pdfs(0));
    int bad = -1;
    if (const char* why = check_tree(0, &bad)) {
      std::fprintf(stderr, "pdfs: NOT a spanning tree: %s (vertex %d, parent %d)\n", why, bad,
                   par[bad].load(relaxed));
      return 1;
    }
    std::printf("spanning tree ok: %d vertices\n", n);
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "pdfs: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // e.g. out of memory, worker threads that could not be started
    std::fprintf(stderr, "pdfs: %s\n", e.what());
    return 1;
  }
  return 0;
}
