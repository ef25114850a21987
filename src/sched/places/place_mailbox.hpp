// A place's mailbox (SLAW digest §5.2; docs/design/places.md): tasks sent to the place by workers outside it,
// and waiting frames of the place resumed by such workers. Only workers inside the place take from it.
//
// A bounded lock-free ring (mailbox_ring.hpp) takes posts; when it is full the task goes to an
// overflow list under a mutex, counted. Guo's thesis schedules such a task locally instead, under the
// normal policy; here that would run it outside its place, which the place model forbids, so it waits
// in the overflow list (taken after the ring, oldest first).
//
// Entries are tagged: a frame that already ran (`started`) has bit 0 set (promises are 8-byte aligned),
// so that a worker waiting in place knows whether it may run it (docs/design/finish.md).
//
// nonempty() is the parking re-check's view (seq_cst, like the ring's positions): a post is visible to
// it before the poster's wake-up call (docs/design/parking.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

#include "sched/places/mailbox_ring.hpp"

namespace slaw::detail {

struct promise_base;

class place_mailbox {
 public:
  explicit place_mailbox(std::size_t capacity) : ring_(capacity) {}

  // Returns true if the ring was full and `p` went to the overflow list. Out of memory there ends the
  // process (posts happen inside noexcept spawns), as a deque that cannot grow does.
  bool post(promise_base* task, bool started) noexcept {
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(task) | (started ? started_tag : 0);
    posts_.fetch_add(1, std::memory_order_relaxed);
    if (ring_.try_post(p)) return false;
    std::lock_guard<std::mutex> g(m_);
    overflow_.push_back(p);
    overflow_size_.fetch_add(1, std::memory_order_seq_cst);
    overflows_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // The oldest entry, or null; `started` says whether it is a frame that already ran.
  promise_base* take(bool& started) noexcept {
    std::uintptr_t p = 0;
    if (!ring_.try_take(p) && overflow_size_.load(std::memory_order_seq_cst) != 0) {
      std::lock_guard<std::mutex> g(m_);
      if (!overflow_.empty()) {
        p = overflow_.front();
        overflow_.pop_front();
        overflow_size_.fetch_sub(1, std::memory_order_seq_cst);
      }
    }
    if (!p) return nullptr;
    takes_.fetch_add(1, std::memory_order_relaxed);
    started = (p & started_tag) != 0;
    return reinterpret_cast<promise_base*>(p & ~started_tag);
  }
  bool nonempty() const noexcept { return ring_.nonempty() || overflow_size_.load(std::memory_order_seq_cst) != 0; }

  struct figures {
    std::uint64_t posts, takes, overflows;
  };
  figures stats() const noexcept {
    return {posts_.load(std::memory_order_relaxed), takes_.load(std::memory_order_relaxed),
            overflows_.load(std::memory_order_relaxed)};
  }
  void reset_stats() noexcept {
    posts_.store(0, std::memory_order_relaxed);
    takes_.store(0, std::memory_order_relaxed);
    overflows_.store(0, std::memory_order_relaxed);
  }

 private:
  static constexpr std::uintptr_t started_tag = 1;
  mailbox_ring<std::uintptr_t> ring_;
  std::mutex m_;
  std::deque<std::uintptr_t> overflow_;
  std::atomic<std::size_t> overflow_size_{0};
  std::atomic<std::uint64_t> posts_{0}, takes_{0}, overflows_{0};
};

}  // namespace slaw::detail
