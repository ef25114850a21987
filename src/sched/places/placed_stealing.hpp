// Work stealing with places (SLAW, Guo et al. IPDPS 2010, §IV; Guo's thesis §6.1 and §6.3; docs/design/places.md).
// The scheduler module for a deployment of more than one place: each worker belongs to a leaf place,
// each place has a mailbox, and a task runs only on workers inside its place's subtree.
//
// The idle routine of a worker w in leaf place L, after its own deques (Routine 1, step 1):
//   thesis order (default)          paper order (SLAW_IDLE_ORDER=paper)
//   1. L's mailbox                  1. the deques of L's other workers
//   2. the deques of L's other      2. L's mailbox
//      workers
//   3. remote mailboxes: those of L's ancestors, nearest first (tasks sent to a cache, a package, the
//      machine), if SLAW_REMOTE has `mailboxes`
//   4. remote deques: other workers' deques, nearest in the tree first, if SLAW_REMOTE has `deques`
// A task's place must contain w for w to run it. Steps 1-3 hold only such tasks by construction (a
// worker's deque holds tasks whose place contains its leaf; a mailbox, tasks of its own place). In
// step 4 the thief cannot read a task's place before it owns the task (the frame may be freed under
// it), so it skips victims whose current strand's place it may not run (a published hint), and a task
// it wins that it may not run goes to its place's mailbox (a redirect, counted).
//
// With SLAW_REMOTE without `mailboxes` nobody reads the mailboxes of internal places, so a task sent to
// an internal place is dealt to the mailboxes of its leaves in turn.
//
// Liveness: a worker may not run every task, so the last searcher cannot stand in for all sleepers
// (docs/design/parking.md): every sleeper polls while a worker is busy (every_sleeper_polls), a post wakes
// every sleeper, and each one's re-check looks only at work it could take.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "core/scheduler.hpp"
#include "sched/places/place_mailbox.hpp"
#include "sched/set_aside.hpp"
#include "slaw/config.hpp"
#include "slaw/detail/worker.hpp"

namespace slaw::places {
class place_tree;
}

namespace slaw::detail {

class placed_stealing final : public scheduler {
 public:
  placed_stealing(runtime_impl& rt, const config& cfg);

  void attach(worker& w) override;
  promise_base* steal(worker& thief, const finish_node* inside) noexcept override;
  void post(worker& from, promise_base* p, bool started) noexcept override;
  bool holds_work() const noexcept override;
  bool work_visible_to(const worker& w, const std::vector<std::unique_ptr<worker>>& workers) const noexcept override;
  bool every_sleeper_polls() const noexcept override { return true; }
  void add_stats(runtime_stats& s) const override;
  void reset_stats() override;

 private:
  // What one worker looks at, fixed when the runtime starts.
  struct thief_view {
    std::vector<std::size_t> mailboxes;                   // its leaf's, then its ancestors', nearest first
    std::vector<std::vector<std::size_t>> peers;          // one ring: the other workers of its leaf (or none)
    std::vector<std::vector<std::size_t>> remote;         // the workers of other leaves by distance, nearest first
    std::vector<std::size_t> distance;                    // by worker: tree distance of its leaf from this one's
    std::size_t distances = 0;                            // 1 + the largest distance
    std::unique_ptr<counter[]> steals_by_distance;        // by distance; written by this worker only
  };

  promise_base* take_mail(worker& thief, std::size_t place, const finish_node* inside) noexcept;
  // One round over `rings` in policy::nearest_first_order, at most `budget` victims in all. For remote
  // rings: the hint check, redirects and the remote counters.
  promise_base* probe(worker& thief, const std::vector<std::vector<std::size_t>>& rings, bool remote,
                      std::size_t& budget, const finish_node* inside) noexcept;
  // A task taken while waiting in place for `inside`: returned if the thief may run it there (it is
  // inside, or it has not started: docs/design/finish.md, "Waiting in place", with places), else set aside.
  promise_base* accept(worker& thief, promise_base* p, bool started, const finish_node* inside) noexcept;

  runtime_impl& rt_;
  const places::place_tree& tree_;
  const remote_steal remote_;
  const idle_order order_;
  const bool preempted_first_;
  std::vector<std::unique_ptr<place_mailbox>> mailboxes_;     // by place
  std::vector<std::vector<std::size_t>> leaves_under_;        // by place: the leaves of its subtree
  std::unique_ptr<std::atomic<std::uint32_t>[]> deal_;        // by place: the next leaf to deal to
  std::vector<thief_view> views_;                             // by worker
  set_aside_queue set_aside_;
};

}  // namespace slaw::detail
