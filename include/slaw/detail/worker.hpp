// A worker: one OS thread, two split deques (preempted continuations, fresh tasks), a frame allocator,
// the ADP state and its counters. This header holds what the spawn/return fast path needs inline;
// the scheduler loop, stealing, parking and the slow paths live in src/core/worker.cpp and the files
// beside it. The part of a task's frame the runtime reads is in promise_base.hpp, the counters in
// worker_counters.hpp.
//
// Preempted-deque entries. A work-first spawn of child C by parent P pushes the entry `C` (C's
// promise address); C's `parent` field holds P. When C returns and the bottom entry is still `C`, the
// worker pops it and resumes P: the fast path. An entry tagged with `parent_tag` holds the *parent*
// itself, meaning "this continuation's work-first child is already detached (counted)"; the
// suspension path creates it. Invariant W1: the bottom entry of a worker's preempted deque is either
// tagged, or it belongs to the innermost incomplete work-first child on the chain the worker is
// running now. So a returning child either finds its own entry at the bottom, or it has been detached
// (its entry was stolen, or tagged when its chain suspended) and then it ends its unit in its finish.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "slaw/detail/finish_node.hpp"
#include "slaw/detail/frame_allocator.hpp"
#include "slaw/detail/promise_base.hpp"
#include "slaw/detail/serial_order.hpp"
#include "slaw/detail/split_deque.hpp"
#include "slaw/detail/worker_counters.hpp"
#include "slaw/export.hpp"
#include "slaw/policy/adp.hpp"
#include "slaw/policy/loop_split.hpp"

namespace slaw::detail {

class runtime_impl;
class scheduler;
class policy_trace;
class timeline_recorder;
class dag_log;
enum class segment_kind : std::uint8_t;  // src/trace/timeline_recorder.hpp
enum class give_up_at : std::uint8_t;

// Where a thief took its task from (counters and timeline traces): another worker's preempted deque
// (a work-first continuation), its fresh deque (a queued help-first task), or an ownerless deque of
// DFDeques' list R.
enum class steal_from : std::uint8_t { continuation, fresh, ownerless };
inline constexpr int no_victim = -1;  // the victim of a steal from an ownerless deque

// What a worker runs with: the runtime's settings as adjusted by its scheduler.
struct worker_settings {
  policy::mode mode;
  policy::adp_params adp;
  std::size_t trace_limit;  // SLAW_TRACE=policy: decision changes recorded per worker; 0: none
  policy::loop_params loop;
};

class SLAW_EXPORT worker {
 public:
  worker(runtime_impl* rt, scheduler* sched, unsigned index, const worker_settings& settings);
  ~worker();

  // ---------------- spawn fast path ----------------
  // The spawn's policy (ADP, policy::decide). The fast path is one countdown. While the worker is
  // *armed* (policy::wf_until_interval_end: dyn mode in a work-first interval whose last decision was
  // work-first, or fixed wf mode), every dyn-clause spawn is work-first until the interval ends or the
  // depth reaches S, and `fast_left_` stands in for the interval's countdown adp_.left. The preempted
  // deque watches the depth: its watch is never above base_ + S - 1 while armed in dyn mode
  // (watch_depth), so the push that makes the depth S reports and disarms (pushed_preempted). Everything
  // else — an interval's end, a help-first interval, the stack bound, an explicit clause, fixed hf
  // mode — goes through choose_slow, which decides with policy::decide and arms again when it may.
  // Disarmed, fast_left_ is 1, so that the countdown sends every spawn to choose_slow.
  [[gnu::always_inline]] policy::spawn_policy choose(policy::schedule clause) noexcept {
    if (clause == policy::schedule::dyn) {
      if (--fast_left_ != 0) [[likely]] return policy::spawn_policy::wf;
    } else if (mode_ == policy::mode::dyn) {
      // An explicit clause does not count in the interval: only a change of policy, to be recorded
      // (and to disarm), needs choose_slow.
      const auto depth = static_cast<std::int32_t>(pre_.head() - base_);
      const policy::spawn_policy p = policy::clause_decision(adp_params_, clause, depth).policy;
      if (p == last_decision_) [[likely]] return p;
      return choose_slow(clause);
    }
    if (mode_ == policy::mode::hf) {  // fixed hf mode: every spawn, no decision to record
      fast_left_ = 1;
      return policy::spawn_policy::hf;
    }
    if (mode_ == policy::mode::wf && clause != policy::schedule::dyn) return policy::spawn_policy::wf;
    return choose_slow(clause);
  }
  // A spawn's push, counted after it: the spawning worker goes on (with the child, or with the
  // parent), so the count is made before the spawn's finish can end, and stats() read after run()
  // sees it. (Counted first, the atomic counter's store kept GCC from reusing the deque fields it had
  // loaded: 8 instructions more per fib node.) A spawn that publishes and stops counts first
  // (yield_at_spawn, give_up_at_spawn).
  [[gnu::always_inline]] void push_preempted(promise_base* child) noexcept {
    // The deque watches index base_ + max_wf_depth (begin_strand), or base_ + S - 1 if lower while
    // armed (see choose): a push deeper than any before, or to depth S, reports it.
    if (const unsigned r = pre_.push(reinterpret_cast<std::uintptr_t>(child))) [[unlikely]] pushed_preempted(r);
    c_.spawns_wf.bump();
  }
  // A help-first spawn's push. Its byte peak costs one compare until it may rise (queue_fresh).
  [[gnu::always_inline]] void push_fresh(promise_base* child) noexcept {
    queue_fresh(reinterpret_cast<split_deque::entry>(child));
    c_.spawns_hf.bump();
  }
  std::int64_t fresh_bytes_live() const noexcept {
    return fresh_bytes_net_ - fresh_bytes_stolen_.load(std::memory_order_relaxed);
  }

  // ---------------- active tasks ----------------
  // The local count L (begins minus ends on this worker) is published when it reaches P ± B, P being
  // the part the gauge holds and B the band (task_band: task_step, or 1 while the hooks run). L is kept
  // as the room left on each side: tasks_up_ = P + B - L and tasks_down_ = L - (P - B), whose sum is
  // always 2 * B. Each event adds one to one side and takes one from the other, then publishes when
  // that side reaches 0. That takes 3 instructions: an add to memory, a subtract from memory and a
  // branch on its zero flag. The old form took 5: load L, add, store, compare with a bound, branch. The
  // test is `== 0` rather than `< 0` because clang turns `--x < 0` into `x <= 0` on the old value,
  // which needs a load.
  [[gnu::always_inline]] void task_begins() noexcept {
    ++tasks_down_;
    if (--tasks_up_ == 0) [[unlikely]] publish_tasks();
  }
  [[gnu::always_inline]] void task_ends() noexcept {
    ++tasks_up_;
    if (--tasks_down_ == 0) [[unlikely]] publish_tasks();
  }
  // The local count left its band: the difference goes to the process's task gauge.
  void publish_tasks() noexcept;
  // The band's half-width: task_step, or 1 on a worker whose hooks run (tl_ set), so that there every
  // begin and end takes the rare branch and the work-first return's timeline hook rides on it
  // (complete_spawned) instead of a test of its own.
  std::int64_t task_band() const noexcept { return tl_ ? 1 : task_step; }

  // ---------------- quota give-ups ----------------
  // The scheduler stopped this chain (a memory quota is spent): the next spawn or call
  // gives up the deque instead of running its task.
  bool preempt_pending() const noexcept { return alloc_->preempt_pending(); }
  // The spawn's and the call's one test (frame_allocator::fast_path_blocked), and what they do when it
  // holds: the hooks of a recording worker, then a give-up if the chain must stop.
  bool fast_path_blocked() const noexcept { return alloc_->fast_path_blocked(); }
  std::coroutine_handle<> start_work_first_slow(promise_base* parent, promise_base* child, const char* name,
                                                policy::schedule clause) noexcept;
  std::coroutine_handle<> start_call_slow(promise_base* caller, promise_base* callee) noexcept;
  // Give-ups at a scheduling point (docs/design/space.md). Each returns the handle to transfer to (noop: back
  // to the scheduler loop, which steals).
  std::coroutine_handle<> give_up_at_spawn(promise_base* parent, promise_base* child) noexcept;
  std::coroutine_handle<> give_up_at_call(promise_base* callee) noexcept;
  std::coroutine_handle<> give_up_here(promise_base* self) noexcept;
  void count_dummy_task() noexcept { c_.dummy_tasks.bump(); }
  void count_loop_split() noexcept { c_.loop_splits.bump(); }  // a parallel loop split its range (slaw/algorithm.hpp)
  const policy::loop_params& loop_params() const noexcept { return loop_params_; }

  // ---------------- return fast path ----------------
  // A spawned task's frame reached its final suspend. Returns the handle to transfer to. Always
  // inlined into the final awaiter: left to itself, clang made it a call of its own once the trace
  // hook grew it, and fib(35) ran 6% slower for that, not for the hook's one test.
  // `KnownPlain`: p's plain_teardown is set (the final awaiter tested it with the kind).
  template <bool KnownPlain = false>
  [[gnu::always_inline]] std::coroutine_handle<> complete_spawned(promise_base* p) noexcept {
    if (pre_.private_bottom_is(reinterpret_cast<std::uintptr_t>(p))) [[likely]] {
      ++tasks_up_;  // task_ends, whose rare branch also runs the timeline hook (task_band)
      if (--tasks_down_ == 0) [[unlikely]] spawned_returned_slow(p);
      pre_.drop_private_bottom();
      void* const par = p->parent;
      release_finished_frame<false, KnownPlain>(p);
      return std::coroutine_handle<>::from_address(par);
    }
    return complete_spawned_slow(p);
  }
  // A task whose unit is counted ended (a help-first child or root task, counted when spawned, or a
  // detached work-first child): end its unit.
  std::coroutine_handle<> complete_queued(promise_base* p) noexcept;

  // ---------------- the join (docs/design/finish.md, "Joining own children") ----------------
  // A frame reached end_finish and its finish has units left. If this worker's private fresh bottom is
  // a child of that finish, the frame runs it on top of itself, as a call, instead of suspending: no
  // round trip through the deques and the strand machinery, and the body unit, still held, keeps the
  // finish open. Otherwise the frame suspends (suspend_at_end).
  // Out of line: inlined into every end_finish, it made clang's work-first fib node 8 instructions
  // longer, on a path that does not run it.
  std::coroutine_handle<> join_at_end(finish_node* f, promise_base* waiter) noexcept;
  // The final awaiter's one call for its rare cases. A joined child `p` ended (tested first): end its
  // unit; resume the waiter if only the body is left, else join the next own child of the finish, else
  // suspend the waiter. A spawned task whose frame needs its destroy function goes to complete_spawned,
  // a finish body (lambda form) to end_body. One member call: the final awaiter already holds the
  // worker, and a hop through a function that tested the kind first cost a help-first fib node 11
  // instructions.
  std::coroutine_handle<> complete_other(promise_base* p) noexcept;
  // What complete_other leaves to a tail call: the finish's count before the child's
  // decrement was `old`.
  std::coroutine_handle<> joined_end_slow(finish_node* f, promise_base* waiter, std::uint64_t old) noexcept;

  // ---------------- places (docs/design/places.md) ----------------
  // A spawn whose place clause names another place than its parent's: `child` (set up as a spawned
  // task of its finish) is counted in its finish and queued in this worker's fresh deque if `place` is
  // this worker's own leaf, else posted to the place's mailbox.
  void spawn_elsewhere(promise_base* child, std::uint32_t place, const char* name) noexcept;
  // The last unit of a finish ended on this worker: the handle that resumes its waiting frame, or
  // noop if the frame's place does not contain this worker (it is posted to that place's mailbox).
  std::coroutine_handle<> resume_waiter(promise_base* waiter) noexcept {
    // Waiting in place, this thread may resume only frames inside the waited-for finish (docs/design/finish.md):
    // with places it also runs unstarted tasks outside it, whose end may complete an older frame's finish.
    if (waiting_for_ && !waiter->cur->is_inside(waiting_for_) && !may_resume_over_waits(waiter)) [[unlikely]]
      return post_waiter(waiter);
    const std::uint16_t p = waiter->place;
    if (p != current_place()) [[unlikely]] {
      if (!may_run(p)) return post_waiter(waiter);
      enter_place(p);
    }
    return waiter->self();
  }
  // Whether frame `x`, which already ran and is not inside the innermost finish this thread waits for in
  // place, may still be resumed on top of its waits: neither it nor the frames its end resumes directly
  // (callers, a finish body's opener) has open a scope that contains a waited-for finish, so it can
  // never wait for a frame below the waits (docs/design/finish.md, "Waiting in place").
  bool may_resume_over_waits(const promise_base* x) const noexcept;
  // Whether this worker may run a task of place `p`: its leaf lies in p's subtree.
  bool may_run(std::uint16_t p) const noexcept { return allowed_[p] != 0; }
  std::uint16_t leaf() const noexcept { return leaf_; }
  // The place of the task running on this worker (slaw::here()); read by thieves too, as a hint of
  // the place of the tasks in its deques (relaxed: a plain load and store on the owner's side).
  std::uint16_t current_place() const noexcept { return cur_place_.load(std::memory_order_relaxed); }
  // Set once, before the worker's thread starts: its leaf place and, per place of the tree, whether the
  // leaf lies in that place's subtree.
  void set_place(std::uint16_t leaf, std::vector<std::uint8_t> allowed) noexcept {
    leaf_ = leaf;
    allowed_ = std::move(allowed);
    wait_runs_unstarted_ = allowed_.size() > 1;
  }
  // Counts for the place counters (the mailbox ones are bumped by the scheduler module, on this worker).
  // A post is counted before it is published (a taker may finish the run at once and stats() must
  // see mailbox_posts == mailbox_takes); an overflow is known only after, and counted then.
  void count_post() noexcept { c_.mailbox_posts.bump(); }
  void count_overflow() noexcept { c_.mailbox_overflows.bump(); }
  void count_mailbox_take() noexcept {
    c_.mailbox_takes.bump();
    if (tl_) [[unlikely]] trace_mailbox_take();
  }
  void count_remote_steal() noexcept {
    c_.steals_remote.bump();
    c_.tasks_outside_home.bump();
  }
  void count_redirect() noexcept { c_.place_redirects.bump(); }

  // The chain running on this worker is about to suspend (or wait): detach its innermost work-first
  // child so that no untagged entry of it stays behind (keeps W1). Call before releasing any unit.
  void detach_bottom() noexcept;
  // The frame `waiter` suspends at the end of `f` with other units outstanding.
  std::coroutine_handle<> suspend_at_end(finish_node* f, promise_base* waiter) noexcept;
  // The end of a scope whose start was recorded (finish_node's rec_bit): recorded, then as above.
  std::coroutine_handle<> end_recorded(finish_node* f, promise_base* waiter) noexcept;
  // A scope left without end_finish (an exception, an early co_return): waits on this thread until
  // `f` has only its body unit left, running meanwhile only tasks inside `f` (docs/design/finish.md,
  // "Waiting in place"), so that it never runs a frame that could wait for this one.
  void wait_in_place(finish_node* f) noexcept;

  // ---------------- scheduler loop ----------------
  void main_loop();

  // ---------------- thief side: for scheduler modules (src/sched/) ----------------
  // Takes the oldest entry of this worker's preempted deque under its steal lock, detached (see
  // detach_entry); null if there is none or another thief holds the lock. Counts it as stolen here.
  // `thief`: the taking worker's index (an empty deque records its request: split_deque's window).
  promise_base* yield_continuation(unsigned thief) noexcept;
  // Takes the oldest fresh (help-first, unstarted) task; null if none. Counts it as stolen here.
  promise_base* yield_fresh(unsigned thief) noexcept;
  // The preempted deque itself, for a variant that moves whole deques (give-ups, ordered lists).
  split_deque& preempted_deque() noexcept { return pre_; }
  // This worker (the thief) stole a task from `victim` (a worker index, or no_victim).
  void count_steal(steal_from from, int victim) noexcept {
    (from == steal_from::fresh ? c_.steals_fresh : c_.steals_preempted).bump();
    sample_victim(victim, 1);
    if (tl_) [[unlikely]] trace_steal(from, victim);
  }
  // A thief that hands a stolen task to another worker before running it (a worker waiting in place
  // sets it aside) passes this note along; the worker that starts the task gives it to
  // took_handed_over, so that a timeline trace shows the start as that steal's. 0 when not traced.
  std::uint64_t hand_over_steal() noexcept { return tl_ ? trace_hand_over() : 0; }
  void took_handed_over(std::uint64_t note) noexcept {
    if (tl_) trace_took_handed_over(note);
  }
  // Where one continuation was stolen the next is likely wanted too (a flat work-first loop migrates
  // this way): publish this worker's next push at once instead of waiting for a request.
  void publish_next_push() noexcept { pre_.request_split(); }
  // Work was exposed or handed over: wake a sleeping worker if no one is searching.
  void on_exposed() noexcept;
  // take_next_joinable's answer to a thief's request: exposes part of both deques' private regions, as
  // take_own does between tasks, and wakes a sleeper for it.
  [[gnu::noinline]] void answer_at_join() noexcept;
  std::uint64_t next_random() noexcept {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }

  unsigned index() const noexcept { return index_; }
  runtime_impl* rt() const noexcept { return rt_; }
  const worker_counters& counters() const noexcept { return c_; }
  // Since the last reset_counters (the raw counters keep growing: ADP reads their differences).
  std::uint64_t stolen_pre() const noexcept { return stolen_pre_.load(std::memory_order_relaxed) - at_reset_.stolen_pre.get(); }
  std::uint64_t stolen_fresh() const noexcept {
    return stolen_fresh_.load(std::memory_order_relaxed) - at_reset_.stolen_fresh.get();
  }
  std::uint64_t policy_switches() const noexcept {
    return adp_switches_.load(std::memory_order_relaxed) - at_reset_.switches.get();
  }
  policy::spawn_policy current_policy() const noexcept {
    return static_cast<policy::spawn_policy>(policy_mirror_.load(std::memory_order_relaxed));
  }
  // ---------------- the job's allotment (docs/design/multijob.md) ----------------
  // What the job's quantum thread reads of this worker at every quantum's end for the desire (A-Deque
  // §IV-B): owner-written on the steal and sleep paths only, never reset (the thread takes differences).
  struct quantum_counters {
    counter steal_attempts;       // S: calls of the scheduler's steal
    counter purely_unsuccessful;  // S_p: failed attempts whose sampled victim was itself idle
    counter sampled_length;       // LEN: the sampled victims' stealable entries
    counter mugs;                 // successful mugs (each also a LEN sample)
    counter sleep_ns;             // time asleep in the parking lot (idle, not stealing), completed sleeps
    std::atomic<std::uint64_t> asleep_since{0};  // steady-clock ns of the sleep in progress; 0: awake
  };
  const quantum_counters& quantum() const noexcept { return qc_; }
  // Whether this worker is out of work (searching, asleep, or parked by the allotment).
  bool idle() const noexcept { return idle_.load(std::memory_order_relaxed); }
  // Entries thieves can take from this worker now (a racy snapshot).
  std::uint32_t stealable() const noexcept { return pre_.stealable() + fresh_.stealable(); }
  // The quantum thread asks a busy worker to expose part of its private entries at its next push, so
  // that the job's queued work can be seen (the snapshot Q' of the desire).
  void request_sample() noexcept {
    pre_.request_split();
    fresh_.request_split();
  }
  // The worker's rank in the order in which the allotment keeps workers running: ranks below the
  // allotment run, the others park (set before its thread starts).
  void set_rank(unsigned r) noexcept { rank_ = r; }
  unsigned rank() const noexcept { return rank_; }
  // Parked by the allotment, its deques exposed whole for any worker to mug.
  bool muggable() const noexcept { return muggable_.load(std::memory_order_acquire); }

  // Whether thieves could take something from this worker right now.
  bool has_visible_work() const noexcept { return !pre_.looks_empty() || !fresh_.looks_empty(); }
  frame_allocator* allocator() const noexcept { return alloc_; }
  void reset_counters() noexcept;
  // A copy of the recorded decision changes.
  const policy_trace* trace() const noexcept { return trace_.get(); }  // null: not traced

  // ---------------- timeline trace (docs/guide/tracing.md) and DAG recording (SLAW_RECORD) ----------------
  // The one test each fast-path hook pays when nothing is recorded: a field in the line that
  // task_begins/task_ends touch (the work-first spawn and the call fold it into fast_path_blocked, the
  // work-first return into the task count's rare branch, task_band). A
  // recording runtime gives its workers a timeline recorder too (without a buffer when no timeline is
  // asked for), so that one test gates both. The hooks are out of line (src/core/timeline_hooks.cpp).
  bool tracing() const noexcept { return tl_ != nullptr; }
  // A help-first spawn, before the push.
  void trace_queued(promise_base* child, const char* name, policy::schedule clause) noexcept;
  // A work-first spawn: the child starts.
  void trace_work_first(promise_base* child, const char* name, policy::schedule clause) noexcept;
  void trace_resumed(promise_base* frame) noexcept;  // `frame` goes on, on this worker
  // The spawned or queued task `p` ended (and, for the first, its parent `par` goes on here).
  void trace_returned(promise_base* p) noexcept;
  void trace_child_returned(promise_base* p, promise_base* par) noexcept;
  dag_log* dag_recording() const noexcept { return rec_; }  // null: this runtime does not record

 private:
  static std::int64_t frame_bytes(const promise_base* p) noexcept {
    chunk_header* h = header_of(p->self().address());
    return h->block_size;
  }
  // Every push onto the fresh deque: a queued task's bytes are added here and subtracted by whoever
  // takes the entry (fresh_bytes_net_ by the owner, fresh_bytes_stolen_ by thieves). Read before the
  // push: once the entry is published a thief may run and free the task.
  [[gnu::always_inline]] void queue_fresh(split_deque::entry e) noexcept {
    fresh_bytes_net_ += frame_bytes(entry_promise(e));
    if (fresh_.push(e)) [[unlikely]] on_exposed();
    c_.max_fresh.max(fresh_.size_estimate());
    // fresh_peak_at_ is the last peak plus the stolen bytes as read then: stolen bytes only grow, so
    // an older read makes the owner look too often, never too rarely. A flat loop looks at every push,
    // a help-first recursion (a child queued, then joined) at none.
    if (fresh_bytes_net_ > fresh_peak_at_) [[unlikely]] new_fresh_bytes_peak();
  }
  // The queued bytes crossed fresh_peak_at_: perhaps a new fresh_bytes_peak (or the peak was reset).
  void new_fresh_bytes_peak() noexcept {
    const std::int64_t stolen = fresh_bytes_stolen_.load(std::memory_order_relaxed);
    const std::int64_t live = fresh_bytes_net_ - stolen;
    c_.fresh_bytes_peak.max(static_cast<std::uint64_t>(live > 0 ? live : 0));
    fresh_peak_at_ = static_cast<std::int64_t>(c_.fresh_bytes_peak.get()) + stolen;
  }
  // A preempted push's report (split_deque::push): work exposed, and/or a new maximum depth.
  void pushed_preempted(unsigned r) noexcept;
  void hand_off_preempted() noexcept;
  std::coroutine_handle<> post_waiter(promise_base* waiter) noexcept;
  void decision_changed(policy::decision d, std::int32_t depth) noexcept;
  policy::spawn_policy choose_slow(policy::schedule clause) noexcept;
  void arm() noexcept;
  // Every push onto the preempted deque other than a spawn's (an entry put back, tagged or taken over).
  // One that wrote the watched index moved the watch on unseen: the fast path may no longer trust it,
  // so the worker disarms, and the next spawn's choose_slow arms again with a fresh watch.
  void push_back(split_deque::entry e) noexcept {
    if (pre_.push(e) & split_deque::pushed_watch) disarm();
  }
  // The same without answering a thief's request (split_deque::push_unanswered): a give-up's pushes.
  void push_back_unanswered(split_deque::entry e) noexcept {
    if (pre_.push_unanswered(e) & split_deque::pushed_watch) disarm();
  }
  // Hands the countdown back to adp_ (the fast path's spawns are counted there from now on).
  void disarm() noexcept {
    if (!armed_) return;
    adp_.left = fast_left_;
    fast_left_ = 1;
    armed_ = false;
  }
  // `for_allotment`: the job's allotment stopped the chain (a yield under DFDeques), not the quota.
  std::coroutine_handle<> give_up(split_deque::entry below, split_deque::entry top, bool for_allotment) noexcept;
  // The allotment asked this worker to yield (and no quota is spent): the spawn becomes help-first, the
  // chain stops with its parent's continuation on the preempted deque, and the worker goes back to its
  // loop, which parks it.
  std::coroutine_handle<> yield_at_spawn(promise_base* parent, promise_base* child) noexcept;
  // Whether the job's allotment no longer covers this worker.
  bool surplus(std::memory_order order = std::memory_order_relaxed) const noexcept;
  // Parks until the allotment covers this worker again (or shutdown), its deques exposed and muggable.
  void park_for_allotment() noexcept;
  // Takes a parked worker's muggable deques whole into this worker's own (empty) deques and returns
  // the bottom-most task to resume; null if there was none.
  promise_base* mug() noexcept;
  // A steal attempt's sample for the desire: the victim's stealable entries (+ `taken`).
  void sample_victim(int victim, std::uint32_t taken) noexcept;
  std::coroutine_handle<> complete_spawned_slow(promise_base* p) noexcept;
  // complete_spawned's rare branch: publish the task count, and run the timeline hook if tl_ is set.
  void spawned_returned_slow(promise_base* p) noexcept;
  // Routine 1, step 1: own tasks, deepest in the sync tree first. A worker waiting in place for
  // `waiting_for` takes a bottom entry only if its task is inside that finish.
  promise_base* take_own(const finish_node* waiting_for = nullptr) noexcept;
  // Routine 1, step 2, through the scheduler; counts a failed attempt.
  promise_base* steal(const finish_node* inside) noexcept;
  promise_base* take_root() noexcept;
  // A frame resumed by an external event (runtime_impl::take_resumed), inside `inside` if not null.
  promise_base* take_resumed(const finish_node* inside) noexcept;
  // A strand ended (a counted unit ended, or a frame suspended at end_finish) and handed nothing on:
  // the next own task, started here by symmetric transfer, as the scheduler loop would start it; noop
  // (back to the loop, which steals or parks) if there is none. Saves the help-first child's round
  // trip through the loop.
  std::coroutine_handle<> next_own_strand() noexcept;
  // The join's take: the private bottom of the fresh deque if it is a queued child of `f` in this
  // worker's place and no hook or give-up waits at a scheduling point (fast_path_blocked; those go the
  // suspending way); null otherwise. The entry is private: no thief can see it, so no lock or fence.
  [[gnu::always_inline]] promise_base* take_joinable(const finish_node* f) noexcept {
    if (fresh_.private_empty() || fast_path_blocked()) return nullptr;
    promise_base* c = entry_promise(fresh_.bottom());
    if (c->join != f || c->place != current_place()) return nullptr;
    fresh_.drop_private_bottom();
    fresh_bytes_net_ -= frame_bytes(c);
    c->kind = task_kind::joined;
    c_.local_takes.bump();
    c_.tasks_run.bump();
    return c;
  }
  // The join after a joined child ended: a point between tasks, where a worker that pushes nothing
  // answers thieves (take_own does the same). A frame joining the children of a flat help-first loop
  // would otherwise run every one of them itself once its pushes, which answer at the push, are over.
  // The first join at end_finish (join_at_end) needs no answer: the frame's pushes, or its called
  // children's, came just before it.
  [[gnu::always_inline]] promise_base* take_next_joinable(const finish_node* f) noexcept {
    if (fresh_.split_requested()) [[unlikely]] answer_at_join();
    return take_joinable(f);
  }
  // Runs `p` as a new strand on this thread.
  void run_strand(promise_base* p) noexcept;
  promise_base* find_work(bool& stop);
  // Timeline hooks of the slow paths (src/core/timeline_hooks.cpp), each called only when tl_ is set.
  void trace_steal(steal_from from, int victim) noexcept;
  std::uint64_t trace_hand_over() noexcept;
  void trace_took_handed_over(std::uint64_t note) noexcept;
  void trace_next_start(segment_kind k) noexcept;  // how the next strand's task was found
  void trace_mailbox_take() noexcept;
  void trace_strand_begins(promise_base* p) noexcept;
  void trace_strand_ends() noexcept;
  const char* trace_wait_begins() noexcept;  // returns the waiting task's name for trace_wait_ends
  void trace_wait_ends(const char* name) noexcept;
  std::uint64_t trace_now() const noexcept;
  void trace_parked(std::uint64_t since) noexcept;
  void trace_give_up(give_up_at where) noexcept;
  void trace_sample(std::uint64_t t) noexcept;
  void trace_segment(segment_kind k, const char* name, std::uint64_t flow) noexcept;
  // A strand starts with frame `p` (a task taken from somewhere, or a resumed frame): its place is
  // the worker's until the strand ends (spawns for another place never run work-first).
  void begin_strand(std::uint16_t place) noexcept {
    if (pre_.head() != base_) [[unlikely]] rebase();  // a help-first child's strand starts where its parent's did
    enter_place(place);
  }
  // The preempted deque reports the push that goes deeper than max_wf_depth from base_: its watch is
  // base_ + the maximum, set again whenever base_ moves, and for every task the scheduler loop finds
  // (reset_counters, between runs, may have lowered the maximum; a run's first task on every worker
  // comes through the loop).
  void rebase() noexcept {
    base_ = pre_.head();
    watch_depth();
  }
  // Armed in dyn mode, the watch is also never above base_ + S - 1 (the stack bound, see choose), nor
  // below the head (a watch behind the head would never be written again).
  void watch_depth() noexcept {
    std::int64_t at = static_cast<std::int64_t>(c_.max_wf_depth.get());
    if (armed_ && mode_ == policy::mode::dyn) {
      const std::int64_t depth = static_cast<std::int32_t>(pre_.head() - base_);
      at = std::max(std::min(at, static_cast<std::int64_t>(adp_params_.S) - 1), depth);
    }
    pre_.set_watch(base_ + static_cast<std::uint32_t>(at));
  }
  void enter_place(std::uint16_t place) noexcept { cur_place_.store(place, std::memory_order_relaxed); }

  // Owner-hot.
  split_deque pre_;
  split_deque fresh_;
  std::uint32_t base_ = 0;
  std::uint32_t fast_left_ = 1;  // see choose
  bool armed_ = false;
  const finish_node* waiting_for_ = nullptr;  // the innermost finish this thread waits for in place, if any
  struct wait_link {  // the waits in place on this thread, innermost first, linked through their frames
    const finish_node* f;
    const wait_link* outer;
  };
  const wait_link* waits_ = nullptr;
  policy::mode mode_;
  policy::adp_params adp_params_;
  policy::adp_state adp_;
  frame_allocator* alloc_;
  policy::spawn_policy last_decision_ = policy::spawn_policy::wf;  // set to adp_'s start
  policy::reason last_reason_ = policy::reason::interval;
  // See task_begins. tasks_down_ is declared apart: adjacent, the two adds became one vector add, with
  // a shuffle and a move back to test the result.
  std::int64_t tasks_up_ = task_step, tasks_published_ = 0;
  timeline_recorder* tl_ = nullptr;  // SLAW_TRACE=timeline:PATH or SLAW_RECORD: this worker's recorder; null: off
  dag_log* rec_ = nullptr;           // SLAW_RECORD: this worker's DAG log; null: off
  std::int64_t tasks_down_ = task_step;  // see task_begins
  std::int64_t fresh_bytes_net_ = 0;  // bytes queued on the fresh deque minus bytes the owner took back
  std::int64_t fresh_peak_at_ = 0;    // see new_fresh_bytes_peak
  std::unique_ptr<policy_trace> trace_;
  std::atomic<std::uint16_t> cur_place_{0};
  std::uint16_t leaf_ = 0;
  std::vector<std::uint8_t> allowed_{1};  // by place index: 1 if this worker may run tasks of that place
  // With places, a wait in place also runs tasks that have not started (docs/design/finish.md): only this
  // place's workers may run them, and they may all be waiting.
  bool wait_runs_unstarted_ = false;
  policy::loop_params loop_params_;
  runtime_impl* rt_;
  scheduler* sched_;
  unsigned index_;
  unsigned rank_ = 0;
  quantum_counters qc_;
  std::atomic<bool> idle_{false};
  std::atomic<bool> muggable_{false};
  std::uint64_t rng_;
  worker_counters c_;
  struct {
    counter stolen_pre, stolen_fresh, switches;
  } at_reset_;  // values of the ever-growing counters at the last reset_counters
  std::atomic<std::uint64_t> adp_switches_{0};
  std::atomic<std::uint8_t> policy_mirror_{static_cast<std::uint8_t>(policy::spawn_policy::hf)};
  void sync_mirrors() noexcept {
    adp_switches_.store(adp_.switches, std::memory_order_relaxed);
    policy_mirror_.store(static_cast<std::uint8_t>(adp_.current), std::memory_order_relaxed);
  }
  // Thief-written.
  alignas(64) std::atomic<std::uint64_t> stolen_pre_{0};
  std::atomic<std::uint64_t> stolen_fresh_{0};
  std::atomic<std::int64_t> fresh_bytes_stolen_{0};
};

// The worker of the calling thread, or null.
SLAW_EXPORT extern constinit thread_local SLAW_TLS_MODEL worker* tls_worker;

}  // namespace slaw::detail
