// A running task's operations and the finish protocol (docs/simulation.md, "Engine"; docs/design/finish.md):
// fetching the workload's next operation, start_finish/end_finish, spawns under ADP's decision, calls,
// returns, the counted units that resume a waiter, detaching a chain, and the victim's side of a steal
// (yielding the oldest continuation or fresh task). The runtime's counterparts are named at each
// function.
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "sim/checks.hpp"
#include "sim/engine.hpp"
#include "sim/engine_internal.hpp"
#include "sim/scheduler.hpp"
#include "slaw/policy/adp.hpp"

namespace slaw::sim {

using namespace engine_detail;

step engine::fetch(task_id id) {
  task& t = tasks_[id];
  if (t.saved) [[unlikely]] {  // captured when its worker parked: the rest of its strand, then the operation
    t.saved = 0;
    const auto it = saved_.find(id);
    const step s = it->second;
    saved_.erase(it);
    return s;
  }
  step s;
  switch (t.retry) {
    case retry_alloc:  // the allocation that gave up the deque, now after a steal
      t.retry = 0;
      s.what = op::alloc;
      s.bytes = t.retry_bytes;
      return s;
    case big_spawn:  // reserve(m > K): floor(m/K) dummy tasks in a finish (src/core/memory.cpp)
      t.retry = big_wait;
      s.what = op::spawn;
      s.dummy = true;
      s.clause = policy::schedule::wf;
      s.child.a = static_cast<std::uint64_t>(t.retry_bytes) / std::max<std::uint64_t>(1, cfg_.quota);
      return s;
    case big_wait:
      t.retry = big_alloc;
      s.what = op::end_finish;
      return s;
    case big_alloc:
      s.what = op::alloc;
      s.bytes = t.retry_bytes;
      return s;
    case retry_dummy:
      t.retry = 0;
      break;
    default:
      break;
  }
  if (t.builtin) {  // dummy_tree(n): give up, then fork the rest as a binary tree
    const std::uint64_t rest = t.state.a - 1;
    switch (t.state.pc++) {
      case 0: s.what = op::give_up; return s;
      case 1:
        if (rest > 0) {
          s.what = op::spawn;
          s.dummy = true;
          s.clause = policy::schedule::wf;
          s.child.a = rest - rest / 2;
          return s;
        }
        [[fallthrough]];
      case 2:
        t.state.pc = 3;
        if (rest > 1) {
          s.what = op::spawn;
          s.dummy = true;
          s.clause = policy::schedule::wf;
          s.child.a = rest / 2;
          return s;
        }
        return s;
      default:
        return s;
    }
  }
  return jobs_[t.job].src->next(t.state);
}

time_ps engine::run_task(worker& w, task_id id) {
  w.cur = id;
  w.state = wstate::running;
  w.pending = fetch(id);
  if (c_.mem_share > 0 && c_.mem_workers > 0) [[unlikely]] w.pending.work = bandwidth(w.pending.work);
  return w.pending.work;
}

// Every job's running workers share the machine's bandwidth; a scan, paid only when the model has a
// memory-bound share.
time_ps engine::bandwidth(time_ps work) const {
  std::uint32_t busy = 0;
  for (std::uint32_t i = 0; i < nworkers_; ++i) busy += w_[i].state == wstate::running;
  const double slow = std::max(1.0, static_cast<double>(busy) / c_.mem_workers);
  return static_cast<time_ps>(static_cast<double>(work) * (1.0 - c_.mem_share + c_.mem_share * slow));
}

void engine::begin_strand(worker& w) {
  w.base = w.pre.head();
  ++w.c.tasks_run;
}

time_ps engine::go_idle(worker& w, time_ps cost) {
  w.cur = none;
  w.state = wstate::find_work;
  return now_ + cost;
}

time_ps engine::apply(worker& w) {
  const task_id id = w.cur;
  const step s = w.pending;
  advance(tasks_[id], s.work);
  w.c.busy += s.work;
  trace(w.index, static_cast<std::uint32_t>(s.what), id);
  switch (s.what) {
    case op::start_finish: return op_start_finish(w, id);
    case op::end_finish: return op_end_finish(w, id);
    case op::spawn: return op_spawn(w, id, s);
    case op::call: return op_call(w, id, s);
    case op::ret: return op_ret(w, id);
    case op::alloc: return op_alloc(w, id, s.bytes);
    case op::free: return op_free(w, id, s.bytes);
    case op::give_up:
      ++w.c.dummy_tasks;
      tasks_[id].retry = retry_dummy;
      return give_up_here(w, id);
  }
  return never;
}

// finish_node::open
time_ps engine::op_start_finish(worker& w, task_id id) {
  const finish_id g = take_finish_record();
  task& t = tasks_[id];
  finish& F = fins_[g];
  F.count = 1;
  F.parent = t.cur;
  F.depth = fins_[t.cur].depth + 1;
  F.job = t.job;
  F.span = t.span;
  F.bspan = t.bspan;
  F.line.holder = w.index;  // made in the opener's cache
  t.cur = g;
  advance(t, c_.finish);
  ++w.c.finishes;
  w.c.busy += c_.finish;
  return now_ + c_.finish + run_task(w, id);
}

void engine::exit_finish(task_id id, finish_id g) {
  task& t = tasks_[id];
  finish& F = fins_[g];
  if (checks_ && F.live != 0)
    checks_->fail("a finish continued with " + std::to_string(F.live) + " of its tasks still running");
  t.cur = F.parent;
  t.span = std::max(t.span, F.span);
  t.bspan = std::max(t.bspan, F.bspan);
  free_fins_.push_back(g);
}

void engine::join_edge(const task& done) {
  finish& F = fins_[done.join];
  F.span = std::max(F.span, done.span);
  // Cilkscale's burden on a spawned task's join (not on the root's).
  F.bspan = std::max(F.bspan, done.bspan + (done.parent != none ? c_.burden : 0));
  if (checks_) --F.live;
}

// end_finish: the fast path when only the body is left, else worker::suspend_at_end.
time_ps engine::op_end_finish(worker& w, task_id id) {
  const finish_id g = tasks_[id].cur;
  finish& F = fins_[g];
  const time_ps counter = touch(F.line, w);  // reads the count (and decrements it when it suspends)
  if (F.count == 1) {
    exit_finish(id, g);
    return now_ + counter + run_task(w, id);
  }
  F.waiter = id;
  detach_bottom(w);  // before the release below: afterwards the waiter may run anywhere
  ++w.c.suspensions;
  w.cur = none;
  w.c.busy += c_.suspend + counter;
  return end_unit(w, g, c_.suspend + counter);
}

time_ps engine::end_unit(worker& w, finish_id g, time_ps cost) {
  finish& F = fins_[g];
  if (--F.count != 0) {
    ++w.c.context_switches;
    return go_idle(w, cost);
  }
  if (F.depth == 0) {  // a job's root finish: the run is over
    job_done(F.job, now_ + cost);
    free_fins_.push_back(g);
    return go_idle(w, cost);
  }
  const task_id waiter = F.waiter;
  exit_finish(waiter, g);
  return now_ + cost + run_task(w, waiter);
}

void engine::job_done(std::uint32_t j, time_ps at) {
  job& J = jobs_[j];
  J.done = true;
  J.end = at;
  const finish& rf = fins_[J.root_finish];
  J.dag.span = rf.span;
  J.dag.burdened_span = rf.bspan;
  if (sharing_) retire(J);  // its workers leave; its cores are free at the next boundary
  if (--jobs_left_ == 0) done_ = true;
}

time_ps engine::op_spawn(worker& w, task_id id, const step& s) {
  const task_id cid = new_task(w, id, s, task_kind::spawned);
  task& t = tasks_[id];
  task& c = tasks_[cid];
  advance(t, c_.spawn_wf);  // the serial work-first cost: the DAG's weight, whatever the policy
  c.span = t.span;
  c.bspan = t.bspan;
  t.bspan += c_.burden;  // Cilkscale's burden on the continuation
  const auto depth = static_cast<std::int32_t>(w.pre.head() - w.base);
  const policy::decision d = policy::decide(
      cfg_.adp, w.adp, cfg_.mode, s.clause, depth, w.fresh.size_estimate(), [&w] { return w.fresh.refresh_size(); },
      [&w] { return w.stolen_pre + w.stolen_fresh; });
  w.last_decision = d.policy;
  if (d.policy == policy::spawn_policy::hf) {
    c.kind = task_kind::queued;
    ++fins_[c.join].count;
    time_ps lines = touch(fins_[c.join].line, w);  // the count, which thieves' arrivals take away
    lines += touch(w.dq, w, lines);                 // the push: the split request thieves may have set
    if (w.fresh.push(make_entry(cid))) on_exposed(w);
    ++w.c.spawns_hf;
    w.c.max_fresh = std::max<std::uint64_t>(w.c.max_fresh, w.fresh.size_estimate());
    w.c.busy += c_.spawn_hf + lines;
    return now_ + c_.spawn_hf + lines + run_task(w, id);
  }
  if (w.quota.preempt_pending()) return give_up_at_spawn(w, id, cid);
  // The push reads the split request (and exposes at a thief's request): the deque's line comes back
  // from the last thief that probed it. The entry is visible from now on, so a thief probing before
  // the child returns can take the continuation: the window this transfer lengthens.
  const time_ps line = touch(w.dq, w);
  if (w.pre.push(make_entry(cid))) on_exposed(w);
  ++w.c.spawns_wf;
  const auto after = static_cast<std::int32_t>(w.pre.head() - w.base);
  if (after > 0) w.c.max_wf_depth = std::max<std::uint64_t>(w.c.max_wf_depth, static_cast<std::uint64_t>(after));
  w.c.busy += c_.spawn_wf + line;
  return now_ + c_.spawn_wf + line + run_task(w, cid);
}

time_ps engine::op_call(worker& w, task_id id, const step& s) {
  const task_id cid = new_task(w, id, s, task_kind::called);
  task& t = tasks_[id];
  task& c = tasks_[cid];
  advance(t, c_.call);
  c.span = t.span;
  c.bspan = t.bspan;
  ++w.c.calls;
  if (w.quota.preempt_pending()) return give_up_at_call(w, cid);
  w.c.busy += c_.call;
  return now_ + c_.call + run_task(w, cid);
}

time_ps engine::op_ret(worker& w, task_id id) {
  task& t = tasks_[id];
  if (checks_) checks_->ended(id);
  free_bytes(t.owner, t.bytes, false);
  switch (t.kind) {
    case task_kind::called: {  // back to the caller, sequentially
      const task_id p = t.parent;
      tasks_[p].span = t.span;
      tasks_[p].bspan = t.bspan;
      release_task(id);
      return now_ + run_task(w, p);
    }
    case task_kind::spawned: return complete_spawned(w, id);
    case task_kind::queued: return complete_queued(w, id);
  }
  return never;
}

// worker::complete_spawned and complete_spawned_slow.
time_ps engine::complete_spawned(worker& w, task_id id) {
  const entry me = make_entry(id);
  bool mine = false;
  time_ps shared = 0;
  if (w.pre.private_bottom_is(me)) {
    w.pre.drop_private_bottom();
    mine = true;
  } else if (w.pre.private_empty()) {
    entry got = no_entry;
    const std::uint32_t head_before = w.pre.head();
    shared = touch(w.dq, w);  // a CAS on the shared indices, which thieves read
    if (w.pre.pop_shared(me, got) == sim_deque::shared_pop::got) {
      if (w.pre.head() == head_before) ++w.base;  // taken by advancing tail: keep depth = head - base
      mine = true;
    }
  }
  if (!mine) return complete_queued(w, id, shared);  // detached: end the unit it was counted as
  const task& t = tasks_[id];
  join_edge(t);
  const task_id p = t.parent;
  release_task(id);
  w.c.busy += shared;
  return now_ + shared + run_task(w, p);
}

// worker::complete_queued: a counted unit ends.
time_ps engine::complete_queued(worker& w, task_id id, time_ps before) {
  const task& t = tasks_[id];
  join_edge(t);
  const finish_id g = t.join;
  const bool root = t.parent == none;
  release_task(id);
  ++w.c.arrivals;
  finish& F = fins_[g];
  const time_ps cost = before + c_.arrive + touch(F.line, w, before);  // the decrement moves the counter's line
  w.c.busy += cost;
  w.cur = none;
  if (F.count == 1 || root) return end_unit(w, g, cost);
  --F.count;
  ++w.c.context_switches;
  return go_idle(w, cost);
}

// worker::detach_bottom: the chain stops here; its innermost work-first child, if its entry is still
// at the bottom, is counted in its finish and the entry becomes its parent's tagged continuation (W1).
void engine::detach_bottom(worker& w) {
  entry e = no_entry;
  if (!w.pre.private_empty()) {
    e = w.pre.pop();
  } else if (w.pre.pop_shared(no_entry, e) == sim_deque::shared_pop::stolen) {
    return;
  }
  if (e == no_entry) return;
  w.pre.push(make_entry(detach_entry(e), parent_tag));
}

task_id engine::detach_entry(entry e) {
  if (e & entry_tags) return entry_task(e);
  const task& child = tasks_[entry_task(e)];
  ++fins_[child.join].count;
  return child.parent;
}

task_id engine::yield_continuation(worker& v, std::uint32_t thief) {
  const entry e = v.pre.steal(thief);
  if (e == no_entry) return none;
  ++v.stolen_pre;
  ++v.c.stolen_preempted;
  return detach_entry(e);
}

task_id engine::yield_fresh(worker& v, std::uint32_t thief) {
  const entry e = v.fresh.steal(thief);
  if (e == no_entry) return none;
  ++v.stolen_fresh;
  ++v.c.stolen_fresh;
  return entry_task(e);
}

}  // namespace slaw::sim
