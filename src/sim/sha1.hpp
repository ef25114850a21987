// SHA-1 (FIPS 180-4), written from the standard for UTS's splitting rule, so that the simulated UTS
// trees are exactly the benchmark's (bench/kernels/uts.cpp, which uses OpenSSL) and the published ones.
// Not for security: UTS only needs its deterministic, well-mixed output.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slaw::sim {

struct sha1_digest {
  unsigned char bytes[20];
};

// The SHA-1 digest of `n` bytes (any length).
sha1_digest sha1(const unsigned char* data, std::size_t n);

}  // namespace slaw::sim
