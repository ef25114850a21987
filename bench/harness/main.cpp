// slaw-bench: runs the benchmark suite's variants side by side and records every repetition.
//
//   slaw-bench --list
//   slaw-bench [--bench NAME[,NAME...]] [--size test|default|large] [--arg KEY=VALUE]...
//              [--variant NAME[,NAME...]] [--workers 1,2] [--reps N] [--json FILE] [--quiet]
//
// harness/options.hpp: the command line; variants.hpp: the variant table; runner.hpp: the driver's loop
// (a child process per configuration, variants alternating repetition by repetition); configuration.hpp:
// one configuration in its child; record.hpp: the JSON. Exit status: 0, 1 when an oracle or a child
// failed (the other configurations go on), 2 for a bad argument or SLAW_* setting.
#include <cstdio>
#include <vector>

#include "harness/benchmark.hpp"
#include "harness/configuration.hpp"
#include "harness/options.hpp"
#include "harness/record.hpp"
#include "harness/runner.hpp"

int main(int argc, char** argv) {
  slawbench::options opt;
  try {
    opt = slawbench::parse_options(argc, argv);
  } catch (const slawbench::bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n%s", e.what(), slawbench::usage().c_str());
    return 2;
  }
  if (opt.is_child()) return slawbench::run_configuration(opt);
  try {
    // Checked here once, as each selected slaw row reads it (its warnings judge the row's scheduler);
    // the children read it again.
    for (const slawbench::variant* v : opt.variants)
      if (v->kind == slawbench::variant_kind::slaw) (void)v->slaw_config(1);
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n", e.what());
    return 2;
  }
  if (opt.list) {
    for (const auto& b : slawbench::registry()) std::printf("%-10s %s\n", b.name.c_str(), b.what.c_str());
    return 0;
  }
  std::vector<slawbench::record> records;
  const int status = slawbench::run_all(opt, records);
  if (status == 2) return 2;
  if (!opt.json.empty() && !slawbench::write_json(opt.json, opt, records)) {
    std::fprintf(stderr, "slaw-bench: --json %s: cannot write the file\n", opt.json.c_str());
    return 2;
  }
  return status;
}
