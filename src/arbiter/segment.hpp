// Finding the arbiter's segment: creating and initialising it (the first job of the machine), attaching
// to it (every other job), checking it before anything in it is trusted, and mapping it read-only
// (slaw-top). The creation race and its argument are at the top of segment.cpp; the layout and its
// invariants in layout.hpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "arbiter/layout.hpp"

namespace slaw::arbiter {

// What the creator writes into the settings (and what the first job of a busy period writes again).
struct creation_params {
  std::uint32_t cores = 1;
  policy_setting policy = policy_setting::automatic;
  std::uint64_t quantum_ns = 10'000'000;
  std::uint64_t stale_quanta = 100;
};

// One process's mapping of one segment. All the clients of a process share it (one address, so that
// ThreadSanitizer sees the in-process runtimes' accesses as accesses to the same words).
class mapping {
 public:
  mapping(void* addr, std::string name, bool writable, dev_t dev, ino_t ino) noexcept
      : addr_(addr), name_(std::move(name)), writable_(writable), dev_(dev), ino_(ino) {}
  ~mapping();
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;

  segment& seg() const noexcept { return *static_cast<segment*>(addr_); }  // writable mappings only
  const segment& view() const noexcept { return *static_cast<const segment*>(addr_); }
  const std::string& name() const noexcept { return name_; }
  bool writable() const noexcept { return writable_; }
  dev_t dev() const noexcept { return dev_; }
  ino_t ino() const noexcept { return ino_; }

 private:
  void* addr_;
  std::string name_;
  bool writable_;
  dev_t dev_;
  ino_t ino_;
};

struct attach_result {
  std::shared_ptr<mapping> map;  // null on error
  std::string error;             // why, when map is null: "shared-memory segment /x (/dev/shm/x): ..."
  bool created = false;          // this call created and initialised the segment
  bool reinitialised = false;    // ... over one whose creator died before it finished
};

// Attaches to segment `name` for reading and writing, creating and initialising it if it does not exist.
// A segment of another user, with the wrong magic, version, ABI or size, is reported in `error` and not
// mapped. Waits at most `wait_ns` for a concurrent creator.
attach_result open_or_create(const std::string& name, const creation_params& params,
                             std::uint64_t wait_ns = 2'000'000'000);

// Maps segment `name` read-only (slaw-top): never creates it, never takes its locks.
attach_result open_readonly(const std::string& name);

// What is wrong with a segment whose prefix reads `p` and whose object has `file_bytes` bytes ("" if
// nothing): wrong magic, version, ABI, sizes, truncated, or not yet initialised.
std::string prefix_problem(const segment_prefix& p, std::uint64_t file_bytes);

// "/dev/shm/NAME" for "/NAME": where Linux keeps it, for messages.
std::string shm_file(const std::string& name);

// shm_unlink; true if it existed. Tests remove their segments with it.
bool remove_segment(const std::string& name);

// Reads `ready` (layout.hpp L1) with acquire.
std::uint32_t load_ready(const segment_header& h) noexcept;

}  // namespace slaw::arbiter
