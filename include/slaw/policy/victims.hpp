// The order in which a thief probes victims in one steal round (work stealing; docs/design/policy.md).
//
// SLAW's idle routine (Guo et al., IPDPS 2010, §III-D, Subroutine 1 step 2) says which task a thief
// may take from a victim but not how victims are chosen; like randomized work stealing (Blumofe and
// Leiserson, JACM 1999) slaw starts at a uniformly random worker. From there it goes through
// consecutive indices, wrapping around, skipping the thief itself, and stops after `max_probes`
// indices: an idle worker's search costs O(1) per round instead of O(p) (a round may therefore
// probe one victim fewer, when the thief's own index falls in the window).
//
//   for (std::size_t v : victim_order(me, workers, random, 16)) try_steal_from(v);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace slaw::policy {

// The probe window of one steal round of work stealing, the `max_probes` it passes below (the runtime
// and the simulator; src/sched/work_stealing.hpp has its own copy until it uses this one).
inline constexpr std::size_t steal_probes = 16;

class victim_order {
 public:
  victim_order(std::size_t thief, std::size_t workers, std::uint64_t random, std::size_t max_probes) noexcept
      : thief_(thief),
        workers_(workers),
        start_(workers == 0 ? 0 : static_cast<std::size_t>(random % workers)),
        probes_(std::min(workers, max_probes)) {}

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::size_t;

    iterator() = default;
    std::size_t operator*() const noexcept { return o_->at(probe_); }
    iterator& operator++() noexcept {
      ++probe_;
      skip_thief();
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.probe_ == b.probe_; }

   private:
    friend class victim_order;
    iterator(const victim_order* o, std::size_t probe) noexcept : o_(o), probe_(probe) { skip_thief(); }
    void skip_thief() noexcept {
      if (probe_ < o_->probes_ && o_->at(probe_) == o_->thief_) ++probe_;  // it occurs at most once
    }
    const victim_order* o_ = nullptr;
    std::size_t probe_ = 0;  // index into the probe window
  };

  iterator begin() const noexcept { return iterator(this, 0); }
  iterator end() const noexcept { return iterator(this, probes_); }

  // The worker probed at position `probe` of the window (the thief's own index included).
  std::size_t at(std::size_t probe) const noexcept {
    // start_ + probe without overflow: both are below workers_.
    return probe < workers_ - start_ ? start_ + probe : probe - (workers_ - start_);
  }
  std::size_t window() const noexcept { return probes_; }

 private:
  std::size_t thief_, workers_, start_, probes_;
};

}  // namespace slaw::policy
