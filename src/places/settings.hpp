// What the user asked of places: SLAW_PLACES, SLAW_BIND, SLAW_DEPLOYMENT, SLAW_DISPLAY_PLACES (or the
// same from code), as text, checked for syntax and for combinations that cannot go together. The
// machine is not consulted here: deployment.hpp resolves these against the topology.
#pragma once

#include <string>
#include <string_view>

#include "places/deployment_file.hpp"

namespace slaw::places {

// The most workers a runtime has: config's bound on SLAW_WORKERS (src/core/config.cpp), and the cap on
// the default worker count of a deployment (one per CPU of the places).
inline constexpr unsigned max_workers = 4096;

// SLAW_BIND, as OpenMP's OMP_PROC_BIND: `true` binds with SLAW's choice, which is close.
enum class bind_mode : unsigned char { unset, off, on, close, spread };

struct settings {
  std::string places;           // SLAW_PLACES; empty = unset (the flat deployment)
  std::string bind;             // SLAW_BIND; empty = unset (unbound, or the deployment file's binding)
  std::string deployment_file;  // SLAW_DEPLOYMENT; empty = unset
  bool display = false;         // SLAW_DISPLAY_PLACES=1: print the resolved deployment at start-up
  unsigned workers = 0;         // SLAW_WORKERS / config::workers; 0 = the default for the places
  std::string topology;         // SLAW_TOPOLOGY; empty = this machine, "synthetic:DESC" = an hwloc synthetic one
};

// The `synthetic:` prefix of SLAW_TOPOLOGY.
inline constexpr std::string_view synthetic_prefix = "synthetic:";

// true|false|close|spread, case-insensitive, blanks around allowed; empty = unset. Throws
// slaw::config_error naming `variable` and the accepted values.
bind_mode parse_bind(std::string_view value, std::string_view variable = "SLAW_BIND");
const char* to_string(bind_mode b) noexcept;

// Checks the syntax of each setting (the deployment file is read and parsed) and that they go
// together: SLAW_DEPLOYMENT excludes SLAW_PLACES and SLAW_BIND=close|spread, and a worker count that
// differs from the file's. Throws slaw::config_error. check() is check_combination(), then the file
// read and check_file()d.
void check(const settings& s);
void check_combination(const settings& s);  // all but the file's content
void check_file(const settings& s, const deployment_spec& file);

// Checks also SLAW_TOPOLOGY: empty, or `synthetic:` and a description; a synthetic machine cannot
// bind (SLAW_BIND true|close|spread, or a deployment file that binds, are errors with it).
// `base` with SLAW_PLACES, SLAW_BIND, SLAW_DEPLOYMENT and SLAW_DISPLAY_PLACES read from the
// environment where set (workers are left alone: config.cpp reads SLAW_WORKERS), then check()ed.
settings settings_from_env(settings base);

// The environment variables read here, for config.cpp's list of known SLAW_* names.
inline constexpr const char* env_variables[] = {"SLAW_PLACES", "SLAW_BIND", "SLAW_DEPLOYMENT", "SLAW_DISPLAY_PLACES"};

}  // namespace slaw::places
