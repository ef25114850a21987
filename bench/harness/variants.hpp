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

// What runs the instance: instance::run_serial, run_slaw, run_tbb or run_omp.
enum class variant_kind { serial, slaw, tbb, omp };

struct variant {
  std::string_view name;
  variant_kind kind;
  // slaw rows: the settings the row imposes over SLAW_* from the environment.
  slaw::policy::mode policy = slaw::policy::mode::dyn;
  slaw::scheduler_kind scheduler = slaw::scheduler_kind::ws;

  // The serial elision has no workers: it runs once, at 1 worker, whatever --workers says.
  bool single_worker() const { return kind == variant_kind::serial; }
  // A slaw row's runtime configuration: SLAW_S, SLAW_F, SLAW_INT, SLAW_K, ... from the environment, then
  // the row's settings and `workers`. Throws slaw::config_error for a bad SLAW_* value.
  slaw::config slaw_config(unsigned workers) const;
};

// Every variant, in --variant's default order (per benchmark and worker count, the order in which the
// children run and the JSON lists them).
inline constexpr variant variant_table[] = {
    {.name = "serial", .kind = variant_kind::serial},
    {.name = "slaw-wf", .kind = variant_kind::slaw, .policy = slaw::policy::mode::wf},
    {.name = "slaw-hf", .kind = variant_kind::slaw, .policy = slaw::policy::mode::hf},
    {.name = "slaw-dyn", .kind = variant_kind::slaw, .policy = slaw::policy::mode::dyn},
    // DFDeques(K), K from SLAW_K (default 50000).
    {.name = "slaw-dfd", .kind = variant_kind::slaw, .scheduler = slaw::scheduler_kind::dfdeques},
    {.name = "tbb", .kind = variant_kind::tbb},
    {.name = "omp", .kind = variant_kind::omp},
};

const variant* find_variant(std::string_view name);  // nullptr: no such row
std::vector<const variant*> all_variants();          // the rows, in the table's order
std::vector<std::string> variant_names();            // their names, in that order

}  // namespace slawbench
