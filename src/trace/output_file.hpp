// The runtime's output files: SLAW_STATS=PATH, SLAW_TRACE=timeline:PATH and SLAW_RECORD=PATH
// (docs/guide/tracing.md, "Output files").
//
// Each is opened once, when the runtime is built, and written through that descriptor when it ends:
// nothing is looked up by name again, so whoever controls a directory on the path cannot redirect the
// write after the check, and nothing is ever removed, renamed or replaced. What a path may name:
//
// * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: this process's descriptor N (duplicated; it
//   must be open for writing). These are the only links taken, and they are not looked up.
// * a regular file: created if missing (mode 0666 less the umask), else truncated and written in
//   place, as the shell's `>` does (same inode, owner, permissions and hard links);
// * a FIFO that a reader has open (the program would otherwise wait for one, forever if none comes);
// * a character device (/dev/null, a terminal, /dev/full).
//
// A symbolic link as the last component is refused (O_NOFOLLOW), and so are directories, block devices
// and sockets; the config_error names the setting, the path and the reason. A failed write at the end is
// reported with the path and the system's reason (runtime::close throws slaw::output_error).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <string>

#include <signal.h>

namespace slaw {
struct config;
struct runtime_stats;
}  // namespace slaw

namespace slaw::detail {

class output_file {
 public:
  output_file() = default;
  output_file(output_file&& o) noexcept;
  output_file& operator=(output_file&& o) noexcept;
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file();

  // Opens `path` as the rules above say. `setting` is how messages name it ("SLAW_STATS='out.json'").
  // `truncate`: a regular file is emptied first. `append`: every write goes to the file's end (the
  // counters of several runtimes of a process, one JSON object per line).
  // Throws config_error "SETTING: cannot write to 'PATH': WHY".
  static output_file open(const std::string& setting, const std::string& path, bool truncate, bool append);

  bool is_open() const noexcept { return fd_ >= 0 || stream_; }
  const std::string& path() const noexcept { return path_; }
  const std::string& setting() const noexcept { return setting_; }

  // Writes all of [p, p + n) (a FIFO's reader may take it in pieces). False on failure; the first
  // failure's errno is kept for close().
  bool write(const void* p, std::size_t n) noexcept;
  // A C stream on the descriptor, for writers that use stdio (then use only the stream). Null if none
  // could be made (the reason is kept for close()).
  std::FILE* stream() noexcept;
  // The writer saw a failure of its own with this errno (the first one is kept).
  void failed(int err) noexcept {
    if (!error_) error_ = err ? err : EIO;
  }
  // Flushes and closes. Returns "" if everything written arrived, else "SETTING: WHAT could not be
  // written to 'PATH': REASON" (`what`: "the counters", "the timeline trace", "the DAG").
  std::string close(const char* what);

 private:
  void discard() noexcept;  // closes, forgetting any failure
  int fd_ = -1;
  std::FILE* stream_ = nullptr;
  int error_ = 0;
  std::string setting_, path_;
};

// While it lives, SIGPIPE is blocked on this thread, so that a write to a FIFO or pipe whose reader is
// gone fails with EPIPE, which is reported, instead of killing the process; a SIGPIPE raised
// meanwhile is taken off this thread before the old mask comes back.
class sigpipe_blocked {
 public:
  sigpipe_blocked() noexcept;
  ~sigpipe_blocked();
  sigpipe_blocked(const sigpipe_blocked&) = delete;
  sigpipe_blocked& operator=(const sigpipe_blocked&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

// SLAW_STATS (stats_json.cpp): a runtime's counters file, opened when it is built (the process's first
// runtime to name it truncates it, every runtime appends one line), and the counters written to it, or
// to stderr, when it ends; returns the failure, empty if none.
output_file open_stats_file(const config& cfg);
std::string write_stats(const runtime_stats& s, const config& cfg, output_file& file);

}  // namespace slaw::detail
