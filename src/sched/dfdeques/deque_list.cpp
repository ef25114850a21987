#include "sched/dfdeques/deque_list.hpp"

#include <cassert>
#include <iterator>
#include <optional>

#include "slaw/detail/finish_node.hpp"
#include "slaw/detail/serial_order.hpp"
#include "slaw/detail/worker.hpp"

namespace slaw::detail {

using policy::deque_kind;

namespace {
// A task's position in the serial (1DF) order, if it is labelled (serial_order.hpp); unlabelled
// positions are not checked.
using order_label = std::optional<std::vector<std::uint32_t>>;
[[maybe_unused]] bool precedes(const order_label& a, const order_label& b) { return !a || !b || *a < *b; }
}  // namespace

// B1: one steal takes batch_of(m) entries and one unit of R's count.
static_assert([] {
  for (std::size_t m = 1; m < 4096; ++m)
    if (deque_list::batch_of(m) < 1 || deque_list::units(m) != 1 + deque_list::units(m - deque_list::batch_of(m)))
      return false;
  return deque_list::units(0) == 0;
}());

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


// A waiting thief took tasks `d` it may not run: they go right of the victim, ownerless, where its own
// deque would have gone (as if it had stolen them and given them up at once). A failed attempt.
split_deque::entry deque_list::set_aside(order::position victim, node* d) {
  abandoned_entries_.fetch_add(d->entries.size(), std::memory_order_seq_cst);
  [[maybe_unused]] const order::position at = r_.take_bottom(victim, {d, deque_kind::ownerless, units(d->entries.size())});
  ++c_.failed_attempts;
#ifndef NDEBUG
  check_invariants();
  check_order_around(at);
#endif
  return split_deque::none;
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
  if (victim->kind != deque_kind::ownerless) {  // a worker's deque: its bottom continuation, as in work stealing
    worker* v = s->owner;
    split_deque::entry e = split_deque::none;
    if (v->preempted_deque().looks_empty()) {
      v->preempted_deque().request_split(w.index());  // the owner exposes part of its private region at its next push
    } else if (promise_base* r = v->yield_continuation(w.index())) {
      e = reinterpret_cast<split_deque::entry>(r) | parent_tag;
      if (victim_index) *victim_index = static_cast<int>(v->index());
    }
    if (e == split_deque::none) {
      ++c_.failed_attempts;
      return e;
    }
    if (inside_of && !entry_promise(e)->cur->is_inside(inside_of)) {  // set aside where w's deque would go
      node* d = new_abandoned();
      d->entries.push_back(e);
      return set_aside(victim, d);
    }
    node* mine = own_node(w);
    mine->owner = &w;
    mine->where = r_.take_bottom(victim, {mine, deque_kind::owned, 0});
    ++c_.steals;
#ifndef NDEBUG
    check_invariants();
    if (mine->where != r_.begin()) check_order_around(std::prev(mine->where));
    check_order_around(std::next(mine->where));
#endif
    return e;
  }

  // An ownerless deque: the batch e_1 .. e_c, all but its top (B1-B3 in the header). R's count for the
  // victim drops by one unit in take_bottom below, which deletes it exactly when this empties it.
  assert(victim->tasks == units(s->entries.size() - s->bottom));
  const std::size_t m = s->entries.size() - s->bottom, c = batch_of(m);
  if (!inside_of && c > max_batch) return steal_capped_batch(w, victim, lk);
  split_deque::entry* const lo = &s->entries[s->bottom];  // e_1; lo[c - 1] is e_c, the one to run
  s->bottom += c;
  abandoned_entries_.fetch_sub(c, std::memory_order_seq_cst);
  if (inside_of && (c > 1 || !(lo[0] & entry_tags ? entry_promise(lo[0]) : promise_of(entry_promise(lo[0])->parent))
                                  ->cur->is_inside(inside_of))) {
    // A waiting thief that may not run the batch leaves it right of the victim, ownerless, as if it had
    // stolen and given it up at once. Detached first: the victim's next bottom may resume e_c's frame
    // before anyone takes this batch (B3).
    node* d = new_abandoned();
    for (std::size_t j = 0; j < c; ++j)
      d->entries.push_back(lo[j] & entry_tags ? lo[j] : reinterpret_cast<split_deque::entry>(detach_entry(lo[j])) | parent_tag);
    set_aside(victim, d);
    if (s->empty()) recycle(s);
    return split_deque::none;
  }
  // e_1 .. e_(c-1) onto w's own deque as they lay (B3): it is out of R and its region private, so no
  // other thread reads these pushes before the unlock that publishes w's place.
  split_deque& own = w.preempted_deque();
  bool exposed = false;  // a thief's old split request answered: part of the batch is stealable at once
  for (std::size_t j = 0; j + 1 < c; ++j) {
    assert(!(lo[j] & start_tag) && "DFDeques: a start_tag entry below the top of an ownerless deque (S-top)");
    exposed |= (own.push(lo[j]) & split_deque::pushed_exposed) != 0;
  }
  c_.batched += c - 1;
  split_deque::entry e = lo[c - 1];
  if (!(e & entry_tags))  // a frame of the stopped chain: count its child as in the owned case (D1, B3)
    e = reinterpret_cast<split_deque::entry>(detach_entry(e)) | parent_tag;
  node* mine = own_node(w);
  mine->owner = &w;
  mine->where = r_.take_bottom(victim, {mine, deque_kind::owned, 0});
  const bool emptied = s->empty();
  ++c_.steals;
#ifndef NDEBUG
  check_invariants();
  check_batch(emptied ? nullptr : s, lo[c - 1], lo, c - 1, mine->where);
  if (mine->where != r_.begin()) check_order_around(std::prev(mine->where));
  check_order_around(std::next(mine->where));
#endif
  if (emptied) recycle(s);  // after the checks: they read the batch from the victim's storage
  lk.unlock();
  if (exposed) w.on_exposed();
  return e;
}

// B4: the batch e_(k+1) .. e_(m-1), its last max_batch entries below the top, from an ownerless deque of
// m entries with k = m - 1 - max_batch > 0 (a thief that waits in place takes every batch whole).
split_deque::entry deque_list::steal_capped_batch(worker& w, order::position victim, std::unique_lock<std::mutex>& lk) {
  node* s = victim->id;
  std::vector<split_deque::entry>& v = s->entries;
  const std::size_t m = v.size() - s->bottom, k = batch_of(m) - max_batch;
  split_deque::entry* const lo = v.data() + s->bottom;
  auto e = [lo](std::size_t i) -> split_deque::entry& { return lo[i - 1]; };  // e(i) is e_i, as in the header
  // The rest's top e_k resumes e_(k-1)'s frame; e_k's own frame resumes through e_(k+1), which the thief
  // takes: count it now, under the lock (D1, B3), as a thief of the rest would have.
  if (!(e(k) & entry_tags)) e(k) = reinterpret_cast<split_deque::entry>(detach_entry(e(k))) | parent_tag;
  // e_(k+1) .. e_(m-2) onto w's own deque as they lay (B3); e_(m-1) runs.
  split_deque& own = w.preempted_deque();
  bool exposed = false;
  for (std::size_t i = k + 1; i + 1 < m; ++i) {
    assert(!(e(i) & start_tag) && "DFDeques: a start_tag entry below the top of an ownerless deque (S-top)");
    exposed |= (own.push(e(i)) & split_deque::pushed_exposed) != 0;
  }
  c_.batched += max_batch - 1;
  ++c_.splits;
  split_deque::entry run = e(m - 1);
  if (!(run & entry_tags)) run = reinterpret_cast<split_deque::entry>(detach_entry(run)) | parent_tag;
  // The victim's place keeps e_m; its storage, e_1 .. e_k, becomes the rest (no entry is copied).
  node* rest = new_abandoned();
  rest->entries.swap(v);
  rest->bottom = s->bottom;
  s->entries.push_back(rest->entries.back());
  s->bottom = 0;
  abandoned_entries_.fetch_sub(max_batch, std::memory_order_seq_cst);
  node* mine = own_node(w);
  mine->owner = &w;
  mine->where = r_.take_bottom(victim, {mine, deque_kind::owned, 0});
  const order::position rest_at = r_.put_right_of(mine->where, rest, units(k));
  ++c_.steals;
#ifndef NDEBUG
  check_batch(s, e(m - 1), &e(k + 1), max_batch - 1, mine->where);  // before the rest's storage shrinks
#endif
  rest->entries.resize(rest->bottom + k);
#ifndef NDEBUG
  check_invariants();
  check_order_around(victim);
  check_order_around(rest_at);
#endif
  (void)rest_at;
  lk.unlock();
  if (exposed) w.on_exposed();
  return run;
}

void deque_list::enter_root(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  node* mine = own_node(w);
  mine->where = r_.enter_root(own_place(w), mine);
  mine->owner = &w;
}

void deque_list::enter_resumed(worker& w) {
  std::lock_guard<std::mutex> g(m_);
  order_unchecked_ = true;
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
  const order::position at = r_.give_up(mine->where, d, units(d->entries.size()));  // in the worker's place (B1)
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
    const promise_base* frame = (e & entry_tags) ? entry_promise(e) : promise_of(entry_promise(e)->parent);
    (frame->cur->is_inside(f) ? in_f : below)->entries.push_back(e);
  }
  for (node* d : {in_f, below})
    abandoned_entries_.fetch_add(d->entries.size(), std::memory_order_seq_cst);
  ph->where = r_.begin_wait(mine->where, {in_f, units(in_f->entries.size())}, ph, {below, units(below->entries.size())});
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
        assert(s.tasks == units(s.id->entries.size() - s.id->bottom) && "DFDeques: R's count is not the steals left (B1)");
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
  if (order_unchecked_ || at == r_.end() || at->kind != deque_kind::ownerless) return;
  const node* n = at->id;
  // Within the deque: entries are stored bottom first, so the 1DF position decreases towards the top.
  for (std::size_t j = n->bottom; j + 1 < n->entries.size(); ++j)
    assert(!(n->entries[j] & start_tag) && "DFDeques: a start_tag entry below the top of an ownerless deque (S-top)");
  for (std::size_t j = n->bottom; j + 1 < n->entries.size(); ++j)
    assert(precedes(order_label_of_entry(n->entries[j + 1]), order_label_of_entry(n->entries[j])) &&
           "Lemma 3.1: an ownerless deque is out of priority order");
  const order_label top = order_label_of_entry(n->entries.back()), bottom = order_label_of_entry(n->entries[n->bottom]);
  for (auto l = at; l != r_.begin();)
    if ((--l)->kind == deque_kind::ownerless) {
      assert(precedes(order_label_of_entry(l->id->entries[l->id->bottom]), top) &&
             "Lemma 3.1: a deque holds a task that precedes one of a deque left of it");
      break;
    }
  assert(precedes(bottom, top_right_of(at)) && "Lemma 3.1: a deque holds a task that follows one of a deque right of it");
  (void)top;
  (void)bottom;
}

// B2 after a batch steal: `run` (as it lay in the victim) is what w runs, own[0 .. n) (bottom first)
// what it pushed on its deque, `victim` what is left of the ownerless deque (null if emptied). w's
// deque can be read here: w is the calling thread and its region is still private.
void deque_list::check_batch(const node* victim, split_deque::entry run, const split_deque::entry* own, std::size_t n,
                             order::position mine) const {
  if (order_unchecked_) return;
  const order_label run_label = order_label_of_entry(run);
  if (victim)  // part 3: what the victim keeps precedes what was taken
    assert(precedes(order_label_of_entry(victim->entries[victim->bottom]), run_label) &&
           "Lemma 3.1: a batch steal left in its victim a task that follows the one it runs");
  order_label above = run_label;  // part 2 (the running task precedes its deque), then part 1 (top to bottom)
  for (std::size_t j = n; j-- > 0;) {
    order_label l = order_label_of_entry(own[j]);
    assert(precedes(above, l) && "Lemma 3.1: a batch steal put on the thief's deque a task that precedes one above it or the one it runs");
    above = std::move(l);
  }
  const order_label lowest = n ? order_label_of_entry(own[0]) : run_label;
  assert(precedes(lowest, top_right_of(mine)) &&  // part 3: the thief's tasks precede those right of it
         "Lemma 3.1: a batch steal's tasks follow one of a deque right of the thief's");
  (void)lowest;
  (void)victim;
  (void)mine;
}

// The label of the top task of the first ownerless deque right of `at` (none: nothing to compare).
std::optional<std::vector<std::uint32_t>> deque_list::top_right_of(order::position at) const {
  for (auto r = std::next(at); r != r_.end(); ++r)
    if (r->kind == deque_kind::ownerless) return order_label_of_entry(r->id->entries.back());
  return std::nullopt;
}

}  // namespace slaw::detail
