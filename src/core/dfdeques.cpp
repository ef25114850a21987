#include "core/dfdeques.hpp"

#include <algorithm>
#include <cassert>

#include "slaw/core/worker.hpp"

namespace slaw::core {

deque_list::~deque_list() {
  for (const slot& s : r_) delete s.deq;
  for (abandoned* a : pool_) delete a;
}

std::size_t deque_list::index_of(const worker& w) const noexcept {
  for (std::size_t i = 0; i < r_.size(); ++i)
    if (r_[i].owner == &w) return i;
  return r_.size();
}

void deque_list::remove_own(worker& w) {
  if (!w.in_r_) return;
  std::size_t i = index_of(w);
  assert(i < r_.size());
  r_.erase(r_.begin() + static_cast<std::ptrdiff_t>(i));
  w.in_r_ = false;
  ++c_.deletions;
}

split_deque::entry deque_list::steal(worker& w, std::uint64_t random) {
  std::unique_lock<std::mutex> lk(m_, std::try_to_lock);
  if (!lk.owns_lock()) return split_deque::none;  // another steal or give-up is in progress: a failed attempt
  remove_own(w);  // its deque is empty and it has no task (Fig. 5: delete the deque, then steal)
  std::size_t i = static_cast<std::size_t>(random % p_);
  if (i >= r_.size()) {
    ++c_.failed_attempts;
    return split_deque::none;
  }
  slot& s = r_[i];
  split_deque::entry e = split_deque::none;
  std::size_t insert_at = i + 1;
  if (s.owner) {
    worker* v = s.owner;
    split_deque& d = v->pre_;
    if (d.looks_empty()) {
      d.request_split();  // the owner exposes part of its private region at its next push
    } else if (d.try_lock_steal()) {
      e = d.steal();
      if (e != split_deque::none && !(e & entry_tags)) {
        promise_base* child = entry_promise(e);
        child->join->add_unit();  // the work-first child is detached from its parent's continuation
        e = reinterpret_cast<split_deque::entry>(child->parent) | parent_tag;
      }
      d.unlock_steal();
      if (e != split_deque::none) v->stolen_pre_.fetch_add(1, std::memory_order_relaxed);
    }
  } else {
    abandoned* a = s.deq;
    e = a->entries[a->bottom++];
    abandoned_entries_.fetch_sub(1, std::memory_order_seq_cst);
    if (!(e & entry_tags)) {  // a chain frame below the top: count its child as in the owned case
      promise_base* child = entry_promise(e);
      child->join->add_unit();
      e = reinterpret_cast<split_deque::entry>(child->parent) | parent_tag;
    }
    if (a->empty()) {  // the last task of an ownerless deque: delete the deque
      a->entries.clear();
      a->bottom = 0;
      pool_.push_back(a);
      r_.erase(r_.begin() + static_cast<std::ptrdiff_t>(i));
      insert_at = i;
      ++c_.deletions;
    }
  }
  if (e == split_deque::none) {
    ++c_.failed_attempts;
    return e;
  }
  r_.insert(r_.begin() + static_cast<std::ptrdiff_t>(insert_at), slot{&w, nullptr});
  w.in_r_ = true;
  ++c_.steals;
  note_size();
#ifndef NDEBUG
  check_invariants();
#endif
  return e;
}

void deque_list::enter_root(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  remove_own(w);
  r_.push_back(slot{&w, nullptr});
  w.in_r_ = true;
  ++c_.roots;
  note_size();
}

void deque_list::give_up(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  std::size_t i = index_of(w);
  assert(i < r_.size() && "DFDeques: a worker gave up a deque it does not own");
  abandoned* a;
  if (pool_.empty()) {
    a = new abandoned();
  } else {
    a = pool_.back();
    pool_.pop_back();
  }
  // No thief can be inside w's deque: every steal holds m_.
  w.pre_.take_all(a->entries);
  w.in_r_ = false;
  ++c_.giveups;
  if (a->entries.empty()) {
    pool_.push_back(a);
    r_.erase(r_.begin() + static_cast<std::ptrdiff_t>(i));
    ++c_.deletions;
  } else {
    abandoned_entries_.fetch_add(a->entries.size(), std::memory_order_seq_cst);
    r_[i] = slot{nullptr, a};
  }
#ifndef NDEBUG
  check_invariants();
#endif
}

void deque_list::retire(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  remove_own(w);
}

dfd_counters deque_list::counters() const {
  std::lock_guard<std::mutex> g(m_);
  return c_;
}

std::size_t deque_list::size() const {
  std::lock_guard<std::mutex> g(m_);
  return r_.size();
}

void deque_list::reset_counters() {
  std::lock_guard<std::mutex> g(m_);
  c_ = dfd_counters{};
  c_.max_deques = r_.size();
}

void deque_list::check_invariants() const {
  for (std::size_t i = 0; i < r_.size(); ++i) {
    const slot& s = r_[i];
    assert((s.owner == nullptr) != (s.deq == nullptr));
    if (s.deq) assert(!s.deq->empty() && "DFDeques: an empty ownerless deque stayed in R");
    if (s.owner) {
      assert(s.owner->in_r_);
      for (std::size_t j = i + 1; j < r_.size(); ++j) assert(r_[j].owner != s.owner && "a worker owns two deques");
    }
  }
}

}  // namespace slaw::core
