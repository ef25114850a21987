// slaw-bench's command line. Every list option (--bench, --variant, --workers) is checked in full: an
// empty list, an empty item ("1,,2", a trailing comma), an unknown name and a duplicate are errors
// (bench_error naming the option, the bad value and the accepted values; the driver exits with status 2),
// never a silently shorter list.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/progress.hpp"
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
  bool quiet = false;  // no result line per configuration; no progress unless --progress says so
  std::optional<progress_mode> progress;  // nullopt: auto (live on a terminal, else lines; off if quiet)
  bool list = false;
  bool help = false;
  // Hidden (--child IN_FD,OUT_FD): this process is a child of the driver that runs one configuration
  // (one benchmark, variant and worker count), taking commands on IN_FD and replying on OUT_FD.
  int child_in = -1, child_out = -1;
  bool is_child() const { return child_in >= 0; }
};

// The one-paragraph synopsis (after a bad argument) and the full --help text, from the option table.
std::string usage();
std::string help();

// The options --help describes, in its order (for --list --json: the tests compare them with --help).
struct option_doc {
  std::string name, alias, value;  // alias: "" or "-h"; value: its form, "" for a flag
};
std::vector<option_doc> documented_options();

// `text` in lines of at most `width` characters, each but the first after `indent` spaces (--help, --list).
std::string wrapped(const std::string& text, std::size_t indent, std::size_t width);

// The progress report `opt` asks for, given whether stderr is a terminal.
progress_mode progress_of(const options& opt, bool stderr_is_terminal);

// Throws bench_error for a bad argument.
options parse_options(int argc, char** argv);

// `b`'s parameters at --size with every --arg applied. Throws bench_error for a key `b` does not have.
params params_of(const benchmark& b, const options& opt);

}  // namespace slawbench
