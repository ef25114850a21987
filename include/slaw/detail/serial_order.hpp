// Debug builds: the serial depth-first (1DF) position of every frame, so that a scheduler which
// promises an order can assert it (the space-efficient scheduler checks its Lemma 3.1: Narlikar,
// SPAA 1999, §3; docs/design/space.md §3).
//
// A frame's label is the path of step numbers from its root: the child (spawned, called, or a finish
// body) started at its parent's step s gets label(parent) ++ [s], and the parent's continuation after
// that step is label(parent) ++ [s + 1]; steps advance by 2. Lexicographic order of labels (a prefix
// first) is the 1DF order, i.e. decreasing priority. Labels are kept only while some scheduler asks for
// them (`serial_order_active`); the hooks compile to nothing under NDEBUG.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "slaw/export.hpp"

namespace slaw::detail {

struct promise_base;

SLAW_EXPORT extern std::atomic<int> serial_order_active;  // number of live schedulers that check the order

SLAW_EXPORT void order_note_root(const promise_base* root) noexcept;
SLAW_EXPORT void order_note_child(const promise_base* parent, const promise_base* child) noexcept;
SLAW_EXPORT void order_forget(const promise_base* p) noexcept;
// The 1DF position of a deque entry (tags as in worker.hpp); nullopt when a frame has no label.
SLAW_EXPORT std::optional<std::vector<std::uint32_t>> order_label_of_entry(std::uintptr_t e);

#ifndef NDEBUG
#define SLAW_SERIAL_ORDER_NOTE_CHILD(parent, child)                                                   \
  do {                                                                                         \
    if (::slaw::detail::serial_order_active.load(std::memory_order_relaxed)) [[unlikely]]        \
      ::slaw::detail::order_note_child(parent, child);                                           \
  } while (0)
#define SLAW_SERIAL_ORDER_FORGET(p)                                                                   \
  do {                                                                                         \
    if (::slaw::detail::serial_order_active.load(std::memory_order_relaxed)) [[unlikely]]        \
      ::slaw::detail::order_forget(p);                                                           \
  } while (0)
#else
#define SLAW_SERIAL_ORDER_NOTE_CHILD(parent, child) ((void)0)
#define SLAW_SERIAL_ORDER_FORGET(p) ((void)0)
#endif

}  // namespace slaw::detail
