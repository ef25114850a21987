#include "places/place_tree.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace slaw::places {

place_tree place_tree::build(const std::vector<raw_node>& nodes, const std::vector<bool>& keep) {
  const std::size_t n = nodes.size();
  if (n == 0 || nodes[0].parent != no_place) throw std::invalid_argument("place tree: node 0 must be the root");
  std::vector<char> kept(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (nodes[i].parent == no_place || nodes[i].parent >= i))
      throw std::invalid_argument("place tree: node " + std::to_string(i) + " does not come after its parent");
    if (const auto& li = nodes[i].list_index) kept[i] = keep.empty() || (*li < keep.size() && keep[*li]);
  }
  // A node is kept if a kept leaf is below it; its CPUs are its kept leaves' (children come after parents).
  std::vector<cpu_set> cpus(n);
  for (std::size_t i = n; i-- > 0;) {
    if (!kept[i]) continue;
    if (nodes[i].list_index) cpus[i] = nodes[i].cpus;
    if (i > 0) {
      kept[nodes[i].parent] = 1;
      cpus[nodes[i].parent].insert_all(cpus[i]);
    }
  }
  if (!kept[0]) throw std::invalid_argument("place tree: no place is kept");
  std::vector<std::vector<std::size_t>> kids(n);
  for (std::size_t i = 1; i < n; ++i)
    if (kept[i]) {
      if (nodes[nodes[i].parent].list_index)
        throw std::invalid_argument("place tree: leaf " + std::to_string(nodes[i].parent) + " has children");
      kids[nodes[i].parent].push_back(i);
    }

  // The collapsed tree in preorder: a chain of single children becomes its last node, with the
  // objects of the whole chain.
  struct out_node {
    std::size_t parent;
    std::size_t raw;
    std::vector<std::string> objects;
  };
  std::vector<out_node> out;
  std::function<void(std::size_t, std::size_t)> visit = [&](std::size_t i, std::size_t parent) {
    std::vector<std::string> objects;
    while (!nodes[i].list_index && kids[i].size() == 1) {
      objects.insert(objects.end(), nodes[i].objects.begin(), nodes[i].objects.end());
      i = kids[i][0];
    }
    objects.insert(objects.end(), nodes[i].objects.begin(), nodes[i].objects.end());
    const std::size_t me = out.size();
    out.push_back({parent, i, std::move(objects)});
    for (std::size_t c : kids[i]) visit(c, me);
  };
  visit(0, no_place);

  // Leaves first in list order, then the internal places in preorder.
  std::vector<std::size_t> leaf_nodes, number(out.size());
  for (std::size_t k = 0; k < out.size(); ++k)
    if (nodes[out[k].raw].list_index) leaf_nodes.push_back(k);
  std::sort(leaf_nodes.begin(), leaf_nodes.end(),
            [&](std::size_t a, std::size_t b) { return *nodes[out[a].raw].list_index < *nodes[out[b].raw].list_index; });
  for (std::size_t j = 1; j < leaf_nodes.size(); ++j)
    if (*nodes[out[leaf_nodes[j]].raw].list_index == *nodes[out[leaf_nodes[j - 1]].raw].list_index)
      throw std::invalid_argument("place tree: two leaves have the same list index");
  place_tree t;
  t.leaves_ = leaf_nodes.size();
  std::size_t next = 0;
  for (std::size_t k : leaf_nodes) number[k] = next++;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (!nodes[out[k].raw].list_index) number[k] = next++;
  t.places_.resize(out.size());
  t.list_index_.resize(t.leaves_);
  for (std::size_t k = 0; k < out.size(); ++k) {  // preorder: a parent is filled before its children
    place& p = t.places_[number[k]];
    p.index = number[k];
    p.cpus = cpus[out[k].raw];
    p.objects = std::move(out[k].objects);
    if (out[k].parent == no_place) {
      t.root_ = p.index;
    } else {
      p.parent = number[out[k].parent];
      p.depth = t.places_[p.parent].depth + 1;
      t.places_[p.parent].children.push_back(p.index);
    }
    if (p.index < t.leaves_) t.list_index_[p.index] = *nodes[out[k].raw].list_index;
  }
  return t;
}

bool place_tree::within(std::size_t inner, std::size_t outer) const {
  for (std::size_t p = inner; p != no_place; p = places_.at(p).parent)
    if (p == outer) return true;
  return false;
}

std::size_t place_tree::common_ancestor(std::size_t a, std::size_t b) const {
  while (depth(a) > depth(b)) a = parent(a);
  while (depth(b) > depth(a)) b = parent(b);
  while (a != b) a = parent(a), b = parent(b);
  return a;
}

std::size_t place_tree::distance(std::size_t a, std::size_t b) const {
  const std::size_t c = common_ancestor(a, b);
  return depth(a) + depth(b) - 2 * depth(c);
}

std::vector<std::size_t> place_tree::parents() const {
  std::vector<std::size_t> v(places_.size());
  for (const place& p : places_) v[p.index] = p.parent;
  return v;
}

void place_tree::attach(std::size_t leaf, unsigned w) {
  if (!is_leaf(leaf)) throw std::invalid_argument("place tree: workers attach to leaves only");
  for (std::size_t p = leaf; p != no_place; p = places_[p].parent) {
    auto& ws = places_[p].workers;
    ws.insert(std::lower_bound(ws.begin(), ws.end(), w), w);
  }
}

}  // namespace slaw::places
