// The comparison of check.hpp.
#include "check.hpp"

#include <algorithm>
#include <sstream>

namespace rp {

namespace {

std::string set_text(const std::vector<int>& ids) {
  std::string s = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(ids[i]);
  }
  s += '}';
  return s;
}

const char* end_text(finish_end h) {
  return h == finish_end::normal ? "ended normally" : h == finish_end::threw ? "threw" : "was left without end_finish";
}

bool in(const std::vector<int>& ids, int id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

}  // namespace

std::vector<std::string> check(const program& p, const expectation& e, const observation& o, const place_view* places,
                               std::size_t limit) {
  std::vector<std::string> out;
  auto fail = [&](const std::string& s) {
    if (out.size() < limit) out.push_back(s);
  };
  for (const std::string& s : o.errors) fail(s);

  for (int t = 0; t < p.tasks; ++t) {
    const std::size_t i = static_cast<std::size_t>(t);
    const int want = e.spawned[i] ? 1 : 0;
    if (o.task_runs[i] != want)
      fail("task " + std::to_string(t) + " ran " + std::to_string(o.task_runs[i]) + " times, expected " + std::to_string(want));
    else if (o.task_ended[i] != want)
      fail("task " + std::to_string(t) + " did not end");
  }

  for (int f = 0; f < p.finishes; ++f) {
    const expectation::finish& ef = e.finishes[static_cast<std::size_t>(f)];
    const observation::finish& of = o.finishes[static_cast<std::size_t>(f)];
    const std::string name = "finish " + std::to_string(f);
    if (of.reached != ef.reached) {
      fail(name + (ef.reached ? " never ended" : " ended but should not have been reached"));
      continue;
    }
    if (!ef.reached) continue;
    if (of.how != ef.how) {
      fail(name + " " + end_text(of.how) + (of.how == finish_end::threw ? " " + std::to_string(of.exc) : "") +
           ", expected: " + end_text(ef.how) + (ef.how == finish_end::threw ? " one of " + set_text(ef.possible) : ""));
    } else if (ef.how == finish_end::threw && !in(ef.possible, of.exc)) {
      fail(name + " rethrew " + std::to_string(of.exc) + ", not one of its possible throwers " + set_text(ef.possible));
    }
    if (of.ended_inside != static_cast<int>(ef.tasks.size()))
      fail(name + " ended while " + std::to_string(static_cast<int>(ef.tasks.size()) - of.ended_inside) + " of its " +
           std::to_string(ef.tasks.size()) + " tasks had not ended");
    for (int t : ef.slots) {
      const std::size_t i = static_cast<std::size_t>(t);
      if (!o.slot_seen[i]) fail("slot of task " + std::to_string(t) + " was not looked at when " + name + " ended");
      else if (o.slot_value[i] != e.slot_value[i])
        fail("slot of task " + std::to_string(t) + " holds " + std::to_string(o.slot_value[i]) + " after " + name +
             ", expected " + std::to_string(e.slot_value[i]));
    }
  }

  for (int t = 0; t < p.tries; ++t) {
    const std::size_t i = static_cast<std::size_t>(t);
    const std::string name = "try " + std::to_string(t);
    if (o.try_reached[i] != e.try_reached[i]) fail(name + (e.try_reached[i] ? " not reached" : " reached"));
    else if (e.try_caught[i].empty() && o.try_caught[i] >= 0) fail(name + " caught " + std::to_string(o.try_caught[i]) + ", expected nothing");
    else if (!e.try_caught[i].empty() && !in(e.try_caught[i], o.try_caught[i]))
      fail(name + " caught " + (o.try_caught[i] < 0 ? std::string("nothing") : std::to_string(o.try_caught[i])) +
           ", expected one of " + set_text(e.try_caught[i]));
  }

  for (int c = 0; c < p.calls; ++c) {
    const std::size_t i = static_cast<std::size_t>(c);
    if (o.call_returned[i] != e.call_returned[i])
      fail("call " + std::to_string(c) + (e.call_returned[i] ? " did not return" : " returned, expected it not to"));
    else if (e.call_returned[i] && o.call_value[i] != e.call_value[i])
      fail("call " + std::to_string(c) + " returned " + std::to_string(o.call_value[i]) + ", expected " +
           std::to_string(e.call_value[i]));
  }

  if (o.run_threw != e.run_threw)
    fail(std::string("runtime::run ") + (o.run_threw ? "threw " + std::to_string(o.run_exc) : "returned") +
         ", expected it to " + (e.run_threw ? "throw one of " + set_text(e.run_possible) : "return"));
  else if (e.run_threw && !in(e.run_possible, o.run_exc))
    fail("runtime::run threw " + std::to_string(o.run_exc) + ", not one of " + set_text(e.run_possible));
  else if (!e.run_threw && p.fns[0].ret != rtype::void_ && o.run_value != e.run_value)
    fail("runtime::run returned " + std::to_string(o.run_value) + ", expected " + std::to_string(e.run_value));

  if (places) {
    std::vector<int> seen(static_cast<std::size_t>(p.tasks), 0);
    for (const place_rec& r : o.places) {
      if (r.task < 0 || r.task >= p.tasks || !e.spawned[static_cast<std::size_t>(r.task)]) {
        fail("a place record for task " + std::to_string(r.task) + ", which should not run");
        continue;
      }
      ++seen[static_cast<std::size_t>(r.task)];
      const std::size_t want = e.task_place[static_cast<std::size_t>(r.task)];
      if (want >= places->workers.size()) {
        fail("task " + std::to_string(r.task) + ": expected place " + std::to_string(want) + " is not in the tree");
        continue;
      }
      const std::vector<unsigned>& ws = places->workers[want];
      const std::string where = "task " + std::to_string(r.task) + " (place " + std::to_string(want) + ", workers " +
                                set_text(std::vector<int>(ws.begin(), ws.end())) + "), in f" + std::to_string(r.fn) +
                                " at " + to_string(r.point) + (r.pc >= 0 ? " (instruction " + std::to_string(r.pc) + ")" : "");
      if (!std::binary_search(ws.begin(), ws.end(), r.worker))
        fail(where + ": ran on worker " + std::to_string(r.worker) + ", outside its place");
      if (r.here != want) fail(where + ": here() is place " + std::to_string(r.here));
    }
    for (int t = 0; t < p.tasks; ++t)
      if (e.spawned[static_cast<std::size_t>(t)] && !seen[static_cast<std::size_t>(t)])
        fail("task " + std::to_string(t) + " left no place record");
  }

  if (o.isolated != e.isolated)
    fail("isolated blocks: " + std::to_string(o.isolated) + " ran, expected " + std::to_string(e.isolated));
  if (o.buffers != e.buffers)
    fail("buffers: " + std::to_string(o.buffers) + " made, expected " + std::to_string(e.buffers));
  return out;
}

}  // namespace rp
