// DFDeques(K): the global ordered list R of deques (digest space_efficient.md §2; docs/space.md).
//
// R orders deques by decreasing 1DF priority, left to right (Lemma 3.1). A worker owns at most one
// deque: its own preempted split deque (`worker::pre_`), present in R while the worker owns it. A
// worker that gives up its deque (quota spent) moves the entries into an ownerless `abandoned` deque
// that takes the worker's place in R; ownerless deques are only ever popped at the bottom, by thieves.
//
// Synchronisation. One lock guards R's structure and every steal; owners push and pop the top of
// their own deque without it (the split deque's protocol, thieves then also take the deque's steal
// lock). Why one lock is correct: a steal is "take the bottom of the i-th deque AND insert the new
// deque right of it"; were two thieves of the same victim to interleave these halves, the one holding
// the lower-priority task could end up left of the other and break the order (Lemma 3.1 part 3). The
// lock makes each steal, give-up and deletion atomic with respect to the others, so R changes by one
// operation at a time as in the paper's model. Why it is fast enough: the owner's fast path never
// takes it; it is taken once per steal attempt (try_lock: a thief that finds it held counts a failed
// attempt, as two thieves hitting one deque do in the paper's model) and once per give-up, i.e.
// O(p·D + S_a/K) times per run (Theorem 4.5), each hold being O(|R|) pointer moves. On many cores a
// lazily maintained R (paper fn. 2) would remove the serialisation; 2–16 workers do not need it.
#pragma once

#include <coroutine>
#include <cstdint>
#include <mutex>
#include <vector>

#include "slaw/core/split_deque.hpp"

namespace slaw::core {

class worker;
struct promise_base;

struct dfd_counters {
  std::uint64_t steals = 0, failed_attempts = 0, giveups = 0, deletions = 0, roots = 0;
  std::uint64_t max_deques = 0;
};

class deque_list {
 public:
  explicit deque_list(unsigned workers) : p_(workers) {}
  ~deque_list();

  // One steal attempt by `w`, whose own deque is empty (it leaves R first): pick i uniformly in
  // [0, p), take the bottom entry of the i-th deque, put w's deque right of it. Returns the entry to
  // run (none on a failed attempt) and how it was found.
  split_deque::entry steal(worker& w, std::uint64_t random);
  // `w` takes an injected root task: its deque goes to the right end of R.
  void enter_root(worker& w);
  // `w` gives up its deque (quota spent): its entries stay in R, in place, ownerless.
  void give_up(worker& w);
  // `w`'s deque is empty and it has no task: delete the deque.
  void retire(worker& w);

  // Whether some ownerless deque holds work (for parking decisions; racy read).
  bool has_abandoned_work() const noexcept { return abandoned_entries_.load(std::memory_order_seq_cst) != 0; }
  dfd_counters counters() const;
  std::size_t size() const;
  void reset_counters();

  // Debug check of R's structure: at most one slot per worker; no empty ownerless deque.
  void check_invariants() const;

 private:
  struct abandoned {
    std::vector<split_deque::entry> entries;  // bottom first
    std::size_t bottom = 0;
    bool empty() const noexcept { return bottom == entries.size(); }
  };
  struct slot {
    worker* owner;   // the owning worker, or null
    abandoned* deq;  // for ownerless slots
  };
  std::size_t index_of(const worker& w) const noexcept;
  void remove_own(worker& w);  // under the lock
  void note_size() noexcept {
    if (r_.size() > c_.max_deques) c_.max_deques = r_.size();
  }

  const unsigned p_;
  mutable std::mutex m_;
  std::vector<slot> r_;
  std::vector<abandoned*> pool_;
  dfd_counters c_;
  std::atomic<std::uint64_t> abandoned_entries_{0};
};

}  // namespace slaw::core
