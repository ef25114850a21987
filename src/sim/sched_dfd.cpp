// DFDeques(K), thief side and give-ups, as src/sched/dfdeques/ does them: R's order and every decision
// about it are policy::deque_order's; the tasks are here (an owned deque is its worker's preempted
// deque, an ownerless one a list of entries taken from its bottom). One lock guards R: a steal attempt
// that finds it held fails (try_lock), a give-up waits for it; each holds it `dfd_lock`. One instance
// per job; R holds global worker indices, the per-worker arrays are indexed from the job's first.
// The lock is a contended line (contention.hpp): every attempt's try_lock is a read-modify-write that
// moves it, so k thieves hammering R queue for it, and the holder's unlock fetches it back once others
// touched it. What-ifs (run_config::what): dfd_no_publish, dfd_pick_positions, dfd_free_r.
#include <cassert>
#include <limits>

#include "sim/checks.hpp"
#include "sim/engine.hpp"
#include "sim/scheduler.hpp"
#include "slaw/policy/deque_order.hpp"

namespace slaw::sim {

namespace {

class dfd_scheduler final : public sim_scheduler {
  using order = policy::deque_order<std::uint32_t>;
  static constexpr std::uint32_t ownerless_bit = std::uint32_t{1} << 31;

 public:
  dfd_scheduler(engine& e, std::uint32_t job, std::uint64_t quota)
      : e_(e),
        base_(job * e.workers()),
        quota_(quota),
        r_(e.workers()),
        own_(e.workers(), r_.end()),
        has_own_(e.workers(), 0) {}

  // Work-first by definition (Narlikar Fig. 5: a fork pushes the parent and runs the child); the space
  // bound comes from the quota, so ADP's stack condition is off (src/sched/dfdeques/dfdeques.cpp).
  void configure(run_config& c) const override {
    c.mode = policy::mode::wf;
    c.adp.S = std::numeric_limits<std::uint32_t>::max() / 2;
  }

  bool begin_round(worker&) override { return true; }

  probe_result probe(worker& thief) override {
    probe_result r;
    r.round_over = true;
    ++thief.c.probes;
    const std::uint64_t random = thief.next_random();  // drawn before the lock, as dfdeques::steal does
    const time_ps now = e_.now();
    const what_if& what = e_.config().what;
    if (!what.dfd_free_r) {
      r.wait = e_.touch(lock_line_, thief);  // try_lock: the lock word's line comes to the thief
      if (now + r.wait < lock_until_) {  // another steal or give-up holds R: a failed attempt
        if (!touched_while_held_) {  // the holder's unlock must fetch the line back
          lock_until_ += e_.cost().line;
          touched_while_held_ = true;
        }
        ++t_.failed_attempts;
        if (e_.sharing()) e_.count_attempt(thief, true, 0);  // it met another thief
        return r;
      }
      lock_until_ = now + r.wait + e_.cost().dfd_lock;
      touched_while_held_ = false;
    }
    remove_own(thief);  // its deque is empty and it has no task: the deque leaves R first
    const order::position victim = r_.pick_victim(random, false, what.dfd_pick_positions);
    if (victim == r_.end()) {
      ++t_.failed_attempts;
      if (e_.sharing()) e_.count_attempt(thief, true, 0);  // no deque there
      return r;
    }
    const std::uint32_t id = victim->id;
    const bool ownerless = victim->kind == policy::deque_kind::ownerless;
    if (e_.sharing()) {  // an owned deque's owner working or not; an ownerless one holds work
      if (ownerless) e_.count_attempt(thief, false, victim->tasks);
      else e_.count_attempt(thief, e_.at(id).state != wstate::running, e_.at(id).pre.size());
    }
    entry got = no_entry;
    worker* owner = nullptr;
    if (!ownerless) {
      owner = &e_.at(id);
      const time_ps line = e_.touch(owner->dq, thief, r.wait);  // under the lock: the victim's deque line
      r.wait += line;
      if (!what.dfd_free_r) lock_until_ += line;
      if (owner->pre.looks_empty()) {
        owner->pre.request_split(thief.index);  // the owner exposes part of its private region at its next push
      } else {
        task_id t = e_.yield_continuation(*owner, thief.index);
        if (t != none) got = make_entry(t, parent_tag);
      }
    } else {
      node& n = nodes_[id & ~ownerless_bit];
      assert(victim->tasks == n.entries.size() - n.bottom);
      got = n.entries[n.bottom++];
      if (!(got & entry_tags)) got = make_entry(e_.detach_entry(got), parent_tag);  // a frame of a stopped chain
    }
    if (got == no_entry) {
      ++t_.failed_attempts;
      return r;
    }
    own_[thief.index - base_] = r_.take_bottom(victim, {thief.index, policy::deque_kind::owned, 0});
    has_own_[thief.index - base_] = 1;
    if (ownerless && nodes_[id & ~ownerless_bit].bottom == nodes_[id & ~ownerless_bit].entries.size())
      recycle(id & ~ownerless_bit);
    ++t_.steals;
    thief.quota.new_period(thief.live);  // steal() resets the quota (Fig. 5)
    if (got & start_tag)  // a frame made at a give-up, paid by its starter
      e_.note_quota_used(thief, thief.quota.charge(e_.t(entry_task(got)).start_charge, thief.live));
    ++thief.c.steals_preempted;
    if (owner && !what.dfd_no_publish) thief.pre.request_split();  // publish_next_push, as dfdeques::steal does
    if (owner) e_.penalize(*owner);
    e_.trace(thief.index, 2000 + (ownerless ? 1 : 0), entry_task(got));
    r.task = entry_task(got);
    return r;
  }

  // A root's deque goes to the right end of R (later roots have lower priority); a new quota period.
  void begin_root(worker& w) override {
    const std::uint32_t me = w.index - base_;
    own_[me] = r_.enter_root(has_own_[me] ? own_[me] : r_.end(), w.index);
    has_own_[me] = 1;
    w.quota.new_period(w.live);
  }

  std::int64_t give_up(worker& w) override {
    const time_ps now = e_.now();
    assert(has_own_[w.index - base_] && "DFDeques: a worker gave up a deque it does not own");
    hand_over(w);
    ++t_.giveups;
    if (e_.config().what.dfd_free_r) return 0;
    const time_ps at = now + e_.touch(lock_line_, w);  // lock(): the line first, then the wait
    const time_ps start = lock_until_ > at ? lock_until_ : at;  // the give-up waits for the lock
    lock_until_ = start + e_.cost().dfd_lock;
    touched_while_held_ = false;
    return lock_until_ - now;
  }

  // A parked worker's deque stays where it is in R, ownerless (as a give-up, without the lock's wait:
  // the arbiter's decision is not on a worker's path).
  void park(worker& w) override {
    if (has_own_[w.index - base_]) hand_over(w);
  }

  spare_work spare() const override {
    spare_work s;
    for (auto d = r_.begin(); d != r_.end(); ++d)
      if (d->kind == policy::deque_kind::ownerless) ++s.deques;
    s.entries = r_.ownerless_tasks();
    return s;
  }

  bool holds_work() const override { return r_.ownerless_tasks() != 0; }

  void check() override {
    checker* ch = e_.checks();
    if (!ch) return;
    std::vector<checker::deque_view> view;
    for (auto s = r_.begin(); s != r_.end(); ++s) {
      checker::deque_view d;
      if (s->kind == policy::deque_kind::placeholder) continue;
      if (s->kind == policy::deque_kind::owned) {
        worker& w = e_.at(s->id);
        d.owner = static_cast<int>(s->id);
        for (std::uint32_t i = 0; i < w.pre.size(); ++i) d.entries.push_back(w.pre.at(i));
      } else {
        const node& n = nodes_[s->id & ~ownerless_bit];
        if (s->tasks != n.entries.size() - n.bottom) ch->fail("R: an ownerless deque's task count differs from its entries");
        for (std::size_t i = n.bottom; i < n.entries.size(); ++i) d.entries.push_back(n.entries[i]);
      }
      view.push_back(std::move(d));
    }
    // Not under two-level scheduling: a parked worker's deque stays in R, ownerless, beside its new one.
    if (quota_ == 0 && !e_.sharing() && r_.deques() > e_.workers())
      ch->fail("DFDeques(K = inf): more deques in R than workers");
    ch->lemma_3_1(view);
  }

  void add_failed_attempts(std::uint64_t n) override { t_.failed_attempts += n; }

  tallies tally() const override {
    tallies t = t_;
    t.deletions = r_.tally().deletions;
    t.max_deques = r_.tally().max_deques;
    return t;
  }

 private:
  struct node {
    std::vector<entry> entries;  // oldest (the bottom thieves take) first
    std::size_t bottom = 0;
  };
  void remove_own(worker& w) {
    const std::uint32_t me = w.index - base_;
    if (!has_own_[me]) return;
    r_.remove(own_[me]);
    has_own_[me] = 0;
    own_[me] = r_.end();
  }
  // w's deque becomes ownerless in its place (deleted if empty).
  void hand_over(worker& w) {
    const std::uint32_t me = w.index - base_;
    const std::uint32_t d = new_node();
    w.pre.take_all(nodes_[d].entries);
    const order::position at = r_.give_up(own_[me], d | ownerless_bit, nodes_[d].entries.size());
    has_own_[me] = 0;
    own_[me] = r_.end();
    if (at == r_.end()) recycle(d);
  }
  std::uint32_t new_node() {
    if (!free_.empty()) {
      std::uint32_t d = free_.back();
      free_.pop_back();
      return d;
    }
    nodes_.emplace_back();
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }
  void recycle(std::uint32_t d) {
    nodes_[d].entries.clear();
    nodes_[d].bottom = 0;
    free_.push_back(d);
  }

  engine& e_;
  std::uint32_t base_;
  std::uint64_t quota_;
  order r_;
  std::vector<order::position> own_;
  std::vector<char> has_own_;
  std::vector<node> nodes_;
  std::vector<std::uint32_t> free_;
  time_ps lock_until_ = 0;
  contended_line lock_line_;         // the lock word's cache line
  bool touched_while_held_ = false;  // another worker's try_lock took the line during this hold
  tallies t_;
};

}  // namespace

std::unique_ptr<sim_scheduler> make_dfdeques(engine& e, std::uint32_t job, std::uint64_t quota) {
  return std::make_unique<dfd_scheduler>(e, job, quota);
}

}  // namespace slaw::sim
