// slaw::mpi's progress thread and environment (include/slaw/mpi.hpp, docs/guide/mpi.md).
//
// The progress thread is the only thread of slaw::mpi that calls MPI (HCMPI's communication worker).
// Tasks hand it operations through `submitted_` (a mutex and a condition variable). Its loop:
//   1. take every submitted operation and issue it (MPI_Isend, MPI_Irecv, MPI_Iallreduce, ...); an
//      operation that fails to issue completes at once with its error code;
//   2. test all outstanding requests in one MPI_Testsome and complete the finished operations (their
//      waits end: the tasks are queued for the workers);
//   3. with nothing outstanding, sleep on the condition variable until a submission or the end; with
//      requests outstanding and none finished, back off: spin, then yield, then wait on the condition
//      variable for 1 us doubling to 16 us (a submission ends that wait at once). A 256 us ceiling
//      measured the same on the stencil (bench/results/mpi/progress_backoff.json).
// Invariant: every submitted operation is completed exactly once, by this thread, and only after its
// request completed or failed; the thread ends only once nothing is submitted or outstanding.
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "slaw/mpi.hpp"

namespace slaw::mpi {

namespace {

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

class progress_engine {
 public:
  progress_engine() : thread_([this] { loop(); }) {}
  ~progress_engine() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void submit(detail::operation* op, slaw::completion c) {
    {
      std::lock_guard<std::mutex> g(m_);
      submitted_.push_back({op, c});
    }
    cv_.notify_one();
  }
  progress_stats stats() const noexcept {
    progress_stats s;
    s.issued = issued_.load(std::memory_order_relaxed);
    s.completed = completed_.load(std::memory_order_relaxed);
    s.test_calls = test_calls_.load(std::memory_order_relaxed);
    s.sleeps = sleeps_.load(std::memory_order_relaxed);
    clockid_t clock;
    timespec ts{};
    if (pthread_getcpuclockid(const_cast<std::thread&>(thread_).native_handle(), &clock) == 0 && clock_gettime(clock, &ts) == 0)
      s.cpu_seconds = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    return s;
  }

 private:
  struct pending {
    detail::operation* op;
    slaw::completion done;
  };

  void finish(pending& p, int code, const MPI_Status* st) {
    p.op->code = code;
    if (st) p.op->status = *st;
    completed_.fetch_add(1, std::memory_order_relaxed);
    p.done.complete();  // the task may resume and free the operation at once: touch nothing after
  }

  void loop() {
    std::vector<pending> fresh, out;
    std::vector<MPI_Request> reqs;
    std::vector<int> indices;
    std::vector<MPI_Status> statuses;
    unsigned idle_rounds = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(m_);
        if (submitted_.empty()) {
          if (out.empty()) {
            if (stop_) return;
            sleeps_.fetch_add(1, std::memory_order_relaxed);
            cv_.wait(lk, [this] { return stop_ || !submitted_.empty(); });
            idle_rounds = 0;
          } else if (idle_rounds >= 128) {
            const auto us = std::chrono::microseconds(1u << std::min(idle_rounds - 128, 4u));
            cv_.wait_for(lk, us, [this] { return !submitted_.empty(); });
          }
        }
        fresh.swap(submitted_);
      }
      for (pending& p : fresh) {
        MPI_Request r = MPI_REQUEST_NULL;
        const int code = p.op->issue(*p.op, &r);
        issued_.fetch_add(1, std::memory_order_relaxed);
        if (code != MPI_SUCCESS) {
          finish(p, code, nullptr);
          continue;
        }
        out.push_back(p);
        reqs.push_back(r);
      }
      const bool got_new = !fresh.empty();
      fresh.clear();
      if (out.empty()) continue;
      indices.resize(reqs.size());
      statuses.resize(reqs.size());
      int n = 0;
      const int rc = MPI_Testsome(static_cast<int>(reqs.size()), reqs.data(), &n, indices.data(), statuses.data());
      test_calls_.fetch_add(1, std::memory_order_relaxed);
      if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
        // The whole call failed: every outstanding operation fails with its code.
        for (pending& p : out) finish(p, rc, nullptr);
        out.clear();
        reqs.clear();
        continue;
      }
      if (n == MPI_UNDEFINED || n == 0) {
        if (!got_new) ++idle_rounds;
        if (idle_rounds > 64 && idle_rounds < 128) std::this_thread::yield();
        continue;
      }
      idle_rounds = 0;
      for (int k = 0; k < n; ++k) {
        const int i = indices[static_cast<std::size_t>(k)];
        MPI_Status& st = statuses[static_cast<std::size_t>(k)];
        const int code = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : MPI_SUCCESS;
        finish(out[static_cast<std::size_t>(i)], code, &st);
        out[static_cast<std::size_t>(i)].op = nullptr;
      }
      // Keep the unfinished ones, in order (Testsome set the finished requests to MPI_REQUEST_NULL).
      std::size_t j = 0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (!out[i].op) continue;
        out[j] = out[i];
        reqs[j] = reqs[i];
        ++j;
      }
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(j), out.end());
      reqs.resize(j);
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::vector<pending> submitted_;
  bool stop_ = false;
  std::atomic<std::uint64_t> issued_{0}, completed_{0}, test_calls_{0}, sleeps_{0};
  std::thread thread_;  // last: it starts in the constructor and uses the members above
};

progress_engine* engine = nullptr;  // set while an environment lives
std::terminate_handler previous_terminate = nullptr;

// An uncaught exception on one rank: say so and end every rank, rather than leave the others waiting
// for this one in a receive or a collective.
[[noreturn]] void abort_job_on_terminate() {
  std::string what = "an unknown exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = std::string("exception: ") + x.what();
    } catch (...) {
    }
  } else {
    what = "std::terminate";
  }
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "slaw::mpi: rank %d ends the job: %s\n", rank, what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

const char* level_name(int l) {
  switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

}  // namespace

environment::environment(int& argc, char**& argv) { start(&argc, &argv); }
environment::environment() { start(nullptr, nullptr); }

void environment::start(int* argc, char*** argv) {
  if (engine) throw error("slaw::mpi::environment: one environment per process (one is alive already)", MPI_ERR_OTHER);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Query_thread(&provided_);
  } else {
    const int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided_);
    if (rc != MPI_SUCCESS) throw error("slaw::mpi::environment: MPI_Init_thread failed: " + error_string(rc), rc);
    owns_mpi_ = true;
  }
  if (provided_ < MPI_THREAD_SERIALIZED) {
    const std::string msg = std::string("slaw::mpi::environment: the MPI library provides ") + level_name(provided_) +
                            "; slaw::mpi's progress thread needs MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE";
    if (owns_mpi_) MPI_Finalize();
    throw error(msg, MPI_ERR_OTHER);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  uncaught_at_start_ = std::uncaught_exceptions();
  previous_terminate = std::set_terminate(abort_job_on_terminate);
  engine = new progress_engine();
}

environment::~environment() {
  if (std::uncaught_exceptions() > uncaught_at_start_) {
    // An exception leaves the scope of MPI: this rank cannot take part in what the others wait for.
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "slaw::mpi: rank %d ends the job: an exception is leaving the MPI environment\n", rank);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  delete engine;
  engine = nullptr;
  std::set_terminate(previous_terminate);
  if (owns_mpi_) MPI_Finalize();
}

int environment::rank(MPI_Comm c) const {
  int r = 0;
  if (const int rc = MPI_Comm_rank(c, &r); rc != MPI_SUCCESS) throw error("slaw::mpi::environment::rank: " + error_string(rc), rc);
  return r;
}
int environment::size(MPI_Comm c) const {
  int r = 0;
  if (const int rc = MPI_Comm_size(c, &r); rc != MPI_SUCCESS) throw error("slaw::mpi::environment::size: " + error_string(rc), rc);
  return r;
}

progress_stats environment::stats() const noexcept { return engine ? engine->stats() : progress_stats{}; }

namespace detail {

void submit(operation& op, slaw::completion c) {
  if (!engine) throw error(std::string(op.name) + ": no slaw::mpi::environment is alive", MPI_ERR_OTHER);
  engine->submit(&op, c);
}

void throw_failure(const operation& op) {
  throw error(std::string(op.name) + ": " + error_string(op.code), op.code);
}

int issue_send(operation& o, MPI_Request* r) { return MPI_Isend(o.sbuf, o.count, o.type, o.peer, o.tag, o.comm, r); }
int issue_recv(operation& o, MPI_Request* r) { return MPI_Irecv(o.rbuf, o.count, o.type, o.peer, o.tag, o.comm, r); }
int issue_barrier(operation& o, MPI_Request* r) { return MPI_Ibarrier(o.comm, r); }
int issue_bcast(operation& o, MPI_Request* r) { return MPI_Ibcast(o.rbuf, o.count, o.type, o.peer, o.comm, r); }
int issue_allreduce(operation& o, MPI_Request* r) { return MPI_Iallreduce(o.sbuf, o.rbuf, o.count, o.type, o.op, o.comm, r); }
int issue_reduce(operation& o, MPI_Request* r) { return MPI_Ireduce(o.sbuf, o.rbuf, o.count, o.type, o.op, o.peer, o.comm, r); }
int issue_allgather(operation& o, MPI_Request* r) {
  return MPI_Iallgather(o.sbuf, o.count, o.type, o.rbuf, o.rcount, o.rtype, o.comm, r);
}
int issue_alltoall(operation& o, MPI_Request* r) {
  return MPI_Ialltoall(o.sbuf, o.count, o.type, o.rbuf, o.rcount, o.rtype, o.comm, r);
}
int issue_alltoallv(operation& o, MPI_Request* r) {
  return MPI_Ialltoallv(o.sbuf, o.scounts, o.sdispls, o.type, o.rbuf, o.rcounts, o.rdispls, o.rtype, o.comm, r);
}

slaw::task<MPI_Status> run(operation op) {
  co_await slaw::wait_for([&op](slaw::completion c) { submit(op, c); });
  if (op.code != MPI_SUCCESS) throw_failure(op);
  co_return op.status;
}

}  // namespace detail

}  // namespace slaw::mpi
