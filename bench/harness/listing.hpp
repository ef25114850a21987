// slaw-bench --list: every benchmark (what it computes, each parameter with its meaning and its value at
// each size), every variant (what it is, the environment variables it reads) and every size, taken from
// the registry (benchmark.hpp), the variant table (variants.hpp) and the size table; as text on stdout,
// and with --json FILE as JSON:
//   {"options": [{"name": "--bench", "alias": "", "value": "NAME[,NAME...]"}, ...],  (value "": a flag)
//    "sizes": [{"name", "what"}],
//    "benchmarks": [{"name", "what", "params": [{"key", "what", "values": {"test": V, "default": V, ...}}]}],
//    "variants": [{"name", "kind", "what", "env": ["SLAW_S", ...], "locality": false, "tuned": false,
//                  "child_env": ["OMP_PLACES=cores", ...]}],   (locality: runs the kernels' locality versions;
//                  tuned: the loop kernels' hand-tuned-chunk versions (tbb-grain, omp-dynamic);
//                  child_env: the defaults its child process gets where the environment lacks them)
//    "set_by_slaw_bench": ["SLAW_WORKERS", ...],
//    "environment": [{"name", "what"}]}
// (a parameter missing from a size has the value null, one without a description the "what" "").
#pragma once

#include <string>

namespace slawbench {

std::string list_text();
std::string list_json();

}  // namespace slawbench
