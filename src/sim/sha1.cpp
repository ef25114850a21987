#include "sim/sha1.hpp"

#include <cstring>

namespace slaw::sim {

namespace {

constexpr std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// FIPS 180-4 §6.1.2: one 512-bit block into the hash value h.
void compress(std::uint32_t h[5], const unsigned char* block) {
  std::uint32_t w[80];
  for (int t = 0; t < 16; ++t)
    w[t] = static_cast<std::uint32_t>(block[4 * t]) << 24 | static_cast<std::uint32_t>(block[4 * t + 1]) << 16 |
           static_cast<std::uint32_t>(block[4 * t + 2]) << 8 | block[4 * t + 3];
  for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; ++t) {
    std::uint32_t f, k;
    if (t < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (t < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const std::uint32_t tmp = rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = tmp;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

sha1_digest sha1(const unsigned char* data, std::size_t n) {
  std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) compress(h, data + i);
  // Padding (§5.1.1): the rest, 0x80, zeros, the length in bits as a 64-bit big-endian number.
  unsigned char tail[128] = {};
  const std::size_t rest = n - i;
  std::memcpy(tail, data + i, rest);
  tail[rest] = 0x80;
  const std::size_t blocks = rest + 1 + 8 <= 64 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
  for (int b = 0; b < 8; ++b) tail[blocks * 64 - 1 - b] = static_cast<unsigned char>(bits >> (8 * b));
  for (std::size_t b = 0; b < blocks; ++b) compress(h, tail + 64 * b);
  sha1_digest out;
  for (int j = 0; j < 5; ++j)
    for (int b = 0; b < 4; ++b) out.bytes[4 * j + b] = static_cast<unsigned char>(h[j] >> (24 - 8 * b));
  return out;
}

}  // namespace slaw::sim
