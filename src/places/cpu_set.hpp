// A set of CPUs, named by the operating system's CPU numbers (Linux's logical CPU ids, hwloc's
// os_index, the numbers `taskset` and SLAW_PLACES use). Plain data, independent of hwloc, so that the
// SLAW_PLACES parser and the deployment file reader are pure and testable without a topology.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace slaw::places {

class cpu_set {
 public:
  cpu_set() = default;
  cpu_set(std::initializer_list<unsigned> cpus);
  static cpu_set range(unsigned first, unsigned count);  // first, first+1, ..., first+count-1
  static cpu_set of(std::vector<unsigned> cpus);          // in any order, repeats allowed: one sort

  void insert(unsigned cpu);
  void erase(unsigned cpu);
  void insert_all(const cpu_set& other);
  void erase_all(const cpu_set& other);

  bool contains(unsigned cpu) const noexcept;
  bool subset_of(const cpu_set& other) const noexcept;
  bool empty() const noexcept { return cpus_.empty(); }
  std::size_t size() const noexcept { return cpus_.size(); }
  const std::vector<unsigned>& cpus() const noexcept { return cpus_; }  // ascending, no duplicates
  unsigned first() const noexcept { return cpus_.front(); }             // not on an empty set

  // Linux's cpulist form: "0-3,8,10-11"; "" for the empty set.
  std::string to_string() const;

  friend bool operator==(const cpu_set&, const cpu_set&) = default;

 private:
  std::vector<unsigned> cpus_;
};

cpu_set set_union(const cpu_set& a, const cpu_set& b);
cpu_set set_difference(const cpu_set& a, const cpu_set& b);  // a without b

}  // namespace slaw::places
