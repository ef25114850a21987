// The driver's side of slaw-bench: the loop over configurations and repetitions.
//
// Every configuration (benchmark, variant, worker count) runs in a process of its own, so that its peak
// RSS is its own: in one process, memory that an earlier benchmark freed but the process kept (the C
// library's heap, the runtime's frame chunks) stays resident and would count again (uts after pdfs read
// 450 MB instead of its 7 MB). The driver re-executes itself (/proc/self/exe, hidden option --child; see
// configuration.hpp) once per configuration and builds no instance itself.
//
// For each benchmark and worker count, one child per variant is started and builds its instance (one
// after the other, nothing timed meanwhile); the children then stay alive side by side and the driver
// asks them for one repetition at a time, every variant in turn, repetition by repetition (variants
// alternate, so a noisy machine affects them alike, and every repetition but a child's first runs warm,
// as in a single process). Instances are thus built once per configuration, not once per repetition:
// at the default size building takes 5.5 s for the 17 benchmarks (fft 3.9 s for its reference DFT
// bins, the others at most 0.4 s; the JSON's build_seconds), so ~70 s for the 13 configurations of a
// `make bench`, where a child per repetition would take ~6 min; starting a child takes ~10 ms.
//
// Each run is preceded by reset() and followed by the oracle. A failed oracle, a run that throws, and a
// child that dies (a signal, a non-zero exit) are reported on stderr and in the record (oracle_ok false,
// "process" saying how it ended); the other configurations go on.
//
// Progress goes to stderr as --progress says (progress.hpp). After SIGINT or SIGTERM (interrupt.hpp) no
// run starts: the children are killed and reaped, and the configurations of the benchmark and worker
// count in progress are left out (none has all its repetitions); a child that died of the same Ctrl-C
// is not a failure.
#pragma once

#include <vector>

#include "harness/options.hpp"
#include "harness/record.hpp"

namespace slawbench {

// Runs every configuration `opt` selects, appending one record per configuration to `records`. Returns
// the exit status: 0, 1 (an oracle or a process failed), 2 (a bad --arg, a child that could not be
// started or that rejected its parameters; the records are then incomplete and not to be written), or
// 128 + the signal when SIGINT or SIGTERM stopped the run, `stopped` then saying where.
int run_all(const options& opt, std::vector<record>& records, interruption& stopped);

}  // namespace slawbench
