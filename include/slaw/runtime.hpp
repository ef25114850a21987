// slaw::runtime: a pool of workers that runs slaw tasks. Several runtimes may coexist in a process,
// each with its own workers; `run` may be called many times, from any thread that is not one of this
// runtime's workers, also concurrently. close() (or destruction) waits for runs in progress, joins the
// workers and writes the runtime's output files.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>

#include "slaw/config.hpp"
#include "slaw/export.hpp"
#include "slaw/stats.hpp"
#include "slaw/task.hpp"

namespace slaw {

namespace detail {
class runtime_impl;
}  // namespace detail

// An output file (SLAW_STATS, SLAW_TRACE=timeline:PATH, SLAW_RECORD) could not be written when the
// runtime ended: the message names each such setting, its path and the system's reason, one per line.
class SLAW_EXPORT output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SLAW_EXPORT runtime {
 public:
  explicit runtime(config cfg = config::from_env());
  // Without close(), ends the runtime as close() does. An output file that could not be written cannot
  // be reported by throwing from here: the destructor says so on stderr (naming the path and the
  // reason) and ends the process at once with exit status 1, after flushing stdout, stderr and the
  // standard C++ streams (std::_Exit: no destructors of static objects nor atexit handlers run). A
  // program that must go on, or clean up, after such a failure calls close() and handles output_error.
  ~runtime();

  // Ends the runtime: waits for runs in progress, stops and joins the workers, then writes the output
  // files (the counters, the timeline trace, the recorded DAG), each through the descriptor opened when
  // the runtime was built. Throws output_error if any could not be written (the others are written
  // all the same). Call it at most once, from a thread that is not one of the runtime's workers and
  // with no run() in progress or started later (run() then throws std::logic_error); stats() still
  // works. A second call does nothing.
  void close();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  // Runs `t` inside an implicit root finish and blocks until it and every task it spawned have ended.
  // Rethrows the first exception thrown by them.
  template <class T>
  T run(task<T> t) {
    if (!t) detail::throw_empty_task("slaw::runtime::run");
    if constexpr (std::is_void_v<T>) {
      run_root(t.release());
    } else {
      std::optional<T> result;
      run_root(deliver(std::move(t), &result).release());
      return std::move(*result);
    }
  }

  unsigned workers() const noexcept;
  const config& cfg() const noexcept;
  runtime_stats stats() const;
  void reset_stats();

 private:
  // The root task of a run that returns a value: constructs the result in the caller's storage.
  template <class T>
  static task<> deliver(task<T> t, std::optional<T>* out) {
    out->emplace(co_await std::move(t));
  }
  void run_root(std::coroutine_handle<detail::promise<void>> h) {
    h.promise().out = nullptr;
    run_root_erased(&h.promise());
  }
  void run_root_erased(detail::promise_base* root);
  std::unique_ptr<detail::runtime_impl> impl_;
};

}  // namespace slaw
