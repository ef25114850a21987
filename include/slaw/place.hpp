// Places in the programming model (docs/guide/places.md; the scheduler's side: docs/design/places.md):
// where a task runs.
//
//   for (std::size_t i = 0; i < slaw::num_places(); ++i)
//     co_await slaw::async(slaw::at(slaw::place(i)), &part[i], work, i);   // one task per listed place
//   slaw::place p = slaw::here();                                          // the running task's place
//
// A place is a node of the runtime's place tree: a leaf (a listed place: a core, a cache, an explicit
// CPU set) or an internal place standing for its whole subtree. A task runs only on workers inside its
// place's subtree, from its start to its end, suspensions included. A task spawned without a place
// clause has its parent's place (`here`); a run's root task has the root place (the whole machine), so
// a program that names no place runs as it did before places existed. Under the flat deployment (the
// default) there is one place and every clause names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "slaw/export.hpp"

namespace slaw {

namespace detail {
class runtime_impl;
}

// A handle to one place of a runtime's place tree; valid while that runtime lives. Cheap to copy.
class SLAW_EXPORT place {
 public:
  // The i-th listed place (a leaf; SLAW_PLACES's order) of the runtime running the calling task.
  // Throws std::out_of_range for i >= num_places(), std::logic_error outside a slaw task.
  explicit place(std::size_t i);

  // The place's number in its tree: the listed places are 0..num_places()-1, the internal places
  // follow (the root first).
  std::size_t index() const noexcept { return index_; }
  bool is_leaf() const noexcept;
  bool is_root() const noexcept;
  // The enclosing place; the root's parent is the root itself.
  place parent() const noexcept;
  std::vector<place> children() const;
  // Edges from the root (the root's depth is 0).
  std::size_t depth() const noexcept;
  // Whether `other` is this place or below it (a task at this place may run where `other` is).
  bool contains(const place& other) const noexcept;
  // The operating system's numbers of the CPUs of this place's subtree, ascending.
  std::vector<unsigned> cpus() const;
  // The workers of this place's subtree (runtime worker indices), ascending.
  std::vector<unsigned> workers() const;
  // What the place is on the machine: "core L#3", "L3 L#0 + NUMANode L#0", "{0,1}", "machine".
  std::string name() const;

  friend bool operator==(const place& a, const place& b) noexcept { return a.rt_ == b.rt_ && a.index_ == b.index_; }

 private:
  friend class detail::runtime_impl;
  friend place here();
  friend place root_place();
  place(const detail::runtime_impl* rt, std::size_t index) noexcept : rt_(rt), index_(index) {}
  const detail::runtime_impl* rt_;
  std::size_t index_;
};

// The place of the running task. Throws std::logic_error outside a slaw task.
SLAW_EXPORT place here();
// The number of listed places (the leaves of the place tree) of the runtime running the calling task;
// 1 under the flat deployment. Throws std::logic_error outside a slaw task.
SLAW_EXPORT std::size_t num_places();
// The root of the place tree: the whole machine (every worker). Throws std::logic_error outside a task.
SLAW_EXPORT place root_place();
// The index of the worker running the calling task (0 .. runtime::workers()-1); it may change at any
// co_await that can suspend (a finish's end) or after a spawn. Throws std::logic_error outside a task.
SLAW_EXPORT unsigned this_worker();

namespace detail {
// The children of the place with index `index` in the calling task's runtime (none for a leaf): the
// subtrees a parallel loop with a place clause divides its range among (include/slaw/algorithm.hpp).
// Throws std::out_of_range for an index that is not a place, std::logic_error outside a slaw task.
SLAW_EXPORT std::vector<std::uint32_t> place_children(std::uint32_t index);
}  // namespace detail

// The place clause of slaw::async (include/slaw/async.hpp): the child runs inside `p`'s subtree.
struct place_clause {
  std::uint32_t index;
};
inline place_clause at(const place& p) noexcept { return {static_cast<std::uint32_t>(p.index())}; }

}  // namespace slaw
