#include "harness/variants.hpp"

namespace slawbench {

slaw::config variant::slaw_config(unsigned workers) const {
  slaw::config c = slaw::config::from_env();
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
