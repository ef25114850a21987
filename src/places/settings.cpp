#include "places/settings.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "places/omp_places.hpp"
#include "places/topology.hpp"
#include "slaw/config.hpp"

namespace slaw::places {

namespace {

std::string trimmed_lower(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  std::string s;
  for (char c : v) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bind_mode parse_bind(std::string_view value, std::string_view variable) {
  if (value.empty()) return bind_mode::unset;
  const std::string v = trimmed_lower(value);
  if (v == "true") return bind_mode::on;
  if (v == "false") return bind_mode::off;
  if (v == "close") return bind_mode::close;
  if (v == "spread") return bind_mode::spread;
  std::string hint;
  if (v == "primary" || v == "master") hint = " (OpenMP's primary/master binds all threads to one place; slaw does not)";
  else if (v.find(',') != std::string::npos) hint = " (one value: slaw has no nested parallel levels)";
  throw config_error(std::string(variable) + "='" + std::string(value) + "': expected one of true, false, close, spread" +
                     hint);
}

const char* to_string(bind_mode b) noexcept {
  switch (b) {
    case bind_mode::unset: return "unset";
    case bind_mode::off: return "false";
    case bind_mode::on: return "true";
    case bind_mode::close: return "close";
    case bind_mode::spread: return "spread";
  }
  return "?";
}

void check(const settings& s) {
  check_combination(s);
  if (!s.deployment_file.empty()) check_file(s, read_deployment_file(s.deployment_file));
}

void check_combination(const settings& s) {
  if (!s.places.empty()) parse_places(s.places);
  const bind_mode b = parse_bind(s.bind);
  if (!s.topology.empty()) {
    const std::string_view t = s.topology;
    if (t.substr(0, synthetic_prefix.size()) != synthetic_prefix || t.size() == synthetic_prefix.size())
      throw config_error("SLAW_TOPOLOGY='" + s.topology +
                         "': expected synthetic:DESC with an hwloc synthetic description (synthetic:pack:2 core:4 pu:2), "
                         "or unset for this machine");
    // Measured here, before hwloc is asked to build it (it has no limit of its own).
    if (const synthetic_measure m = synthetic_size(t.substr(synthetic_prefix.size())); !m.problem.empty())
      throw config_error("SLAW_TOPOLOGY='" + s.topology + "': " + m.problem + "; " + synthetic_limits);
    if (b == bind_mode::on || b == bind_mode::close || b == bind_mode::spread || (!s.deployment_file.empty() && b != bind_mode::off))
      throw config_error("SLAW_TOPOLOGY='" + s.topology + "' is not this machine: its workers cannot be bound; use " +
                         "SLAW_BIND=false (or unset)" + (s.deployment_file.empty() ? "" : " with SLAW_DEPLOYMENT"));
  }
  if (s.deployment_file.empty()) return;
  if (!s.places.empty())
    throw config_error("SLAW_DEPLOYMENT='" + s.deployment_file + "' and SLAW_PLACES='" + s.places +
                       "' are both set: the deployment file gives the places itself; set one of them");
  if (b == bind_mode::close || b == bind_mode::spread)
    throw config_error(std::string("SLAW_BIND='") + s.bind + "' with SLAW_DEPLOYMENT: the deployment file binds each " +
                       "worker to its own CPUs; accepted with it: true (the default) or false (places without binding)");
}

void check_file(const settings& s, const deployment_spec& d) {
  if (s.workers != 0 && s.workers != d.workers.size())
    throw config_error("SLAW_WORKERS=" + std::to_string(s.workers) + " but SLAW_DEPLOYMENT=" + s.deployment_file +
                       " declares " + std::to_string(d.workers.size()) + " workers; leave SLAW_WORKERS unset or make " +
                       "them agree");
}

settings settings_from_env(settings s) {
  if (const char* v = std::getenv("SLAW_PLACES")) {
    if (!*v) throw config_error(std::string("SLAW_PLACES='': ") + places_accepted + " (unset it for the flat deployment)");
    s.places = v;
  }
  if (const char* v = std::getenv("SLAW_BIND")) {
    if (!*v) throw config_error("SLAW_BIND='': expected one of true, false, close, spread");
    s.bind = v;
  }
  if (const char* v = std::getenv("SLAW_DEPLOYMENT")) {
    if (!*v) throw config_error("SLAW_DEPLOYMENT='': expected the path of a deployment file");
    s.deployment_file = v;
  }
  if (const char* v = std::getenv("SLAW_DISPLAY_PLACES")) {
    if (!std::strcmp(v, "0")) s.display = false;
    else if (!std::strcmp(v, "1")) s.display = true;
    else
      throw config_error(std::string("SLAW_DISPLAY_PLACES='") + v +
                         "': expected 0 (off) or 1 (print the deployment on stderr when the runtime starts)");
  }
  check(s);
  return s;
}

}  // namespace slaw::places
