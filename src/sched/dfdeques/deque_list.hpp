// DFDeques(K): the global ordered list R of deques (Narlikar, SPAA 1999, §3.2; docs/space.md).
//
// R orders deques by decreasing 1DF priority, left to right (Lemma 3.1). A worker owns at most one
// deque: its own preempted split deque (`worker::pre_`), present in R while the worker owns it. A
// worker that gives up its deque (quota spent) moves the entries into an ownerless `abandoned` deque
// that takes the worker's place in R; ownerless deques are only ever popped at the bottom, by thieves.
//
// Synchronisation. One lock guards R's structure and every steal; owners push and pop the top of
// their own deque without it (the split deque's protocol, thieves then also take the deque's steal
// lock). R is a doubly linked list, so each operation is O(p). Why one lock is correct: a steal is "take the bottom of the i-th deque AND insert the new
// deque right of it"; were two thieves of the same victim to interleave these halves, the one holding
// the lower-priority task could end up left of the other and break the order (Lemma 3.1 part 3). The
// lock makes each steal, give-up and deletion atomic with respect to the others, so R changes by one
// operation at a time as in the paper's model. Why it is fast enough: the owner's fast path never
// takes it; it is taken once per steal attempt (try_lock: a thief that finds it held counts a failed
// attempt, as two thieves hitting one deque do in the paper's model) and once per give-up, i.e.
// O(p·D + S_a/K) times per run (Theorem 4.5), each hold being O(p) pointer steps. On many cores a
// lazily maintained R (paper fn. 2) would remove the serialisation; 2–16 workers do not need it.
#pragma once

#include <coroutine>
#include <cstdint>
#include <mutex>
#include <atomic>
#include <vector>

#include "slaw/detail/split_deque.hpp"
#include "slaw/policy/deque_order.hpp"

namespace slaw::detail {

class worker;
struct promise_base;
struct finish_node;

struct dfd_counters {
  std::uint64_t steals = 0, failed_attempts = 0, giveups = 0, deletions = 0;
  std::uint64_t max_deques = 0;
};

class deque_list {
 public:
  explicit deque_list(unsigned workers) : own_(workers), r_(workers) {}
  ~deque_list();

  // One steal attempt by `w`, whose own deque is empty (it leaves R first): pick i uniformly in
  // [0, p) (a waiting thief: among all deques), take the bottom entry of the i-th deque from the left,
  // put w's deque right of it.
  // Returns the entry to run, tagged (an untagged one is counted and turned into its parent's tagged
  // continuation under the lock), or none on a failed attempt. With `inside` (w waits in place for
  // that finish), a task that is not inside it is left in R where w's deque would have gone, as an
  // ownerless deque of one entry (as if w had stolen it and given it up at once), and the attempt fails.
  // `victim` (if given) receives the index of the worker whose deque the entry came from, or stays
  // no_victim for an ownerless deque.
  split_deque::entry steal(worker& w, std::uint64_t random, const finish_node* inside = nullptr, int* victim = nullptr);

  // Waiting in place for finish f (docs/finish.md): w's entries stay in R as ownerless deques in w's
  // place: those of tasks inside f left of an empty placeholder that holds the waiting frame's place,
  // the others (its ancestors' continuations) right of it; in 1DF order f's tasks precede the frame's
  // continuation, which precedes its ancestors'. w then owns no deque and steals like any thief.
  // end_wait gives w's deque the placeholder's place back.
  struct wait_anchor {
    void* placeholder = nullptr;
  };
  wait_anchor begin_wait(worker& w, const finish_node* f);
  void end_wait(worker& w, wait_anchor a);
  // `w` takes an injected root task: its deque goes to the right end of R.
  void enter_root(worker& w);
  // `w` gives up its deque (quota spent): its entries stay in R, in place, ownerless.
  void give_up(worker& w);

  // Whether some ownerless deque holds work (for parking decisions; racy read).
  bool has_abandoned_work() const noexcept { return abandoned_entries_.load(std::memory_order_seq_cst) != 0; }
  dfd_counters counters() const;
  void reset_counters();

 private:
  // R's order and every decision about it are policy::deque_order's (inserting right of a deque and
  // deleting are O(1), finding the i-th deque from the left is O(i)); the tasks are here. A worker's
  // deque is its entry of `own_`; an ownerless deque or a placeholder carries its own node.
  struct node;
  using order = policy::deque_order<node*>;
  struct node {
    worker* owner = nullptr;  // owned deques (own_[i]): the worker, while its deque is in R
    order::position where{};  // owned deques and placeholders: the place in R
    // ownerless deques
    std::vector<split_deque::entry> entries;  // bottom first
    std::size_t bottom = 0;
    bool empty() const noexcept { return bottom == entries.size(); }
  };
  node* own_node(const worker& w) noexcept;
  // w's deque in R, or end() if it has none.
  order::position own_place(const worker& w) noexcept;
  void remove_own(worker& w);  // under the lock
  node* new_abandoned();
  void recycle(node* d);

  // Debug checks (under the lock): R's structure, and Lemma 3.1's order around the ownerless deque at
  // `at`: within an ownerless deque priority decreases from top to bottom, and every task of an
  // ownerless deque precedes (in 1DF order) those of the nearest ownerless deques right of it and
  // follows those left of it. Owned deques are skipped: their owners push and pop without the lock.
  void check_invariants() const;
  void check_order_around(order::position at) const;

  mutable std::mutex m_;
  std::vector<node> own_;
  order r_;
  std::vector<node*> pool_;
  dfd_counters c_;  // steals, failed attempts, give-ups (deletions and max_deques: r_.tally())
  std::atomic<std::uint64_t> abandoned_entries_{0};
};

}  // namespace slaw::detail
