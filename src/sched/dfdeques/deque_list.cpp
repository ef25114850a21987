#include "sched/dfdeques/deque_list.hpp"

#include <cassert>
#include <iterator>
#include <optional>

#include "slaw/detail/finish_node.hpp"
#include "slaw/detail/serial_order.hpp"
#include "slaw/detail/worker.hpp"

namespace slaw::detail {

using policy::deque_kind;

deque_list::~deque_list() {
  for (const auto& s : r_)
    if (s.kind != deque_kind::owned) delete s.id;
  for (node* d : pool_) delete d;
}

deque_list::node* deque_list::own_node(const worker& w) noexcept { return &own_[w.index()]; }

deque_list::order::position deque_list::own_place(const worker& w) noexcept {
  node* n = own_node(w);
  return n->owner ? n->where : r_.end();
}

void deque_list::remove_own(worker& w) {
  node* n = own_node(w);
  if (!n->owner) return;
  assert(n->owner == &w);
  r_.remove(n->where);
  n->owner = nullptr;
}

deque_list::node* deque_list::new_abandoned() {
  if (pool_.empty()) return new node();
  node* d = pool_.back();
  pool_.pop_back();
  return d;
}

void deque_list::recycle(node* d) {
  d->entries.clear();
  d->bottom = 0;
  pool_.push_back(d);
}


split_deque::entry deque_list::steal(worker& w, std::uint64_t random, const finish_node* inside_of, int* victim_index) {
  std::unique_lock<std::mutex> lk(m_, std::try_to_lock);
  if (!lk.owns_lock()) return split_deque::none;  // another steal or give-up is in progress: a failed attempt
  remove_own(w);  // its deque is empty and it has no task (Fig. 5: delete the deque, then steal)
  // A waiting thief samples every deque: a task of its scope may lie right of the leftmost p, behind
  // tasks it may not run (and placeholders, which are not deques, are never picked).
  const order::position victim = r_.pick_victim(random, inside_of != nullptr);
  if (victim == r_.end()) {  // fewer than i + 1 deques
    ++c_.failed_attempts;
    return split_deque::none;
  }
  node* s = victim->id;
  const bool ownerless = victim->kind == deque_kind::ownerless;
  split_deque::entry e = split_deque::none;
  if (!ownerless) {
    worker* v = s->owner;
    if (v->preempted_deque().looks_empty()) {
      v->preempted_deque().request_split();  // the owner exposes part of its private region at its next push
    } else if (promise_base* r = v->yield_continuation()) {
      e = reinterpret_cast<split_deque::entry>(r) | parent_tag;
      if (victim_index) *victim_index = static_cast<int>(v->index());
    }
  } else {
    assert(victim->tasks == s->entries.size() - s->bottom);
    e = s->entries[s->bottom++];
    abandoned_entries_.fetch_sub(1, std::memory_order_seq_cst);
    if (!(e & entry_tags))  // a frame of the stopped chain: count its child as in the owned case (D1)
      e = reinterpret_cast<split_deque::entry>(detach_entry(e)) | parent_tag;
  }
  if (e == split_deque::none) {
    ++c_.failed_attempts;
    return e;
  }
  // R drops the task from the victim (deleting an ownerless deque it empties) and places the taker.
  if (inside_of && !entry_promise(e)->cur->is_inside(inside_of)) {
    node* d = new_abandoned();
    d->entries.push_back(e);
    abandoned_entries_.fetch_add(1, std::memory_order_seq_cst);
    [[maybe_unused]] const order::position at = r_.take_bottom(victim, {d, deque_kind::ownerless, 1});
    if (ownerless && s->empty()) recycle(s);
    ++c_.failed_attempts;
#ifndef NDEBUG
    check_invariants();
    check_order_around(at);
#endif
    return split_deque::none;
  }
  node* mine = own_node(w);
  mine->owner = &w;
  mine->where = r_.take_bottom(victim, {mine, deque_kind::owned, 0});
  if (ownerless && s->empty()) recycle(s);
  ++c_.steals;
#ifndef NDEBUG
  check_invariants();
  if (mine->where != r_.begin()) check_order_around(std::prev(mine->where));
  check_order_around(std::next(mine->where));
#endif
  return e;
}

void deque_list::enter_root(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  node* mine = own_node(w);
  mine->where = r_.enter_root(own_place(w), mine);
  mine->owner = &w;
}

void deque_list::give_up(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  node* mine = own_node(w);
  assert(mine->owner == &w && "DFDeques: a worker gave up a deque it does not own");
  node* d = new_abandoned();
  // No thief can be inside w's deque: every steal holds m_.
  w.preempted_deque().take_all(d->entries);
  const order::position at = r_.give_up(mine->where, d, d->entries.size());  // in the worker's place
  mine->owner = nullptr;
  ++c_.giveups;
  if (at == r_.end()) recycle(d);
  else abandoned_entries_.fetch_add(d->entries.size(), std::memory_order_seq_cst);
#ifndef NDEBUG
  check_invariants();
  check_order_around(at);
#endif
}

deque_list::wait_anchor deque_list::begin_wait(worker& w, const finish_node* f) {
  std::lock_guard<std::mutex> g(m_);
  node* ph = new_abandoned();
  node* mine = own_node(w);
  assert(mine->owner && "DFDeques: a worker running a task owns a deque");
  if (!mine->owner) {
    ph->where = r_.begin_wait(r_.end(), {nullptr, 0}, ph, {nullptr, 0});
    return {ph};
  }
  std::vector<split_deque::entry> all;
  w.preempted_deque().take_all(all);  // no thief is inside w's deque: every steal holds m_
  node* in_f = new_abandoned();
  node* below = new_abandoned();
  for (split_deque::entry e : all) {  // bottom first; an untagged entry stands for its parent's frame
    const promise_base* frame = (e & entry_tags) ? entry_promise(e) : entry_promise(e)->parent;
    (frame->cur->is_inside(f) ? in_f : below)->entries.push_back(e);
  }
  for (node* d : {in_f, below})
    abandoned_entries_.fetch_add(d->entries.size(), std::memory_order_seq_cst);
  ph->where = r_.begin_wait(mine->where, {in_f, in_f->entries.size()}, ph, {below, below->entries.size()});
  mine->owner = nullptr;
#ifndef NDEBUG
  check_invariants();
  if (!below->entries.empty()) check_order_around(std::next(ph->where));
  if (!in_f->entries.empty()) check_order_around(std::prev(ph->where));
#endif
  if (in_f->entries.empty()) recycle(in_f);
  if (below->entries.empty()) recycle(below);
  return {ph};
}

void deque_list::end_wait(worker& w, wait_anchor a) {
  std::lock_guard<std::mutex> g(m_);
  node* ph = static_cast<node*>(a.placeholder);
  // Every task inside the scope has ended, so the deque of w's last strand is empty.
  assert(w.preempted_deque().refresh_size() == 0 && "DFDeques: a wait in place ended with tasks of the scope queued");
  node* mine = own_node(w);
  mine->where = r_.end_wait(ph->where, own_place(w), mine);
  mine->owner = &w;
  recycle(ph);
#ifndef NDEBUG
  check_invariants();
#endif
}

dfd_counters deque_list::counters() const {
  std::lock_guard<std::mutex> g(m_);
  dfd_counters c = c_;
  c.deletions = r_.tally().deletions;
  c.max_deques = r_.tally().max_deques;
  return c;
}

void deque_list::reset_counters() {
  std::lock_guard<std::mutex> g(m_);
  c_ = dfd_counters{};
  r_.reset_counters();
}

void deque_list::check_invariants() const {
  std::size_t tasks = 0;
  for (const auto& s : r_) {
    switch (s.kind) {
      case deque_kind::ownerless:
        assert(!s.id->empty() && "DFDeques: an empty ownerless deque stayed in R");
        assert(s.tasks == s.id->entries.size() - s.id->bottom);
        tasks += s.tasks;
        break;
      case deque_kind::placeholder:
        assert(s.id->empty() && "DFDeques: a placeholder holds tasks");
        break;
      case deque_kind::owned:
        assert(s.id == &own_[s.id->owner->index()] && "a worker's slot is its own node");
        break;
    }
  }
  assert(tasks == r_.ownerless_tasks());
  (void)tasks;
}

void deque_list::check_order_around(order::position at) const {
  if (at == r_.end() || at->kind != deque_kind::ownerless) return;
  const node* n = at->id;
  using label = std::optional<std::vector<std::uint32_t>>;
  auto before = [](const label& a, const label& b) { return !a || !b || *a < *b; };  // unlabelled: unchecked
  // Within the deque: entries are stored bottom first, so the 1DF position decreases towards the top.
  for (std::size_t j = n->bottom; j + 1 < n->entries.size(); ++j)
    assert(before(order_label_of_entry(n->entries[j + 1]), order_label_of_entry(n->entries[j])) &&
           "Lemma 3.1: an ownerless deque is out of priority order");
  label top = order_label_of_entry(n->entries.back()), bottom = order_label_of_entry(n->entries[n->bottom]);
  for (auto l = at; l != r_.begin();)
    if ((--l)->kind == deque_kind::ownerless) {
      assert(before(order_label_of_entry(l->id->entries[l->id->bottom]), top) &&
             "Lemma 3.1: a deque holds a task that precedes one of a deque left of it");
      break;
    }
  for (auto r = std::next(at); r != r_.end(); ++r)
    if (r->kind == deque_kind::ownerless) {
      assert(before(bottom, order_label_of_entry(r->id->entries.back())) &&
             "Lemma 3.1: a deque holds a task that follows one of a deque right of it");
      break;
    }
  (void)before;
  (void)top;
  (void)bottom;
}

}  // namespace slaw::detail
