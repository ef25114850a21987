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
// implementation (docs/guide/places.md): an exclusion `!` applies to the whole place or list whatever its
// position, and excluding a CPU or a place that is not there is an error; an empty place or list is an
// error; CPU numbers above `max_cpu` are errors.
//
// Bounds, checked before anything is built: an explicit list has at most `max_list_places` places and
// as many excluded ones, and at most `max_list_cpus` CPU numbers in all its places together (listed and
// excluded, a CPU counted once per place it is in). Without them `{0:65535}:65535:0` asked for 17 GB.
//
// This is syntax only: whether the CPUs exist and may be used, and what an abstract name means on this
// machine, is decided against the topology (deployment.hpp).
#pragma once

#include <cstddef>
#include <string_view>
#include <variant>
#include <vector>

#include "places/cpu_set.hpp"

namespace slaw::places {

inline constexpr unsigned max_cpu = 65535;  // above any Linux build (CONFIG_NR_CPUS <= 8192)
// As many places as a runtime has workers at most (a place without a worker is left out).
inline constexpr std::size_t max_list_places = 4096;
// 2^20 CPU numbers (4 MiB): 4096 places of 256 CPUs.
inline constexpr std::size_t max_list_cpus = std::size_t{1} << 20;

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
