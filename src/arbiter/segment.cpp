// Creating and attaching to the segment.
//
// The creation race. Any number of jobs may start at once, none of them knowing whether the segment
// exists. Each does:
//   1. fd = shm_open(name, O_RDWR | O_CREAT | O_NONBLOCK, 0600): creates an empty object or opens the
//      existing one; it never fails because another process got there first. The object must be a
//      regular file of this user's that no other user may write (object_problem), checked before
//      anything else, the process's own mapping of it included.
//   2. flock(fd, LOCK_EX), polled until a deadline: the CREATION LOCK. Only its holder may initialise.
//   3. Check that the name still refers to this object (someone may have removed it meanwhile); if
//      not, start again.
//   4. Under the creation lock, fstat:
//        size 0                          → nobody initialised it: reserve the space (below), initialise,
//                                          ready = 1;
//        right size, ready = 0, magic 0 or ours
//                                        → its creator died before it finished (the kernel dropped its
//                                          flock): initialise it again;
//        anything else                   → check the prefix (magic, version, ABI, sizes, ready) and use
//                                          it only if all are right; otherwise report and ignore it.
//   5. Reserve the space (also for an existing segment: it fills any hole), map, register the mapping
//      with the SIGBUS guard (segment.hpp), release the creation lock (explicitly: the mapping keeps the
//      locked file description open).
// Why this is safe: initialisation happens only under the creation lock, and flock is released by the
// kernel when its holder dies, so "ready is not 1 while I hold the lock" proves that no live process is
// initialising it, and that nobody ever used it (a process uses a segment only after seeing ready = 1,
// written last with release, under the same lock or, for slaw-top, with an acquire load). A segment is
// initialised at most once in its useful life, and never while someone uses it. An O_EXCL creator with
// waiting attachers would have no such proof: a creator killed mid-way would leave a segment nobody
// could safely take over. The wait is bounded (2 s by default): a creator stopped with SIGSTOP while
// holding the lock makes the others run without the arbiter, not hang. The lock is held for the
// microseconds of a posix_fallocate and a few stores; jobs attach once per runtime, so it is never
// contended in steady state. Jobs and slaw-top never take it after attaching.
//
// Reserving the space. tmpfs allocates a page when it is first touched, and ftruncate only sets the
// size: on a /dev/shm without room for the segment's 13 pages, ftruncate succeeded and the first store
// to a page that tmpfs could not provide raised SIGBUS, which killed every slaw program at start-up. So
// the space is reserved with posix_fallocate before the segment is mapped: it allocates every page or
// fails with ENOSPC, which is reported (the job runs as if alone). Growing a file past the process's
// RLIMIT_FSIZE (ulimit -f) raises SIGXFSZ, fatal by default, so the limit is checked before the object
// grows. A failed reservation leaves an object that was empty empty again (shrinking raises nothing),
// so that a later job, with room or without the limit, creates the segment as usual. What the user does
// to the file later (truncating it under running jobs) is the SIGBUS guard's business (segment.hpp).
#include "arbiter/segment.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <utility>

#include "arbiter/robust_mutex.hpp"

namespace slaw::arbiter {

namespace {

struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

// Releases the creation lock explicitly: closing the descriptor is not enough, as a mapping keeps the
// open file description, which owns the flock, alive for as long as it exists.
struct flock_guard {
  int fd = -1;
  ~flock_guard() {
    if (fd >= 0) ::flock(fd, LOCK_UN);
  }
};

std::string where(const std::string& name) { return "shared-memory segment " + name + " (" + shm_file(name) + ")"; }

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016" PRIx64, v);
  return b;
}

// ---- The SIGBUS guard (segment.hpp) ----
//
// A fixed table of address ranges, so that the handler reads only memory that is never freed. Entries
// are claimed and freed under guard_m (the handler never takes it). A range is registered before its
// mapping is first accessed and unregistered after its last access, by the mapping's constructor and
// destructor; every access to a range by any thread happens after its registration (the mapping's
// address reaches other threads only through synchronisation: the process's cache, the client's
// release store), so the handler, which runs in the faulting thread, sees the entry with relaxed loads.
constexpr int guard_entries = 128;
constexpr auto rlx = std::memory_order_relaxed;

struct guard_entry {
  std::atomic<std::uintptr_t> begin{0};  // 0: free
  std::atomic<std::uintptr_t> end{0};
  std::atomic<int> prot{0};
  std::atomic<bool> lost{false};
};
guard_entry guards[guard_entries];
std::mutex guard_m;
bool handler_installed = false;        // under guard_m
struct sigaction previous_sigbus {};   // written before the handler is installed; read by it only

// A SIGBUS that is not ours: what the handler it replaced would have done.
void chain_sigbus(int sig, siginfo_t* info, void* context) {
  const struct sigaction& p = previous_sigbus;
  const bool fault = info != nullptr && info->si_code > 0;
  if ((p.sa_flags & SA_SIGINFO) != 0) {
    if (p.sa_sigaction != nullptr) p.sa_sigaction(sig, info, context);
    return;
  }
  if (p.sa_handler == SIG_IGN && !fault) return;  // ignored, as before (a fault cannot be ignored)
  if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
    p.sa_handler(sig);
    return;
  }
  // The default action: restore it. A fault then happens again when the access is retried, and is
  // fatal as before; a SIGBUS sent with kill is raised again, delivered once this handler returns.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGBUS, &dfl, nullptr);
  if (!fault) ::raise(SIGBUS);
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (info != nullptr && info->si_code > 0) {
    const auto a = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (guard_entry& g : guards) {
      const std::uintptr_t b = g.begin.load(rlx);
      if (b == 0 || a < b || a >= g.end.load(rlx)) continue;
      // Private zeros over the whole range; the system call itself, past any interceptor.
      const long r = ::syscall(SYS_mmap, b, g.end.load(rlx) - b, g.prot.load(rlx), MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (static_cast<std::uintptr_t>(r) == b) {
        g.lost.store(true, rlx);
        errno = saved_errno;
        return;  // the access is retried on the zeros
      }
      break;  // cannot replace it: the fault stays fatal
    }
  }
  errno = saved_errno;
  chain_sigbus(sig, info, context);
}

// Registers [addr, addr + bytes); -1 if the table is full.
int guard_register(void* addr, std::size_t bytes, int prot) {
  std::lock_guard<std::mutex> g(guard_m);
  if (!handler_installed) {
    ::sigaction(SIGBUS, nullptr, &previous_sigbus);
    struct sigaction mine {};
    mine.sa_sigaction = on_sigbus;
    mine.sa_flags = SA_SIGINFO;
    sigemptyset(&mine.sa_mask);
    if (::sigaction(SIGBUS, &mine, nullptr) != 0) return -1;
    handler_installed = true;
  }
  for (int i = 0; i < guard_entries; ++i) {
    guard_entry& e = guards[i];
    if (e.begin.load(rlx) != 0) continue;
    const auto b = reinterpret_cast<std::uintptr_t>(addr);
    e.lost.store(false, rlx);
    e.prot.store(prot, rlx);
    e.end.store(b + bytes, rlx);
    e.begin.store(b, std::memory_order_release);
    return i;
  }
  return -1;
}

void guard_unregister(int i) {
  std::lock_guard<std::mutex> g(guard_m);
  guards[i].begin.store(0, std::memory_order_release);
}

// For object_problem's messages.
std::string mode_octal(mode_t m) {
  char b[8];
  std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(m & 07777));
  return b;
}

const char* file_kind(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a file";
}

// Gives the object its full size with every page allocated (segment.cpp, "Reserving the space").
// `size_now` is its size before. "" on success, else why not.
std::string reserve(int fd, std::uint64_t size_now) {
  constexpr std::uint64_t bytes = sizeof(segment);
  if (size_now < bytes) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < bytes)
      return "the file size limit (ulimit -f) is " + std::to_string(limit.rlim_cur) + " bytes, below the segment's " +
             std::to_string(bytes);
  }
  const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (rc == 0) return {};
  if (size_now == 0) (void)!::ftruncate(fd, 0);
  std::string why = "cannot reserve " + std::to_string(bytes) + " bytes for it (" + std::strerror(rc) + ")";
  if (rc == ENOSPC) why += ": /dev/shm is full, or too small";
  return why;
}

// The process's mappings by object, so that the clients of one process share one (segment.hpp).
std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::pair<dev_t, ino_t>, std::weak_ptr<mapping>>& cache() {
  static std::map<std::pair<dev_t, ino_t>, std::weak_ptr<mapping>> c;
  return c;
}

std::shared_ptr<mapping> cached(const struct stat& st) {
  std::lock_guard<std::mutex> g(cache_mutex());
  auto it = cache().find({st.st_dev, st.st_ino});
  if (it == cache().end()) return nullptr;
  std::shared_ptr<mapping> m = it->second.lock();
  return m && !m->lost() ? m : nullptr;  // a lost mapping is private zeros: map the object afresh
}

// Returns the cached mapping of the same object if another thread raced us to it, else `m`.
std::shared_ptr<mapping> remember(std::shared_ptr<mapping> m) {
  std::lock_guard<std::mutex> g(cache_mutex());
  for (auto it = cache().begin(); it != cache().end();)
    it = it->second.expired() ? cache().erase(it) : std::next(it);
  auto& slot = cache()[{m->dev(), m->ino()}];
  if (auto other = slot.lock(); other && !other->lost()) return other;
  slot = m;
  return m;
}

bool flock_until(int fd, std::uint64_t deadline_ns) {
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (monotonic_ns() >= deadline_ns) return false;
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
}

// Whether `name` still refers to the object `st` describes.
bool still_named(const std::string& name, const struct stat& st) {
  const int fd = shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  struct stat now {};
  const bool same = ::fstat(fd, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino;
  ::close(fd);
  return same;
}

bool read_prefix(int fd, segment_prefix& p) {
  return ::pread(fd, &p, sizeof p, 0) == static_cast<ssize_t>(sizeof p);
}

// Writes a fresh segment over zeroed or abandoned memory (under the creation lock; nobody else maps it).
std::string initialise(void* addr, const creation_params& p) {
  std::memset(addr, 0, sizeof(segment));
  segment* s = new (addr) segment();
  segment_header& h = s->header;
  h.cores.store(p.cores, std::memory_order_relaxed);
  h.policy.store(static_cast<std::uint32_t>(p.policy), std::memory_order_relaxed);
  h.quantum_ns.store(p.quantum_ns, std::memory_order_relaxed);
  h.stale_quanta.store(p.stale_quanta, std::memory_order_relaxed);
  h.creator_pid.store(::getpid(), std::memory_order_relaxed);
  h.settings_pid.store(::getpid(), std::memory_order_relaxed);
  timespec rt{};
  clock_gettime(CLOCK_REALTIME, &rt);
  h.created_unix_ns.store(static_cast<std::uint64_t>(rt.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(rt.tv_nsec),
                          std::memory_order_relaxed);
  h.quantum.store(1, std::memory_order_relaxed);
  h.quantum_start_ns.store(monotonic_ns(), std::memory_order_relaxed);
  h.next_ticket.store(1, std::memory_order_relaxed);
  h.owner_slot.store(-1, std::memory_order_relaxed);
  if (const int rc = init_robust_mutex(&h.mutex)) return std::string("cannot initialise its robust mutex (") + std::strerror(rc) + ")";
  h.prefix.magic = segment_magic;
  h.prefix.version = layout_version;
  h.prefix.abi = abi_tag;
  h.prefix.total_bytes = sizeof(segment);
  h.prefix.header_bytes = sizeof(segment_header);
  h.prefix.slot_bytes = sizeof(job_slot);
  h.prefix.slots = slot_count;
  std::atomic_ref<std::uint32_t>(h.prefix.ready).store(1, std::memory_order_release);  // L1: last
  return {};
}

}  // namespace

mapping::mapping(void* addr, std::string name, bool writable, dev_t dev, ino_t ino) noexcept
    : addr_(addr), name_(std::move(name)), writable_(writable), dev_(dev), ino_(ino),
      guard_(guard_register(addr, sizeof(segment), writable ? PROT_READ | PROT_WRITE : PROT_READ)) {}

mapping::~mapping() {
  const bool was_lost = lost();
  if (guard_ >= 0) guard_unregister(guard_);
  if (!was_lost) ::munmap(addr_, sizeof(segment));  // a lost range stays mapped (segment.hpp)
}

bool mapping::lost() const noexcept { return guard_ >= 0 && guards[guard_].lost.load(rlx); }

std::string shm_file(const std::string& name) { return "/dev/shm" + name; }

bool remove_segment(const std::string& name) { return shm_unlink(name.c_str()) == 0; }

std::uint32_t load_ready(const segment_header& h) noexcept {
  // atomic_ref needs a non-const object; a load does not write, so a read-only mapping is fine.
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(h.prefix.ready)).load(std::memory_order_acquire);
}

std::string prefix_problem(const segment_prefix& p, std::uint64_t file_bytes) {
  if (file_bytes < sizeof(segment_prefix))
    return "truncated: " + std::to_string(file_bytes) + " bytes, fewer than the " + std::to_string(sizeof(segment_prefix)) +
           "-byte header prefix";
  if (p.magic != segment_magic)
    return "not a slaw arbiter segment: magic number " + hex(p.magic) + ", expected " + hex(segment_magic);
  if (p.version != layout_version)
    return "layout version " + std::to_string(p.version) + ", this slaw reads version " + std::to_string(layout_version) +
           " (a different slaw release made it)";
  if (p.abi != abi_tag)
    return "made by a process of another ABI (tag " + hex(p.abi) + ", this process's is " + hex(abi_tag) + ")";
  if (p.header_bytes != sizeof(segment_header) || p.slot_bytes != sizeof(job_slot) || p.slots != slot_count ||
      p.total_bytes != sizeof(segment))
    return "its header describes " + std::to_string(p.slots) + " slots of " + std::to_string(p.slot_bytes) + " bytes after " +
           std::to_string(p.header_bytes) + " header bytes, " + std::to_string(p.total_bytes) + " bytes in all; layout " +
           std::to_string(layout_version) + " has " + std::to_string(slot_count) + " of " + std::to_string(sizeof(job_slot)) +
           " after " + std::to_string(sizeof(segment_header)) + ", " + std::to_string(sizeof(segment)) + " in all";
  if (file_bytes < p.total_bytes)
    return "truncated: " + std::to_string(file_bytes) + " bytes, its header says " + std::to_string(p.total_bytes);
  if (file_bytes != p.total_bytes)
    return "wrong size: " + std::to_string(file_bytes) + " bytes, its header says " + std::to_string(p.total_bytes);
  if (p.ready != 1) return "not initialised (its creator has not finished)";
  return {};
}

std::string object_problem(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::string("not a regular file (") + file_kind(st.st_mode) + ")";
  // Another user's segment would let that user steer this job's allotment: never trust it.
  if (st.st_uid != ::geteuid())
    return "it belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " + std::to_string(::geteuid()) + ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "its mode is " + mode_octal(st.st_mode) + ": other users may write it (slaw creates it 0600)";
  return {};
}

attach_result open_or_create(const std::string& name, const creation_params& params, std::uint64_t wait_ns) {
  attach_result r;
  const std::uint64_t deadline = monotonic_ns() + wait_ns;
  for (int attempt = 0; attempt < 8; ++attempt) {
    fd_guard fd{shm_open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600)};
    if (fd.fd < 0) {
      const int e = errno;
      r.error = where(name) + ": cannot open or create it (" + std::strerror(e) + ")";
      if (e == EACCES) r.error += ": it belongs to another user, or this user may not write it";
      return r;
    }
    struct stat st {};
    if (::fstat(fd.fd, &st) != 0) {
      r.error = where(name) + ": cannot stat it (" + std::strerror(errno) + ")";
      return r;
    }
    if (std::string why = object_problem(st); !why.empty()) {
      r.error = where(name) + ": " + why;
      r.bad_object = true;
      return r;
    }
    if (auto m = cached(st)) {
      r.map = std::move(m);
      return r;
    }
    if (!flock_until(fd.fd, deadline)) {
      r.error = where(name) + ": another process has held its creation lock for longer than " +
                std::to_string(wait_ns / 1'000'000) + " ms (stopped while creating it?)";
      return r;
    }
    const flock_guard creation_lock{fd.fd};
    if (!still_named(name, st)) continue;  // removed (and maybe created again) meanwhile: start over
    if (::fstat(fd.fd, &st) != 0) {
      r.error = where(name) + ": cannot stat it (" + std::strerror(errno) + ")";
      return r;
    }
    if (std::string why = object_problem(st); !why.empty()) {  // its mode may have changed meanwhile
      r.error = where(name) + ": " + why;
      r.bad_object = true;
      return r;
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    segment_prefix p{};
    bool init = size == 0;
    if (!init && size >= sizeof p) {
      if (!read_prefix(fd.fd, p)) {
        r.error = where(name) + ": cannot read it (" + std::strerror(errno) + ")";
        return r;
      }
      if (p.ready != 1 && (p.magic == 0 || p.magic == segment_magic) && size == sizeof(segment)) init = r.reinitialised = true;
    }
    if (!init) {
      if (std::string why = prefix_problem(p, size); !why.empty()) {
        r.error = where(name) + ": " + why;
        r.bad_object = true;
        return r;
      }
    }
    if (std::string why = reserve(fd.fd, size); !why.empty()) {
      r.error = where(name) + ": " + why;
      return r;
    }
    void* addr = ::mmap(nullptr, sizeof(segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
    if (addr == MAP_FAILED) {
      r.error = where(name) + ": cannot map it (" + std::strerror(errno) + ")";
      return r;
    }
    auto m = std::make_shared<mapping>(addr, name, true, st.st_dev, st.st_ino);
    if (!m->guarded()) {
      r.error = where(name) + ": this process maps too many segments (" + std::to_string(guard_entries) + ")";
      return r;
    }
    if (init) {
      if (std::string why = initialise(addr, params); !why.empty()) {
        r.error = where(name) + ": " + why;
        return r;
      }
      r.created = !r.reinitialised;
    }
    if (m->lost()) {  // truncated by its user while this process was attaching
      r.error = where(name) + ": it was truncated while this process attached to it";
      r.created = r.reinitialised = false;
      return r;
    }
    r.map = remember(std::move(m));
    return r;
  }
  r.error = where(name) + ": it was removed again and again while this process attached to it";
  return r;
}

attach_result open_readonly(const std::string& name) {
  attach_result r;
  // O_NONBLOCK: a FIFO at the name would otherwise block the open until some process writes to it.
  fd_guard fd{shm_open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0)};
  if (fd.fd < 0) {
    r.error = where(name) + ": " + (errno == ENOENT ? std::string("does not exist (no slaw job has used it yet)")
                                                    : "cannot open it (" + std::string(std::strerror(errno)) + ")");
    return r;
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) {
    r.error = where(name) + ": cannot stat it (" + std::strerror(errno) + ")";
    return r;
  }
  if (std::string why = object_problem(st); !why.empty()) {
    r.error = where(name) + ": " + why;
    r.bad_object = true;
    return r;
  }
  segment_prefix p{};
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size >= sizeof p && !read_prefix(fd.fd, p)) {
    r.error = where(name) + ": cannot read it (" + std::strerror(errno) + ")";
    return r;
  }
  if (std::string why = prefix_problem(p, size); !why.empty()) {
    r.error = where(name) + ": " + why;
    r.bad_object = true;
    return r;
  }
  void* addr = ::mmap(nullptr, sizeof(segment), PROT_READ, MAP_SHARED, fd.fd, 0);
  if (addr == MAP_FAILED) {
    r.error = where(name) + ": cannot map it (" + std::strerror(errno) + ")";
    return r;
  }
  auto m = std::make_shared<mapping>(addr, name, false, st.st_dev, st.st_ino);
  if (!m->guarded()) {
    r.error = where(name) + ": this process maps too many segments (" + std::to_string(guard_entries) + ")";
    return r;
  }
  r.map = std::move(m);
  return r;
}

}  // namespace slaw::arbiter
