// Objects the random programs pass around, each with a process-wide live counter so that a leak or a
// double destruction shows up as a counter that does not return to zero after a run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace rp {

// Thrown by the programs' throw statements; `id` names the statement, so a caught exception can be
// traced back to the one that threw it.
struct test_error {
  int id;
};

// Values nobody wrote: a slot whose task threw or did not run keeps it.
inline constexpr long unwritten = -0x5EED;

struct live_counters {
  std::atomic<long> counted{0};       // live rp::counted objects
  std::atomic<long> canaries{0};      // live rp::canary objects (lambda captures)
  std::atomic<long> buffer_bytes{0};  // bytes of held make_buffer results
  std::atomic<long> dead_captures{0}; // a capturing lambda found its closure destroyed while running
};
inline live_counters live;

// A move-only result: every constructor counts it, the destructor uncounts it.
class counted {
 public:
  counted() noexcept { live.counted.fetch_add(1, std::memory_order_relaxed); }
  explicit counted(long v) noexcept : value_(v) { live.counted.fetch_add(1, std::memory_order_relaxed); }
  counted(counted&& o) noexcept : value_(o.value_) { live.counted.fetch_add(1, std::memory_order_relaxed); }
  counted& operator=(counted&& o) noexcept {
    value_ = o.value_;
    return *this;
  }
  counted(const counted&) = delete;
  counted& operator=(const counted&) = delete;
  ~counted() { live.counted.fetch_sub(1, std::memory_order_relaxed); }
  long value() const noexcept { return value_; }

 private:
  long value_ = unwritten;
};

using counted_ptr = std::unique_ptr<counted>;

// Captured by value in lambdas passed to async: a destroyed closure reads as !alive().
class canary {
 public:
  explicit canary(int tag) noexcept : tag_(tag) { live.canaries.fetch_add(1, std::memory_order_relaxed); }
  canary(const canary& o) noexcept : tag_(o.tag_) { live.canaries.fetch_add(1, std::memory_order_relaxed); }
  canary(canary&& o) noexcept : tag_(o.tag_) { live.canaries.fetch_add(1, std::memory_order_relaxed); }
  canary& operator=(const canary&) = delete;
  ~canary() {
    reinterpret_cast<volatile std::uint64_t&>(magic_) = dead_magic;  // volatile: survives dead-store elimination
    live.canaries.fetch_sub(1, std::memory_order_relaxed);
  }
  bool alive(int tag) const noexcept {
    return reinterpret_cast<const volatile std::uint64_t&>(magic_) == alive_magic && tag_ == tag;
  }

 private:
  static constexpr std::uint64_t alive_magic = 0xA11FEC0DEDBEEF01ull;
  static constexpr std::uint64_t dead_magic = 0xDEADDEADDEADDEADull;
  std::uint64_t magic_ = alive_magic;
  int tag_;
};

}  // namespace rp
