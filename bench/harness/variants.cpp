#include "harness/variants.hpp"

#include <sched.h>

#include <cstdlib>

namespace slawbench {

namespace {

// The CPUs this process may run on (its affinity mask), at least 1.
unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

}  // namespace

slaw::config variant::slaw_config(unsigned workers) const {
  // The row's settings are the base, so that from_env's warnings about settings the scheduler does not
  // use judge the row's scheduler (SLAW_K under slaw-dfd is used); then the row wins over SLAW_POLICY
  // and SLAW_SCHEDULER.
  slaw::config base;
  base.policy = policy;
  base.scheduler = scheduler;
  // The row's default deployment, only where the environment names none. The binding default is left
  // out where it cannot hold: a synthetic machine (SLAW_TOPOLOGY) is never bound, and bound workers need
  // a CPU each, so more workers than usable CPUs run unbound on the same places.
  if (!default_places.empty() && !std::getenv("SLAW_PLACES") && !std::getenv("SLAW_DEPLOYMENT")) {
    base.places = default_places;
    if (!std::getenv("SLAW_BIND") && !std::getenv("SLAW_TOPOLOGY") && workers <= usable_cpus())
      base.bind = default_bind;
  }
  slaw::config c = slaw::config::from_env(base);
  c.workers = workers;
  c.policy = policy;
  c.scheduler = scheduler;
  return c;
}

const variant* find_variant(std::string_view name) {
  for (const auto& v : variant_table)
    if (v.name == name) return &v;
  return nullptr;
}

std::vector<const variant*> all_variants() {
  std::vector<const variant*> rows;
  for (const auto& v : variant_table) rows.push_back(&v);
  return rows;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const auto& v : variant_table) names.emplace_back(v.name);
  return names;
}

}  // namespace slawbench
