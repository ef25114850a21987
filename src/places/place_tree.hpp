// The place tree (SLAW digest §1.4, Hierarchical Place Trees): places are nodes, workers attach to
// leaves, and an internal place stands for its whole subtree (a task sent there may run on any worker
// under it). Built from a raw tree (the machine's hwloc objects with the places as leaves) by keeping
// the leaves asked for, dropping branches without one, and collapsing every place that has a single
// child into that child, so that no two places have the same workers.
//
// Numbering: the leaves come first, 0..leaf_count()-1, in the order of the place list that produced
// them (SLAW_PLACES's order, hwloc's logical order for an abstract name, the deployment file's place
// ids); the internal places follow in preorder, the root first among them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "places/cpu_set.hpp"

namespace slaw::places {

inline constexpr std::size_t no_place = static_cast<std::size_t>(-1);

struct place {
  std::size_t index = 0;
  std::size_t parent = no_place;        // no_place for the root
  std::vector<std::size_t> children;    // in the machine's (or the list's) order
  std::size_t depth = 0;                // the root's is 0
  cpu_set cpus;                         // the union of its leaves' CPUs
  std::vector<std::string> objects;     // the hwloc objects merged into it, outermost first ("L3 L#0")
  std::vector<unsigned> workers;        // the workers of its subtree, ascending (a leaf: its own)

  bool is_leaf() const noexcept { return children.empty(); }
};

// One node of the tree before pruning and collapsing. Parents come before their children; a leaf
// has `list_index` (its position in the place list) and no children.
struct raw_node {
  std::size_t parent = no_place;
  cpu_set cpus;
  std::vector<std::string> objects;
  std::optional<std::size_t> list_index;
};

class place_tree {
 public:
  // Keeps the leaves whose list_index has keep[list_index] true (all leaves if `keep` is empty).
  // Throws std::invalid_argument if nothing is kept or the nodes are not a tree as described.
  static place_tree build(const std::vector<raw_node>& nodes, const std::vector<bool>& keep = {});

  std::size_t size() const noexcept { return places_.size(); }
  std::size_t leaf_count() const noexcept { return leaves_; }
  std::size_t root() const noexcept { return root_; }
  const place& operator[](std::size_t i) const { return places_.at(i); }
  const std::vector<place>& places() const noexcept { return places_; }

  std::size_t parent(std::size_t i) const { return places_.at(i).parent; }
  const std::vector<std::size_t>& children(std::size_t i) const { return places_.at(i).children; }
  bool is_leaf(std::size_t i) const { return places_.at(i).is_leaf(); }
  const cpu_set& cpus(std::size_t i) const { return places_.at(i).cpus; }
  std::size_t depth(std::size_t i) const { return places_.at(i).depth; }

  // Whether `inner` is `outer` or below it.
  bool within(std::size_t inner, std::size_t outer) const;
  // The deepest place that has both a and b in its subtree.
  std::size_t common_ancestor(std::size_t a, std::size_t b) const;
  // The number of edges on the path from a to b.
  std::size_t distance(std::size_t a, std::size_t b) const;
  // Each place's parent (no_place for the root), the plain form policy::place_order works on.
  std::vector<std::size_t> parents() const;
  // The places' list indices of the raw tree, for each leaf (which listed places survived).
  const std::vector<std::size_t>& leaf_list_indices() const noexcept { return list_index_; }

  // Attaches worker `w` to leaf `leaf` (and so to every place above it).
  void attach(std::size_t leaf, unsigned w);

 private:
  std::vector<place> places_;
  std::vector<std::size_t> list_index_;
  std::size_t leaves_ = 0, root_ = 0;
};

}  // namespace slaw::places
