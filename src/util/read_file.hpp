// Reading a whole input file with a size limit, for the readers of user-given files (the deployment
// file, slaw-sim's DAG and cost files): only a regular file or a pipe, never more than the limit in
// memory, and a reason in words when it cannot be read. A regular file's size is checked before
// anything is read; a pipe is read up to one byte past the limit. A device (/dev/zero), a directory or
// a socket is refused without reading. Standard library and POSIX only, header-only: the runtime's
// places and the simulator include it.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace slaw::util {

struct read_status {
  enum kind_t { ok, cannot_open, directory, not_regular, too_large, read_error } kind = ok;
  int error = 0;           // errno, for cannot_open and read_error
  std::uint64_t size = 0;  // too_large: the file's size, or 0 for a pipe that went on past the limit
  std::uint64_t limit = 0;

  explicit operator bool() const noexcept { return kind == ok; }

  // The problem in words, to follow "PATH: ": "cannot open it: No such file or directory", "is a
  // directory", "not a regular file (a device or a socket)", "larger than the limit of N bytes (M
  // bytes)", "cannot read it: ...".
  std::string describe() const {
    switch (kind) {
      case ok: return "read";
      case cannot_open: return std::string("cannot open it: ") + std::strerror(error);
      case directory: return "is a directory, not a file";
      case not_regular: return "not a regular file or a pipe (a device or a socket), so it is not read";
      case too_large:
        return "larger than the limit of " + std::to_string(limit) + " bytes" +
               (size ? " (" + std::to_string(size) + " bytes)" : std::string(" (a pipe that went on past it)"));
      case read_error: return std::string("cannot read it: ") + std::strerror(error);
    }
    return "?";
  }
};

// Reads the file at `path` into `out` (a std::string or a std::vector of bytes), replacing its content,
// if it is a regular file or a pipe of at most `limit` bytes.
template <class Bytes>
read_status read_file(const std::string& path, std::uint64_t limit, Bytes& out) {
  read_status r;
  r.limit = limit;
  out.clear();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    r.kind = read_status::cannot_open;
    r.error = errno;
    return r;
  }
  auto classify = [&](const struct stat& s) {
    if (S_ISDIR(s.st_mode)) r.kind = read_status::directory;
    else if (!S_ISREG(s.st_mode) && !S_ISFIFO(s.st_mode)) r.kind = read_status::not_regular;
    else if (S_ISREG(s.st_mode) && static_cast<std::uint64_t>(s.st_size) > limit) {
      r.kind = read_status::too_large;
      r.size = static_cast<std::uint64_t>(s.st_size);
    }
    return r.kind == read_status::ok;
  };
  if (!classify(st)) return r;  // before open: opening a device may have effects
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r.kind = read_status::cannot_open;
    r.error = errno;
    return r;
  }
  if (::fstat(fd, &st) != 0 || !classify(st)) {  // the path may have changed since stat
    if (r.kind == read_status::ok) {
      r.kind = read_status::read_error;
      r.error = errno;
    }
    ::close(fd);
    return r;
  }
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ::ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.kind = read_status::read_error;
      r.error = errno;
      break;
    }
    if (n == 0) break;
    if (static_cast<std::uint64_t>(n) > limit - out.size()) {  // out.size() <= limit here
      r.kind = read_status::too_large;
      r.size = S_ISREG(st.st_mode) ? out.size() + static_cast<std::uint64_t>(n) : 0;
      break;
    }
    out.insert(out.end(), chunk, chunk + n);
  }
  ::close(fd);
  if (r.kind != read_status::ok) out.clear();
  return r;
}

}  // namespace slaw::util
