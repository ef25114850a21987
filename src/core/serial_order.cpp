#include "slaw/detail/serial_order.hpp"

#include <mutex>
#include <unordered_map>

#include "slaw/detail/worker.hpp"

namespace slaw::detail {

std::atomic<int> serial_order_active{0};

namespace {
struct node {
  std::vector<std::uint32_t> label;
  std::uint32_t step = 0;  // the last step started (even); its continuation is step + 1
};
std::mutex labels_mutex;
std::unordered_map<const promise_base*, node> labels;
std::uint32_t next_root = 0;
}  // namespace

void order_note_root(const promise_base* root) noexcept {
  std::lock_guard<std::mutex> g(labels_mutex);
  labels[root] = node{{next_root++}, 0};
}

void order_note_child(const promise_base* parent, const promise_base* child) noexcept {
  std::lock_guard<std::mutex> g(labels_mutex);
  auto it = labels.find(parent);
  if (it == labels.end()) return;  // made before labels were kept: its subtree goes unchecked
  node& p = it->second;
  p.step += 2;
  if (p.label.size() >= 64) return;  // bounded cost: deeper subtrees go unchecked
  node c{p.label, 0};
  c.label.push_back(p.step);
  labels[child] = std::move(c);
}

void order_forget(const promise_base* p) noexcept {
  std::lock_guard<std::mutex> g(labels_mutex);
  labels.erase(p);
}

std::optional<std::vector<std::uint32_t>> order_label_of_entry(std::uintptr_t e) {
  std::lock_guard<std::mutex> g(labels_mutex);
  auto it = labels.find(entry_promise(e));
  if (it == labels.end()) return std::nullopt;
  std::vector<std::uint32_t> l = it->second.label;
  if (e & start_tag) return l;                        // a task not begun: its start
  if (e & parent_tag) {                               // a continuation after its last step
    l.push_back(it->second.step + 1);
    return l;
  }
  if (l.empty()) return std::nullopt;                 // untagged: the parent's continuation after this child
  l.back() += 1;
  return l;
}

}  // namespace slaw::detail
