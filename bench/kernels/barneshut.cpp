// barneshut: Barnes-Hut gravitational accelerations of a 3-D Plummer model (Narlikar's Barnes-Hut,
// SPAA'99). Stresses: irregular, data-dependent parallelism and heap allocation inside a parallel
// recursion (the octree nodes and each cell's partition scratch), then a long irregular read-only
// phase.
// Algorithm: one run = (1) tree build: the root cell is the bounding cube of the bodies; a cell of more
// than 8 bodies (and depth < 48) allocates its node and a scratch array of its body count, partitions
// its range of the body index array into the 8 octants (a stable counting sort through the scratch,
// which is then freed), builds its non-empty children - those of more than 8 bodies in parallel, the
// leaves inline - and, after they finish, sums their masses and centres of mass (children in octant
// order, leaf bodies in index order, so the tree and its sums are deterministic); (2) force phase: a
// recursive binary split over the index array, 64 bodies serially per leaf, each body walking the tree
// (monopole, opening angle theta = 0.5: a cell of side s at distance d from the body is opened when
// s >= theta d; Plummer softening eps = 0.025, G = 1); (3) the tree is freed. No time step: positions
// do not change. The slaw variant allocates the index array with co_await slaw::make_buffer and each
// node and scratch after co_await slaw::reserve, through slaw::allocate; the others use operator new.
// Input: N equal-mass bodies (total mass 1) from the Plummer sphere sampling of Aarseth, Henon and
// Wielen (1974) (radius from the cumulative mass, cut off at mass fraction 0.999; isotropic direction),
// std::mt19937_64 with a fixed seed, centred and scaled to standard units (3 pi/16). reset() zeroes
// the accelerations. Oracle: (a) every body's acceleration equals the serial run's (computed at set-up)
// to 1e-12 relative; (b) 64 random bodies against direct summation with the same softening (long double,
// at set-up): the largest relative error must be below 5e-2 and the mean below 5e-3 (over all bodies
// theta = 0.5 gives a median of about 1e-3 and a maximum of about 2e-2).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "slaw/memory.hpp"

namespace {

constexpr std::uint32_t leaf_cap = 8;     // a cell of at most this many bodies is a leaf
constexpr int max_depth = 48;             // deeper cells are leaves whatever their count
constexpr std::uint32_t force_grain = 64;  // bodies per serial force leaf
constexpr double theta = 0.5, eps = 0.025;
// Bounds on the relative error of the Barnes-Hut accelerations of the 64 sampled bodies against direct
// summation: over all bodies, theta = 0.5 gives a median ~1e-3 and a maximum ~2e-2 (N = 2000 .. 100000).
constexpr double bh_max_tolerance = 5e-2, bh_mean_tolerance = 5e-3;

struct body {
  double x, y, z, m;
};
struct vec3 {
  double x, y, z;
};

struct cell {
  double ox, oy, oz, half;  // geometric centre and half side
  cell sub(int o) const {
    double q = half / 2;
    return {ox + (o & 1 ? q : -q), oy + (o & 2 ? q : -q), oz + (o & 4 ? q : -q), q};
  }
};

struct node {
  double cx, cy, cz, m;  // centre of mass, mass
  double side2;          // squared side of the cell
  node* child[8];        // internal node: the children, null where empty
  std::uint32_t lo, cnt;  // leaf: bodies idx[lo .. lo+cnt)
  bool leaf;
};

// A leaf node over idx[lo .. lo+cnt).
void make_leaf(node* c, const body* B, const std::uint32_t* idx, std::uint32_t lo, std::uint32_t cnt, const cell& g) {
  double m = 0, x = 0, y = 0, z = 0;
  for (std::uint32_t i = lo; i < lo + cnt; ++i) {
    const body& b = B[idx[i]];
    m += b.m, x += b.m * b.x, y += b.m * b.y, z += b.m * b.z;
  }
  c->m = m, c->cx = x / m, c->cy = y / m, c->cz = z / m;
  c->side2 = 4 * g.half * g.half;
  std::fill(c->child, c->child + 8, nullptr);
  c->lo = lo, c->cnt = cnt, c->leaf = true;
}

// The internal node's mass and centre of mass from its children (octant order).
void sum_children(node* c, const cell& g) {
  double m = 0, x = 0, y = 0, z = 0;
  std::uint32_t cnt = 0;
  for (node* k : c->child)
    if (k) m += k->m, x += k->m * k->cx, y += k->m * k->cy, z += k->m * k->cz, cnt += k->cnt;
  c->m = m, c->cx = x / m, c->cy = y / m, c->cz = z / m;
  c->side2 = 4 * g.half * g.half;
  c->cnt = cnt, c->lo = 0, c->leaf = false;
}

inline int octant(const body& b, const cell& g) { return (b.x >= g.ox) | (b.y >= g.oy) << 1 | (b.z >= g.oz) << 2; }

// Stable counting sort of idx[0..cnt) by octant through scratch; start[o] .. start[o+1] is octant o.
[[gnu::noinline]] void partition(const body* B, std::uint32_t* idx, std::uint32_t cnt, const cell& g,
                                 std::uint32_t* scratch, std::uint32_t start[9]) {
  std::uint32_t count[8] = {};
  for (std::uint32_t i = 0; i < cnt; ++i) ++count[octant(B[idx[i]], g)];
  start[0] = 0;
  for (int o = 0; o < 8; ++o) start[o + 1] = start[o] + count[o];
  std::uint32_t pos[8];
  std::copy(start, start + 8, pos);
  for (std::uint32_t i = 0; i < cnt; ++i) scratch[pos[octant(B[idx[i]], g)]++] = idx[i];
  std::memcpy(idx, scratch, cnt * sizeof(std::uint32_t));
}

// The acceleration of body b (index bi) from the tree under c.
void accumulate(const node* c, const body* B, const std::uint32_t* idx, std::uint32_t bi, const body& b, double& ax,
                double& ay, double& az) {
  if (c->leaf) {
    for (std::uint32_t i = c->lo; i < c->lo + c->cnt; ++i) {
      std::uint32_t j = idx[i];
      if (j == bi) continue;
      double dx = B[j].x - b.x, dy = B[j].y - b.y, dz = B[j].z - b.z;
      double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
      double f = B[j].m / (r2 * std::sqrt(r2));
      ax += f * dx, ay += f * dy, az += f * dz;
    }
    return;
  }
  double dx = c->cx - b.x, dy = c->cy - b.y, dz = c->cz - b.z;
  double d2 = dx * dx + dy * dy + dz * dz;
  if (c->side2 < theta * theta * d2) {
    double r2 = d2 + eps * eps;
    double f = c->m / (r2 * std::sqrt(r2));
    ax += f * dx, ay += f * dy, az += f * dz;
    return;
  }
  for (const node* k : c->child)
    if (k) accumulate(k, B, idx, bi, b, ax, ay, az);
}

// The accelerations of the bodies idx[lo .. hi).
[[gnu::noinline]] void force_range(const node* root, const body* B, const std::uint32_t* idx, vec3* acc,
                                   std::uint32_t lo, std::uint32_t hi) {
  for (std::uint32_t i = lo; i < hi; ++i) {
    std::uint32_t bi = idx[i];
    double ax = 0, ay = 0, az = 0;
    accumulate(root, B, idx, bi, B[bi], ax, ay, az);
    acc[bi] = {ax, ay, az};
  }
}

// Everything a run reads.
struct problem {
  const body* B;
  std::uint32_t n;
  cell root;
  vec3* acc;
};

// ---- serial elision (and the plain-heap helpers of the oneTBB and OpenMP variants)
node* heap_node() { return static_cast<node*>(::operator new(sizeof(node))); }
std::uint32_t* heap_u32(std::uint32_t n) { return static_cast<std::uint32_t*>(::operator new(n * sizeof(std::uint32_t))); }

void free_heap(node* c) {
  for (node* k : c->child)
    if (k) free_heap(k);
  ::operator delete(c);
}

node* build_serial(const body* B, std::uint32_t* idx, std::uint32_t lo, std::uint32_t cnt, cell g, int depth) {
  node* c = heap_node();
  if (cnt <= leaf_cap || depth == max_depth) {
    make_leaf(c, B, idx, lo, cnt, g);
    return c;
  }
  std::uint32_t start[9];
  std::uint32_t* scratch = heap_u32(cnt);
  partition(B, idx + lo, cnt, g, scratch, start);
  ::operator delete(scratch);
  for (int o = 0; o < 8; ++o) {
    std::uint32_t k = start[o + 1] - start[o];
    c->child[o] = k ? build_serial(B, idx, lo + start[o], k, g.sub(o), depth + 1) : nullptr;
  }
  sum_children(c, g);
  return c;
}

void force_serial(const node* root, const body* B, const std::uint32_t* idx, vec3* acc, std::uint32_t lo, std::uint32_t hi) {
  if (hi - lo <= force_grain) return force_range(root, B, idx, acc, lo, hi);
  std::uint32_t mid = lo + (hi - lo) / 2;
  force_serial(root, B, idx, acc, lo, mid);
  force_serial(root, B, idx, acc, mid, hi);
}

void run_serial_bh(const problem& P) {
  std::uint32_t* idx = heap_u32(P.n);
  for (std::uint32_t i = 0; i < P.n; ++i) idx[i] = i;
  node* root = build_serial(P.B, idx, 0, P.n, P.root, 0);
  force_serial(root, P.B, idx, P.acc, 0, P.n);
  free_heap(root);
  ::operator delete(idx);
}

// ---- slaw
void free_slaw(node* c) {
  for (node* k : c->child)
    if (k) free_slaw(k);
  slaw::deallocate(c, sizeof(node));
}

slaw::task<node*> build_slaw(const body* B, std::uint32_t* idx, std::uint32_t lo, std::uint32_t cnt, cell g, int depth) {
  bool is_leaf = cnt <= leaf_cap || depth == max_depth;
  co_await slaw::reserve(sizeof(node) + (is_leaf ? 0 : cnt * sizeof(std::uint32_t)));
  node* c = static_cast<node*>(slaw::allocate(sizeof(node)));
  if (is_leaf) {
    make_leaf(c, B, idx, lo, cnt, g);
    co_return c;
  }
  std::uint32_t start[9];
  {
    slaw::buffer<std::uint32_t> scratch(cnt);
    partition(B, idx + lo, cnt, g, scratch.data(), start);
  }
  {
    auto f = co_await slaw::start_finish();
    for (int o = 0; o < 8; ++o) {
      std::uint32_t k = start[o + 1] - start[o];
      if (k > leaf_cap) co_await slaw::async(&c->child[o], build_slaw, B, idx, lo + start[o], k, g.sub(o), depth + 1);
      else if (k) c->child[o] = co_await build_slaw(B, idx, lo + start[o], k, g.sub(o), depth + 1);
      else c->child[o] = nullptr;
    }
    co_await slaw::end_finish(f);
  }
  sum_children(c, g);
  co_return c;
}

slaw::task<> force_slaw(const node* root, const body* B, const std::uint32_t* idx, vec3* acc, std::uint32_t lo,
                        std::uint32_t hi) {
  if (hi - lo <= force_grain) {
    force_range(root, B, idx, acc, lo, hi);
    co_return;
  }
  std::uint32_t mid = lo + (hi - lo) / 2;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(force_slaw, root, B, idx, acc, lo, mid);
  co_await force_slaw(root, B, idx, acc, mid, hi);
  co_await slaw::end_finish(f);
}

slaw::task<> run_slaw_bh(problem P) {
  slaw::buffer<std::uint32_t> idx = co_await slaw::make_buffer<std::uint32_t>(P.n);
  for (std::uint32_t i = 0; i < P.n; ++i) idx[i] = i;
  node* root = co_await build_slaw(P.B, idx.data(), 0, P.n, P.root, 0);
  co_await force_slaw(root, P.B, idx.data(), P.acc, 0, P.n);
  free_slaw(root);
}

// ---- oneTBB
node* build_tbb(const body* B, std::uint32_t* idx, std::uint32_t lo, std::uint32_t cnt, cell g, int depth) {
  node* c = heap_node();
  if (cnt <= leaf_cap || depth == max_depth) {
    make_leaf(c, B, idx, lo, cnt, g);
    return c;
  }
  std::uint32_t start[9];
  std::uint32_t* scratch = heap_u32(cnt);
  partition(B, idx + lo, cnt, g, scratch, start);
  ::operator delete(scratch);
  tbb::task_group tg;
  for (int o = 0; o < 8; ++o) {
    std::uint32_t k = start[o + 1] - start[o], l = lo + start[o];
    cell s = g.sub(o);
    if (k > leaf_cap) tg.run([=] { c->child[o] = build_tbb(B, idx, l, k, s, depth + 1); });
    else c->child[o] = k ? build_tbb(B, idx, l, k, s, depth + 1) : nullptr;
  }
  tg.wait();
  sum_children(c, g);
  return c;
}

void force_tbb(const node* root, const body* B, const std::uint32_t* idx, vec3* acc, std::uint32_t lo, std::uint32_t hi) {
  if (hi - lo <= force_grain) return force_range(root, B, idx, acc, lo, hi);
  std::uint32_t mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([=] { force_tbb(root, B, idx, acc, lo, mid); });
  force_tbb(root, B, idx, acc, mid, hi);
  g.wait();
}

void run_tbb_bh(const problem& P) {
  std::uint32_t* idx = heap_u32(P.n);
  for (std::uint32_t i = 0; i < P.n; ++i) idx[i] = i;
  node* root = build_tbb(P.B, idx, 0, P.n, P.root, 0);
  force_tbb(root, P.B, idx, P.acc, 0, P.n);
  free_heap(root);
  ::operator delete(idx);
}

// ---- OpenMP
node* build_omp(const body* B, std::uint32_t* idx, std::uint32_t lo, std::uint32_t cnt, cell g, int depth) {
  node* c = heap_node();
  if (cnt <= leaf_cap || depth == max_depth) {
    make_leaf(c, B, idx, lo, cnt, g);
    return c;
  }
  std::uint32_t start[9];
  std::uint32_t* scratch = heap_u32(cnt);
  partition(B, idx + lo, cnt, g, scratch, start);
  ::operator delete(scratch);
  for (int o = 0; o < 8; ++o) {
    std::uint32_t k = start[o + 1] - start[o], l = lo + start[o];
    cell s = g.sub(o);
    if (k > leaf_cap) {
#pragma omp task firstprivate(c, o, B, idx, l, k, s, depth)
      c->child[o] = build_omp(B, idx, l, k, s, depth + 1);
    } else {
      c->child[o] = k ? build_omp(B, idx, l, k, s, depth + 1) : nullptr;
    }
  }
#pragma omp taskwait
  sum_children(c, g);
  return c;
}

void force_omp(const node* root, const body* B, const std::uint32_t* idx, vec3* acc, std::uint32_t lo, std::uint32_t hi) {
  if (hi - lo <= force_grain) return force_range(root, B, idx, acc, lo, hi);
  std::uint32_t mid = lo + (hi - lo) / 2;
#pragma omp task firstprivate(root, B, idx, acc, lo, mid)
  force_omp(root, B, idx, acc, lo, mid);
  force_omp(root, B, idx, acc, mid, hi);
#pragma omp taskwait
}

void run_omp_bh(const problem& P) {
  std::uint32_t* idx = heap_u32(P.n);
  for (std::uint32_t i = 0; i < P.n; ++i) idx[i] = i;
  node* root = build_omp(P.B, idx, 0, P.n, P.root, 0);
  force_omp(root, P.B, idx, P.acc, 0, P.n);
  free_heap(root);
  ::operator delete(idx);
}

class barneshut_instance : public slawbench::instance {
 public:
  explicit barneshut_instance(const slawbench::params& p) : n_(static_cast<std::uint32_t>(p.integer("n", 2, 10000000))) {
    // Plummer sphere, Aarseth, Henon & Wielen (1974).
    bodies_.resize(n_);
    std::mt19937_64 rng(1974);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1p-53; };  // [0, 1)
    const double pi = 3.14159265358979323846, scale = 3 * pi / 16;
    double sx = 0, sy = 0, sz = 0;
    for (body& b : bodies_) {
      double X1;
      do X1 = uni();
      while (X1 <= 0 || X1 > 0.999);
      double r = 1 / std::sqrt(std::pow(X1, -2.0 / 3.0) - 1);
      double z = (1 - 2 * uni()) * r, phi = 2 * pi * uni(), rxy = std::sqrt(std::fmax(r * r - z * z, 0.0));
      b = {scale * rxy * std::cos(phi), scale * rxy * std::sin(phi), scale * z, 1.0 / n_};
      sx += b.x, sy += b.y, sz += b.z;
    }
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (body& b : bodies_) {
      b.x -= sx / n_, b.y -= sy / n_, b.z -= sz / n_;
      double v[3] = {b.x, b.y, b.z};
      for (int d = 0; d < 3; ++d) lo[d] = std::fmin(lo[d], v[d]), hi[d] = std::fmax(hi[d], v[d]);
    }
    double half = 0;
    for (int d = 0; d < 3; ++d) half = std::fmax(half, (hi[d] - lo[d]) / 2);
    root_ = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2, half * (1 + 1e-9) + 1e-300};
    acc_.resize(n_);
    // The serial run's accelerations, and 64 bodies by direct summation.
    reset();
    run_serial();
    ref_ = acc_;
    std::mt19937_64 pick(64);
    for (int s = 0; s < 64; ++s) {
      std::uint32_t i = static_cast<std::uint32_t>(pick() % n_);
      long double ax = 0, ay = 0, az = 0;
      const body& b = bodies_[i];
      for (std::uint32_t j = 0; j < n_; ++j) {
        if (j == i) continue;
        long double dx = bodies_[j].x - b.x, dy = bodies_[j].y - b.y, dz = bodies_[j].z - b.z;
        long double r2 = dx * dx + dy * dy + dz * dz + static_cast<long double>(eps) * eps;
        long double f = bodies_[j].m / (r2 * std::sqrt(r2));
        ax += f * dx, ay += f * dy, az += f * dz;
      }
      direct_idx_.push_back(i);
      direct_.push_back({static_cast<double>(ax), static_cast<double>(ay), static_cast<double>(az)});
    }
  }
  void reset() override { std::fill(acc_.begin(), acc_.end(), vec3{0, 0, 0}); }
  void run_serial() override { run_serial_bh(problem_()); }
  void run_slaw(slaw::runtime& rt) override { rt.run(run_slaw_bh(problem_())); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { run_tbb_bh(problem_()); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    problem P = problem_();
#pragma omp parallel
#pragma omp single
    run_omp_bh(P);
  }
  slawbench::outcome check() override {
    auto norm = [](const vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); };
    auto diff = [&](const vec3& a, const vec3& b) { return norm({a.x - b.x, a.y - b.y, a.z - b.z}); };
    double same = 0;
    long worst_same = -1;
    for (std::uint32_t i = 0; i < n_; ++i) {
      double e = diff(acc_[i], ref_[i]) / norm(ref_[i]);
      if (!(e <= same)) same = e, worst_same = i;  // NaN counts as the worst
    }
    double bh = 0, mean = 0;
    long worst_bh = -1;
    for (std::size_t s = 0; s < direct_.size(); ++s) {
      double e = diff(acc_[direct_idx_[s]], direct_[s]) / norm(direct_[s]);
      if (!(e <= bh)) bh = e, worst_bh = direct_idx_[s];
      mean += e / direct_.size();
    }
    bool ok = same <= 1e-12 && bh <= bh_max_tolerance && mean <= bh_mean_tolerance;
    char msg[300];
    std::snprintf(msg, sizeof msg,
                  "N=%u: max relative difference from the serial run %.3g; %zu bodies vs direct sum: relative error "
                  "max %.3g (bound %.0e), mean %.3g (bound %.0e)",
                  n_, same, direct_.size(), bh, bh_max_tolerance, mean, bh_mean_tolerance);
    std::string detail = msg;
    if (!(same <= 1e-12)) detail += ", differs most at body " + std::to_string(worst_same);
    if (!(bh <= bh_max_tolerance)) detail += ", worst sampled body " + std::to_string(worst_bh);
    return {ok, detail};
  }

 private:
  problem problem_() { return {bodies_.data(), n_, root_, acc_.data()}; }
  std::uint32_t n_;
  std::vector<body> bodies_;
  cell root_{};
  std::vector<vec3> acc_, ref_, direct_;
  std::vector<std::uint32_t> direct_idx_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "barneshut",
    "Barnes-Hut octree build + forces on a Plummer model: irregular parallelism, nodes allocated in parallel",
    {{"n", "2000"}},
    {{"n", "20000"}},
    {{"n", "100000"}},
    [](const slawbench::params& p) { return std::make_unique<barneshut_instance>(p); },
    {{"n", "bodies of the Plummer model, in [2, 10^7]"}}});

}  // namespace
