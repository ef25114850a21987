// Victim order by distance in the place tree (docs/design/places.md; SLAW digest §1.4, §5.2): a thief
// probes the workers of its own place first, then those whose place is nearest to its own in the
// tree (same cache before same NUMA node before anywhere), rather than uniformly.
//
// The tree is plain data, each place's parent (`no_parent` for the root), as
// places::place_tree::parents() gives it; workers are named by their leaf place. Distances are edges
// on the tree path, so two workers of one leaf are at distance 0 and two leaves under one parent at 2.
//
//   auto rings = victim_rings(me, worker_place, parent);   // once, when the runtime starts
//   for (std::size_t v : nearest_first_order(rings, random, 16)) try_steal_from(v);   // each round
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

namespace slaw::policy {

inline constexpr std::size_t no_parent = static_cast<std::size_t>(-1);

// The depth of place `p` (the root's is 0).
inline std::size_t place_depth(const std::vector<std::size_t>& parent, std::size_t p) {
  std::size_t d = 0;
  for (p = parent.at(p); p != no_parent; p = parent.at(p)) ++d;
  return d;
}

// The number of edges on the tree path between places a and b.
inline std::size_t place_distance(const std::vector<std::size_t>& parent, std::size_t a, std::size_t b) {
  std::size_t da = place_depth(parent, a), db = place_depth(parent, b), d = 0;
  for (; da > db; --da, ++d) a = parent[a];
  for (; db > da; --db, ++d) b = parent[b];
  for (; a != b; d += 2) a = parent[a], b = parent[b];
  return d;
}

// The workers other than `thief`, grouped by the distance of their place from the thief's, nearest
// group first; each group in ascending worker order. `worker_place[w]` is worker w's place.
inline std::vector<std::vector<std::size_t>> victim_rings(std::size_t thief, const std::vector<std::size_t>& worker_place,
                                                          const std::vector<std::size_t>& parent) {
  std::map<std::size_t, std::vector<std::size_t>> by_distance;
  for (std::size_t w = 0; w < worker_place.size(); ++w)
    if (w != thief) by_distance[place_distance(parent, worker_place.at(thief), worker_place[w])].push_back(w);
  std::vector<std::vector<std::size_t>> rings;
  for (auto& [distance, workers] : by_distance) rings.push_back(std::move(workers));
  return rings;
}

// One steal round over `rings`: ring by ring, nearest first, each ring from position
// `random % ring size` wrapping around (so that thieves spread over their peers), at most
// `max_probes` victims in all.
class nearest_first_order {
 public:
  nearest_first_order(const std::vector<std::vector<std::size_t>>& rings, std::uint64_t random,
                      std::size_t max_probes) noexcept
      : rings_(&rings), random_(random), max_probes_(max_probes) {}

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::size_t;

    iterator() = default;
    std::size_t operator*() const noexcept {
      const auto& ring = (*o_->rings_)[ring_];
      const std::size_t start = static_cast<std::size_t>(o_->random_ % ring.size());
      return ring[(start + pos_) % ring.size()];
    }
    iterator& operator++() noexcept {
      ++probe_;
      if (++pos_ == (*o_->rings_)[ring_].size()) {
        pos_ = 0;
        ++ring_;
      }
      settle();
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.probe_ == b.probe_; }

   private:
    friend class nearest_first_order;
    iterator(const nearest_first_order* o, std::size_t probe) noexcept : o_(o), probe_(probe) { settle(); }
    // Skips empty rings; the end is probe_ == the window.
    void settle() noexcept {
      while (ring_ < o_->rings_->size() && (*o_->rings_)[ring_].empty()) ++ring_;
      if (ring_ == o_->rings_->size()) probe_ = o_->window();
    }
    const nearest_first_order* o_ = nullptr;
    std::size_t ring_ = 0, pos_ = 0, probe_ = 0;
  };

  iterator begin() const noexcept { return window() == 0 ? end() : iterator(this, 0); }
  iterator end() const noexcept {
    iterator e;
    e.o_ = this;
    e.probe_ = window();
    return e;
  }

  // The number of victims this round probes.
  std::size_t window() const noexcept {
    std::size_t n = 0;
    for (const auto& r : *rings_) n += r.size();
    return std::min(n, max_probes_);
  }

 private:
  const std::vector<std::vector<std::size_t>>* rings_;
  std::uint64_t random_;
  std::size_t max_probes_;
};

}  // namespace slaw::policy
