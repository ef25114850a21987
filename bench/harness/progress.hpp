// slaw-bench's progress report on stderr (--progress; a `make bench` runs for many minutes).
//
//   live   (stderr is a terminal): one line rewritten in place (carriage return) after each repetition
//          and every second while one runs:
//            [3/17] fib slaw-dyn w=2 rep 2/5 | 1m23s elapsed, ~4m10s left
//          "building" instead of "rep r/R" while the children build their instances; cut to the
//          terminal's width (the times kept whole); the result lines and error messages are printed above it.
//   lines  (stderr is not a terminal: CI, a log file): one line when each benchmark starts,
//            slaw-bench: [3/17] fib: 1m23s elapsed, ~4m10s left
//          and one at the end of a run that completed.
//   off    nothing.
//
// The estimate of the time left is the repetitions still to run times the mean wall time of a
// repetition so far (the children's start and instance building included), so it covers what differs
// from one machine to another; before the first repetition has finished it says "estimating". A variant
// that a benchmark does not have (the child says "skip") leaves the plan when it is known.
#pragma once

#include <chrono>
#include <string>

namespace slawbench {

enum class progress_mode { off, live, lines };

class progress {
 public:
  // `benchmarks`: how many will run; `runs`: the repetitions planned (configurations x --reps).
  progress(progress_mode mode, int benchmarks, long runs);
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;

  progress_mode mode() const { return mode_; }
  double elapsed() const;  // seconds since the start

  void start_benchmark(int index, const std::string& name);  // index counts from 1
  // What runs now: `rep` counts from 1; 0 while the children build their instances.
  void now(const std::string& variant, unsigned workers, int rep, int reps);
  void run_done();             // one repetition finished (well or not)
  void unplan(long runs);      // repetitions that will not run after all (a skipped variant)
  void tick();                 // redraws the live line (its elapsed time) at most once a second
  void note(const std::string& line);  // a line of its own (a result, an error): above the live line
  // Clears the live line; after a run that `completed`, lines mode prints the total time.
  void done(bool completed);

 private:
  std::string estimate() const;
  void draw();
  void clear();

  progress_mode mode_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int benchmarks_;
  long planned_, finished_ = 0;
  int index_ = 0;
  std::string bench_, variant_;
  unsigned workers_ = 0;
  int rep_ = 0, reps_ = 0;
  std::size_t shown_ = 0;  // characters of the live line on the terminal
};

// "0.4s", "45s", "4m05s", "1h02m".
std::string format_duration(double seconds);

}  // namespace slawbench
