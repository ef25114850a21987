// The runner (runner.hpp): a program's functions compiled to flat statement lists, one interpreting
// coroutine frame per function. The frame holds the function's open finish scopes (constructed in place,
// as `auto s = co_await slaw::start_finish();` does), its local slots and its buffers; it leaves its
// scopes exactly as C++ code does: end_finish, an early co_return, or an exception unwinding the frame.
#include "runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <type_traits>

#include "objects.hpp"

namespace rp {

namespace {

// ------------------------------------------------------------------------------------------ compiling

enum class iop : std::uint8_t { spawn, call, scope_begin, scope_end, lfinish, try_begin, try_end, throw_, ret, buffer, isolated, work, loop };

struct ins {
  iop op;
  const stmt* s;
  int end = -1;  // try_begin: the index of its try_end
};

struct code {
  std::vector<ins> list;
  int locals = 0;  // slots that live in the frame
};

struct compiled {
  std::vector<code> fns;
  std::size_t max_records = 0;   // place_recs a correct run can take: a start per frame, one per instruction
  std::vector<int> local_scope;  // per task: the scope of the spawner's frame whose slot it writes, or -1
  std::vector<int> local_index;  //   ... and the slot's index in that frame
  std::vector<rtype> task_ret;   // per task: what its function returns
};

void compile_list(const program& p, compiled& c, code& cd, const std::vector<stmt>& list, std::vector<int>& scopes) {
  for (const stmt& s : list) {
    switch (s.kind) {
      case stmt_kind::scope:
        cd.list.push_back({iop::scope_begin, &s});
        scopes.push_back(s.id);
        compile_list(p, c, cd, s.body, scopes);
        scopes.pop_back();
        cd.list.push_back({iop::scope_end, &s});
        break;
      case stmt_kind::try_: {
        std::size_t at = cd.list.size();
        cd.list.push_back({iop::try_begin, &s});
        compile_list(p, c, cd, s.body, scopes);
        cd.list[at].end = static_cast<int>(cd.list.size());
        cd.list.push_back({iop::try_end, &s});
        break;
      }
      case stmt_kind::spawn:
        c.task_ret[static_cast<std::size_t>(s.id)] = p.fns[static_cast<std::size_t>(s.fn)].ret;
        // A task joining a scope of this frame writes a slot of this frame, as `long a;` in fib; the
        // others write slots that outlive every frame (their finish may be a caller's).
        if (s.slot && !scopes.empty()) {
          c.local_scope[static_cast<std::size_t>(s.id)] = scopes.back();
          c.local_index[static_cast<std::size_t>(s.id)] = cd.locals++;
        }
        cd.list.push_back({iop::spawn, &s});
        break;
      case stmt_kind::call: cd.list.push_back({iop::call, &s}); break;
      case stmt_kind::lfinish: cd.list.push_back({iop::lfinish, &s}); break;
      case stmt_kind::throw_: cd.list.push_back({iop::throw_, &s}); break;
      case stmt_kind::ret: cd.list.push_back({iop::ret, &s}); break;
      case stmt_kind::buffer: cd.list.push_back({iop::buffer, &s}); break;
      case stmt_kind::isolated: cd.list.push_back({iop::isolated, &s}); break;
      case stmt_kind::work: cd.list.push_back({iop::work, &s}); break;
      case stmt_kind::loop: cd.list.push_back({iop::loop, &s}); break;
    }
  }
}

compiled compile(const program& p) {
  compiled c;
  c.fns.resize(p.fns.size());
  c.local_scope.assign(static_cast<std::size_t>(p.tasks), -1);
  c.local_index.assign(static_cast<std::size_t>(p.tasks), -1);
  c.task_ret.assign(static_cast<std::size_t>(p.tasks), rtype::void_);
  std::vector<int> scopes;
  for (std::size_t i = 0; i < p.fns.size(); ++i) {
    compile_list(p, c, c.fns[i], p.fns[i].body, scopes);
    c.max_records += 1 + c.fns[i].list.size();  // every function runs at most once
  }
  return c;
}

// ------------------------------------------------------------------------------------------ a run

struct slot_cell {
  long l = unwritten;
  counted c;
  counted_ptr u;
};

template <class R>
R* slot_in(slot_cell& s) {
  if constexpr (std::is_same_v<R, long>) return &s.l;
  else if constexpr (std::is_same_v<R, counted>) return &s.c;
  else return &s.u;
}

long value_of(long v) { return v; }
long value_of(const counted& c) { return c.value(); }
long value_of(const counted_ptr& p) { return p ? p->value() : unwritten; }

long read_slot(const slot_cell& s, rtype t) {
  switch (t) {
    case rtype::long_: return s.l;
    case rtype::counted: return value_of(s.c);
    case rtype::uptr: return value_of(s.u);
    default: return unwritten;
  }
}

template <class T>
T result_of(long acc) {
  if constexpr (std::is_same_v<T, long>) return acc;
  else if constexpr (std::is_same_v<T, counted>) return counted(acc);
  else return std::make_unique<counted>(acc);
}

struct exec {
  const program& p;
  const expectation& e;
  const compiled& c;
  observation& o;
  std::vector<slot_cell> global;  // per task
  std::unique_ptr<std::atomic<int>[]> runs, ended;
  std::atomic<int> in_isolated{0};
  long shared = 0;  // only touched inside isolated blocks
  std::atomic<long> buffers{0};
  std::mutex error_mutex;  // the error path only: no synchronisation the runtime should provide
  // Place records (a place program only): slots claimed with one fetch_add, so that a task run twice at
  // once shows as wrong counts rather than as a data race in the test.
  const bool record;
  std::unique_ptr<place_rec[]> recs;
  std::atomic<std::size_t> nrecs{0};

  exec(const program& pr, const expectation& ex, const compiled& co, observation& ob, bool rec)
      : p(pr), e(ex), c(co), o(ob), global(static_cast<std::size_t>(pr.tasks)),
        runs(new std::atomic<int>[static_cast<std::size_t>(pr.tasks)]),
        ended(new std::atomic<int>[static_cast<std::size_t>(pr.tasks)]), record(rec),
        recs(rec ? new place_rec[co.max_records] : nullptr) {
    for (int i = 0; i < pr.tasks; ++i) {
      runs[i].store(0, std::memory_order_relaxed);
      ended[i].store(0, std::memory_order_relaxed);
    }
  }

  // Where the strand of `task` runs now (nothing in a flat program).
  void note(int task, int fn, int pc, place_point pt) {
    if (!record) return;
    const std::size_t i = nrecs.fetch_add(1, std::memory_order_relaxed);
    if (i < c.max_records) recs[i] = {task, fn, pc, pt, slaw::this_worker(), slaw::here().index()};
  }

  void error(const std::string& msg) {
    std::lock_guard<std::mutex> g(error_mutex);
    if (o.errors.size() < 20) o.errors.push_back(msg);
  }

  rtype ret_of_fn(int fn) const { return p.fns[static_cast<std::size_t>(fn)].ret; }

  // A finish ended (or was left): record how, which of the tasks inside it had ended, and its slots.
  void finish_ended(int id, finish_end how, int exc, slot_cell* locals) {
    observation::finish& f = o.finishes[static_cast<std::size_t>(id)];
    const expectation::finish& ef = e.finishes[static_cast<std::size_t>(id)];
    f.reached = true;
    f.how = how;
    f.exc = exc;
    for (int t : ef.tasks) f.ended_inside += ended[t].load(std::memory_order_relaxed) != 0;
    for (int t : ef.slots) {
      const std::size_t ti = static_cast<std::size_t>(t);
      const slot_cell* cell = &global[ti];
      if (c.local_scope[ti] >= 0) {
        if (c.local_scope[ti] != id || !locals) {
          error("internal: oracle and runner disagree on the finish of task " + std::to_string(t));
          continue;
        }
        cell = &locals[c.local_index[ti]];
      }
      o.slot_seen[ti] = 1;
      o.slot_value[ti] = read_slot(*cell, c.task_ret[ti]);
    }
  }

  void isolated_body() {
    if (in_isolated.exchange(1, std::memory_order_relaxed) != 0) error("two isolated blocks ran at once");
    ++shared;
    in_isolated.store(0, std::memory_order_relaxed);
  }
};

int id_of(const std::exception_ptr& ep, exec* x) {
  try {
    std::rethrow_exception(ep);
  } catch (const test_error& t) {
    return t.id;
  } catch (const std::exception& ex) {
    x->error(std::string("a finish rethrew a foreign exception: ") + ex.what());
  } catch (...) {
    x->error("a finish rethrew a foreign exception");
  }
  return -2;
}

// Marks a task run when its frame starts and ended when the frame's last local is gone.
class task_mark {
 public:
  task_mark(exec* x, int task) : x_(x), task_(task) {
    if (task_ >= 0) x_->runs[task_].fetch_add(1, std::memory_order_relaxed);
  }
  task_mark(const task_mark&) = delete;
  ~task_mark() {
    if (task_ >= 0) x_->ended[task_].store(1, std::memory_order_relaxed);
  }

 private:
  exec* x_;
  int task_;
};

// A make_buffer result held by a frame until it ends; its contents are checked when it is freed.
class held_buffer {
 public:
  held_buffer(slaw::buffer<std::uint64_t>&& b, exec* x, int id)
      : b_(std::move(b)), x_(x), tag_(0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(id + 1)) {
    for (std::size_t i = 0; i < b_.size(); ++i) b_[i] = tag_ + i;
    live.buffer_bytes.fetch_add(bytes(), std::memory_order_relaxed);
    x_->buffers.fetch_add(1, std::memory_order_relaxed);
  }
  held_buffer(held_buffer&& o) noexcept : b_(std::move(o.b_)), x_(o.x_), tag_(o.tag_) {}
  held_buffer(const held_buffer&) = delete;
  ~held_buffer() {
    if (b_.size() == 0) return;
    for (std::size_t i = 0; i < b_.size(); ++i)
      if (b_[i] != tag_ + i) {
        x_->error("a buffer's contents changed while its frame held it");
        break;
      }
    live.buffer_bytes.fetch_sub(bytes(), std::memory_order_relaxed);
  }

 private:
  long bytes() const { return static_cast<long>(b_.size() * sizeof(std::uint64_t)); }
  slaw::buffer<std::uint64_t> b_;
  exec* x_;
  std::uint64_t tag_;
};

// co_await this_frame{} gives the running coroutine's handle (slaw passes unknown awaitables through).
struct this_frame {
  std::coroutine_handle<> h;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> c) noexcept {
    h = c;
    return false;  // no suspension: resumes at once
  }
  std::coroutine_handle<> await_resume() const noexcept { return h; }
};

template <class Make>
void construct_scope(void* at, Make&& make) {
  ::new (at) slaw::finish_scope(make());  // the prvalue initialises *at directly: no move
}

// The open finish scopes of one frame, innermost last. Leaving one without end_finish runs its
// destructor, which waits for its tasks.
class scope_stack {
 public:
  static constexpr int max = 4;  // the generator nests at most 3 scopes/trys in a frame
  scope_stack(exec* x, slot_cell* locals) : x_(x), locals_(locals) {}
  scope_stack(const scope_stack&) = delete;
  ~scope_stack() { unwind_to(0); }

  void* push(int id) {
    if (n_ == max) std::abort();
    ids_[n_] = id;
    return &store_[n_++];
  }
  slaw::finish_scope& top() { return *std::launder(reinterpret_cast<slaw::finish_scope*>(&store_[n_ - 1])); }
  // After end_finish (which ended the scope, or ended it and threw).
  void pop_ended(const std::exception_ptr& ep) {
    int id = ids_[n_ - 1];
    top().~finish_scope();
    --n_;
    x_->finish_ended(id, ep ? finish_end::threw : finish_end::normal, ep ? id_of(ep, x_) : -1, locals_);
  }
  // Leaves the innermost scopes without end_finish.
  void unwind_to(int depth) {
    while (n_ > depth) {
      int id = ids_[n_ - 1];
      top().~finish_scope();
      --n_;
      x_->finish_ended(id, finish_end::abandoned, -1, locals_);
    }
  }
  int depth() const { return n_; }

  // `auto s = co_await slaw::start_finish()` into the next free place, spelled out: GCC 12 fails with an
  // internal compiler error on `::new (p) T(co_await ...)`. start_finish never suspends, so this is
  // what co_await does: the frame's await_transform, then await_resume.
  template <class P>
  void open(int id, P& frame) {
    auto aw = frame.await_transform(slaw::start_finish());
    if (!aw.await_ready()) std::abort();
    construct_scope(push(id), [&] { return aw.await_resume(); });
  }

 private:
  struct alignas(slaw::finish_scope) storage {
    unsigned char bytes[sizeof(slaw::finish_scope)];
  };
  exec* x_;
  slot_cell* locals_;
  storage store_[max];
  int ids_[max] = {};
  int n_ = 0;
};

struct try_rec {
  int id, depth, end;
};

// An exception leaving a statement unwinds the scopes opened inside the innermost try (all of them if
// there is none), as the destructors of their `auto s` would during unwinding.
class unwind_guard {
 public:
  unwind_guard(scope_stack& s, int mark) : s_(s), mark_(mark) {}
  unwind_guard(const unwind_guard&) = delete;
  ~unwind_guard() {
    if (!done_) s_.unwind_to(mark_);
  }
  void done() { done_ = true; }

 private:
  scope_stack& s_;
  int mark_;
  bool done_ = false;
};

// clause::none is spelled slaw::dyn, the default schedule: the same spawn, and one type for
// slaw::async's result (its clauses are part of the type) whatever the schedule clause.
slaw::schedule_clause to_slaw(clause c) {
  return c == clause::wf ? slaw::wf : c == clause::hf ? slaw::hf : slaw::dyn;
}

// The place a spawn's clause names, resolved now against the running task's place and the runtime's
// tree (the oracle resolves the same choice against its snapshot of the tree: oracle.cpp, resolve).
slaw::place live_place(const stmt& s) {
  auto leaf = [&] { return slaw::place(s.pk % slaw::num_places()); };
  switch (s.pl) {
    case place_choice::leaf: return leaf();
    case place_choice::parent: return leaf().parent();
    case place_choice::grandparent: return leaf().parent().parent();
    case place_choice::root: return slaw::root_place();
    case place_choice::inherit:
    case place_choice::here: break;
  }
  return slaw::here();
}

// slaw::async with or without a place clause (Placed: `at`), with a schedule clause, with or without a
// slot; a... is a task, or a callable and its arguments.
template <class R, bool Placed, class... A>
auto async_with(clause cl, slaw::place_clause at, R* slot, A&&... a) {
  if constexpr (Placed) {
    if constexpr (!std::is_void_v<R>)
      if (slot) return slaw::async(at, to_slaw(cl), slot, std::forward<A>(a)...);
    return slaw::async(at, to_slaw(cl), std::forward<A>(a)...);
  } else {
    if constexpr (!std::is_void_v<R>)
      if (slot) return slaw::async(to_slaw(cl), slot, std::forward<A>(a)...);
    return slaw::async(to_slaw(cl), std::forward<A>(a)...);
  }
}

template <class R>
R* slot_for(exec* x, const stmt& s, slot_cell* locals) {
  if constexpr (std::is_void_v<R>) {
    return nullptr;
  } else {
    if (!s.slot) return nullptr;
    int li = x->c.local_index[static_cast<std::size_t>(s.id)];
    return slot_in<R>(li >= 0 ? locals[li] : x->global[static_cast<std::size_t>(s.id)]);
  }
}

void spin(std::uint32_t steps) {
  volatile std::uint32_t sink = 0;
  for (std::uint32_t i = 0; i < steps; ++i) sink = sink + i;
}

void capture_check(bool ok) {
  if (!ok) live.dead_captures.fetch_add(1, std::memory_order_relaxed);
}

template <class T>
slaw::task<T> run_fn(exec* x, int fn, int task, int owner);

// async(f, args...) or async(f(args...)).
template <class R, bool Placed>
auto spawn_plain(exec* x, const stmt& s, slot_cell* locals, slaw::place_clause at) {
  if (s.form == spawn_form::task_object)
    return async_with<R, Placed>(s.cl, at, slot_for<R>(x, s, locals), run_fn<R>(x, s.fn, s.id, s.id));
  return async_with<R, Placed>(s.cl, at, slot_for<R>(x, s, locals), run_fn<R>, x, s.fn, s.id, s.id);
}

// A lambda capturing by value (a canary, the task id) and by reference (the run), as in
// `async([i, &sum]() -> task<> {...})`. The closure is a temporary of the spawning statement: the
// runtime must keep it alive while the task runs, which the canary checks before and after it suspends.
template <class R>
auto capturing_lambda(exec* x, int id) {
  return [cn = canary(id), idv = id, &xr = *x](exec* xp, int fn, int task) -> slaw::task<R> {
    capture_check(cn.alive(task) && idv == task && &xr == xp);
    if constexpr (std::is_void_v<R>) {
      co_await run_fn<void>(xp, fn, task, task);
      capture_check(cn.alive(task) && idv == task && &xr == xp);
    } else {
      R r = co_await run_fn<R>(xp, fn, task, task);
      capture_check(cn.alive(task) && idv == task && &xr == xp);
      co_return std::move(r);
    }
  };
}

void called(exec* x, const stmt& s, long v, long& acc) {
  x->o.call_returned[static_cast<std::size_t>(s.id)] = 1;
  x->o.call_value[static_cast<std::size_t>(s.id)] = v;
  if (s.use) acc += v;
}

// Iteration i of a loop statement: a call of its i-th function.
slaw::task<> loop_iteration(exec* x, const stmt* s, int i, int owner) {
  const int fn = s->loop_fns[static_cast<std::size_t>(i)];
  long v = 0;
  switch (x->ret_of_fn(fn)) {
    case rtype::void_: co_await run_fn<void>(x, fn, -1, owner); break;
    case rtype::long_: v = co_await run_fn<long>(x, fn, -1, owner); break;
    case rtype::counted: v = value_of(co_await run_fn<counted>(x, fn, -1, owner)); break;
    case rtype::uptr: v = value_of(co_await run_fn<counted_ptr>(x, fn, -1, owner)); break;
  }
  const std::size_t call = static_cast<std::size_t>(s->loop_calls[static_cast<std::size_t>(i)]);
  x->o.call_returned[call] = 1;
  x->o.call_value[call] = v;
}

// One frame of the program: function fn, run as task `task` (-1: a call or a finish body) in the strand
// of task `owner` (the task itself, or the caller's).
template <class T>
slaw::task<T> run_fn(exec* x, int fn, int task, int owner) {
  task_mark mark(x, task);
  x->note(owner, fn, -1, place_point::start);
  const code& cd = x->c.fns[static_cast<std::size_t>(fn)];
  std::unique_ptr<slot_cell[]> locals(cd.locals ? new slot_cell[static_cast<std::size_t>(cd.locals)] : nullptr);
  std::vector<held_buffer> buffers;
  scope_stack scopes(x, locals.get());
  try_rec tries[scope_stack::max];
  int ntries = 0;
  long acc = x->p.fns[static_cast<std::size_t>(fn)].base;
  const int n = static_cast<int>(cd.list.size());
  for (int pc = 0; pc < n;) {
    const ins& in = cd.list[static_cast<std::size_t>(pc)];
    const stmt& s = *in.s;
    int next = pc + 1;
    try {
      unwind_guard guard(scopes, ntries ? tries[ntries - 1].depth : 0);
      switch (in.op) {
        case iop::spawn: {
          const bool cap = s.form == spawn_form::capture_lambda;
          slot_cell* l = locals.get();
          const bool placed = s.pl != place_choice::inherit;
          const slaw::place_clause at = placed ? slaw::at(live_place(s)) : slaw::place_clause{0};
          // One co_await per result type, place clause or not, and spawn form (async's result type
          // depends on all three).
#define RP_SPAWN(R, P)                                                                                       \
  if (cap) co_await async_with<R, P>(s.cl, at, slot_for<R>(x, s, l), capturing_lambda<R>(x, s.id), x, s.fn, s.id); \
  else co_await spawn_plain<R, P>(x, s, l, at)
#define RP_SPAWN_ANY(R) \
  if (placed) {         \
    RP_SPAWN(R, true);  \
  } else {              \
    RP_SPAWN(R, false); \
  }
          switch (x->ret_of_fn(s.fn)) {
            case rtype::void_: RP_SPAWN_ANY(void) break;
            case rtype::long_: RP_SPAWN_ANY(long) break;
            case rtype::counted: RP_SPAWN_ANY(counted) break;
            case rtype::uptr: RP_SPAWN_ANY(counted_ptr) break;
          }
#undef RP_SPAWN_ANY
#undef RP_SPAWN
          x->note(owner, fn, pc, place_point::spawn);  // a thief may have taken the continuation
          break;
        }
        case iop::call:
          switch (x->ret_of_fn(s.fn)) {
            case rtype::void_: co_await run_fn<void>(x, s.fn, -1, owner); called(x, s, 0, acc); break;
            case rtype::long_: called(x, s, co_await run_fn<long>(x, s.fn, -1, owner), acc); break;
            case rtype::counted: called(x, s, value_of(co_await run_fn<counted>(x, s.fn, -1, owner)), acc); break;
            case rtype::uptr: called(x, s, value_of(co_await run_fn<counted_ptr>(x, s.fn, -1, owner)), acc); break;
          }
          x->note(owner, fn, pc, place_point::call);
          break;
        case iop::scope_begin:
#if defined(__clang__)
          ::new (scopes.push(s.id)) slaw::finish_scope(co_await slaw::start_finish());
#else
          {
            std::coroutine_handle<> h = co_await this_frame{};
            using promise = typename slaw::task<T>::promise_type;
            scopes.open(s.id, std::coroutine_handle<promise>::from_address(h.address()).promise());
          }
#endif
          break;
        case iop::scope_end: {
          std::exception_ptr ep;
          try {
            co_await slaw::end_finish(scopes.top());
          } catch (...) {
            ep = std::current_exception();
          }
          x->note(owner, fn, pc, place_point::end_finish);
          scopes.pop_ended(ep);
          if (ep) std::rethrow_exception(ep);
          break;
        }
        case iop::lfinish: {
          std::exception_ptr ep;
          try {
            if (s.coro_lambda) co_await slaw::finish([x, f = s.fn, owner]() -> slaw::task<> { co_await run_fn<void>(x, f, -1, owner); });
            else co_await slaw::finish([x, f = s.fn, owner] { return run_fn<void>(x, f, -1, owner); });
          } catch (...) {
            ep = std::current_exception();
          }
          x->note(owner, fn, pc, place_point::finish);
          x->finish_ended(s.id, ep ? finish_end::threw : finish_end::normal, ep ? id_of(ep, x) : -1, nullptr);
          if (ep) std::rethrow_exception(ep);
          break;
        }
        case iop::try_begin:
          if (ntries == scope_stack::max) std::abort();
          tries[ntries++] = {s.id, scopes.depth(), in.end};
          x->o.try_reached[static_cast<std::size_t>(s.id)] = 1;
          break;
        case iop::try_end:
          --ntries;
          break;
        case iop::throw_:
          throw test_error{s.id};
        case iop::ret:
          guard.done();  // the frame's scope_stack leaves the open scopes
          if constexpr (std::is_void_v<T>) co_return;
          else co_return result_of<T>(acc);
        case iop::buffer:
          buffers.emplace_back(co_await slaw::make_buffer<std::uint64_t>(s.n), x, s.id);
          x->note(owner, fn, pc, place_point::buffer);
          break;
        case iop::isolated:
          slaw::isolated([x] { x->isolated_body(); });
          break;
        case iop::work:
          if (s.nap) std::this_thread::sleep_for(std::chrono::microseconds(s.n));
          else spin(s.n);
          break;
        case iop::loop: {  // a finish (s.id) around the iterations: ended when the loop returns
          const int k = static_cast<int>(s.loop_fns.size());
          auto body = [x, sp = &s, owner](int i) { return loop_iteration(x, sp, i, owner); };
          std::exception_ptr ep;
          try {
            if (s.n) co_await slaw::for_each_index(to_slaw(s.cl), slaw::grain(s.n), 0, k, body);
            else co_await slaw::for_each_index(to_slaw(s.cl), 0, k, body);
          } catch (...) {
            ep = std::current_exception();
          }
          x->finish_ended(s.id, ep ? finish_end::threw : finish_end::normal, ep ? id_of(ep, x) : -1, locals.get());
          if (ep) std::rethrow_exception(ep);
          x->note(owner, fn, pc, place_point::call);
          break;
        }
      }
      guard.done();
    } catch (const test_error& t) {
      if (ntries == 0) throw;
      const try_rec& r = tries[--ntries];
      x->o.try_caught[static_cast<std::size_t>(r.id)] = t.id;
      x->note(owner, fn, pc, place_point::caught);
      next = r.end + 1;
    }
    pc = next;
  }
  if constexpr (std::is_void_v<T>) co_return;
  else co_return result_of<T>(acc);
}

template <class T>
long run_root(slaw::runtime& rt, exec* x) {
  if constexpr (std::is_void_v<T>) {
    rt.run(run_fn<void>(x, 0, 0, 0));
    return 0;
  } else {
    return value_of(rt.run(run_fn<T>(x, 0, 0, 0)));
  }
}

}  // namespace

observation run_program(slaw::runtime& rt, const program& p, const expectation& e, const place_view* places) {
  const compiled c = compile(p);
  observation o;
  const std::size_t tasks = static_cast<std::size_t>(p.tasks);
  o.finishes.resize(static_cast<std::size_t>(p.finishes));
  o.task_runs.assign(tasks, 0);
  o.task_ended.assign(tasks, 0);
  o.slot_seen.assign(tasks, 0);
  o.slot_value.assign(tasks, unwritten);
  o.try_reached.assign(static_cast<std::size_t>(p.tries), 0);
  o.try_caught.assign(static_cast<std::size_t>(p.tries), -1);
  o.call_returned.assign(static_cast<std::size_t>(p.calls), 0);
  o.call_value.assign(static_cast<std::size_t>(p.calls), 0);
  {
    exec x(p, e, c, o, places != nullptr);
    std::exception_ptr ep;
    try {
      switch (p.fns[0].ret) {
        case rtype::void_: o.run_value = run_root<void>(rt, &x); break;
        case rtype::long_: o.run_value = run_root<long>(rt, &x); break;
        case rtype::counted: o.run_value = run_root<counted>(rt, &x); break;
        case rtype::uptr: o.run_value = run_root<counted_ptr>(rt, &x); break;
      }
    } catch (...) {
      ep = std::current_exception();
    }
    if (ep) {
      o.run_threw = true;
      o.run_exc = id_of(ep, &x);
    }
    x.finish_ended(0, ep ? finish_end::threw : finish_end::normal, o.run_exc, nullptr);
    for (std::size_t i = 0; i < tasks; ++i) {
      o.task_runs[i] = x.runs[i].load(std::memory_order_relaxed);
      o.task_ended[i] = x.ended[i].load(std::memory_order_relaxed);
    }
    o.isolated = x.shared;
    o.buffers = x.buffers.load(std::memory_order_relaxed);
    if (places) {
      const std::size_t n = x.nrecs.load(std::memory_order_relaxed);
      if (n > c.max_records)
        o.errors.push_back(std::to_string(n) + " place records, more than the " + std::to_string(c.max_records) +
                           " the program can make (a frame ran twice?)");
      o.places.assign(x.recs.get(), x.recs.get() + std::min(n, c.max_records));
    }
  }  // the run's global slots go here: the live counters are back to their start after this
  return o;
}

const char* to_string(place_point p) {
  switch (p) {
    case place_point::start: return "its start";
    case place_point::spawn: return "a spawn";
    case place_point::call: return "a call's return";
    case place_point::end_finish: return "end_finish";
    case place_point::finish: return "a finish(lambda)";
    case place_point::buffer: return "make_buffer";
    case place_point::caught: return "a catch";
  }
  return "?";
}

namespace {

std::string list_text(const std::vector<unsigned>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}

slaw::task<> read_tree(place_view* v, unsigned nworkers, std::vector<std::string>* errors) {
  auto err = [&](const std::string& m) { errors->push_back("place API: " + m); };
  const slaw::place root = slaw::root_place();
  if (!root.is_root()) err("root_place().is_root() is false");
  if (!(root.parent() == root)) err("the root's parent is not the root");
  if (root.depth() != 0) err("the root's depth is " + std::to_string(root.depth()));
  if (!(slaw::here() == root)) err("the root task's here() is " + std::to_string(slaw::here().index()) + ", not the root");
  if (slaw::this_worker() >= nworkers) err("this_worker() = " + std::to_string(slaw::this_worker()));
  // Breadth first from the root through children(): every place once.
  std::vector<slaw::place> all{root};
  for (std::size_t i = 0; i < all.size() && all.size() < 100000; ++i)
    for (const slaw::place& c : all[i].children()) all.push_back(c);
  const std::size_t n = all.size(), leaves = slaw::num_places();
  v->leaves = leaves;
  v->root = root.index();
  v->parent.assign(n, n);
  v->workers.assign(n, {});
  std::vector<char> seen(n, 0);
  for (const slaw::place& q : all) {
    const std::size_t i = q.index();
    const std::string name = "place " + std::to_string(i);
    if (i >= n) {
      err(name + ": index out of 0.." + std::to_string(n - 1));
      continue;
    }
    if (seen[i]++) err(name + " is reached twice from the root");
    v->parent[i] = q.parent().index();
    v->workers[i] = q.workers();
    const std::vector<slaw::place> ch = q.children();
    if (q.is_leaf() != (i < leaves)) err(name + ": is_leaf() " + (q.is_leaf() ? "true" : "false") + " but " + std::to_string(leaves) + " listed places");
    if (q.is_leaf() != ch.empty()) err(name + ": is_leaf() disagrees with children()");
    if (q.is_root() != (i == v->root)) err(name + ": is_root() disagrees with root_place()");
    if (!q.contains(q)) err(name + " does not contain itself");
    if (!root.contains(q)) err("the root does not contain " + name);
    if (q.workers().empty()) err(name + " has no workers");
    if (!std::is_sorted(v->workers[i].begin(), v->workers[i].end())) err(name + ": workers() not ascending");
    std::vector<unsigned> below;
    for (const slaw::place& c : ch) {
      if (!(c.parent() == q)) err("place " + std::to_string(c.index()) + ": parent() is not " + name + ", whose child it is");
      if (c.depth() != q.depth() + 1) err("place " + std::to_string(c.index()) + ": depth not its parent's + 1");
      if (!q.contains(c) || c.contains(q)) err(name + " and its child " + std::to_string(c.index()) + ": contains() wrong");
      for (unsigned w : c.workers()) below.push_back(w);
    }
    std::sort(below.begin(), below.end());
    if (!ch.empty() && below != v->workers[i])
      err(name + ": workers() " + list_text(v->workers[i]) + " are not its children's " + list_text(below));
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!seen[i]) err("place " + std::to_string(i) + " is not reached from the root");
  for (std::size_t i = 0; i < leaves; ++i) {
    const slaw::place q(i);
    if (q.index() != i || !q.is_leaf()) err("place(" + std::to_string(i) + ") is not leaf " + std::to_string(i));
  }
  // The leaves' workers are every worker, each once.
  std::vector<unsigned> all_workers;
  for (std::size_t i = 0; i < leaves && i < n; ++i)
    for (unsigned w : v->workers[i]) all_workers.push_back(w);
  std::sort(all_workers.begin(), all_workers.end());
  std::vector<unsigned> want(nworkers);
  for (unsigned w = 0; w < nworkers; ++w) want[w] = w;
  if (all_workers != want) err("the leaves' workers " + list_text(all_workers) + " are not each worker once");
  if (v->workers[v->root] != want) err("the root's workers are not every worker");
  co_return;
}

}  // namespace

place_view snapshot_places(slaw::runtime& rt, std::vector<std::string>& errors) {
  place_view v;
  rt.run(read_tree(&v, rt.workers(), &errors));
  return v;
}

}  // namespace rp
