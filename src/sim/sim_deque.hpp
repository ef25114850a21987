// A simulated split deque: the runtime's include/slaw/detail/split_deque.hpp without the atomics
// (the simulator is sequential), with the same indices, the same private and shared regions, the same
// requests to split and the same tail cache, so that a thief sees exactly what it would see in the
// runtime at that moment, and ADP reads the same fresh-task estimate. How much is exposed and
// reclaimed is policy::exposed_split / policy::reclaimed_split, as in the runtime.
//
//     tail ............ split ............ head
//     [ shared: thieves take tail ][ private: owner push/pop ]
#pragma once

#include <bit>

#include <cstdint>
#include <vector>

#include "sim/task_pool.hpp"
#include "slaw/policy/split.hpp"

namespace slaw::sim {

class sim_deque {
 public:
  enum class shared_pop { got, stolen, not_mine };

  sim_deque() : slots_(1024) {}

  // ---- owner
  // Returns true when it answered a thief's request by exposing work.
  bool push(entry e) {
    if (head_ - tail_cache_ >= capacity()) make_room();
    slots_[head_ & mask()] = e;
    ++head_;
    if (want_split_) {
      if (expose_window_left_ > 0) {  // the expose window: publish every entry at once
        if (--expose_window_left_ == 0) clear_requests();
        split_ = head_;
        return false;
      }
      const bool window = std::popcount(requesters_ & thief_bits) >= static_cast<int>(min_requesters_);
      split_ = policy::exposed_split(split_, head_);
      if (window && expose_after_request_ > 0) expose_window_left_ = expose_after_request_;
      else clear_requests();
      return true;
    }
    return false;
  }
  // The expose window (policy::expose_window, split_deque::answer_at_push): after answering a request of
  // at least `m` different thieves, the next `n` pushes publish their entry at once; requests meanwhile
  // are absorbed. What-ifs --what-if expose-after-request=N and expose-min-thieves=M change n and m
  // (N = 0: no window, the runtime before it).
  void set_expose_after_request(std::uint32_t n, std::uint32_t m) noexcept {
    expose_after_request_ = n;
    min_requesters_ = m;
  }
  bool split_requested() const noexcept { return want_split_; }
  entry pop() {
    if (head_ != split_) {
      --head_;
      return slots_[head_ & mask()];
    }
    entry e = no_entry;
    pop_shared(no_entry, e);
    return e;
  }
  bool private_bottom_is(entry e) const noexcept { return head_ != split_ && slots_[(head_ - 1) & mask()] == e; }
  void drop_private_bottom() noexcept { --head_; }
  bool private_empty() const noexcept { return head_ == split_; }
  shared_pop pop_shared(entry expect, entry& out) {
    const std::uint32_t n = split_ - tail_;
    if (n == 0) {
      tail_cache_ = tail_;
      return shared_pop::stolen;
    }
    const entry e = slots_[(split_ - 1) & mask()];
    if (expect != no_entry && e != expect) return shared_pop::not_mine;
    if (n >= 2) {
      split_ = policy::reclaimed_split(tail_, split_);
      --head_;
    } else {  // the last shared entry: taken like a thief, head stays == split
      ++tail_;
      tail_cache_ = tail_;
      ++owner_steals_;
    }
    out = e;
    return shared_pop::got;
  }
  // Every entry, oldest first, into `out`; the deque is left empty (DFDeques give-ups).
  void take_all(std::vector<entry>& out) {
    for (std::uint32_t i = tail_; i != head_; ++i) out.push_back(slots_[i & mask()]);
    split_ = tail_ = tail_cache_ = head_;
    clear_requests();
  }
  void expose() noexcept {
    clear_requests();
    split_ = policy::exposed_split(split_, head_);
  }
  std::uint32_t head() const noexcept { return head_; }
  std::uint32_t size_estimate() const noexcept { return head_ - tail_cache_; }
  std::uint32_t refresh_size() noexcept {
    tail_cache_ = tail_;
    return head_ - tail_;
  }
  std::uint32_t size() const noexcept { return head_ - tail_; }

  // ---- thieves
  bool looks_empty() const noexcept { return tail_ == split_; }
  // `who`: the asking thief's index (modulo 31, as in the runtime).
  void request_split(std::uint32_t who) noexcept {
    want_split_ = true;
    requesters_ |= std::uint32_t{1} << (who % 31);
  }
  // A request from someone who is not a thief (the owner itself after a continuation steal): it never
  // counts toward the window.
  void request_split() noexcept {
    want_split_ = true;
    requesters_ |= not_a_thief;
  }
  entry steal(std::uint32_t who) {
    if (static_cast<std::int32_t>(split_ - tail_) <= 0) {
      request_split(who);
      return no_entry;
    }
    return slots_[tail_++ & mask()];
  }

  // ---- inspection (checks, DFDeques' Lemma 3.1): entry i from the oldest (thieves' end)
  entry at(std::uint32_t i) const noexcept { return slots_[(tail_ + i) & mask()]; }

 private:
  std::uint32_t capacity() const noexcept { return static_cast<std::uint32_t>(slots_.size()); }
  std::uint32_t mask() const noexcept { return capacity() - 1; }
  void make_room() {
    tail_cache_ = tail_;
    if (head_ - tail_cache_ < capacity()) return;
    std::vector<entry> bigger(slots_.size() * 2);
    const std::uint32_t m = static_cast<std::uint32_t>(bigger.size()) - 1;
    for (std::uint32_t i = tail_; i != head_; ++i) bigger[i & m] = slots_[i & mask()];
    slots_.swap(bigger);
  }

  std::vector<entry> slots_;
  std::uint32_t head_ = 0, split_ = 0, tail_ = 0, tail_cache_ = 0;
  bool want_split_ = false;
  static constexpr std::uint32_t not_a_thief = std::uint32_t{1} << 31, thief_bits = not_a_thief - 1;
  void clear_requests() noexcept {
    want_split_ = false;
    requesters_ = 0;
    expose_window_left_ = 0;
  }
  std::uint32_t expose_after_request_ = policy::expose_window, expose_window_left_ = 0,
                min_requesters_ = policy::expose_min_thieves;
  std::uint32_t requesters_ = 0;  // the thieves that asked since the last answer (index modulo 31), bit 31 others
  std::uint64_t owner_steals_ = 0;
};

}  // namespace slaw::sim
