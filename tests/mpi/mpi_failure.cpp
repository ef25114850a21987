// A rank that fails while the others wait for it in MPI (tests/mpi/expect_failure.sh checks that the
// job ends, with the message, well within its time limit, instead of hanging):
//   throw: rank 1's task throws and nothing catches it: the environment's terminate handler names the
//          exception and calls MPI_Abort;
//   kill:  rank 1 kills itself with SIGKILL: mpirun ends the others.
// Rank 0 meanwhile waits in a slaw::mpi::recv that never completes.
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "slaw/mpi.hpp"
#include "slaw/slaw.hpp"

int main(int argc, char** argv) {
  slaw::mpi::environment env(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "throw" && mode != "kill") {
    std::fprintf(stderr, "usage: mpi_failure throw|kill\n");
    return 2;
  }
  slaw::config cfg;
  cfg.workers = 2;
  slaw::runtime rt{cfg};
  rt.run([&]() -> slaw::task<> {
    if (env.rank() == 1) {
      if (mode == "throw") throw std::runtime_error("rank 1's task failed on purpose");
      std::raise(SIGKILL);
    }
    long v = 0;
    co_await slaw::mpi::recv(&v, 1, 1, 0);  // rank 1 never sends
  }());
  return 0;
}
