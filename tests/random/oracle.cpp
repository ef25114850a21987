// The sequential interpreter behind the oracle (oracle.hpp). C++ exceptions model the program's own:
// `thrown` carries the set of ids an exception in flight may have, `returned` an early co_return.
#include "oracle.hpp"

#include <algorithm>

#include "objects.hpp"

namespace rp {

namespace {

struct thrown {
  std::vector<int> ids;
};
struct returned {};

void merge(std::vector<int>& into, const std::vector<int>& ids) {
  for (int i : ids)
    if (std::find(into.begin(), into.end(), i) == into.end()) into.push_back(i);
  std::sort(into.begin(), into.end());
}

class interpreter {
 public:
  interpreter(const program& p, const place_view& t) : p_(p), t_(t) {
    e_.task_place.assign(static_cast<std::size_t>(p.tasks), t.root);
    e_.finishes.resize(static_cast<std::size_t>(p.finishes));
    e_.spawned.assign(static_cast<std::size_t>(p.tasks), 0);
    e_.slot_value.assign(static_cast<std::size_t>(p.tasks), unwritten);
    e_.try_reached.assign(static_cast<std::size_t>(p.tries), 0);
    e_.try_caught.resize(static_cast<std::size_t>(p.tries));
    e_.call_returned.assign(static_cast<std::size_t>(p.calls), 0);
    e_.call_value.assign(static_cast<std::size_t>(p.calls), 0);
  }

  expectation run() {
    // runtime::run: the root is task 0 in the implicit finish 0, which rethrows the first exception.
    fin(0).reached = true;
    run_task(0, 0, 0, false, &e_.run_value, t_.root);
    expectation::finish& root = fin(0);
    if (root.child_threw) {
      root.how = finish_end::threw;
      root.possible = root.child_ids;
      e_.run_threw = true;
      e_.run_possible = root.child_ids;
    }
    return std::move(e_);
  }

 private:
  expectation::finish& fin(int id) { return e_.finishes[static_cast<std::size_t>(id)]; }

  // A spawned task: runs to completion now; its exception goes to its finish (ief).
  void run_task(int id, int fn, int ief, bool slot, long* value, std::size_t place) {
    e_.spawned[static_cast<std::size_t>(id)] = 1;
    e_.task_place[static_cast<std::size_t>(id)] = place;
    for (int f = ief; f >= 0; f = fin(f).parent) fin(f).tasks.push_back(id);
    if (slot) fin(ief).slots.push_back(id);
    try {
      long v = run_function(fn, ief, place);
      if (slot) e_.slot_value[static_cast<std::size_t>(id)] = v;
      if (value) *value = v;
    } catch (const thrown& t) {
      fin(ief).child_threw = true;
      merge(fin(ief).child_ids, t.ids);
    }
  }

  // A frame whose innermost finish is `cur` (inherited: the caller's, the task's finish, or the body's).
  // `place`: the frame's task's place (a call and a finish body run in their caller's task).
  long run_function(int fn, int cur, std::size_t place) {
    const function& f = p_.fns[static_cast<std::size_t>(fn)];
    long acc = f.base;
    try {
      run_list(f.body, cur, acc, place);
    } catch (const returned&) {
    }
    return acc;
  }

  void run_list(const std::vector<stmt>& list, int cur, long& acc, std::size_t place) {
    for (const stmt& s : list) run_stmt(s, cur, acc, place);
  }

  int open(int id, int cur) {
    expectation::finish& f = fin(id);
    f.reached = true;
    f.parent = cur;
    return id;
  }

  // The end of a finish that was not abandoned: it rethrows one of its tasks' exceptions, if any.
  void end(int id) {
    expectation::finish& f = fin(id);
    if (!f.child_threw) return;
    f.how = finish_end::threw;
    f.possible = f.child_ids;
    throw thrown{f.possible};
  }

  void run_stmt(const stmt& s, int cur, long& acc, std::size_t place) {
    switch (s.kind) {
      case stmt_kind::spawn:
        run_task(s.id, s.fn, cur, s.slot, nullptr, resolve(t_, s.pl, s.pk, place));
        break;
      case stmt_kind::call: {
        long v = run_function(s.fn, cur, place);
        e_.call_returned[static_cast<std::size_t>(s.id)] = 1;
        if (p_.fns[static_cast<std::size_t>(s.fn)].ret != rtype::void_) e_.call_value[static_cast<std::size_t>(s.id)] = v;
        if (s.use) acc += v;
        break;
      }
      case stmt_kind::scope: {
        int f = open(s.id, cur);
        try {
          run_list(s.body, f, acc, place);
        } catch (...) {  // left without end_finish: waits, drops its tasks' exceptions
          fin(f).how = finish_end::abandoned;
          throw;
        }
        end(f);
        break;
      }
      case stmt_kind::lfinish: {
        int f = open(s.id, cur);
        try {
          run_function(s.fn, f, place);
        } catch (const thrown& t) {  // the body's own exception wins over its tasks'
          fin(f).how = finish_end::threw;
          fin(f).possible = t.ids;
          throw;
        }
        end(f);
        break;
      }
      case stmt_kind::try_:
        e_.try_reached[static_cast<std::size_t>(s.id)] = 1;
        try {
          run_list(s.body, cur, acc, place);
        } catch (const thrown& t) {
          e_.try_caught[static_cast<std::size_t>(s.id)] = t.ids;
        }
        break;
      case stmt_kind::throw_:
        throw thrown{{s.id}};
      case stmt_kind::ret:
        throw returned{};
      case stmt_kind::buffer:
        ++e_.buffers;
        break;
      case stmt_kind::isolated:
        ++e_.isolated;
        break;
      case stmt_kind::work:
        break;
      case stmt_kind::loop: {  // a finish whose iterations are calls (nothing inside throws)
        int f = open(s.id, cur);
        for (std::size_t i = 0; i < s.loop_fns.size(); ++i) {
          const int call = s.loop_calls[i], fn = s.loop_fns[i];
          long v = run_function(fn, f, place);
          e_.call_returned[static_cast<std::size_t>(call)] = 1;
          if (p_.fns[static_cast<std::size_t>(fn)].ret != rtype::void_) e_.call_value[static_cast<std::size_t>(call)] = v;
        }
        end(f);
        break;
      }
    }
  }

  const program& p_;
  const place_view& t_;
  expectation e_;
};

}  // namespace

std::size_t resolve(const place_view& t, place_choice c, std::uint32_t k, std::size_t here) {
  const std::size_t leaf = t.leaves ? k % t.leaves : t.root;
  switch (c) {
    case place_choice::inherit:
    case place_choice::here: return here;
    case place_choice::leaf: return leaf;
    case place_choice::parent: return t.parent[leaf];
    case place_choice::grandparent: return t.parent[t.parent[leaf]];
    case place_choice::root: return t.root;
  }
  return here;
}

expectation interpret(const program& p, const place_view* places) {
  static const place_view flat{};
  return interpreter(p, places ? *places : flat).run();
}

}  // namespace rp
