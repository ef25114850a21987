// The SLAW_PLACES grammar: OpenMP's OMP_PLACES (OpenMP 5.2 specification, the OMP_PLACES environment
// variable), plus SLAW's abstract names `tree` and `flat` (OpenMP allows implementation-defined ones).
//
//   list        := aname | p-list
//   aname       := word [ '(' count ')' ]      word: threads cores ll_caches numa_domains sockets tree flat
//   p-list      := p-interval { ',' p-interval }
//   p-interval  := place [ ':' len [ ':' stride ] ] | '!' place
//   place       := '{' res-list '}' | res
//   res-list    := res-interval { ',' res-interval }
//   res-interval:= res [ ':' count [ ':' stride ] ] | '!' res
//   res: a CPU number >= 0; count, len: integers >= 1; stride: an integer, negative allowed
//
// `a:n:s` is a, a+s, ..., a+(n-1)s, for CPU numbers inside a place and for whole places (each CPU of the
// place shifted). Words are case-insensitive and blanks around tokens are ignored, as OpenMP says of
// its environment variables. Deviations from OpenMP, where it leaves the behaviour to the
// implementation (docs/places.md): an exclusion `!` applies to the whole place or list whatever its
// position, and excluding a CPU or a place that is not there is an error; an empty place or list is an
// error; CPU numbers above `max_cpu` are errors.
//
// This is syntax only: whether the CPUs exist and may be used, and what an abstract name means on this
// machine, is decided against the topology (deployment.hpp).
#pragma once

#include <string_view>
#include <variant>
#include <vector>

#include "places/cpu_set.hpp"

namespace slaw::places {

inline constexpr unsigned max_cpu = 65535;  // above any Linux build (CONFIG_NR_CPUS <= 8192)

enum class abstract_name : unsigned char { threads, cores, ll_caches, numa_domains, sockets, tree, flat };

struct abstract_places {
  abstract_name name = abstract_name::flat;
  unsigned count = 0;  // the first `count` places only; 0 = all
  friend bool operator==(const abstract_places&, const abstract_places&) = default;
};

// An abstract name, or an explicit list of places in the order given.
using places_spec = std::variant<abstract_places, std::vector<cpu_set>>;

// Parses `value`; throws slaw::config_error naming `variable`, the offending part and the accepted
// forms.
places_spec parse_places(std::string_view value, std::string_view variable = "SLAW_PLACES");

const char* to_string(abstract_name n) noexcept;

// The accepted forms, for error messages.
extern const char* const places_accepted;

}  // namespace slaw::places
