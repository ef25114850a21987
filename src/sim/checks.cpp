#include "sim/checks.hpp"

#include "sim/engine.hpp"

namespace slaw::sim {

namespace {
constexpr std::size_t max_violations = 20;
constexpr std::size_t max_label = 64;  // as the runtime: deeper subtrees go unchecked
}  // namespace

void checker::fail(const std::string& what) {
  if (violations_.size() < max_violations)
    violations_.push_back("t=" + std::to_string(to_ns(e_.now())) + " ns: " + what);
}

void checker::created(task_id t) {
  if (alive_.size() <= t) {
    alive_.resize(t + 1, 0);
    label_.resize(t + 1);
    step_.resize(t + 1, 0);
    labelled_.resize(t + 1, 0);
  }
  if (alive_[t]) fail("task record " + std::to_string(t) + " created while live");
  alive_[t] = 1;
  labelled_[t] = 0;
  ++created_;
}

void checker::ended(task_id t) {
  if (t >= alive_.size() || !alive_[t]) {
    fail("task record " + std::to_string(t) + " ended twice or never created");
    return;
  }
  alive_[t] = 0;
  ++ended_;
}

void checker::note_root(task_id t, std::uint32_t job) {
  if (!labels_on_) return;
  label_[t] = {job};
  step_[t] = 0;
  labelled_[t] = 1;
}

void checker::note_child(task_id parent, task_id child) {
  if (!labels_on_ || !labelled_[parent]) return;
  step_[parent] += 2;
  if (label_[parent].size() >= max_label) return;
  label_[child] = label_[parent];
  label_[child].push_back(step_[parent]);
  step_[child] = 0;
  labelled_[child] = 1;
}

// As serial_order.cpp's order_label_of_entry.
std::optional<checker::label> checker::of_entry(entry e) const {
  const task_id t = entry_task(e);
  if (t >= labelled_.size() || !labelled_[t]) return std::nullopt;
  label l = label_[t];
  if (e & start_tag) return l;  // a task not begun: its start
  if (e & parent_tag) {         // a continuation after its last step
    l.push_back(step_[t] + 1);
    return l;
  }
  if (l.empty()) return std::nullopt;  // untagged: the parent's continuation after this child
  l.back() += 1;
  return l;
}

std::optional<checker::label> checker::running_position(task_id t) const {
  if (t >= labelled_.size() || !labelled_[t]) return std::nullopt;
  label l = label_[t];
  l.push_back(step_[t] + 1);
  return l;
}

void checker::lemma_3_1(const std::vector<deque_view>& r) {
  if (!labels_on_) return;
  auto before = [this](const std::optional<label>& a, const std::optional<label>& b) {
    if (!a || !b) return true;  // unlabelled (deeper than max_label): unchecked
    ++order_checks_;
    return *a < *b;
  };
  std::optional<label> oldest_left;  // the lowest-priority task of the nearest non-empty deque to the left
  for (std::size_t d = 0; d < r.size(); ++d) {
    const auto& es = r[d].entries;
    for (std::size_t i = 0; i + 1 < es.size(); ++i)
      if (!before(of_entry(es[i + 1]), of_entry(es[i])))
        fail("Lemma 3.1 (1): deque " + std::to_string(d) + " of R is out of priority order at entry " + std::to_string(i));
    if (r[d].owner >= 0 && !es.empty()) {
      const task_id running = e_.at(static_cast<std::uint32_t>(r[d].owner)).cur;
      if (running != none && !before(running_position(running), of_entry(es.back())))
        fail("Lemma 3.1 (2): worker " + std::to_string(r[d].owner) + "'s running task follows its deque's newest entry");
    }
    if (es.empty()) continue;
    if (oldest_left && !before(oldest_left, of_entry(es.back())))
      fail("Lemma 3.1 (3): deque " + std::to_string(d) + " of R holds a task that precedes one of a deque left of it");
    oldest_left = of_entry(es.front());
  }
}

}  // namespace slaw::sim
