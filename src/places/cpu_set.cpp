#include "places/cpu_set.hpp"

#include <algorithm>
#include <iterator>

namespace slaw::places {

cpu_set::cpu_set(std::initializer_list<unsigned> cpus) {
  for (unsigned c : cpus) insert(c);
}

cpu_set cpu_set::range(unsigned first, unsigned count) {
  cpu_set s;
  s.cpus_.reserve(count);
  for (unsigned i = 0; i < count; ++i) s.cpus_.push_back(first + i);
  return s;
}

cpu_set cpu_set::of(std::vector<unsigned> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  cpu_set s;
  s.cpus_ = std::move(cpus);
  return s;
}

void cpu_set::insert(unsigned cpu) {
  auto it = std::lower_bound(cpus_.begin(), cpus_.end(), cpu);
  if (it == cpus_.end() || *it != cpu) cpus_.insert(it, cpu);
}

void cpu_set::erase(unsigned cpu) {
  auto it = std::lower_bound(cpus_.begin(), cpus_.end(), cpu);
  if (it != cpus_.end() && *it == cpu) cpus_.erase(it);
}

void cpu_set::insert_all(const cpu_set& other) { *this = set_union(*this, other); }
void cpu_set::erase_all(const cpu_set& other) { *this = set_difference(*this, other); }

bool cpu_set::contains(unsigned cpu) const noexcept { return std::binary_search(cpus_.begin(), cpus_.end(), cpu); }

bool cpu_set::subset_of(const cpu_set& other) const noexcept {
  return std::includes(other.cpus_.begin(), other.cpus_.end(), cpus_.begin(), cpus_.end());
}

std::string cpu_set::to_string() const {
  std::string s;
  for (std::size_t i = 0; i < cpus_.size();) {
    std::size_t j = i;
    while (j + 1 < cpus_.size() && cpus_[j + 1] == cpus_[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus_[i]);
    if (j > i) s += '-' + std::to_string(cpus_[j]);
    i = j + 1;
  }
  return s;
}

cpu_set set_union(const cpu_set& a, const cpu_set& b) {
  cpu_set r;
  std::vector<unsigned> v;
  std::set_union(a.cpus().begin(), a.cpus().end(), b.cpus().begin(), b.cpus().end(), std::back_inserter(v));
  for (unsigned c : v) r.insert(c);  // v is sorted: each insert appends
  return r;
}

cpu_set set_difference(const cpu_set& a, const cpu_set& b) {
  cpu_set r;
  std::vector<unsigned> v;
  std::set_difference(a.cpus().begin(), a.cpus().end(), b.cpus().begin(), b.cpus().end(), std::back_inserter(v));
  for (unsigned c : v) r.insert(c);
  return r;
}

}  // namespace slaw::places
