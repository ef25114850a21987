// DFDeques(K): the global ordered list R of deques (Narlikar, SPAA 1999, §3.2; docs/design/space.md).
//
// R orders deques by decreasing 1DF priority, left to right (Lemma 3.1). A worker owns at most one
// deque: its own preempted split deque (`worker::pre_`), present in R while the worker owns it. A
// worker that gives up its deque (quota spent) moves the entries into an ownerless `abandoned` deque
// that takes the worker's place in R; ownerless deques are only ever popped at the bottom, by thieves.
//
// Batch steals. A thief that picks an ownerless deque of m >= 2 entries e_1 (bottom) .. e_m (top) takes
// all but the top, e_1 .. e_(m-1): it runs e_(m-1), keeps e_1 .. e_(m-2) on its own deque in the same
// order, and its deque goes right of the victim as in Fig. 5; the victim keeps e_m, which the next
// steal takes (m = 1: the paper's steal). With the paper's one task per steal, a deep chain given up
// (PDFS: ~312 frames per K = 50 000 bytes) came back one continuation per steal: ~10^6 steals through
// R's lock for 10^6 tasks, 2.5x slaw-dyn's time at one worker and 5.6x at two
// (bench/results/dfdeques/).
//   B1 (R's count).  R's order (policy::deque_order) counts, for an ownerless deque, the steals that
//      will empty it, units(m) = min(m, 2), not its entries: every steal from it, a waiting thief's
//      included, takes exactly batch_of(m) entries, and units(m) - 1 = units(m - batch_of(m)), so R
//      deletes the deque exactly when its last entry goes (check_invariants asserts the count).
//   B2 (Lemma 3.1).  The victim keeps e_m, which precedes (1DF) e_(m-1), which precedes e_(m-2) ..
//      e_1: part 3 for the victim against the thief's deque right of it, part 2 (the running task
//      precedes its deque) and part 1 (the thief's deque decreases from top to bottom); the batch's
//      tasks precede every deque right of the victim, as they did in it. Asserted in debug builds
//      after every batch (check_batch), with the parts of the paper's check (check_order_around).
//   B3 (counting; D1 in docs/design/space.md).  An untagged entry e_i names the frame F_i, a work-first child
//      standing for its parent F_(i-1)'s continuation, and the entry right above it resumes F_(i-1)
//      (so a chain lies on any deque, owned or given up). e_c (c = m - 1), the entry run, is detached
//      (F_c counted in its finish) under the lock before F_(c-1) runs, and F_c resumes only through
//      e_(c+1), still in the victim: it is counted before it can end. e_1 .. e_(c-1) go untagged onto
//      the thief's deque, in its private region, exactly as the chain lay on its first owner's deque:
//      F_(c-1) returning finds its own entry on top and resumes F_(c-2) with no finish traffic, and a
//      thief of that deque detaches them as in work stealing (W1 holds: the running frame is the one the
//      top entry names). S-top: a start_tag entry (a task handed over at a give-up) is only ever the
//      top of an ownerless deque, and a batch of m >= 2 leaves the top, so owned deques stay free of
//      them (asserted in check_order_around).
//   B4 (capped batches).  A batch moves at most max_batch entries: from m > max_batch + 1 entries the
//      thief takes e_(k+1) .. e_(m-1) (k = m - 1 - max_batch), runs e_(m-1) and keeps the rest as above;
//      the victim keeps e_m in its place, and e_1 .. e_k, the victim's storage itself (nothing is
//      copied), become a new ownerless deque right of the thief's. R then reads e_m > thief's tasks >
//      e_k .. e_1 in priority (Lemma 3.1, asserted by check_batch and check_order_around). e_k's frame
//      resumes through e_(k+1), now the thief's, so e_k is detached (F_k counted) under the lock first,
//      as the next thief of the rest would have done (B3). Each deque, given up or split off, is still
//      emptied in at most two steals. Uncapped, a chain given up deeper than one period's frames moved
//      whole at every steal and back at every give-up: quadratic in its depth (PDFS at K = 200 000, one
//      worker: 1.6 * 10^8 entries moved, 9x the time at K = 50 000; bench/results/dfdeques/).
//   A waiting thief (it may run only tasks of its scope) takes the same entries; it runs e_1 if m = 1
//   and the task is in its scope, and otherwise leaves the batch in R right of the victim, detached
//   (then B3 needs no order of stealing across the cut), as an ownerless deque of its own (as if it
//   had stolen and given it up at once), and the attempt fails. Each such split leaves one entry, so
//   its scope's tasks surface as singletons after at most m splits (a rare path: scopes left early).
// Why all but the top: a given-up deque's top is the task the quota stopped (the child whose frame
// crossed K, a callee, a task waiting in reserve); below it lie continuations whose frames exist. The
// thief resumes them in 1DF order from the highest-priority one, on the frames touched last, and
// leaves the stopped task for the next steal, with a fresh quota. Each steal still starts one quota
// period of at most K bytes, taken among the p leftmost deques; it runs a task of no lower priority
// than the paper's steal would (the batch's top, not its bottom), and two steals empty a deque that
// took m. Measured alternatives (bench/results/dfdeques/): the bottom half with its top run was 1.5-3x slower
// on PDFS (it resumes the oldest continuations, whose vertices are out of cache); the whole deque
// restarts the stopped chain at once (serial order, serial space, and each give-up copies the
// growing deque: 25x slower).
//
// Synchronisation. One lock guards R's structure and every steal; owners push and pop the top of
// their own deque without it (the split deque's protocol, thieves then also take the deque's steal
// lock). A thief pushes its batch onto its own deque under the lock while that deque is out of R and
// private (only its owner, the thief itself, touches a private region), so no other thread can see it
// before the lock's release publishes the thief's place in R. R is a doubly linked list, so each
// operation is O(p). Why one lock is correct: a steal is "take the bottom of the i-th deque AND insert the new
// deque right of it"; were two thieves of the same victim to interleave these halves, the one holding
// the lower-priority task could end up left of the other and break the order (Lemma 3.1 part 3). The
// lock makes each steal, give-up and deletion atomic with respect to the others, so R changes by one
// operation at a time as in the paper's model. Why it is fast enough: the owner's fast path never
// takes it; it is taken once per steal attempt (try_lock: a thief that finds it held counts a failed
// attempt, as two thieves hitting one deque do in the paper's model) and once per give-up, i.e.
// O(p·D + S_a/K) times per run (Theorem 4.5; two steals per given-up deque), each hold being O(p)
// pointer steps plus the batch's pushes. On many cores a lazily maintained R (paper fn. 2)
// would remove the serialisation; 2–16 workers do not need it.
#pragma once

#include <coroutine>
#include <cstdint>
#include <mutex>
#include <optional>
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
  std::uint64_t batched = 0;  // entries moved onto a thief's own deque by batch steals (B1-B3)
  std::uint64_t splits = 0;   // batches capped at max_batch, whose victim's lowest entries became a deque (B4)
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

  // Waiting in place for finish f (docs/design/finish.md): w's entries stay in R as ownerless deques in w's
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
  // `w` takes a frame resumed by an external event (slaw::wait_for): as enter_root. The frame keeps its
  // 1DF position, which R's right end need not respect, so from here on the debug checks of Lemma 3.1
  // are off for this list (docs/design/space.md § Waits on external events).
  void enter_resumed(worker& w);
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
  split_deque::entry set_aside(order::position victim, node* d);
  // B4, under the lock `lk` (released on return): see the header.
  split_deque::entry steal_capped_batch(worker& w, order::position victim, std::unique_lock<std::mutex>& lk);
  void recycle(node* d);

  // Debug checks (under the lock): R's structure, and Lemma 3.1's order around the ownerless deque at
  // `at`: within an ownerless deque priority decreases from top to bottom, and every task of an
  // ownerless deque precedes (in 1DF order) those of the nearest ownerless deques right of it and
  // follows those left of it. Owned deques are skipped: their owners push and pop without the lock.
  void check_invariants() const;
  void check_order_around(order::position at) const;
  std::optional<std::vector<std::uint32_t>> top_right_of(order::position at) const;
  // B2 after a batch steal (debug builds): see the definition.
  void check_batch(const node* victim, split_deque::entry run, const split_deque::entry* own, std::size_t n,
                   order::position mine) const;

 public:
  // B1: the steals that empty an ownerless deque of m entries, and the entries one steal takes.
  static constexpr std::size_t batch_of(std::size_t m) noexcept { return m >= 2 ? m - 1 : m; }
  static constexpr std::size_t units(std::size_t m) noexcept { return m < 2 ? m : 2; }
  // B4: the most entries one batch moves.
  static constexpr std::size_t max_batch = 512;

 private:

  mutable std::mutex m_;
  bool order_unchecked_ = false;  // under m_: a frame resumed by an external event is in R (enter_resumed)
  std::vector<node> own_;
  order r_;
  std::vector<node*> pool_;
  dfd_counters c_;  // steals, failed attempts, give-ups (deletions and max_deques: r_.tally())
  std::atomic<std::uint64_t> abandoned_entries_{0};
};

}  // namespace slaw::detail
