// Who a job's process is, and whether it still lives: a pid alone is not enough, since pids are reused,
// so a job is named by (pid, start time) — /proc/<pid>/stat field 22, in clock ticks since boot, fixed
// for the life of the process — and by the pid namespace the pid belongs to.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace slaw::arbiter {

struct process_identity {
  pid_t pid = 0;
  std::uint64_t start_time = 0;  // /proc/<pid>/stat field 22; 0 if unreadable
  std::uint64_t pid_ns = 0;      // inode of /proc/<pid>/ns/pid; 0 if unknown
};

// This process (read once per call: after fork() the child is a different process).
process_identity own_identity();

enum class liveness : std::uint8_t {
  alive,     // the pid runs, with the same start time
  gone,      // no such pid, or it is a zombie (killed, not yet waited for): its job has ended
  reused,    // the pid runs, but it is another process (a different start time)
  unknown,   // cannot tell (another pid namespace, or /proc unreadable)
};

// Whether the process `who` still lives, as seen from a process in pid namespace `own_ns`.
liveness check_liveness(const process_identity& who, std::uint64_t own_ns);

struct proc_stat {
  char state = '?';              // field 3: R S D Z X ...
  std::uint64_t start_time = 0;  // field 22
};
// Fields 3 and 22 of a /proc/<pid>/stat line; false if the line cannot be parsed. The command (field 2)
// is in parentheses and may itself hold blanks and parentheses: the fields are counted after the last ')'.
bool parse_proc_stat(const std::string& line, proc_stat& out);

// The process's short command name (program_invocation_short_name), for slaw-top.
std::string own_command();

}  // namespace slaw::arbiter
