#include "places/hwloc_bitmap.hpp"

#include <new>

#include "places/omp_places.hpp"

namespace slaw::places {

unique_bitmap new_bitmap() {
  unique_bitmap b(hwloc_bitmap_alloc());
  if (!b) throw std::bad_alloc();
  return b;
}

unique_bitmap to_bitmap(const cpu_set& s) {
  unique_bitmap b = new_bitmap();
  for (unsigned c : s.cpus())
    if (hwloc_bitmap_set(b.get(), c) != 0) throw std::bad_alloc();
  return b;
}

cpu_set from_bitmap(hwloc_const_bitmap_t b) {
  cpu_set s;
  for (int c = hwloc_bitmap_first(b); c >= 0 && c <= static_cast<int>(max_cpu); c = hwloc_bitmap_next(b, c))
    s.insert(static_cast<unsigned>(c));
  return s;
}

}  // namespace slaw::places
