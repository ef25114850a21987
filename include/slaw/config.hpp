// Runtime configuration: set from code, or from SLAW_* environment variables with `config::from_env()`.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "slaw/export.hpp"
#include "slaw/policy/adp.hpp"
#include "slaw/policy/loop_split.hpp"
#include "slaw/policy/allotment.hpp"
#include "slaw/policy/desire.hpp"

namespace slaw {

// Thrown for a bad configuration value; the message names the setting and the accepted values.
class SLAW_EXPORT config_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class stats_output : std::uint8_t { off, stderr_stream, file };

// ws: SLAW's adaptive work stealing (two deques per worker, ADP). dfdeques: the space-efficient
// DFDeques(K) scheduler (docs/guide/memory.md, docs/design/space.md): work-first spawns, a global
// ordered list of deques, a memory quota of K bytes per worker between steals.
enum class scheduler_kind : std::uint8_t { ws, dfdeques };

// Places (docs/design/places.md, "The idle routine"). What an idle worker may take from outside its own leaf
// place once its own mailbox and its leaf's peers are empty: tasks in the mailboxes of the places
// above its leaf (sent to a cache, a package, the machine), and tasks in other workers' deques whose
// place contains the thief. A task never runs outside its place either way.
struct remote_steal {
  bool mailboxes = true;
  bool deques = true;
  friend bool operator==(const remote_steal&, const remote_steal&) = default;
};
// thesis: own mailbox, then the peers' deques of the same leaf place (Guo's thesis §6.1).
// paper: the peers' deques first, then the own mailbox (Guo et al., IPDPS 2010, §IV).
enum class idle_order : std::uint8_t { thesis, paper };
inline constexpr std::uint64_t quota_infinite = ~std::uint64_t{0};
inline constexpr std::uint64_t min_quota = 1024;

// The machine-wide arbiter (docs/guide/several_programs.md, docs/design/arbiter.md): how this runtime,
// as one job among the processes and runtimes of this user, shares the machine's cores. A decision
// about the whole machine: where the code leaves `arbiter`, `name` or `cores` unset, the runtime takes
// SLAW_ARBITER, SLAW_ARBITER_NAME and SLAW_CORES from the environment even without config::from_env.
struct arbiter_settings {
  // SLAW_ARBITER. Unset: deq once two jobs want cores, else every job runs min(workers, cores)
  // of its workers (a lone program keeps every core). off: this runtime does not register and runs all
  // its workers, even more than the cores.
  std::optional<policy::arbiter> arbiter;
  policy::desire_rule desire = policy::desire_rule::adeque;  // SLAW_DESIRE
  std::uint64_t quantum_ns = 10'000'000;                     // SLAW_QUANTUM_MS (default 10 ms, the paper's L)
  double beta = 2.0;                                         // SLAW_BETA (A-Deque's β)
  std::uint32_t cores = 0;                                   // SLAW_CORES; 0 = detect (affinity mask, cgroup cpu.max)
  std::string name;                                          // SLAW_ARBITER_NAME; empty = "/slaw-arbiter-<euid>"
  bool quantum_set = false;                                  // SLAW_QUANTUM_MS was given (for mismatch warnings)
};

struct SLAW_EXPORT config {
  unsigned workers = 0;                         // 0 = one per hardware thread
  policy::mode policy = policy::mode::dyn;      // dyn | wf | hf
  policy::adp_params adp{};                     // S, F, INT, steal threshold, the first interval's policy
  stats_output stats = stats_output::off;       // counters written as JSON when the runtime ends
  std::string stats_path;                       // for stats_output::file: opened when the runtime is built
  unsigned spin_rounds = 64;                    // failed steal rounds before an idle worker parks
  bool steal_preempted_first = true;            // victim deque order for thieves
  scheduler_kind scheduler = scheduler_kind::ws;
  std::uint64_t quota = 50'000;                 // DFDeques K in bytes (the paper's value); quota_infinite = no quota
  std::size_t policy_trace = 0;                 // record up to this many spawn-decision changes per worker
  // Timeline trace (docs/guide/tracing.md): written as Chrome/Perfetto JSON to this path when the runtime
  // ends (opened, and truncated, when it is built); empty = off. Each worker records into a buffer of
  // `timeline_events` events allocated when the runtime is built; events past it are counted, not kept.
  std::string timeline_path;
  std::size_t timeline_events = std::size_t{1} << 20;
  // SLAW_RECORD (docs/simulation.md, "Recorded DAGs"): the computation DAG of the runtime's first run
  // is written to this path, for `slaw-sim --dag` (opened, and truncated, when the runtime is built);
  // empty = off.
  std::string record_path;
  // Places (docs/guide/places.md), resolved against the machine (hwloc) when the runtime is built.
  // places: OpenMP's OMP_PLACES grammar plus `tree` and `flat`; empty = flat (one place, no hwloc).
  // bind: true|false|close|spread (as OMP_PROC_BIND); empty = unbound. deployment_file: SLAW's own
  // deployment file ("16 8" / "0 @ 0 -> 0 4"); empty = none. display_places: print the resolved
  // deployment on stderr when the runtime is built.
  std::string places;
  std::string bind;
  std::string deployment_file;
  bool display_places = false;
  // The machine the places are built from: empty = this machine (hwloc); "synthetic:DESC" = an hwloc
  // synthetic topology ("synthetic:pack:2 l3:2 core:4 pu:2"), to try a deployment of a larger machine
  // here (its workers cannot be bound).
  std::string topology;
  remote_steal remote{};
  idle_order idle = idle_order::thesis;
  std::size_t mailbox_capacity = 1024;  // tasks per place's mailbox before it overflows (1 .. 2^24)
  arbiter_settings arbiter{};            // SLAW_ARBITER and the rest (docs/guide/several_programs.md)
  // Parallel loops (include/slaw/algorithm.hpp, docs/guide/algorithms.md): a chunk's target duration and the
  // least work each half of a split must hold, in ns (SLAW_LOOP_CHUNK_NS, SLAW_LOOP_SPLIT_NS). The
  // defaults need no tuning; the variables are for experiments and for tests that split at every chunk.
  policy::loop_params loop{};

  // Reads SLAW_WORKERS, SLAW_POLICY (wf|hf|dyn), SLAW_S, SLAW_F, SLAW_INT, SLAW_STATS (unset or 0 = off,
  // 1 = stderr, otherwise a file path; true/false/yes/no/on/off and other numbers are errors: write
  // ./true for a file of that name), SLAW_SCHEDULER (ws|dfdeques), SLAW_K (bytes >= 1024, or inf),
  // SLAW_TRACE (comma-separated items, each at most once: `policy` records up to 100000 spawn-decision
  // changes per worker in the counters JSON; `timeline:PATH` writes a timeline trace to PATH, which
  // cannot contain a comma; `0` or empty alone: none), SLAW_TRACE_EVENTS (timeline events per worker,
  // 16 .. 2^32), SLAW_PLACES, SLAW_BIND, SLAW_DEPLOYMENT, SLAW_DISPLAY_PLACES (0|1), SLAW_TOPOLOGY
  // (synthetic:DESC), SLAW_REMOTE (mailboxes,deques | mailboxes | deques | none), SLAW_IDLE_ORDER
  // (thesis|paper), SLAW_MAILBOX (1 .. 2^24) (docs/guide/places.md), SLAW_RECORD (a file path),
  // SLAW_ARBITER (deq|equi|off), SLAW_DESIRE (adeque|asteal), SLAW_QUANTUM_MS (0.1 .. 10000), SLAW_BETA
  // (1 .. 1e6), SLAW_CORES (1 .. 4096), SLAW_ARBITER_NAME (/NAME) (docs/guide/several_programs.md),
  // SLAW_LOOP_CHUNK_NS (0 .. 10^9), SLAW_LOOP_SPLIT_NS (0 .. 10^12) (docs/guide/algorithms.md). Every
  // variable and its default: docs/guide/configuration.md.
  // Unset variables keep the defaults of `base`.
  // Throws config_error for a bad value. Warns on stderr, once per process and setting, about unknown
  // SLAW_* variables (a misspelling; SLAW_TEST_* excepted) and about settings the chosen scheduler or
  // policy does not use (SLAW_K under ws; SLAW_POLICY/S/F/INT under dfdeques; S/F/INT under wf or hf).
  static config from_env(config base);
  static config from_env();

  // Throws config_error if a field is out of range.
  void validate() const;
};

SLAW_EXPORT const char* to_string(policy::mode m) noexcept;
SLAW_EXPORT const char* to_string(scheduler_kind s) noexcept;
SLAW_EXPORT std::string to_string(remote_steal r);
SLAW_EXPORT const char* to_string(idle_order o) noexcept;

}  // namespace slaw
