// SLAW's deployment file (SLAW_DEPLOYMENT=path), the paper's format verbatim (SLAW digest §1.1
// "Deployment", thesis Fig 3.2):
//
//   16 8            number of workers, number of places
//   0 @ 0 -> 0 4    worker @ place -> the CPUs it is bound to
//   1 @ 0 -> 0 4
//   2 @ 1 -> 8 12
//   ...
//
// Every worker 0..W-1 has exactly one line (in any order), every place 0..P-1 at least one worker,
// and every worker at least one CPU. Blank lines are skipped; `//` and `#` start comments. A place's
// CPUs are the union of its workers'.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "places/cpu_set.hpp"

namespace slaw::places {

inline constexpr unsigned max_file_workers = 4096;  // config's bound on SLAW_WORKERS
// The file is read only if it is a regular file or a pipe of at most this many bytes: 4096 workers with
// 64 CPUs each take about 1.4 MB.
inline constexpr std::size_t max_deployment_file_bytes = std::size_t{4} << 20;

struct deployment_spec {
  struct worker_line {
    unsigned place = 0;
    cpu_set cpus;
    std::size_t line = 0;  // 1-based line number in the file, for later errors
  };
  unsigned places = 0;
  std::vector<worker_line> workers;  // indexed by worker id
};

// Parses the file's text; `origin` names it in errors ("SLAW_DEPLOYMENT=deploy.txt"). Throws
// slaw::config_error with origin:line, the problem and the format.
deployment_spec parse_deployment(std::string_view text, std::string_view origin);

// Reads and parses the file at `path` (a regular file or a pipe of at most max_deployment_file_bytes);
// errors name `variable`=path.
deployment_spec read_deployment_file(const std::string& path, std::string_view variable = "SLAW_DEPLOYMENT");

}  // namespace slaw::places
