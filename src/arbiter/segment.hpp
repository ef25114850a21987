// Finding the arbiter's segment: creating and initialising it (the first job of the machine), attaching
// to it (every other job), checking it before anything in it is trusted, and mapping it read-only
// (slaw-top). The creation race and its argument are at the top of segment.cpp; the layout and its
// invariants in layout.hpp.
#pragma once

#include <sys/stat.h>
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
//
// The SIGBUS guard. The segment is a file of its user's: while jobs map it, that user (or a tool) may
// truncate it, or punch a hole in it on a full /dev/shm, and the next access to a page that the file no
// longer backs raises SIGBUS, whose default action kills the process. A job must never die of its
// arbiter, so every mapping registers its address range with a process-wide SIGBUS handler (installed
// with the first mapping, chaining to the handler it replaced). On a fault inside a registered range,
// the handler maps private zero pages over the whole range (mmap MAP_FIXED, one system call), marks the
// mapping lost() and returns: the faulting access is retried, and succeeds, on the zeros. The process
// thereby leaves the shared table at once, everywhere: every later access, on any thread, reads and
// writes memory of its own. The client sees lost() at its next tick (or allotment()) and runs as if
// alone, with one warning.
// Why this design rather than the alternatives:
//   * No siglongjmp out of the fault: it would skip the destructors of the C++ frames between the
//     access and the jump (undefined behaviour), and faults can happen inside pthread_mutex_trylock on
//     the segment's mutex. Returning to a retried access needs no unwinding, and every code path that
//     reads the segment already copes with any value (layout.hpp: everything read is clamped or checked),
//     zeros included.
//   * A size check before each access cannot close the window between the check and the access; it is
//     kept (client::tick checks the name's size every few milliseconds) only to notice a truncation
//     that the job's accesses have not hit yet.
//   * The handler acts only on a fault (si_code > 0) at an address inside a registered range, so a
//     fault anywhere else, or a SIGBUS sent with kill, goes to the previous handler exactly as before
//     (for the default action: restored, then the access faults again, or the signal is raised again).
//   * mmap is a single system call with no user-space state (glibc's wrapper takes no lock; the handler
//     calls the system call directly, past any sanitizer's interceptor), so it is safe in a handler for
//     a synchronous fault, whose interrupted context is known: an access to the segment.
//   * A lost range is never unmapped, only left as private zeros: a thread that held the segment's
//     robust mutex when it was lost keeps that mutex on its robust list (glibc links it there until the
//     unlock, which the zeros make an ordinary unlock), and the kernel walks the list when the thread
//     ends; it must keep pointing at memory of this process that no other object can reuse.
// A program that installs its own SIGBUS handler after the runtime started takes these faults over.
class mapping {
 public:
  // Registers [addr, addr + sizeof(segment)) with the SIGBUS guard; guarded() says whether it could.
  mapping(void* addr, std::string name, bool writable, dev_t dev, ino_t ino) noexcept;
  ~mapping();  // unregisters, and unmaps unless lost()
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;

  segment& seg() const noexcept { return *static_cast<segment*>(addr_); }  // writable mappings only
  const segment& view() const noexcept { return *static_cast<const segment*>(addr_); }
  const std::string& name() const noexcept { return name_; }
  bool writable() const noexcept { return writable_; }
  dev_t dev() const noexcept { return dev_; }
  ino_t ino() const noexcept { return ino_; }
  // false if the guard's table of ranges was full: the caller must not use the mapping.
  bool guarded() const noexcept { return guard_ >= 0; }
  // The segment's memory was lost under this process (a SIGBUS inside the mapping) and is now private
  // zeros. Lock-free; any thread.
  bool lost() const noexcept;

 private:
  void* addr_;
  std::string name_;
  bool writable_;
  dev_t dev_;
  ino_t ino_;
  int guard_;
};

struct attach_result {
  std::shared_ptr<mapping> map;  // null on error
  std::string error;             // why, when map is null: "shared-memory segment /x (/dev/shm/x): ..."
  bool created = false;          // this call created and initialised the segment
  bool reinitialised = false;    // ... over one whose creator died before it finished
  bool bad_object = false;       // the error is the object's (its type, owner, mode or header), not the machine's
};

// Attaches to segment `name` for reading and writing, creating and initialising it if it does not exist.
// An object that object_problem or prefix_problem refuses is reported in `error` and not mapped, as is
// one for which the space cannot be reserved (a full /dev/shm, a file size limit below the segment's
// size: segment.cpp, "Reserving the space"). Waits at most `wait_ns` for a concurrent creator.
attach_result open_or_create(const std::string& name, const creation_params& params,
                             std::uint64_t wait_ns = 2'000'000'000);

// Maps segment `name` read-only (slaw-top): never creates it, never takes its locks, never blocks (the
// name is opened with O_NONBLOCK), and refuses what open_or_create refuses.
attach_result open_readonly(const std::string& name);

// What is wrong with a segment whose prefix reads `p` and whose object has `file_bytes` bytes ("" if
// nothing): wrong magic, version, ABI, sizes, truncated, or not yet initialised.
std::string prefix_problem(const segment_prefix& p, std::uint64_t file_bytes);

// What makes the object at a segment's name unusable before anything in it is read ("" if nothing): not
// a regular file (a FIFO would block a reader), another user's (who could steer this job's allotment),
// or one that other users may write. Jobs and slaw-top refuse the same objects.
std::string object_problem(const struct stat& st);

// "/dev/shm/NAME" for "/NAME": where Linux keeps it, for messages.
std::string shm_file(const std::string& name);

// shm_unlink; true if it existed. Tests remove their segments with it.
bool remove_segment(const std::string& name);

// Reads `ready` (layout.hpp L1) with acquire.
std::uint32_t load_ready(const segment_header& h) noexcept;

}  // namespace slaw::arbiter
