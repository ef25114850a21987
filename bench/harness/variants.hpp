// The variants slaw-bench compares, as a table: one row per way of running a benchmark (the serial
// elision, one slaw scheduler configuration, one peer). --variant accepts the rows' names, the driver
// runs them in the table's order, the child builds what a row runs on (its kind, and for slaw rows the
// runtime configuration) and the JSON record names the row. A new scheduler configuration is a new row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "slaw/config.hpp"

namespace slawbench {

// What runs the instance: instance::run_serial, run_slaw, run_tbb, run_omp or run_pstl.
enum class variant_kind { serial, slaw, tbb, omp, pstl };

struct variant {
  std::string_view name;
  variant_kind kind;
  std::string_view what = {};  // one line, for --list
  // The environment variables a run of this row reads, space-separated (each explained in `environment`),
  // but those the driver sets (`set_by_slaw_bench`).
  std::string_view env = {};
  // slaw rows: the settings the row imposes over SLAW_* from the environment.
  slaw::policy::mode policy = slaw::policy::mode::dyn;
  slaw::scheduler_kind scheduler = slaw::scheduler_kind::ws;
  // Runs the instance's locality version (instance::has_locality); kernels without one are skipped.
  bool locality = false;
  // tbb and omp rows: runs the loop kernels' version with a hand-tuned chunk size (instance::run_tbb_grain,
  // run_omp_dynamic); kernels without one are skipped.
  bool tuned = false;
  // Environment defaults of the row's child process ("A=x B=y"), each unless the environment sets it.
  std::string_view child_env = {};
  // slaw rows: places and binding when neither SLAW_PLACES nor SLAW_DEPLOYMENT is set (the binding also
  // needs SLAW_BIND and SLAW_TOPOLOGY unset and no more workers than usable CPUs; slaw_config).
  std::string_view default_places = {}, default_bind = {};

  // The serial elision has no workers: it runs once, at 1 worker, whatever --workers says.
  bool single_worker() const { return kind == variant_kind::serial; }
  // A slaw row's runtime configuration: SLAW_S, SLAW_F, SLAW_INT, SLAW_K, ... from the environment, then
  // the row's settings and `workers`. Throws slaw::config_error for a bad SLAW_* value.
  slaw::config slaw_config(unsigned workers) const;
};

// Every variant, in --variant's default order (per benchmark and worker count, the order in which the
// children run and the JSON lists them).
inline constexpr variant variant_table[] = {
    {.name = "serial",
     .kind = variant_kind::serial,
     .what = "the serial elision: the same algorithm as plain calls, no runtime; runs once, at 1 worker"},
    {.name = "slaw-wf",
     .kind = variant_kind::slaw,
     .what = "slaw, adaptive work stealing with every spawn work-first (SLAW_POLICY=wf)",
     .env = "SLAW_STATS SLAW_TRACE SLAW_TRACE_EVENTS SLAW_PLACES SLAW_BIND SLAW_DEPLOYMENT SLAW_DISPLAY_PLACES "
            "SLAW_TOPOLOGY SLAW_REMOTE SLAW_IDLE_ORDER SLAW_MAILBOX SLAW_RECORD "
            "SLAW_ARBITER SLAW_DESIRE SLAW_QUANTUM_MS SLAW_BETA SLAW_CORES SLAW_ARBITER_NAME "
            "SLAW_LOOP_CHUNK_NS SLAW_LOOP_SPLIT_NS",
     .policy = slaw::policy::mode::wf},
    {.name = "slaw-hf",
     .kind = variant_kind::slaw,
     .what = "slaw, adaptive work stealing with every spawn help-first (SLAW_POLICY=hf)",
     .env = "SLAW_STATS SLAW_TRACE SLAW_TRACE_EVENTS SLAW_PLACES SLAW_BIND SLAW_DEPLOYMENT SLAW_DISPLAY_PLACES "
            "SLAW_TOPOLOGY SLAW_REMOTE SLAW_IDLE_ORDER SLAW_MAILBOX SLAW_RECORD "
            "SLAW_ARBITER SLAW_DESIRE SLAW_QUANTUM_MS SLAW_BETA SLAW_CORES SLAW_ARBITER_NAME "
            "SLAW_LOOP_CHUNK_NS SLAW_LOOP_SPLIT_NS",
     .policy = slaw::policy::mode::hf},
    {.name = "slaw-dyn",
     .kind = variant_kind::slaw,
     .what = "slaw, adaptive work stealing choosing work- or help-first per spawn (ADP, SLAW_POLICY=dyn)",
     .env = "SLAW_S SLAW_F SLAW_INT SLAW_STATS SLAW_TRACE SLAW_TRACE_EVENTS SLAW_PLACES SLAW_BIND SLAW_DEPLOYMENT "
            "SLAW_DISPLAY_PLACES SLAW_TOPOLOGY SLAW_REMOTE SLAW_IDLE_ORDER SLAW_MAILBOX SLAW_RECORD "
            "SLAW_ARBITER SLAW_DESIRE SLAW_QUANTUM_MS SLAW_BETA SLAW_CORES SLAW_ARBITER_NAME "
            "SLAW_LOOP_CHUNK_NS SLAW_LOOP_SPLIT_NS",
     .policy = slaw::policy::mode::dyn},
    {.name = "slaw-dfd",
     .kind = variant_kind::slaw,
     .what = "slaw, the space-efficient DFDeques(K) scheduler (SLAW_SCHEDULER=dfdeques), K from SLAW_K",
     .env = "SLAW_K SLAW_STATS SLAW_TRACE SLAW_TRACE_EVENTS SLAW_PLACES SLAW_BIND SLAW_DEPLOYMENT SLAW_DISPLAY_PLACES "
            "SLAW_TOPOLOGY SLAW_REMOTE SLAW_IDLE_ORDER SLAW_MAILBOX SLAW_RECORD "
            "SLAW_ARBITER SLAW_DESIRE SLAW_QUANTUM_MS SLAW_BETA SLAW_CORES SLAW_ARBITER_NAME "
            "SLAW_LOOP_CHUNK_NS SLAW_LOOP_SPLIT_NS",
     .scheduler = slaw::scheduler_kind::dfdeques},
    {.name = "slaw-places",
     .kind = variant_kind::slaw,
     .what = "slaw-dyn with places: the kernel's locality version (one task per place with slaw::at, its share "
             "of the blocks spawned inside it, the same share every iteration); only kernels that have one. "
             "Places: SLAW_PLACES=cores SLAW_BIND=close unless SLAW_PLACES or SLAW_DEPLOYMENT is set (unbound "
             "when SLAW_TOPOLOGY is set or --workers exceeds the usable CPUs; SLAW_BIND wins)",
     .env = "SLAW_S SLAW_F SLAW_INT SLAW_STATS SLAW_TRACE SLAW_TRACE_EVENTS SLAW_PLACES SLAW_BIND SLAW_DEPLOYMENT "
            "SLAW_DISPLAY_PLACES SLAW_TOPOLOGY SLAW_REMOTE SLAW_IDLE_ORDER SLAW_MAILBOX SLAW_RECORD "
            "SLAW_ARBITER SLAW_DESIRE SLAW_QUANTUM_MS SLAW_BETA SLAW_CORES SLAW_ARBITER_NAME "
            "SLAW_LOOP_CHUNK_NS SLAW_LOOP_SPLIT_NS",
     .policy = slaw::policy::mode::dyn,
     .locality = true,
     .default_places = "cores",
     .default_bind = "close"},
    {.name = "tbb",
     .kind = variant_kind::tbb,
     .what = "oneTBB inside a task_arena of --workers threads: tbb::task_group (task kernels); parallel_for, "
             "parallel_reduce, parallel_scan, parallel_sort with the default auto_partitioner (loop kernels)"},
    {.name = "tbb-grain",
     .kind = variant_kind::tbb,
     .what = "oneTBB, loop kernels only: parallel_for / parallel_reduce / parallel_scan with simple_partitioner "
             "and a grain tuned per kernel on a 2-core machine (the kernel's source says which), in a task_arena "
             "of --workers threads",
     .tuned = true},
    {.name = "omp",
     .kind = variant_kind::omp,
     .what = "OpenMP (the compiler's runtime: libgomp with GCC, libomp with clang), omp_set_num_threads(--workers): "
             "task/taskwait inside parallel + single (task kernels); parallel for schedule(static), "
             "reduction(+), reduction(inscan, +) with omp scan, libstdc++'s parallel-mode sort (loop kernels)",
     .env = "OMP_STACKSIZE OMP_WAIT_POLICY GOMP_SPINCOUNT OMP_PROC_BIND OMP_PLACES"},
    {.name = "omp-dynamic",
     .kind = variant_kind::omp,
     .what = "OpenMP, loop kernels only: parallel for with schedule(dynamic, chunk) or guided, tuned per kernel on "
             "a 2-core machine (the kernel's source says which); not the scan nor the sort",
     .env = "OMP_STACKSIZE OMP_WAIT_POLICY GOMP_SPINCOUNT OMP_PROC_BIND OMP_PLACES",
     .tuned = true},
    {.name = "pstl",
     .kind = variant_kind::pstl,
     .what = "loop kernels only: std::execution::par algorithms of libstdc++'s parallel STL on its oneTBB "
             "backend, called inside a task_arena of --workers threads"},
    {.name = "tbb-places",
     .kind = variant_kind::tbb,
     .what = "oneTBB, the kernel's locality version: parallel_for over the same blocks every iteration with "
             "one tbb::affinity_partitioner kept across iterations (oneTBB's documented cache-affinity "
             "mechanism: a chunk replays on the thread that ran it before), in the task_arena of --workers "
             "threads; no arena per place (one NUMA node here), threads unpinned; only kernels that have one",
     .locality = true},
    {.name = "omp-places",
     .kind = variant_kind::omp,
     .what = "OpenMP, the kernel's locality version: parallel for schedule(static) (the same blocks to the "
             "same thread every iteration); its child process gets OMP_PLACES=cores OMP_PROC_BIND=close "
             "unless the environment sets them; only kernels that have one",
     .env = "OMP_STACKSIZE OMP_WAIT_POLICY GOMP_SPINCOUNT OMP_PROC_BIND OMP_PLACES",
     .locality = true,
     .child_env = "OMP_PLACES=cores OMP_PROC_BIND=close"},
};

// The variables --workers and the row override, whatever the environment says.
inline constexpr std::string_view set_by_slaw_bench[] = {"SLAW_WORKERS", "SLAW_POLICY", "SLAW_SCHEDULER",
                                                         "OMP_NUM_THREADS"};

// What each environment variable of a row's `env` does, for --list.
struct environment_variable {
  std::string_view name;
  std::string_view what;
};
inline constexpr environment_variable environment[] = {
    {"SLAW_S", "ADP stack bound: a spawn is help-first once the work-first depth reaches S"},
    {"SLAW_F", "ADP fresh bound: a spawn is work-first while the worker holds F fresh tasks or more"},
    {"SLAW_INT", "ADP interval: spawns between two looks at the steals from the worker"},
    {"SLAW_K", "DFDeques: memory quota in bytes per worker between steals (>= 1024, or inf)"},
    {"SLAW_STATS", "the runtime's counters as JSON at its end: 1 = stderr, or a file path (0 or unset: off)"},
    {"SLAW_TRACE", "comma-separated: policy (the spawn-policy changes, in the counters JSON), timeline:PATH (a "
                   "timeline trace, docs/guide/tracing.md; every configuration's process writes PATH anew, so select "
                   "one benchmark, variant and worker count)"},
    {"SLAW_TRACE_EVENTS", "the timeline trace's buffer, in events per worker"},
    {"SLAW_PLACES", "places (OMP_PLACES grammar, tree, flat; docs/guide/places.md): the worker count and "
                    "binding follow them; tasks without a place clause keep the root task's place (anywhere)"},
    {"SLAW_BIND", "true|false|close|spread: bind each worker to its place's CPUs"},
    {"SLAW_DEPLOYMENT", "a SLAW deployment file (the paper's format): workers, places, CPUs"},
    {"SLAW_DISPLAY_PLACES", "1: print the resolved places on stderr when each runtime starts"},
    {"SLAW_TOPOLOGY", "synthetic:DESC: places from an hwloc synthetic machine (unbound)"},
    {"SLAW_REMOTE", "what an idle worker may take from outside its leaf place: mailboxes,deques (default), "
                    "mailboxes, deques, none"},
    {"SLAW_IDLE_ORDER", "thesis (own place's mailbox before its peers' deques, default) or paper (peers first)"},
    {"SLAW_MAILBOX", "tasks a place's mailbox holds before it overflows (default 1024)"},
    {"SLAW_RECORD", "PATH: the computation DAG of each configuration's first run, for slaw-sim --dag "
                    "(docs/simulation.md); every configuration's process writes PATH anew, so select one"},
    {"SLAW_ARBITER", "the machine-wide arbiter (docs/guide/several_programs.md): deq, equi or off (unset: deq "
                     "when more than one slaw job runs, else every job runs one worker per core)"},
    {"SLAW_DESIRE", "the job's desire per quantum: adeque (default) or asteal"},
    {"SLAW_QUANTUM_MS", "the arbiter's quantum in milliseconds (0.1 .. 10000, default 10)"},
    {"SLAW_BETA", "A-Deque's beta, the weight of a queued entry in the desire (1 .. 1e6, default 2)"},
    {"SLAW_CORES", "cores the arbiter shares among the jobs (default: the affinity mask, capped by cpu.max)"},
    {"SLAW_ARBITER_NAME", "/NAME: the arbiter's shared-memory segment (default /slaw-arbiter-<euid>)"},
    {"SLAW_LOOP_CHUNK_NS", "parallel loops (slaw/algorithm.hpp): a chunk's target duration between two looks at "
                           "the clock and the split requests, in ns (default 4000)"},
    {"SLAW_LOOP_SPLIT_NS", "parallel loops: the least estimated work each half of a split must hold, in ns "
                           "(default 8000)"},
    {"OMP_STACKSIZE", "libgomp: the team threads' stack size (pdfs runs only when it fits the recursion)"},
    {"OMP_WAIT_POLICY", "libgomp: active (spin) or passive waiting of idle threads"},
    {"GOMP_SPINCOUNT", "libgomp: how long idle threads spin before sleeping"},
    {"OMP_PROC_BIND", "libgomp: whether and how threads are bound to places"},
    {"OMP_PLACES", "libgomp: the places (cores, hardware threads) threads are bound to"},
};

const variant* find_variant(std::string_view name);  // nullptr: no such row
std::vector<const variant*> all_variants();          // the rows, in the table's order
std::vector<std::string> variant_names();            // their names, in that order

}  // namespace slawbench
