#include "places/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "places/hwloc_bitmap.hpp"

namespace slaw::places {

namespace {

// The API version of the hwloc library loaded at run time (hwloc has no run-time release number).
std::string hwloc_version() {
  const unsigned v = hwloc_get_api_version();
  return "hwloc API " + std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff);
}

std::string label(hwloc_obj_t o) {
  char type[64];
  hwloc_obj_type_snprintf(type, sizeof type, o, 0);
  if (o->type == HWLOC_OBJ_MACHINE) return type;
  return std::string(type) + " L#" + std::to_string(o->logical_index);
}

// The object's label, then those of the NUMA nodes attached to it (through memory-side caches too).
std::vector<std::string> labels(hwloc_obj_t o) {
  std::vector<std::string> v{label(o)};
  std::function<void(hwloc_obj_t)> memory = [&](hwloc_obj_t m) {
    for (; m; m = m->next_sibling) {
      if (m->type == HWLOC_OBJ_NUMANODE) v.push_back(label(m));
      memory(m->memory_first_child);
    }
  };
  memory(o->memory_first_child);
  return v;
}

bool is_data_cache(hwloc_obj_t o) { return hwloc_obj_type_is_dcache(o->type); }

// Whether `o` is a unit of `level` (deployment of abstract names; see topology.hpp).
bool is_unit(hwloc_obj_t o, abstract_name level) {
  switch (level) {
    case abstract_name::threads:
    case abstract_name::tree: return o->type == HWLOC_OBJ_PU;
    case abstract_name::cores: return o->type == HWLOC_OBJ_CORE;
    case abstract_name::sockets: return o->type == HWLOC_OBJ_PACKAGE;
    case abstract_name::ll_caches: {
      if (!is_data_cache(o)) return false;
      for (hwloc_obj_t p = o->parent; p; p = p->parent)
        if (is_data_cache(p)) return false;  // the outermost cache is the last level
      return true;
    }
    case abstract_name::numa_domains: {
      if (o->memory_arity == 0) return false;
      std::function<bool(hwloc_obj_t)> below = [&](hwloc_obj_t x) {
        for (hwloc_obj_t c = x->first_child; c; c = c->next_sibling)
          if (c->memory_arity > 0 || below(c)) return true;
        return false;
      };
      return !below(o);  // the innermost: its memory is the closest
    }
    case abstract_name::flat: return false;
  }
  return false;
}

bool has_cpus(hwloc_obj_t o) { return o->cpuset && !hwloc_bitmap_iszero(o->cpuset); }

// A description for a message: long ones cut.
std::string shown(std::string_view d) {
  return d.size() <= 200 ? std::string(d) : std::string(d.substr(0, 200)) + "... (" + std::to_string(d.size()) + " characters)";
}

}  // namespace

const char* const synthetic_limits =
    "slaw builds synthetic machines of at most 4096 PUs and 65536 objects (every level's and the attached NUMA "
    "nodes), with PU indexes up to 65535, described in at most 65536 characters";

synthetic_measure synthetic_size(std::string_view d) {
  synthetic_measure m;
  if (d.size() > max_synthetic_chars) {
    m.problem = "has " + std::to_string(d.size()) + " characters, more than " + std::to_string(max_synthetic_chars);
    return m;
  }
  std::uint64_t width = 1;  // objects on the level read last (the root: 1)
  m.objects = 1;
  std::size_t i = 0;
  auto add_objects = [&](std::uint64_t n) {
    m.objects += n;
    if (m.objects > max_synthetic_objects)
      m.problem = "describes at least " + std::to_string(m.objects) + " objects";
    return m.problem.empty();
  };
  // An attribute list or a memory child from `i` (at '(' or '[') to `close`: the indexes it gives must be
  // CPU numbers (explicit indexes become PU os_index, the bits of every cpuset).
  auto skip_to = [&](char close) {
    const std::size_t end = d.find(close, i);
    if (end == std::string_view::npos) {
      i = d.size();  // hwloc refuses it
      return true;
    }
    const std::string_view inside = d.substr(i, end - i);
    i = end + 1;
    for (std::size_t at = inside.find("indexes="); at != std::string_view::npos; at = inside.find("indexes=", at + 1)) {
      std::size_t k = at + 8;
      while (k < inside.size() && inside[k] != ' ' && inside[k] != ')') {
        if (!std::isdigit(static_cast<unsigned char>(inside[k]))) {
          ++k;
          continue;
        }
        std::uint64_t v = 0;
        const std::size_t from = k;
        for (; k < inside.size() && std::isdigit(static_cast<unsigned char>(inside[k])); ++k)
          v = v > max_cpu ? v : v * 10 + static_cast<unsigned>(inside[k] - '0');
        if (v > max_cpu) {
          m.problem = "gives the index " + std::string(inside.substr(from, std::min<std::size_t>(k - from, 40))) +
                      ", above " + std::to_string(max_cpu);
          return false;
        }
      }
    }
    return true;
  };
  if (i < d.size() && d[i] == '(' && !skip_to(')')) return m;  // the root's attributes
  for (;;) {
    while (i < d.size() && (d[i] == ' ' || d[i] == '\n' || d[i] == '\t')) ++i;
    if (i == d.size()) break;
    if (d[i] == '[') {  // NUMA nodes attached to each object of the level before
      if (!skip_to(']') || !add_objects(width)) return m;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(d[i]))) {  // a type, up to the next ':' (as hwloc finds it)
      const std::size_t colon = d.find(':', i);
      if (colon == std::string_view::npos) break;  // hwloc refuses it
      i = colon + 1;
    }
    while (i < d.size() && std::isspace(static_cast<unsigned char>(d[i]))) ++i;  // strtoul skips blanks
    if (i < d.size() && (d[i] == '-' || d[i] == '+')) {
      m.problem = "has a level whose count is not a plain count of objects ('" + std::string(d.substr(i, 12)) + "')";
      return m;
    }
    std::uint64_t count = 0;
    bool hex = i + 1 < d.size() && d[i] == '0' && (d[i + 1] == 'x' || d[i + 1] == 'X');
    if (hex) i += 2;
    const std::size_t digits = i;
    for (; i < d.size(); ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(d[i])));
      const int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (v < 0) break;
      count = count >> 40 ? count : count * (hex ? 16 : 10) + static_cast<unsigned>(v);  // stops growing past 2^40
    }
    if (i == digits) break;  // no count: hwloc refuses it
    width *= count;  // width <= max_synthetic_pus and count < 2^45: no overflow
    if (width > max_synthetic_pus) {
      m.problem = "describes at least " + std::to_string(width) + " PUs";
      return m;
    }
    if (!add_objects(width)) return m;
    if (i < d.size() && d[i] == '(' && !skip_to(')')) return m;
  }
  m.pus = width;
  return m;
}

machine_topology::~machine_topology() {
  if (topo_) hwloc_topology_destroy(topo_);
}

void machine_topology::restrict_to(const cpu_set& usable) {
  unique_bitmap set = to_bitmap(usable);
  if (hwloc_topology_restrict(topo_, set.get(), HWLOC_RESTRICT_FLAG_REMOVE_CPULESS) != 0)
    throw std::runtime_error("hwloc_topology_restrict failed: " + std::string(std::strerror(errno)));
  usable_ = from_bitmap(hwloc_get_root_obj(topo_)->cpuset);
}

std::shared_ptr<const machine_topology> machine_topology::load_system() {
  // A library built against hwloc 2 and run with another major version would misread the structures.
  if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16))
    throw std::runtime_error("slaw was built with hwloc API " + std::to_string(HWLOC_API_VERSION >> 16) +
                             ".x but runs with " + hwloc_version());
  std::shared_ptr<machine_topology> t(new machine_topology);
  if (hwloc_topology_init(&t->topo_) != 0) {
    t->topo_ = nullptr;
    throw std::runtime_error("hwloc_topology_init failed: " + std::string(std::strerror(errno)));
  }
#if HWLOC_API_VERSION >= 0x00020800
  // The runtime may be built while other threads run: discovery must not rebind them.
  hwloc_topology_set_flags(t->topo_, HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING);
#endif
  hwloc_topology_set_icache_types_filter(t->topo_, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(t->topo_) != 0)
    throw std::runtime_error("hwloc_topology_load failed: " + std::string(std::strerror(errno)));
  t->this_system_ = hwloc_topology_is_thissystem(t->topo_);
  t->description_ = hwloc_version();
  // The process's affinity mask (all its threads'), within the allowed CPUs the topology holds.
  unique_bitmap bound = new_bitmap();
  if (hwloc_get_cpubind(t->topo_, bound.get(), HWLOC_CPUBIND_PROCESS) != 0 &&
      hwloc_get_cpubind(t->topo_, bound.get(), HWLOC_CPUBIND_THREAD) != 0)
    throw std::runtime_error("cannot read the process's CPU affinity with hwloc: " + std::string(std::strerror(errno)));
  hwloc_bitmap_and(bound.get(), bound.get(), hwloc_topology_get_allowed_cpuset(t->topo_));
  const cpu_set usable = from_bitmap(bound.get());
  if (usable.empty()) throw std::runtime_error("hwloc finds no CPU that this process may use");
  t->restrict_to(usable);
  return t;
}

std::shared_ptr<const machine_topology> machine_topology::load_synthetic(std::string_view description,
                                                                         const cpu_set* usable) {
  // hwloc builds what it is given, with no limit of its own: measured first.
  if (const synthetic_measure m = synthetic_size(description); !m.problem.empty())
    throw std::invalid_argument("the synthetic topology '" + shown(description) + "' " + m.problem + "; " +
                                synthetic_limits);
  std::shared_ptr<machine_topology> t(new machine_topology);
  if (hwloc_topology_init(&t->topo_) != 0) {
    t->topo_ = nullptr;
    throw std::runtime_error("hwloc_topology_init failed");
  }
  const std::string d(description);
  if (hwloc_topology_set_synthetic(t->topo_, d.c_str()) != 0)
    throw std::invalid_argument("hwloc rejects the synthetic topology '" + d + "'");
  if (hwloc_topology_load(t->topo_) != 0) throw std::invalid_argument("hwloc cannot load the synthetic topology '" + d + "'");
  t->description_ = hwloc_version() + ", synthetic '" + d + "'";
  t->usable_ = from_bitmap(hwloc_get_root_obj(t->topo_)->cpuset);
  if (usable) {
    if (usable->empty() || !usable->subset_of(t->usable_))
      throw std::invalid_argument("usable CPUs " + usable->to_string() + " are not a non-empty subset of the synthetic " +
                                  "topology's " + t->usable_.to_string());
    t->restrict_to(*usable);
  }
  return t;
}

std::vector<raw_node> machine_topology::unit_tree(abstract_name level) const {
  std::vector<raw_node> nodes;
  std::size_t units = 0;
  // Emits `o` if a unit is at or below it; returns whether one was.
  std::function<bool(hwloc_obj_t, std::size_t)> visit = [&](hwloc_obj_t o, std::size_t parent) {
    if (!has_cpus(o)) return false;
    const std::size_t me = nodes.size();
    nodes.push_back({parent, from_bitmap(o->cpuset), labels(o), std::nullopt});
    if (is_unit(o, level)) {
      nodes[me].list_index = units++;
      return true;
    }
    bool any = false;
    for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) any |= visit(c, me);
    if (!any) nodes.resize(me);  // drops the subtree (it emitted nothing either)
    return any;
  };
  visit(hwloc_get_root_obj(topo_), no_place);
  return nodes;
}

std::vector<raw_node> machine_topology::list_tree(const std::vector<cpu_set>& places) const {
  std::vector<raw_node> nodes;
  std::vector<std::pair<hwloc_obj_t, std::size_t>> index;  // object -> its node
  std::function<void(hwloc_obj_t, std::size_t)> visit = [&](hwloc_obj_t o, std::size_t parent) {
    if (!has_cpus(o)) return;
    const std::size_t me = nodes.size();
    nodes.push_back({parent, from_bitmap(o->cpuset), labels(o), std::nullopt});
    index.emplace_back(o, me);
    for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) visit(c, me);
  };
  visit(hwloc_get_root_obj(topo_), no_place);
  for (std::size_t i = 0; i < places.size(); ++i) {
    if (places[i].empty() || !places[i].subset_of(usable_))
      throw std::invalid_argument("place " + std::to_string(i) + " (CPUs " + places[i].to_string() +
                                  ") is not a non-empty subset of the usable CPUs " + usable_.to_string());
    // Down from the root into the one child containing the place, while there is one (siblings' CPU
    // sets are disjoint).
    unique_bitmap set = to_bitmap(places[i]);
    std::size_t at = 0;
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (std::size_t k = at + 1; k < nodes.size() && k < index.size(); ++k)
        if (nodes[k].parent == at && hwloc_bitmap_isincluded(set.get(), index[k].first->cpuset)) {
          at = k;
          deeper = true;
          break;
        }
    }
    nodes.push_back({at, places[i], {}, i});
  }
  return nodes;
}

}  // namespace slaw::places
