// What the arbiter tests share: a unique segment name per test (removed at the end, so that tests never
// meet each other's or a real job's segment), settings for it, waiting with a deadline, and forked jobs.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "arbiter/client.hpp"
#include "arbiter/segment.hpp"
#include "arbiter/settings.hpp"
#include "arbiter/snapshot.hpp"

namespace arbiter_test {

namespace arb = slaw::arbiter;

// "/slaw-test-<pid>-<n>-<test name>": unique on the machine; shm_unlink'ed when it goes out of scope.
class scoped_name {
 public:
  scoped_name() {
    static std::atomic<int> n{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info ? info->name() : "x";
    for (char& c : test)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    name_ = "/slaw-test-" + std::to_string(::getpid()) + "-" + std::to_string(n.fetch_add(1)) + "-" + test.substr(0, 60);
    arb::remove_segment(name_);
  }
  ~scoped_name() { arb::remove_segment(name_); }
  scoped_name(const scoped_name&) = delete;
  scoped_name& operator=(const scoped_name&) = delete;
  const std::string& str() const { return name_; }
  operator const std::string&() const { return name_; }

 private:
  std::string name_;
};

inline arb::settings settings_for(const std::string& name, std::uint32_t cores, double quantum_ms = 10,
                                  std::optional<slaw::policy::arbiter> policy = std::nullopt) {
  arb::settings s;
  s.name = name;
  s.cores = cores;
  s.quantum_ns = static_cast<std::uint64_t>(quantum_ms * 1e6);
  s.arbiter = policy;
  return s;
}

// Polls `ok` every millisecond until it holds or `seconds` pass.
inline bool eventually(const std::function<bool()>& ok, double seconds = 10) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ok();
}

// A consistent copy of segment `name`, read-only (an empty view if it cannot be read).
inline arb::segment_view look(const std::string& name) {
  arb::attach_result r = arb::open_readonly(name);
  if (!r.map) return {};
  return arb::take_snapshot(r.map->view());
}

inline std::map<pid_t, std::uint32_t> allotments_by_pid(const arb::segment_view& v) {
  std::map<pid_t, std::uint32_t> m;
  for (const auto& j : v.jobs) m[j.pid] = j.allotment;
  return m;
}

// Whether segment `name` shows exactly these jobs (by pid) with these allotments.
inline bool shows(const std::string& name, const std::map<pid_t, std::uint32_t>& want) {
  const arb::segment_view v = look(name);
  return v.consistent && allotments_by_pid(v) == want;
}

// The segment's quantum and jobs, for a failure message.
inline std::string describe(const std::string& name) {
  const arb::segment_view v = look(name);
  std::string s = "quantum " + std::to_string(v.quantum) + ", jobs:";
  for (const auto& j : v.jobs)
    s += " pid " + std::to_string(j.pid) + " desire " + std::to_string(j.desire) + " allotment " +
         std::to_string(j.allotment) + ";";
  return s;
}

// A job in a forked process: registers with `workers` and `desire`, reports that desire, ticks every
// `tick_us` until the parent closes its end of the control pipe, then leaves (unregister) and exits 0.
// It exits by itself after 60 s (alarm) so that a failed test never leaves it behind.
struct job_spec {
  job_spec(std::uint32_t w, double d, int tick = 1000) : workers(w), desire(d), tick_us(tick) {}
  std::uint32_t workers;
  double desire;
  int tick_us;
  bool unregister_at_end = true;
  arb::client_options options;
};

// A forked process running `child(ctl)` and exiting with what it returns; `ctl` is the read end of a pipe
// that becomes readable when the parent calls stop() (or dies). It is killed by an alarm after
// `alarm_s` seconds, so that a failed test never leaves it behind.
class forked_job {
 public:
  forked_job(const std::function<int(int ctl)>& child, unsigned alarm_s = 60) {
    int ctl[2];
    if (::pipe(ctl) != 0) throw std::runtime_error("pipe");
    std::fflush(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      ::close(ctl[1]);
      ::alarm(alarm_s);
      ::_exit(child(ctl[0]));
    }
    ::close(ctl[0]);
    ctl_ = ctl[1];
  }
  // A job of the arbiter only (job_spec).
  forked_job(const arb::settings& s, job_spec spec)
      : forked_job([s, spec](int ctl) {
          int rc = 0;
          arb::client c(s, spec.options);
          if (!c.register_job(spec.workers, spec.desire)) rc = 3;
          c.report(spec.desire, {0.5, 7});
          pollfd p{ctl, POLLIN, 0};
          for (;;) {
            c.tick(arb::monotonic_ns());
            const int n = ::poll(&p, 1, spec.tick_us >= 1000 ? spec.tick_us / 1000 : 0);
            if (n > 0) break;  // the parent closed the pipe (or wrote): stop
            if (spec.tick_us < 1000) ::usleep(static_cast<useconds_t>(spec.tick_us));
          }
          if (spec.unregister_at_end) c.unregister();
          else ::_exit(rc);  // leaves the slot behind, as a crashed job would
          return rc;
        }) {}
  ~forked_job() {
    stop();
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  forked_job(const forked_job&) = delete;
  forked_job& operator=(const forked_job&) = delete;

  pid_t pid() const { return pid_; }
  // Asks the job to leave and end.
  void stop() {
    if (ctl_ >= 0) ::close(ctl_);
    ctl_ = -1;
  }
  // Waits for the process (at most 20 s); returns its wait status, or -1.
  int wait() {
    if (pid_ <= 0) return status_;
    for (int i = 0; i < 20000; ++i) {
      int st = 0;
      const pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return status_ = st;
      }
      if (r < 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return -1;
  }
  void kill9() { ::kill(pid_, SIGKILL); }

 private:
  pid_t pid_ = -1;
  int ctl_ = -1;
  int status_ = -1;
};

}  // namespace arbiter_test
