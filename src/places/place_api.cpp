// The public place API (include/slaw/place.hpp) over the runtime's resolved deployment.
#include "slaw/place.hpp"

#include <stdexcept>
#include <string>

#include "core/runtime_impl.hpp"

namespace slaw {

namespace {
const detail::runtime_impl& current_runtime(const char* what) {
  detail::worker* w = detail::tls_worker;
  if (!w) throw std::logic_error(std::string(what) + " called outside a slaw task");
  return *w->rt();
}
const places::place_tree& tree_of(const detail::runtime_impl* rt) { return rt->deployment.tree; }
}  // namespace

place::place(std::size_t i) : rt_(&current_runtime("slaw::place(i)")), index_(i) {
  const std::size_t n = tree_of(rt_).leaf_count();
  if (i >= n)
    throw std::out_of_range("slaw::place(" + std::to_string(i) + "): this runtime has " + std::to_string(n) +
                            " listed places (0.." + std::to_string(n - 1) + ")");
}

bool place::is_leaf() const noexcept { return tree_of(rt_).places()[index_].is_leaf(); }
bool place::is_root() const noexcept { return tree_of(rt_).root() == index_; }
place place::parent() const noexcept {
  const std::size_t p = tree_of(rt_).places()[index_].parent;
  return place(rt_, p == places::no_place ? index_ : p);
}
std::vector<place> place::children() const {
  std::vector<place> r;
  for (std::size_t c : tree_of(rt_).children(index_)) r.push_back(place(rt_, c));
  return r;
}
std::size_t place::depth() const noexcept { return tree_of(rt_).places()[index_].depth; }
bool place::contains(const place& other) const noexcept {
  return other.rt_ == rt_ && tree_of(rt_).within(other.index_, index_);
}
std::vector<unsigned> place::cpus() const { return tree_of(rt_).cpus(index_).cpus(); }
std::vector<unsigned> place::workers() const { return tree_of(rt_).places()[index_].workers; }
std::string place::name() const {
  const places::place& p = tree_of(rt_).places()[index_];
  if (p.objects.empty()) return "{" + p.cpus.to_string() + "}";
  std::string s;
  for (const std::string& o : p.objects) s += (s.empty() ? "" : " + ") + o;
  return s;
}

place here() {
  const detail::runtime_impl& rt = current_runtime("slaw::here()");
  return place(&rt, detail::tls_worker->current_place());
}
std::size_t num_places() { return tree_of(&current_runtime("slaw::num_places()")).leaf_count(); }
place root_place() {
  const detail::runtime_impl& rt = current_runtime("slaw::root_place()");
  return place(&rt, tree_of(&rt).root());
}
namespace detail {
std::vector<std::uint32_t> place_children(std::uint32_t index) {
  const places::place_tree& t = tree_of(&current_runtime("a parallel loop's place clause"));
  if (index >= t.places().size())
    throw std::out_of_range("slaw: place index " + std::to_string(index) + " is not a place of this runtime (it has " +
                            std::to_string(t.places().size()) + ")");
  std::vector<std::uint32_t> r;
  for (std::size_t c : t.children(index)) r.push_back(static_cast<std::uint32_t>(c));
  return r;
}
}  // namespace detail

unsigned this_worker() {
  current_runtime("slaw::this_worker()");
  return detail::tls_worker->index();
}

}  // namespace slaw
