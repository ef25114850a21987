// The examples' command-line number: a decimal integer in [lo, hi], nothing else.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstdlib>

// No sign, no spaces, no overflow (atoi would wrap 4294967296 to 0; strtol takes " 5", "+5", "-5").
inline bool parse_arg(const char* s, long lo, long hi, long* out) {
  if (!std::isdigit(static_cast<unsigned char>(*s))) return false;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (errno == ERANGE || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}
