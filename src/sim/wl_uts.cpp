// UTS, unbalanced tree search (Olivier et al., LCPC 2006), as bench/kernels/uts.cpp runs it: a node
// computes its number of children and visits each child as a task under one finish per node. The
// trees are the reference ones (the UTS sample trees T1, T3, T1L, T3L), with the reference splitting
// rule: the root's state is SHA-1 of 16 zero bytes and the 4-byte big-endian seed, child i's state is
// SHA-1(parent state || 4-byte big-endian i), a node's random value the last 4 state bytes as a
// big-endian int & 0x7FFFFFFF over 2^31 (SHA-1 is sha1.cpp's). The simulated trees have the published
// node counts (T1: 4,130,071; T3: 4,112,897).
//   geometric (T1, T1L): b = b0 while depth < d, else 0; children floor(log(1-u) / log(1-1/(1+b))), at most 100
//   binomial (T3, T3L): the root has b0 children, others m with probability q, else none
// Cost model: 64 ns per node, its SHA-1 computed by its parent before the spawn (latest.md:
// Ts(T1) = 0.2647 s over 4,130,071 nodes).
#include <cmath>
#include <cstring>

#include "sim/sha1.hpp"
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

struct tree_spec {
  const char* name;
  bool binomial;
  double b0;
  int depth;
  double q;
  int m;
  int seed;
  std::uint64_t nodes;  // published node count
};

constexpr tree_spec trees[] = {
    {"T1", false, 4, 10, 0, 0, 19, 4130071},
    {"T3", true, 2000, 0, 0.124875, 8, 42, 4112897},
    {"T1L", false, 4, 13, 0, 0, 29, 102181082},
    {"T3L", true, 2000, 0, 0.200014, 5, 7, 111345631},
};

// A node's 20-byte state lives in a (bytes 0-7), b (8-15) and c (16-19); its height in d; pc holds the
// phase (2 bits) and the next child's index.
void store(body& t, const sha1_digest& s) {
  std::memcpy(&t.a, s.bytes, 8);
  std::memcpy(&t.b, s.bytes + 8, 8);
  std::memcpy(&t.c, s.bytes + 16, 4);
}
void load(const body& t, unsigned char* s) {
  std::memcpy(s, &t.a, 8);
  std::memcpy(s + 8, &t.b, 8);
  std::memcpy(s + 16, &t.c, 4);
}
void be32(std::uint32_t v, unsigned char* p) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}

class uts_source final : public dag_source {
 public:
  uts_source(const tree_spec& t, double node_ns, std::uint32_t frame) : t_(t), node_(from_ns(node_ns)), frame_(frame) {
    unsigned char init[20] = {};
    be32(static_cast<std::uint32_t>(t_.seed), init + 16);
    store(root_, sha1(init, 20));
  }

  std::string name() const override { return std::string("uts:") + t_.name; }
  body root() const override { return root_; }
  std::uint32_t root_bytes() const override { return frame_; }
  std::uint64_t expected_tasks() const override { return t_.nodes; }

  step next(body& t) override {
    step s;
    const std::uint32_t phase = t.pc & 3, index = t.pc >> 2;
    const int k = children(t);
    if (k == 0) return s;
    if (phase == 0) {
      t.pc = 1;
      s.what = op::start_finish;
      return s;
    }
    if (phase == 1) {
      if (index < static_cast<std::uint32_t>(k)) {
        unsigned char in[24];
        load(t, in);
        be32(index, in + 20);
        s.child.d = t.d + 1;
        store(s.child, sha1(in, 24));
        t.pc = 1 | (index + 1) << 2;
        s.work = node_;  // the child's SHA-1
        s.what = op::spawn;
        s.child_bytes = frame_;
        return s;
      }
      t.pc = 2;
      s.what = op::end_finish;
      return s;
    }
    return s;
  }

  std::string cost_model() const override {
    return std::to_string(to_ns(node_)) + " ns per node; frame " + std::to_string(frame_) + " B";
  }

 private:
  int children(const body& t) const {
    unsigned char st[20];
    load(t, st);
    const std::uint32_t v = (static_cast<std::uint32_t>(st[16]) << 24 | static_cast<std::uint32_t>(st[17]) << 16 |
                             static_cast<std::uint32_t>(st[18]) << 8 | st[19]) & 0x7FFFFFFF;
    const double u = v / 2147483648.0;
    if (t_.binomial) {
      if (t.d == 0) return static_cast<int>(t_.b0);
      return u < t_.q ? t_.m : 0;
    }
    const double b = static_cast<int>(t.d) < t_.depth ? t_.b0 : 0;
    if (b == 0) return 0;
    const double p = 1.0 / (1.0 + b);
    const int k = static_cast<int>(std::floor(std::log(1 - u) / std::log(1 - p)));
    return k < 100 ? k : 100;
  }

  tree_spec t_;
  time_ps node_;
  std::uint32_t frame_;
  body root_;
};

}  // namespace

std::unique_ptr<dag_source> make_uts(spec_args& a) {
  const tree_spec* t = nullptr;
  for (const tree_spec& s : trees)
    if (a.value() == s.name) t = &s;
  if (!t) throw std::invalid_argument("tree '" + a.value() + "': expected T1, T3, T1L or T3L");
  double node = a.number("node", 0, 1e12, 64.0);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 400));
  return std::make_unique<uts_source>(*t, node, frame);
}

}  // namespace slaw::sim
