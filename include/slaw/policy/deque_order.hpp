// DFDeques' global list R: the deques ordered left to right by decreasing priority in the serial
// depth-first order (Narlikar, "Scheduling Threads for Low Space Requirement and Good Locality",
// SPAA 1999, §3.2 and Fig. 5; Lemma 3.1; docs/design/space.md §3, docs/design/policy.md).
//
// The order is kept by where deques are inserted; no priorities are stored. This type holds only that
// order, over deque ids, and makes every decision about it; the tasks themselves live elsewhere (the
// runtime's deques, or a simulator's model). A deque in R is
//   owned        a worker's deque: the worker pushes and pops its top; its tasks are not counted here;
//   ownerless    given up (quota spent) or split off a waiting worker's deque: only thieves take its
//                bottom, so its task count is kept here;
//   placeholder  no deque: holds the place of a frame waiting in place for a finish (docs/design/finish.md);
//                never picked, not counted among the deques.
// A steal is three steps, with the thief's own mechanism between the second and the third:
//   remove(own)          the thief's deque is empty and it has no task: the deque leaves R;
//   pick_victim(random)  which deque it tries;
//   take_bottom(victim)  once a task was taken from its bottom: where the thief's new deque goes.
// Positions stay valid until their deque leaves R. Removed slots are kept for reuse, so that R's
// operations do not allocate once R has reached its largest size.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>

namespace slaw::policy {

enum class deque_kind : std::uint8_t { owned, ownerless, placeholder };

template <class Id>
struct deque_slot {
  Id id;
  deque_kind kind;
  std::size_t tasks = 0;  // ownerless deques only
  friend bool operator==(const deque_slot&, const deque_slot&) = default;
};

template <class Id>
class deque_order {
 public:
  using slot = deque_slot<Id>;
  using position = typename std::list<slot>::const_iterator;
  // An ownerless part of a waiting worker's deque.
  struct part {
    Id id;
    std::size_t tasks;
  };
  struct counters {
    std::uint64_t deletions = 0;  // deques removed: a thief's empty deque, an ownerless deque emptied
                                  // by a steal, a deque given up empty
    std::size_t max_deques = 0;   // the most deques in R at once
  };

  // `workers`: p, the range of a thief's random index.
  explicit deque_order(std::size_t workers) : p_(workers) {}

  position begin() const noexcept { return slots_.begin(); }
  position end() const noexcept { return slots_.end(); }
  std::size_t size() const noexcept { return slots_.size(); }  // placeholders included
  std::size_t deques() const noexcept { return slots_.size() - placeholders_; }
  std::size_t placeholders() const noexcept { return placeholders_; }
  std::size_t ownerless_tasks() const noexcept { return ownerless_tasks_; }  // work a parked thief could find
  std::size_t workers() const noexcept { return p_; }
  const counters& tally() const noexcept { return c_; }
  void reset_counters() noexcept { c_ = counters{0, deques()}; }

  // The i-th deque from the left (from 0), placeholders skipped; end() if there are fewer.
  position nth_deque(std::size_t i) const noexcept {
    for (position s = begin(); s != end(); ++s) {
      if (s->kind == deque_kind::placeholder) continue;
      if (i-- == 0) return s;
    }
    return end();
  }

  // The deque a thief tries, its own deque having left R: the i-th with i uniform in [0, min(p, |R|)),
  // so only among the p leftmost, highest-priority deques (Fig. 5). Fig. 5 draws i in [0, p) and fails
  // when fewer than i + 1 deques exist; `positions` draws so (end() then: a failed attempt). Drawing
  // among the deques present keeps every steal among the p leftmost, which is all the space bound's
  // argument uses, and stops thieves failing on absent deques: on a flat finish R holds a few deques
  // and most of Fig. 5's draws failed (docs/design/space.md § Victims among the deques present). A
  // `waiting` thief (it runs only tasks of the finish it waits for) samples every deque instead: a task
  // of its finish may lie right of the p leftmost.
  position pick_victim(std::uint64_t random, bool waiting = false, bool positions = false) const noexcept {
    const std::size_t range = waiting ? deques() : positions ? p_ : std::min(p_, deques());
    if (range == 0) return end();
    return nth_deque(static_cast<std::size_t>(random % range));
  }

  // A worker's deque leaves R: it is empty and the worker has no task (Fig. 5 deletes it before
  // stealing), or the worker starts a root task elsewhere.
  void remove(position own) noexcept {
    assert(own->kind == deque_kind::owned);
    erase(own);
    ++c_.deletions;
  }

  // One task was taken from the bottom of `victim`. `taker` goes immediately right of it: the thief's
  // new deque (owned), or an ownerless deque of one task (a waiting thief that may not run the task
  // leaves it in R where its own deque would have gone). An ownerless victim left empty is deleted,
  // so the taker takes its place. Returns the taker's position.
  position take_bottom(position victim, slot taker) {
    assert(victim->kind != deque_kind::placeholder && taker.kind != deque_kind::placeholder);
    const position where = std::next(victim);
    if (victim->kind == deque_kind::ownerless) {
      assert(victim->tasks > 0);
      --ownerless_tasks_;
      if (--mutable_at(victim)->tasks == 0) {
        erase(victim);
        ++c_.deletions;
      }
    }
    return insert(where, taker);
  }

  // An ownerless deque `id` of `tasks` tasks goes immediately right of `at`: the lowest tasks of a
  // victim whose middle a thief took (the thief's deque at `at`), so that R keeps decreasing priority
  // from the victim's top through the thief's tasks to these. Returns its position.
  position put_right_of(position at, Id id, std::size_t tasks) {
    assert(at != end() && tasks > 0);
    return insert(std::next(at), slot{id, deque_kind::ownerless, tasks});
  }
  // The quota is spent: the worker's deque stays in place, as the ownerless deque `id` holding `tasks`
  // tasks; a deque with none is deleted (end()).
  position give_up(position own, Id id, std::size_t tasks) noexcept {
    assert(own->kind == deque_kind::owned);
    if (tasks == 0) {
      erase(own);
      ++c_.deletions;
      return end();
    }
    auto s = mutable_at(own);
    *s = slot{id, deque_kind::ownerless, tasks};
    ownerless_tasks_ += tasks;
    return own;
  }

  // A root task: the worker's new deque goes to the right end (later roots have lower priority); its
  // old deque `own`, unless end(), leaves R first.
  position enter_root(position own, Id worker) {
    if (own != end()) remove(own);
    return insert(end(), slot{worker, deque_kind::owned, 0});
  }

  // Waiting in place for a finish: the worker's deque `own` is split, in its place, into
  // [tasks inside the finish][placeholder][the others]. In depth-first order the finish's tasks precede
  // the waiting frame's continuation, which precedes its ancestors'. Empty parts are left out; the
  // worker then owns no deque and steals as a waiting thief. `own` == end() (it owns none): the
  // placeholder goes to the right end. Returns the placeholder's position.
  position begin_wait(position own, part inside, Id placeholder, part others) {
    if (own == end()) return insert(end(), slot{placeholder, deque_kind::placeholder, 0});
    assert(own->kind == deque_kind::owned);
    const position where = std::next(own);
    erase(own);  // not a deletion: its tasks stay, and its place is held
    if (inside.tasks) insert(where, slot{inside.id, deque_kind::ownerless, inside.tasks});
    const position ph = insert(where, slot{placeholder, deque_kind::placeholder, 0});
    if (others.tasks) insert(where, slot{others.id, deque_kind::ownerless, others.tasks});
    return ph;
  }

  // The wait is over (every task of its finish ended): the worker's deque takes the placeholder's
  // place; the deque it owned meanwhile, unless `own` == end(), leaves R first.
  position end_wait(position placeholder, position own, Id worker) {
    assert(placeholder->kind == deque_kind::placeholder);
    if (own != end()) remove(own);
    const position mine = insert(placeholder, slot{worker, deque_kind::owned, 0});
    erase(placeholder);
    return mine;
  }

 private:
  using list = std::list<slot>;
  typename list::iterator mutable_at(position s) noexcept { return slots_.erase(s, s); }
  position insert(position where, const slot& s) {
    typename list::iterator it;
    if (spare_.empty()) {
      it = slots_.insert(where, s);
    } else {
      it = spare_.begin();
      slots_.splice(where, spare_, it);
      *it = s;
    }
    if (s.kind == deque_kind::placeholder) ++placeholders_;
    if (s.kind == deque_kind::ownerless) ownerless_tasks_ += s.tasks;
    c_.max_deques = std::max(c_.max_deques, deques());
    return it;
  }
  void erase(position s) noexcept {
    if (s->kind == deque_kind::placeholder) --placeholders_;
    if (s->kind == deque_kind::ownerless) ownerless_tasks_ -= s->tasks;
    spare_.splice(spare_.begin(), slots_, s);
  }

  std::size_t p_;
  list slots_;
  list spare_;  // removed slots, reused by insert
  std::size_t placeholders_ = 0;
  std::size_t ownerless_tasks_ = 0;
  counters c_;
};

}  // namespace slaw::policy
