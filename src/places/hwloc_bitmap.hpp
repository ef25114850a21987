// Between cpu_set and hwloc's bitmaps (for topology.cpp and binding.cpp only: it includes hwloc.h).
#pragma once

#include <hwloc.h>

#include <memory>

#include "places/cpu_set.hpp"

namespace slaw::places {

struct bitmap_free {
  void operator()(hwloc_bitmap_s* b) const noexcept { hwloc_bitmap_free(b); }
};
using unique_bitmap = std::unique_ptr<hwloc_bitmap_s, bitmap_free>;

// Throws std::bad_alloc if hwloc cannot allocate.
unique_bitmap new_bitmap();
unique_bitmap to_bitmap(const cpu_set& s);
cpu_set from_bitmap(hwloc_const_bitmap_t b);  // an infinite bitmap is cut at max_cpu

}  // namespace slaw::places
