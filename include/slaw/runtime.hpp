// slaw::runtime: a pool of workers that runs slaw tasks. Several runtimes may coexist in a process,
// each with its own workers; `run` may be called many times, from any thread that is not one of this
// runtime's workers, also concurrently. Destruction waits for runs in progress and joins the workers.
#pragma once

#include <memory>
#include <optional>

#include "slaw/config.hpp"
#include "slaw/export.hpp"
#include "slaw/stats.hpp"
#include "slaw/task.hpp"

namespace slaw {

namespace detail {
class runtime_impl;
}  // namespace detail

class SLAW_EXPORT runtime {
 public:
  explicit runtime(config cfg = config::from_env());
  ~runtime();
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
