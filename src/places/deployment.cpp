#include "places/deployment.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "places/binding.hpp"
#include "places/deployment_file.hpp"
#include "places/omp_places.hpp"
#include "slaw/config.hpp"

namespace slaw::places {

const char* to_string(binding_kind b) noexcept {
  switch (b) {
    case binding_kind::none: return "none";
    case binding_kind::close: return "close";
    case binding_kind::spread: return "spread";
    case binding_kind::file: return "deployment file";
  }
  return "?";
}

std::vector<std::size_t> assign_close(std::size_t workers, std::size_t places) {
  std::vector<std::size_t> v(workers);
  if (places == 0) return v;
  if (workers <= places) {
    for (std::size_t i = 0; i < workers; ++i) v[i] = i;
    return v;
  }
  std::size_t w = 0;
  for (std::size_t p = 0; p < places; ++p)
    for (std::size_t k = 0; k < workers / places + (p < workers % places); ++k) v[w++] = p;
  return v;
}

std::vector<std::size_t> assign_spread(std::size_t workers, std::size_t places) {
  if (workers > places) return assign_close(workers, places);
  std::vector<std::size_t> v(workers);
  for (std::size_t i = 0; i < workers; ++i) v[i] = i * places / workers;
  return v;
}

namespace {

std::string quoted(const char* variable, const std::string& value) { return std::string(variable) + "='" + value + "'"; }

std::shared_ptr<const machine_topology> read_topology(const topology_source& source, const std::string& who) {
  try {
    std::shared_ptr<const machine_topology> t = source();
    if (!t) throw std::runtime_error("no topology");
    return t;
  } catch (const config_error&) {
    throw;
  } catch (const std::exception& e) {
    throw config_error(who + ": this machine's topology cannot be read with hwloc (" + e.what() +
                       "); places and binding need it (unset SLAW_PLACES, SLAW_BIND and SLAW_DEPLOYMENT for the " +
                       "flat deployment)");
  }
}

// CPUs of `want` the process may not use, as an error message tail, or "" if none.
std::string outside(const cpu_set& want, const machine_topology& t) {
  const cpu_set bad = set_difference(want, t.usable());
  if (bad.empty()) return "";
  return "CPU" + std::string(bad.size() > 1 ? "s " : " ") + bad.to_string() +
         (bad.size() > 1 ? " are" : " is") + " not usable by this process (its usable CPUs, from its affinity mask and " +
         "cgroup cpuset, are " + t.usable().to_string() + ")";
}

// Bound workers need a CPU each: the most workers that close (or spread) assignment binds without
// giving a place more workers than CPUs.
std::size_t most_bindable(const std::vector<std::size_t>& cpus_per_place, bool spread) {
  std::size_t total = 0;
  for (std::size_t c : cpus_per_place) total += c;
  for (std::size_t n = total; n > 0; --n) {
    const auto a = spread ? assign_spread(n, cpus_per_place.size()) : assign_close(n, cpus_per_place.size());
    std::vector<std::size_t> count(cpus_per_place.size());
    for (std::size_t p : a) ++count[p];
    bool fits = true;
    for (std::size_t p = 0; p < count.size(); ++p) fits &= count[p] <= cpus_per_place[p];
    if (fits) return n;
  }
  return 0;
}

// The default worker count `n` (one per CPU), capped at max_workers with a warning for `who`.
unsigned capped_default(std::size_t n, const std::string& who, deployment& d) {
  if (n <= max_workers) return static_cast<unsigned>(n);
  d.warnings.push_back(who + ": one worker per CPU would be " + std::to_string(n) + " workers; the default is capped at " +
                       std::to_string(max_workers) + ", the most a runtime has (SLAW_WORKERS chooses the count)");
  return max_workers;
}

deployment flat(const settings& s, bind_mode b, const topology_source& source) {
  deployment d;
  d.source = s.places.empty() ? "flat (SLAW_PLACES unset)" : "SLAW_PLACES=" + s.places;
  const bool bound = b == bind_mode::on || b == bind_mode::close || b == bind_mode::spread;
  cpu_set cpus;
  unsigned workers = s.workers;
  if (bound) {
    d.topology = read_topology(source, quoted("SLAW_BIND", s.bind));
    cpus = d.topology->usable();
    if (workers == 0) workers = capped_default(cpus.size(), d.source, d);
    if (workers > cpus.size())
      throw config_error(quoted("SLAW_BIND", s.bind) + " with " + std::to_string(workers) + " workers: the flat place " +
                         "has " + std::to_string(cpus.size()) + " CPUs (" + cpus.to_string() + ") and bound workers " +
                         "need a CPU each; give at most " + std::to_string(cpus.size()) + " workers (SLAW_WORKERS) " +
                         "or leave SLAW_BIND unset");
    d.binding = b == bind_mode::spread ? binding_kind::spread : binding_kind::close;
    d.warnings.push_back(quoted("SLAW_BIND", s.bind) + " with the flat deployment binds every worker to all " +
                         std::to_string(cpus.size()) + " usable CPUs; set SLAW_PLACES (threads, cores, ...) to bind " +
                         "workers to smaller places");
  } else {
    cpus = this_thread_affinity();  // shown only: nothing is bound, hwloc is not loaded
    if (workers == 0) workers = capped_default(std::max(1u, std::thread::hardware_concurrency()), d.source, d);
  }
  d.tree = place_tree::build({raw_node{no_place, cpus, {}, 0}});
  d.workers.resize(workers);
  for (unsigned w = 0; w < workers; ++w) {
    d.tree.attach(0, w);
    if (bound) d.workers[w].bind = cpus;
  }
  return d;
}

deployment from_file(const settings& s, bind_mode b, const topology_source& source) {
  const std::string who = "SLAW_DEPLOYMENT=" + s.deployment_file;
  const deployment_spec f = read_deployment_file(s.deployment_file);
  check_file(s, f);
  deployment d;
  d.source = who;
  d.topology = read_topology(source, who);
  std::vector<cpu_set> places(f.places);
  for (std::size_t w = 0; w < f.workers.size(); ++w) {
    const auto& line = f.workers[w];
    if (std::string bad = outside(line.cpus, *d.topology); !bad.empty())
      throw config_error(who + ":" + std::to_string(line.line) + ": worker " + std::to_string(w) + ": " + bad);
    places[line.place].insert_all(line.cpus);
  }
  d.tree = place_tree::build(d.topology->list_tree(places));
  const bool bound = b != bind_mode::off;  // the paper binds: the file's CPUs are its binding
  d.binding = bound ? binding_kind::file : binding_kind::none;
  d.workers.resize(f.workers.size());
  for (std::size_t w = 0; w < f.workers.size(); ++w) {
    d.workers[w].place = f.workers[w].place;  // every place has a worker: leaf i is place i
    if (bound) d.workers[w].bind = f.workers[w].cpus;
    d.tree.attach(d.workers[w].place, static_cast<unsigned>(w));
  }
  return d;
}

deployment from_places(const settings& s, bind_mode b, const places_spec& spec, const topology_source& source) {
  const std::string who = quoted("SLAW_PLACES", s.places);
  deployment d;
  d.source = "SLAW_PLACES=" + s.places;
  d.topology = read_topology(source, who);
  const machine_topology& t = *d.topology;

  // The raw tree and the places it lists, in list order.
  std::vector<raw_node> raw;
  std::vector<cpu_set> listed;
  if (const auto* a = std::get_if<abstract_places>(&spec)) {
    raw = t.unit_tree(a->name);
    for (const raw_node& n : raw)
      if (n.list_index) listed.push_back(n.cpus);
    if (listed.empty())
      throw config_error(who + ": hwloc reports no " + to_string(a->name) + " on this machine (" + t.description() +
                         "); use threads, cores or an explicit list of CPUs");
    if (a->count > listed.size())
      throw config_error(who + ": this process can use " + std::to_string(listed.size()) + " " + to_string(a->name) +
                         " (CPUs " + t.usable().to_string() + "), fewer than the " + std::to_string(a->count) +
                         " asked; ask at most " + std::to_string(listed.size()));
    if (a->count) listed.resize(a->count);
  } else {
    listed = std::get<std::vector<cpu_set>>(spec);
    for (std::size_t i = 0; i < listed.size(); ++i)
      if (std::string bad = outside(listed[i], t); !bad.empty())
        throw config_error(who + ": place " + std::to_string(i) + " {" + listed[i].to_string() + "}: " + bad);
    raw = t.list_tree(listed);
  }

  // Workers to places.
  const bool bound = b == bind_mode::on || b == bind_mode::close || b == bind_mode::spread;
  const bool spread = b == bind_mode::spread;
  std::vector<std::size_t> cpus_per_place;
  for (const cpu_set& c : listed) cpus_per_place.push_back(c.size());
  std::vector<std::size_t> place_of;
  std::size_t cpus_in_all = 0;
  for (std::size_t c : cpus_per_place) cpus_in_all += c;
  if (s.workers == 0 && cpus_in_all <= max_workers) {
    for (std::size_t p = 0; p < listed.size(); ++p) place_of.insert(place_of.end(), cpus_per_place[p], p);
  } else {  // as given, or the default capped: placed as if SLAW_WORKERS gave that count
    const std::size_t n = s.workers ? s.workers : capped_default(cpus_in_all, who, d);
    place_of = spread ? assign_spread(n, listed.size()) : assign_close(n, listed.size());
  }
  std::vector<std::size_t> count(listed.size());
  for (std::size_t p : place_of) ++count[p];
  if (bound)
    for (std::size_t p = 0; p < listed.size(); ++p)
      if (count[p] > cpus_per_place[p])
        throw config_error(quoted("SLAW_BIND", s.bind) + " with " + who + " and " + std::to_string(place_of.size()) +
                           " workers: place " + std::to_string(p) + " {" + listed[p].to_string() + "} would get " +
                           std::to_string(count[p]) + " workers but has " + std::to_string(cpus_per_place[p]) +
                           " CPU" + (cpus_per_place[p] > 1 ? "s" : "") + ", and bound workers need a CPU each; give " +
                           "at most " + std::to_string(most_bindable(cpus_per_place, spread)) +
                           " workers (SLAW_WORKERS), larger places, or leave SLAW_BIND unset");
  std::vector<bool> keep(listed.size());
  std::size_t unused = 0;
  for (std::size_t p = 0; p < listed.size(); ++p) unused += !(keep[p] = count[p] > 0);
  if (unused)
    d.warnings.push_back(who + ": " + std::to_string(unused) + " of its " + std::to_string(listed.size()) +
                         " places get no worker (" + std::to_string(place_of.size()) + " workers, " +
                         (spread ? "spread" : "close") + ") and are left out of the deployment");
  d.tree = place_tree::build(raw, keep);

  // The tree's leaves are the kept places in list order.
  std::vector<std::size_t> leaf_of(listed.size(), no_place);
  for (std::size_t leaf = 0; leaf < d.tree.leaf_count(); ++leaf) leaf_of[d.tree.leaf_list_indices()[leaf]] = leaf;
  d.binding = !bound ? binding_kind::none : spread ? binding_kind::spread : binding_kind::close;
  d.workers.resize(place_of.size());
  for (std::size_t w = 0; w < place_of.size(); ++w) {
    d.workers[w].place = leaf_of[place_of[w]];
    if (bound) d.workers[w].bind = listed[place_of[w]];
    d.tree.attach(d.workers[w].place, static_cast<unsigned>(w));
  }
  return d;
}

}  // namespace

deployment resolve(const settings& s, const topology_source& topology) {
  check_combination(s);
  const bind_mode b = parse_bind(s.bind);
  if (!s.deployment_file.empty()) return from_file(s, b, topology);
  const places_spec spec = s.places.empty() ? places_spec(abstract_places{}) : parse_places(s.places);
  if (const auto* a = std::get_if<abstract_places>(&spec); a && a->name == abstract_name::flat) return flat(s, b, topology);
  return from_places(s, b, spec, topology);
}

}  // namespace slaw::places
