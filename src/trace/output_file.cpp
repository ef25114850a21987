#include "trace/output_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <ctime>
#include <string_view>
#include <utility>

#include "slaw/config.hpp"

namespace slaw::detail {

namespace {

constexpr const char* accepted =
    "accepted: a regular file (created if missing, else overwritten in place), a FIFO that a reader has open, a "
    "character device, or /dev/stdout, /dev/stderr, /dev/fd/N";

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor they name, else -1.
int descriptor_named(std::string_view path) noexcept {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (path.substr(0, prefix.size()) != prefix) continue;
    const std::string_view digits = path.substr(prefix.size());
    int n = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size() && n >= 0) return n;
  }
  return -1;
}

const char* kind_of(mode_t m) noexcept {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "neither a regular file, a FIFO nor a character device";
}

}  // namespace

output_file::output_file(output_file&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      stream_(std::exchange(o.stream_, nullptr)),
      error_(std::exchange(o.error_, 0)),
      setting_(std::move(o.setting_)),
      path_(std::move(o.path_)) {}

output_file& output_file::operator=(output_file&& o) noexcept {
  if (this != &o) {
    discard();
    fd_ = std::exchange(o.fd_, -1);
    stream_ = std::exchange(o.stream_, nullptr);
    error_ = std::exchange(o.error_, 0);
    setting_ = std::move(o.setting_);
    path_ = std::move(o.path_);
  }
  return *this;
}

output_file::~output_file() { discard(); }

void output_file::discard() noexcept {
  if (stream_) std::fclose(stream_);
  if (fd_ >= 0) ::close(fd_);
  stream_ = nullptr;
  fd_ = -1;
  error_ = 0;
}

output_file output_file::open(const std::string& setting, const std::string& path, bool truncate, bool append) {
  auto refuse = [&](const std::string& why) {
    return config_error(setting + ": cannot write to '" + path + "': " + why);
  };
  output_file out;
  out.setting_ = setting;
  out.path_ = path;
  if (const int n = descriptor_named(path); n >= 0) {
    const int flags = ::fcntl(n, F_GETFL);
    if (flags < 0) throw refuse("this process has no descriptor " + std::to_string(n) + " open");
    if ((flags & O_ACCMODE) == O_RDONLY)
      throw refuse("this process's descriptor " + std::to_string(n) + " is open for reading only");
    out.fd_ = ::fcntl(n, F_DUPFD_CLOEXEC, 3);
    if (out.fd_ < 0) throw refuse(std::strerror(errno));
    return out;
  }
  // Never blocks (a FIFO without a reader fails with ENXIO instead), never follows a final link.
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (append ? O_APPEND : 0);
  out.fd_ = ::open(path.c_str(), flags, 0666);
  if (out.fd_ < 0) {
    const int err = errno;
    struct stat st {};
    const bool there = ::lstat(path.c_str(), &st) == 0;
    if (err == ELOOP && there && S_ISLNK(st.st_mode))
      throw refuse("it is a symbolic link, which slaw does not follow for its outputs (give the path it points "
                   "to); " + std::string(accepted));
    if (err == ENXIO && there && S_ISFIFO(st.st_mode))
      throw refuse("it is a FIFO that no process has open for reading (start the reader first)");
    if (err == EISDIR || (there && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)))
      throw refuse(std::string("it is ") + (there ? kind_of(st.st_mode) : "a directory") + "; " + accepted);
    throw refuse(std::strerror(err));
  }
  struct stat st {};
  if (::fstat(out.fd_, &st) != 0) throw refuse(std::strerror(errno));
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
    throw refuse(std::string("it is ") + kind_of(st.st_mode) + "; " + accepted);
  // Writes block again (a FIFO's reader may be slower than the writer).
  if (::fcntl(out.fd_, F_SETFL, append ? O_APPEND : 0) != 0) throw refuse(std::strerror(errno));
  if (S_ISREG(st.st_mode) && truncate && ::ftruncate(out.fd_, 0) != 0) throw refuse(std::strerror(errno));
  return out;
}

bool output_file::write(const void* p, std::size_t n) noexcept {
  if (error_) return false;
  const auto* at = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd_, at, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      failed(w < 0 ? errno : EIO);
      return false;
    }
    at += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

std::FILE* output_file::stream() noexcept {
  if (!stream_ && fd_ >= 0) {
    stream_ = ::fdopen(fd_, "w");
    if (stream_) fd_ = -1;  // the stream owns it now
    else failed(errno);
  }
  return stream_;
}

std::string output_file::close(const char* what) {
  if (stream_) {
    if (std::fflush(stream_) != 0 || std::ferror(stream_)) failed(errno);
    if (std::fclose(stream_) != 0) failed(errno);
    stream_ = nullptr;
  }
  if (fd_ >= 0) {
    // Some file systems (NFS, quotas) report a refused write only here.
    if (::close(fd_) != 0 && errno != EINTR) failed(errno);
    fd_ = -1;
  }
  if (!error_) return {};
  const int err = std::exchange(error_, 0);
  return setting_ + ": " + what + " could not be written to '" + path_ + "': " + std::strerror(err);
}

sigpipe_blocked::sigpipe_blocked() noexcept {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  sigset_t pending;
  sigemptyset(&pending);
  was_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
}

sigpipe_blocked::~sigpipe_blocked() {
  sigset_t pending;
  sigemptyset(&pending);
  if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    const timespec now{0, 0};
    while (sigtimedwait(&pipe, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace slaw::detail
