// fastpath KIND K: one finish containing K spawns (or calls) of an empty task, on 1 worker.
// Used under `valgrind --tool=callgrind` to count instructions per spawn (bench/scripts/fastpath_callgrind.sh):
// the difference between two values of K divided by their difference is the cost of one spawn+return
// (or one call), the runtime start-up cancels out.
//   KIND: call | wf | hf     K: number of children
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "slaw/slaw.hpp"

static slaw::task<> empty() { co_return; }

static slaw::task<> loop(const char* kind, long k) {
  auto f = co_await slaw::start_finish();
  if (!std::strcmp(kind, "call")) {
    for (long i = 0; i < k; ++i) co_await empty();
  } else {
    slaw::schedule_clause c = !std::strcmp(kind, "wf") ? slaw::wf : slaw::hf;
    for (long i = 0; i < k; ++i) co_await slaw::async(c, empty);
  }
  co_await slaw::end_finish(f);
}

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "call") && std::strcmp(argv[1], "wf") && std::strcmp(argv[1], "hf")) ||
      std::atol(argv[2]) < 0) {
    std::fprintf(stderr, "usage: fastpath call|wf|hf K   (K >= 0 children in one finish, 1 worker)\n");
    return 2;
  }
  slaw::config c;
  c.workers = 1;
  slaw::runtime rt(c);
  rt.run(loop(argv[1], std::atol(argv[2])));
  return 0;
}
