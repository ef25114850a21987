// The UTS tree rules (Olivier et al., LCPC 2006), shared by the shared-memory benchmark
// (bench/kernels/uts.cpp) and the distributed one (bench/mpi/uts.cpp).
// The root's state is SHA-1 of 16 zero bytes and the 4-byte big-endian seed; child i's state is
// SHA-1(parent state || 4-byte big-endian i); a node's random value is the last 4 state bytes as a
// big-endian int & 0x7FFFFFFF, over 2^31 as a probability u.
//   geometric, fixed shape (T1, T1L): b_i = b0 while depth < d, else 0; children floor(log(1-u)/log(1-p)),
//     p = 1/(1+b_i), at most 100;  binomial (T3, T3L): the root has b0 children, others m with
//     probability q, else none.
// SHA-1 is OpenSSL's SHA1_Init/Update/Final: the EVP one-shot (EVP_Digest) allocates a context and looks
// the digest up on every call, ~8x slower here.
#pragma once

#include <openssl/sha.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace uts_tree {

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

// The reference UTS sample trees (from the UTS sample trees file).
inline constexpr tree_spec trees[] = {
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
inline void sha1(const unsigned char* a, std::size_t na, const unsigned char* b, std::size_t nb, unsigned char* out) {
  SHA_CTX c;
  SHA1_Init(&c);
  SHA1_Update(&c, a, na);
  if (nb) SHA1_Update(&c, b, nb);
  SHA1_Final(out, &c);
}
#pragma GCC diagnostic pop

inline void be32(std::uint32_t v, unsigned char* p) {
  p[0] = static_cast<unsigned char>(v >> 24), p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8), p[3] = static_cast<unsigned char>(v);
}

inline node root_node(const tree_spec& t) {
  unsigned char init[20] = {};
  be32(static_cast<std::uint32_t>(t.seed), init + 16);
  node r;
  sha1(init, 20, nullptr, 0, r.state);
  r.height = 0;
  return r;
}

inline node child(const node& parent, int i) {
  unsigned char idx[4];
  be32(static_cast<std::uint32_t>(i), idx);
  node c;
  sha1(parent.state, 20, idx, 4, c.state);
  c.height = parent.height + 1;
  return c;
}

inline double prob(const node& n) {
  const unsigned char* s = n.state + 16;
  std::uint32_t v = (std::uint32_t(s[0]) << 24 | std::uint32_t(s[1]) << 16 | std::uint32_t(s[2]) << 8 | s[3]) & 0x7FFFFFFF;
  return v / 2147483648.0;
}

inline int num_children(const tree_spec& t, const node& n) {
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

}  // namespace uts_tree
