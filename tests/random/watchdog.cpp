// The watchdog of watchdog.hpp (Linux).
#include "watchdog.hpp"

#include <dirent.h>
#include <execinfo.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace rp {

struct watchdog::state {
  std::mutex m;
  std::condition_variable cv;
  bool armed = false, stop = false;
  std::chrono::steady_clock::time_point deadline;
  std::chrono::milliseconds limit{0};
  std::string what;
  std::function<void()> details;
  std::thread thread;
};

watchdog& watchdog::instance() {
  static watchdog w;
  return w;
}

watchdog::watchdog() : s_(new state) {
  s_->thread = std::thread([s = s_] {
    std::unique_lock<std::mutex> lk(s->m);
    while (!s->stop) {
      if (!s->armed) {
        s->cv.wait(lk);
        continue;
      }
      if (s->cv.wait_until(lk, s->deadline) == std::cv_status::timeout && s->armed &&
          std::chrono::steady_clock::now() >= s->deadline) {
        std::fprintf(stderr, "\n*** watchdog: a program did not finish within %lld ms: a hang (or a livelock).\n*** %s\n",
                     static_cast<long long>(s->limit.count()), s->what.c_str());
        std::fflush(stderr);
        if (s->details) s->details();
        std::fflush(stderr);
        dump_all_stacks();
        std::fprintf(stderr, "*** watchdog: aborting. %s\n", s->what.c_str());
        std::fflush(stderr);
        std::abort();
      }
    }
  });
}

watchdog::~watchdog() {
  {
    std::lock_guard<std::mutex> g(s_->m);
    s_->stop = true;
  }
  s_->cv.notify_all();
  s_->thread.join();
  delete s_;
}

void watchdog::arm(const std::string& what, std::chrono::milliseconds limit, std::function<void()> details) {
  {
    std::lock_guard<std::mutex> g(s_->m);
    s_->armed = true;
    s_->what = what;
    s_->details = std::move(details);
    s_->limit = limit;
    s_->deadline = std::chrono::steady_clock::now() + limit;
  }
  s_->cv.notify_all();
}

void watchdog::disarm() {
  std::lock_guard<std::mutex> g(s_->m);
  s_->armed = false;
  s_->details = nullptr;
}

std::chrono::milliseconds scaled_limit(double seconds) {
  double f = 1;
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  f = 4;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
  f = 4;
#endif
#endif
  return std::chrono::milliseconds(static_cast<long long>(seconds * f * 1000));
}

namespace {

// gdb attached to this process: "thread apply all bt". Returns whether it printed any frame.
bool dump_with_gdb() {
  const char* g = std::getenv("SLAW_RANDOM_GDB");
  if (g && std::strcmp(g, "0") == 0) return false;
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // Yama: let the child attach to its parent
  char pid[32];
  std::snprintf(pid, sizeof pid, "%d", static_cast<int>(getpid()));
  int fd[2];
  if (pipe(fd) != 0) return false;
  pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execlp("gdb", "gdb", "-nx", "-batch", "-p", pid, "-ex", "set pagination off", "-ex", "info threads", "-ex",
           "thread apply all bt", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fd[1]);
  bool frames = false;
  char buf[4096];
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    pollfd p{fd[0], POLLIN, 0};
    if (std::chrono::steady_clock::now() > until || poll(&p, 1, 1000) < 0) break;
    if (!(p.revents & (POLLIN | POLLHUP))) continue;
    ssize_t n = read(fd[0], buf, sizeof buf);
    if (n <= 0) break;
    if (!frames && memmem(buf, static_cast<std::size_t>(n), "#0 ", 3)) frames = true;
    fwrite(buf, 1, static_cast<std::size_t>(n), stderr);
  }
  close(fd[0]);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return frames;
}

std::atomic<int> handler_done{0};

void print_own_stack(int) {
  void* frames[64];
  int n = backtrace(frames, 64);
  char head[64];
  int len = std::snprintf(head, sizeof head, "--- thread %ld:\n", static_cast<long>(syscall(SYS_gettid)));
  if (write(2, head, static_cast<std::size_t>(len)) < 0) {
  }
  backtrace_symbols_fd(frames, n, 2);
  handler_done.store(1);
}

// Without gdb: every thread prints its own backtrace from a signal handler, one thread at a time.
void dump_with_signals() {
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder outside a signal handler
  const int sig = SIGRTMIN + 3;
  struct sigaction sa {};
  sa.sa_handler = print_own_stack;
  sigaction(sig, &sa, nullptr);
  DIR* d = opendir("/proc/self/task");
  if (!d) return;
  const long me = syscall(SYS_gettid);
  while (dirent* e = readdir(d)) {
    long tid = std::atol(e->d_name);
    if (tid <= 0) continue;
    if (tid == me) {
      print_own_stack(0);
      continue;
    }
    handler_done.store(0);
    if (syscall(SYS_tgkill, getpid(), tid, sig) != 0) continue;
    for (int i = 0; i < 200 && !handler_done.load(); ++i) usleep(10000);
  }
  closedir(d);
}

}  // namespace

void dump_all_stacks() {
  std::fprintf(stderr, "*** stacks of every thread (gdb):\n");
  std::fflush(stderr);
  if (dump_with_gdb()) return;
  std::fprintf(stderr, "*** gdb printed no stack; each thread prints its own:\n");
  std::fflush(stderr);
  dump_with_signals();
}

}  // namespace rp
