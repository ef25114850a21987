#include "harness/variants.hpp"

#include <cstdlib>

namespace slawbench {

slaw::config variant::slaw_config(unsigned workers) const {
  // The row's settings are the base, so that from_env's warnings about settings the scheduler does not
  // use judge the row's scheduler (SLAW_K under slaw-dfd is used); then the row wins over SLAW_POLICY
  // and SLAW_SCHEDULER.
  slaw::config base;
  base.policy = policy;
  base.scheduler = scheduler;
  if (!default_places.empty() && !std::getenv("SLAW_PLACES") && !std::getenv("SLAW_DEPLOYMENT")) {
    base.places = default_places;
    if (!std::getenv("SLAW_BIND")) base.bind = default_bind;
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
