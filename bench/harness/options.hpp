// slaw-bench's command line. Every list option (--bench, --variant, --workers) is checked in full: an
// empty list, an empty item ("1,,2", a trailing comma), an unknown name and a duplicate are errors
// (bench_error naming the option, the bad value and the accepted values; the driver exits with status 2),
// never a silently shorter list.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/variants.hpp"

namespace slawbench {

class params;
struct benchmark;

struct options {
  std::vector<std::string> benches;  // empty: all
  std::string size = "default";
  std::map<std::string, std::string> args;
  std::vector<const variant*> variants = all_variants();  // rows of variant_table
  std::vector<unsigned> workers = {1, 2};
  int reps = 5;
  std::string json;
  bool quiet = false;
  bool list = false;
  // Hidden (--child IN_FD,OUT_FD): this process is a child of the driver that runs one configuration
  // (one benchmark, variant and worker count), taking commands on IN_FD and replying on OUT_FD.
  int child_in = -1, child_out = -1;
  bool is_child() const { return child_in >= 0; }
};

std::string usage();

// Throws bench_error for a bad argument.
options parse_options(int argc, char** argv);

// `b`'s parameters at --size with every --arg applied. Throws bench_error for a key `b` does not have.
params params_of(const benchmark& b, const options& opt);

}  // namespace slawbench
