#include "sched/places/placed_stealing.hpp"

#include <algorithm>
#include <sstream>

#include "core/runtime_impl.hpp"
#include "places/place_tree.hpp"
#include "sched/victim_take.hpp"
#include "slaw/policy/place_order.hpp"
#include "slaw/policy/victims.hpp"
#include "slaw/stats.hpp"

namespace slaw::detail {

placed_stealing::placed_stealing(runtime_impl& rt, const config& cfg)
    : rt_(rt),
      tree_(rt.deployment.tree),
      remote_(cfg.remote),
      order_(cfg.idle),
      preempted_first_(cfg.steal_preempted_first),
      deal_(std::make_unique<std::atomic<std::uint32_t>[]>(rt.deployment.tree.size())) {
  const std::size_t n_places = tree_.size();
  mailboxes_.reserve(n_places);
  for (std::size_t i = 0; i < n_places; ++i) mailboxes_.push_back(std::make_unique<place_mailbox>(cfg.mailbox_capacity));
  leaves_under_.resize(n_places);
  for (std::size_t leaf = 0; leaf < tree_.leaf_count(); ++leaf)
    for (std::size_t p = leaf; p != places::no_place; p = tree_.parent(p)) leaves_under_[p].push_back(leaf);

  const auto& wp = rt.deployment.workers;
  std::vector<std::size_t> worker_leaf(wp.size());
  for (std::size_t w = 0; w < wp.size(); ++w) worker_leaf[w] = wp[w].place;
  const std::vector<std::size_t> parents = tree_.parents();
  views_.resize(wp.size());
  for (std::size_t w = 0; w < wp.size(); ++w) {
    thief_view& v = views_[w];
    for (std::size_t p = worker_leaf[w]; p != places::no_place; p = tree_.parent(p)) v.mailboxes.push_back(p);
    for (auto& ring : policy::victim_rings(w, worker_leaf, parents))
      (worker_leaf[ring.front()] == worker_leaf[w] ? v.peers : v.remote).push_back(std::move(ring));
    v.distance.resize(wp.size());
    for (std::size_t u = 0; u < wp.size(); ++u) v.distance[u] = tree_.distance(worker_leaf[w], worker_leaf[u]);
    v.distances = 1 + *std::max_element(v.distance.begin(), v.distance.end());  // leaves differ in depth
    v.steals_by_distance = std::make_unique<counter[]>(v.distances);
  }
}

void placed_stealing::attach(worker& w) {
  const std::size_t leaf = rt_.deployment.workers.at(w.index()).place;
  std::vector<std::uint8_t> allowed(tree_.size());
  for (std::size_t p = 0; p < tree_.size(); ++p) allowed[p] = tree_.within(leaf, p) ? 1 : 0;
  w.set_place(static_cast<std::uint16_t>(leaf), std::move(allowed));
}

void placed_stealing::post(worker& from, promise_base* p, bool started) noexcept {
  std::size_t target = p->place;
  if (!remote_.mailboxes && !tree_.is_leaf(target)) {  // nobody reads an internal place's mailbox: deal it
    const auto& leaves = leaves_under_[target];
    target = leaves[deal_[target].fetch_add(1, std::memory_order_relaxed) % leaves.size()];
  }
  from.count_post();
  if (mailboxes_[target]->post(p, started)) from.count_overflow();
  rt_.park.wake_all_if_sleepers();  // after the post: a sleeper's re-check sees it, or it is woken
}

promise_base* placed_stealing::accept(worker& thief, promise_base* p, bool started, const finish_node* inside) noexcept {
  if (!inside || !started || p->cur->is_inside(inside) || thief.may_resume_over_waits(p)) return p;
  set_aside_.put(p, thief.hand_over_steal());
  thief.on_exposed();
  return nullptr;
}

promise_base* placed_stealing::take_mail(worker& thief, std::size_t place, const finish_node* inside) noexcept {
  bool started = false;
  promise_base* p = mailboxes_[place]->take(started);
  if (!p) return nullptr;
  thief.count_mailbox_take();
  return accept(thief, p, started, inside);
}

promise_base* placed_stealing::probe(worker& thief, const std::vector<std::vector<std::size_t>>& rings, bool remote,
                                     std::size_t& budget, const finish_node* inside) noexcept {
  thief_view& v = views_[thief.index()];
  const auto& workers = rt_.workers;
  for (std::size_t vi : policy::nearest_first_order(rings, thief.next_random(), budget)) {
    --budget;
    worker& victim = *workers[vi];
    if (remote && !thief.may_run(victim.current_place())) continue;  // likely all of its place's
    steal_from from;
    promise_base* p = take_from_victim(victim, preempted_first_, from, thief.index());
    if (!p) continue;
    const bool started = from == steal_from::continuation;
    if (!thief.may_run(p->place)) {  // an older strand's task of another place: to its mailbox
      post(thief, p, started);
      thief.count_redirect();
      continue;
    }
    count_victim_steal(thief, from, vi);
    v.steals_by_distance[v.distance[vi]].bump();
    if (remote) thief.count_remote_steal();
    return accept(thief, p, started, inside);
  }
  return nullptr;
}

promise_base* placed_stealing::steal(worker& thief, const finish_node* inside) noexcept {
  std::uint64_t note = 0;
  auto eligible = [&thief, inside](promise_base* p) {
    return thief.may_run(p->place) && (!inside || p->cur->is_inside(inside) || thief.may_resume_over_waits(p));
  };
  if (promise_base* p = set_aside_.take_first(eligible, note)) {
    thief.took_handed_over(note);
    return p;
  }
  const thief_view& v = views_[thief.index()];
  std::size_t budget = policy::steal_probes;
  auto peers = [&] { return probe(thief, v.peers, false, budget, inside); };
  promise_base* p = nullptr;
  if (order_ == idle_order::thesis) {
    if ((p = take_mail(thief, v.mailboxes[0], inside)) || (p = peers())) return p;
  } else {
    if ((p = peers()) || (p = take_mail(thief, v.mailboxes[0], inside))) return p;
  }
  if (remote_.mailboxes)
    for (std::size_t m = 1; m < v.mailboxes.size(); ++m)
      if ((p = take_mail(thief, v.mailboxes[m], inside))) return p;
  if (remote_.deques && budget > 0) return probe(thief, v.remote, true, budget, inside);
  return nullptr;
}

bool placed_stealing::holds_work() const noexcept {
  if (set_aside_.nonempty()) return true;
  for (const auto& m : mailboxes_)
    if (m->nonempty()) return true;
  return false;
}

bool placed_stealing::work_visible_to(const worker& w, const std::vector<std::unique_ptr<worker>>& workers) const noexcept {
  if (set_aside_.nonempty()) return true;
  const thief_view& v = views_[w.index()];
  for (std::size_t m : v.mailboxes)
    if (mailboxes_[m]->nonempty()) return true;
  for (const auto& ring : v.peers)
    for (std::size_t vi : ring)
      if (workers[vi]->has_visible_work()) return true;
  if (remote_.deques)
    for (const auto& ring : v.remote)
      for (std::size_t vi : ring)
        if (workers[vi]->has_visible_work() && w.may_run(workers[vi]->current_place())) return true;
  return false;
}

void placed_stealing::add_stats(runtime_stats& s) const {
  std::ostringstream o;
  o << "{\"mailboxes\":[";
  for (std::size_t p = 0; p < mailboxes_.size(); ++p) {
    const auto f = mailboxes_[p]->stats();
    o << (p ? "," : "") << "{\"place\":" << p << ",\"posts\":" << f.posts << ",\"takes\":" << f.takes
      << ",\"overflows\":" << f.overflows << "}";
  }
  o << "],\"steals_by_distance\":[";
  for (std::size_t w = 0; w < views_.size(); ++w) {
    o << (w ? "," : "") << "{";
    const thief_view& v = views_[w];
    bool first = true;
    for (std::size_t d = 0; d < v.distances; ++d) {
      if (const std::uint64_t n = v.steals_by_distance[d].get()) {
        o << (first ? "" : ",") << "\"" << d << "\":" << n;
        first = false;
      }
    }
    o << "}";
  }
  o << "],\"remote\":\"" << to_string(remote_) << "\",\"idle_order\":\"" << to_string(order_) << "\"}";
  s.place_counters_json = o.str();
}

void placed_stealing::reset_stats() {
  for (auto& m : mailboxes_) m->reset_stats();
  for (std::size_t w = 0; w < views_.size(); ++w)
    for (std::size_t d = 0; d < views_[w].distances; ++d) views_[w].steals_by_distance[d].v.store(0, std::memory_order_relaxed);
}

}  // namespace slaw::detail
