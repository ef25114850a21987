// slaw-bench: runs the benchmark suite's variants side by side and records every repetition.
//
//   slaw-bench --help | --list [--json FILE]
//   slaw-bench [--bench NAME[,NAME...]] [--size test|default|large] [--arg KEY=VALUE]...
//              [--variant NAME[,NAME...]] [--workers 1,2] [--reps N] [--json FILE] [--quiet]
//              [--progress auto|live|lines|off]
//
// harness/options.hpp: the command line (and --help); listing.hpp: --list; variants.hpp: the variant
// table; runner.hpp: the driver's loop (a child process per configuration, variants alternating
// repetition by repetition); progress.hpp: the progress on stderr; interrupt.hpp: Ctrl-C;
// configuration.hpp: one configuration in its child; record.hpp: the JSON. Exit status: 0, 1 when an
// oracle or a child failed (the other configurations go on), 2 for a bad argument or SLAW_* setting,
// 128 + the signal after SIGINT or SIGTERM (what was complete is written).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "harness/benchmark.hpp"
#include "harness/configuration.hpp"
#include "harness/interrupt.hpp"
#include "harness/listing.hpp"
#include "harness/options.hpp"
#include "harness/record.hpp"
#include "harness/runner.hpp"

namespace {

// --json FILE is opened for writing before anything runs (it was found unwritable only after the whole
// suite), without truncating it: the file is written whole at the end. Returns "" or the reason; sets
// `created` if the check made the file (removed again if nothing is written).
std::string check_writable(const std::string& path, bool& created) {
  struct stat st {};
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  created = !existed;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  slawbench::options opt;
  try {
    opt = slawbench::parse_options(argc, argv);
  } catch (const slawbench::bench_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n%s", e.what(), slawbench::usage().c_str());
    return 2;
  }
  if (opt.is_child()) return slawbench::run_configuration(opt);
  if (opt.help) {
    std::fputs(slawbench::help().c_str(), stdout);
    return 0;
  }
  try {
    // Checked here once, as each selected slaw row reads it (its warnings judge the row's scheduler);
    // the children read it again.
    for (const slawbench::variant* v : opt.variants)
      if (v->kind == slawbench::variant_kind::slaw) (void)v->slaw_config(1);
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "slaw-bench: %s\n", e.what());
    return 2;
  }
  bool json_created = false;
  if (!opt.json.empty()) {
    if (const std::string why = check_writable(opt.json, json_created); !why.empty()) {
      std::fprintf(stderr, "slaw-bench: --json %s: cannot write the file: %s\n", opt.json.c_str(), why.c_str());
      return 2;
    }
  }
  if (opt.list) {
    std::fputs(slawbench::list_text().c_str(), stdout);
    if (!opt.json.empty()) {
      std::ofstream out(opt.json);
      out << slawbench::list_json();
      out.flush();
      if (!out) {
        std::fprintf(stderr, "slaw-bench: --json %s: cannot write the file\n", opt.json.c_str());
        return 2;
      }
    }
    return 0;
  }
  slawbench::install_interrupt_handlers();
  std::vector<slawbench::record> records;
  slawbench::interruption stopped;
  const int status = slawbench::run_all(opt, records, stopped);
  if (status == 2) {
    if (json_created) std::remove(opt.json.c_str());  // nothing ran: no file left behind
    return 2;
  }
  if (!opt.json.empty()) {
    slawbench::interrupts_deferred whole_file;  // a second Ctrl-C waits for the file to be complete
    if (!slawbench::write_json(opt.json, opt, records, stopped.signal ? &stopped : nullptr)) {
      std::fprintf(stderr, "slaw-bench: --json %s: cannot write the file\n", opt.json.c_str());
      return 2;
    }
    if (stopped.signal)
      std::fprintf(stderr, "slaw-bench: %s holds the %zu completed configurations, marked \"interrupted\"\n",
                   opt.json.c_str(), records.size());
  }
  return status;
}
