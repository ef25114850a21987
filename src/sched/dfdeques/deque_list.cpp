#include "sched/dfdeques/deque_list.hpp"

#include <cassert>

#include "slaw/core/finish_node.hpp"
#include "slaw/core/serial_order.hpp"
#include "slaw/core/worker.hpp"

namespace slaw::core {

deque_list::~deque_list() {
  for (node* n = head_; n;) {
    node* next = n->next;
    if (n->ownerless()) delete n;
    n = next;
  }
  for (node* d : pool_) delete d;
}

void deque_list::link_after(node* pos, node* n) noexcept {
  n->prev = pos;
  n->next = pos ? pos->next : head_;
  if (n->next) n->next->prev = n;
  else tail_ = n;
  if (pos) pos->next = n;
  else head_ = n;
  n->in_list = true;
  if (++size_ - placeholders_ > c_.max_deques) c_.max_deques = size_ - placeholders_;
}

void deque_list::unlink(node* n) noexcept {
  if (n->prev) n->prev->next = n->next;
  else head_ = n->next;
  if (n->next) n->next->prev = n->prev;
  else tail_ = n->prev;
  n->prev = n->next = nullptr;
  n->in_list = false;
  --size_;
  ++c_.deletions;
}

deque_list::node* deque_list::own_node(const worker& w) noexcept { return &own_[w.index()]; }

deque_list::node* deque_list::nth_deque(std::size_t i) const noexcept {
  for (node* n = head_; n; n = n->next) {
    if (n->placeholder) continue;
    if (i-- == 0) return n;
  }
  return nullptr;
}

void deque_list::remove_own(worker& w) {
  node* n = own_node(w);
  if (!n->in_list) return;
  assert(n->owner == &w);
  unlink(n);
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


split_deque::entry deque_list::steal(worker& w, std::uint64_t random, const finish_node* inside_of) {
  std::unique_lock<std::mutex> lk(m_, std::try_to_lock);
  if (!lk.owns_lock()) return split_deque::none;  // another steal or give-up is in progress: a failed attempt
  remove_own(w);  // its deque is empty and it has no task (Fig. 5: delete the deque, then steal)
  // A waiting thief samples every deque: a task of its scope may lie right of the leftmost p, behind
  // tasks it may not run (and placeholders, which are not deques, are never picked).
  const std::size_t deques = size_ - placeholders_;
  const std::size_t range = inside_of ? deques : p_;
  node* s = range ? nth_deque(static_cast<std::size_t>(random % range)) : nullptr;
  if (!s) {  // fewer than i + 1 deques
    ++c_.failed_attempts;
    return split_deque::none;
  }
  split_deque::entry e = split_deque::none;
  node* insert_after = s;
  if (!s->ownerless()) {
    worker* v = s->owner;
    if (v->preempted_deque().looks_empty()) {
      v->preempted_deque().request_split();  // the owner exposes part of its private region at its next push
    } else if (promise_base* r = v->yield_continuation()) {
      e = reinterpret_cast<split_deque::entry>(r) | parent_tag;
    }
  } else {
    e = s->entries[s->bottom++];
    abandoned_entries_.fetch_sub(1, std::memory_order_seq_cst);
    if (!(e & entry_tags))  // a frame of the stopped chain: count its child as in the owned case (D1)
      e = reinterpret_cast<split_deque::entry>(detach_entry(e)) | parent_tag;
    if (s->empty()) {  // the last task of an ownerless deque: delete the deque, take its place
      insert_after = s->prev;
      unlink(s);
      recycle(s);
    }
  }
  if (e == split_deque::none) {
    ++c_.failed_attempts;
    return e;
  }
  if (inside_of && !entry_promise(e)->cur->is_inside(inside_of)) {
    node* d = new_abandoned();
    d->entries.push_back(e);
    abandoned_entries_.fetch_add(1, std::memory_order_seq_cst);
    link_after(insert_after, d);
    ++c_.failed_attempts;
#ifndef NDEBUG
    check_invariants();
    check_order_around(d);
#endif
    return split_deque::none;
  }
  node* mine = own_node(w);
  mine->owner = &w;
  link_after(insert_after, mine);
  ++c_.steals;
#ifndef NDEBUG
  check_invariants();
  check_order_around(mine->prev);
  check_order_around(mine->next);
#endif
  return e;
}

void deque_list::enter_root(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  remove_own(w);
  node* mine = own_node(w);
  mine->owner = &w;
  link_after(tail_, mine);
}

void deque_list::give_up(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  node* mine = own_node(w);
  assert(mine->in_list && "DFDeques: a worker gave up a deque it does not own");
  node* d = new_abandoned();
  // No thief can be inside w's deque: every steal holds m_.
  w.preempted_deque().take_all(d->entries);
  node* pos = mine->prev;
  unlink(mine);
  mine->owner = nullptr;
  ++c_.giveups;
  if (d->entries.empty()) {
    recycle(d);
  } else {
    abandoned_entries_.fetch_add(d->entries.size(), std::memory_order_seq_cst);
    link_after(pos, d);  // in the worker's place
    --c_.deletions;      // the deque stays: not a deletion
  }
#ifndef NDEBUG
  check_invariants();
  if (!d->entries.empty()) check_order_around(d);
#endif
}

deque_list::wait_anchor deque_list::begin_wait(worker& w, const finish_node* f) {
  std::lock_guard<std::mutex> g(m_);
  node* ph = new_abandoned();
  ph->placeholder = true;
  ++placeholders_;
  node* mine = own_node(w);
  assert(mine->in_list && "DFDeques: a worker running a task owns a deque");
  if (!mine->in_list) {
    link_after(tail_, ph);
    return {ph};
  }
  std::vector<split_deque::entry> all;
  w.preempted_deque().take_all(all);  // no thief is inside w's deque: every steal holds m_
  node* pos = mine->prev;
  unlink(mine);
  --c_.deletions;  // not a deletion: the deque's entries stay, and its place is held
  mine->owner = nullptr;
  node* in_f = new_abandoned();
  node* below = new_abandoned();
  for (split_deque::entry e : all) {  // bottom first; an untagged entry stands for its parent's frame
    const promise_base* frame = (e & entry_tags) ? entry_promise(e) : entry_promise(e)->parent;
    (frame->cur->is_inside(f) ? in_f : below)->entries.push_back(e);
  }
  for (node* d : {in_f, below})
    abandoned_entries_.fetch_add(d->entries.size(), std::memory_order_seq_cst);
  if (!in_f->entries.empty()) {
    link_after(pos, in_f);
    pos = in_f;
  }
  link_after(pos, ph);
  if (!below->entries.empty()) link_after(ph, below);
#ifndef NDEBUG
  check_invariants();
  if (!below->entries.empty()) check_order_around(below);
  if (!in_f->entries.empty()) check_order_around(in_f);
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
  remove_own(w);
  node* mine = own_node(w);
  mine->owner = &w;
  link_after(ph->prev, mine);
  unlink(ph);
  --c_.deletions;
  ph->placeholder = false;
  --placeholders_;
  recycle(ph);
#ifndef NDEBUG
  check_invariants();
#endif
}

dfd_counters deque_list::counters() const {
  std::lock_guard<std::mutex> g(m_);
  return c_;
}

void deque_list::reset_counters() {
  std::lock_guard<std::mutex> g(m_);
  c_ = dfd_counters{};
  c_.max_deques = size_;
}

void deque_list::check_invariants() const {
  std::size_t n = 0;
  for (const node* x = head_; x; x = x->next, ++n) {
    assert(x->in_list && (x->next == nullptr || x->next->prev == x));
    assert((x->next != nullptr) == (x != tail_));
    if (x->holds_tasks()) assert(!x->empty() && "DFDeques: an empty ownerless deque stayed in R");
    else if (x->ownerless()) assert(x->empty() && "DFDeques: a placeholder holds tasks");
    else assert(x == &own_[x->owner->index()] && "a worker's slot is its own node");
  }
  assert(n == size_);
  (void)n;
}

void deque_list::check_order_around(const node* n) const {
  if (!n || !n->holds_tasks()) return;
  using label = std::optional<std::vector<std::uint32_t>>;
  auto before = [](const label& a, const label& b) { return !a || !b || *a < *b; };  // unlabelled: unchecked
  // Within the deque: entries are stored bottom first, so the 1DF position decreases towards the top.
  for (std::size_t j = n->bottom; j + 1 < n->entries.size(); ++j)
    assert(before(order_label_of_entry(n->entries[j + 1]), order_label_of_entry(n->entries[j])) &&
           "Lemma 3.1: an ownerless deque is out of priority order");
  label top = order_label_of_entry(n->entries.back()), bottom = order_label_of_entry(n->entries[n->bottom]);
  for (const node* l = n->prev; l; l = l->prev)
    if (l->holds_tasks()) {
      assert(before(order_label_of_entry(l->entries[l->bottom]), top) &&
             "Lemma 3.1: a deque holds a task that precedes one of a deque left of it");
      break;
    }
  for (const node* r = n->next; r; r = r->next)
    if (r->holds_tasks()) {
      assert(before(bottom, order_label_of_entry(r->entries.back())) &&
             "Lemma 3.1: a deque holds a task that follows one of a deque right of it");
      break;
    }
  (void)before;
  (void)top;
  (void)bottom;
}

}  // namespace slaw::core
