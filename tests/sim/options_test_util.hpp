// Helpers of the tests of slaw-sim's command line: parse an argument list as main() would, or get the
// usage error it raises.
#pragma once

#include <string>
#include <vector>

#include "sim/options.hpp"

namespace simtest {

inline slaw::sim::options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "slaw-sim");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return slaw::sim::parse_options(static_cast<int>(argv.size()), argv.data());
}

// The usage error's message, or "" if the arguments were accepted.
inline std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const slaw::sim::usage_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace simtest
