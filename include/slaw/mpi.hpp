// slaw::mpi: MPI operations as awaitable steps of slaw tasks (HCMPI's model: Chatterjee et al.,
// "Integrating Asynchronous Task Parallelism with MPI", IPDPS 2013). The optional component
// `find_package(slaw COMPONENTS mpi)`, target slaw::mpi; the core library has no MPI dependency.
//
//   int main(int argc, char** argv) {
//     slaw::mpi::environment env(argc, argv);           // MPI_Init_thread and the progress thread
//     slaw::runtime rt;
//     rt.run([&]() -> slaw::task<> {
//       double halo[n];
//       MPI_Status st = co_await slaw::mpi::recv(halo, n, left, 0);   // the worker runs other tasks meanwhile
//       co_await slaw::mpi::send(row, n, right, 0);
//       double sum = co_await slaw::mpi::allreduce(local, MPI_SUM);
//     }());
//   }
//
// Every operation is issued and driven by one progress thread per process (the communication worker
// of HCMPI): a task that awaits one hands it over and suspends (slaw::wait_for), its worker runs other
// tasks, and the completion queues the task for a worker again. Computation workers never call MPI.
// The progress thread tests the outstanding requests in batches (MPI_Testsome) and sleeps on a
// condition variable when none are outstanding. An MPI error becomes slaw::mpi::error, with MPI's
// error string. docs/guide/mpi.md has the model, the thread level and the measured figures.
//
// Buffers must stay valid, and not be touched by other tasks, until the co_await returns (as for
// MPI_Isend/MPI_Irecv until MPI_Wait). Operations on one communicator are issued in the order the
// progress thread receives them: collectives on a communicator must be awaited in the same order on
// every rank, as MPI requires, and a task that issues two collectives on one communicator must await the
// first before it starts the second (two tasks issuing collectives on one communicator concurrently
// is an error, as it is for threads).
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "slaw/external.hpp"
#include "slaw/task.hpp"

namespace slaw::mpi {

// An MPI call failed: `code` is MPI's error code, what() names the operation and MPI's error string.
class error : public std::runtime_error {
 public:
  error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// The progress thread's counters (racy reads).
struct progress_stats {
  std::uint64_t issued = 0;        // operations issued (MPI_I* calls)
  std::uint64_t completed = 0;     // operations completed (successfully or not)
  std::uint64_t test_calls = 0;    // MPI_Testsome calls
  std::uint64_t sleeps = 0;        // times the thread slept with nothing outstanding
  double cpu_seconds = 0;          // the thread's CPU time so far
};

// MPI for one process: MPI_Init_thread asking for MPI_THREAD_MULTIPLE (the progress thread calls MPI
// while the program's own threads may too), the errors of MPI_COMM_WORLD returned rather than fatal
// (so that they become exceptions), and the progress thread. Throws slaw::mpi::error if MPI provides
// less than MPI_THREAD_SERIALIZED; under SERIALIZED the program must not call MPI itself while
// slaw::mpi operations are outstanding. If MPI is initialised already (by the program), the environment
// uses it and leaves finalising to the program. One environment per process.
//
// Its destructor stops the progress thread and calls MPI_Finalize. If it runs because an exception is
// leaving main, or if the program terminates on an uncaught exception, it prints the exception and
// calls MPI_Abort: the other ranks end too, instead of waiting for this one forever.
class environment {
 public:
  environment(int& argc, char**& argv);
  environment();
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  ~environment();

  int thread_level() const noexcept { return provided_; }  // MPI_THREAD_SERIALIZED or _MULTIPLE
  int rank(MPI_Comm c = MPI_COMM_WORLD) const;
  int size(MPI_Comm c = MPI_COMM_WORLD) const;
  progress_stats stats() const noexcept;

 private:
  void start(int* argc, char*** argv);
  int provided_ = 0;
  bool owns_mpi_ = false;
  int uncaught_at_start_ = 0;
};

namespace detail {

// One operation handed to the progress thread: `issue` makes the request (an MPI_I* call), run on the
// progress thread; when the request completes, `status` and `code` are set and the wait completed.
struct operation {
  int (*issue)(operation&, MPI_Request*) = nullptr;
  const char* name = "";
  // The arguments, as the MPI call takes them (unused ones stay zero).
  const void* sbuf = nullptr;
  void* rbuf = nullptr;
  int count = 0;
  int rcount = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Datatype rtype = MPI_DATATYPE_NULL;
  int peer = 0;  // dest, source or root
  int tag = 0;
  MPI_Op op = MPI_OP_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  const int* scounts = nullptr;
  const int* sdispls = nullptr;
  const int* rcounts = nullptr;
  const int* rdispls = nullptr;
  // The outcome.
  MPI_Status status{};
  int code = MPI_SUCCESS;
};
// Hands `op` to the progress thread (throws slaw::mpi::error if no environment lives).
void submit(operation& op, slaw::completion c);
// Throws slaw::mpi::error for op's failure.
[[noreturn]] void throw_failure(const operation& op);

int issue_send(operation&, MPI_Request*);
int issue_recv(operation&, MPI_Request*);
int issue_allreduce(operation&, MPI_Request*);
int issue_bcast(operation&, MPI_Request*);
int issue_barrier(operation&, MPI_Request*);
int issue_alltoall(operation&, MPI_Request*);
int issue_alltoallv(operation&, MPI_Request*);
int issue_reduce(operation&, MPI_Request*);
int issue_allgather(operation&, MPI_Request*);

// The task that runs one operation: it waits for the progress thread, then reports the failure or the
// status.
slaw::task<MPI_Status> run(operation op);

}  // namespace detail

// The MPI datatype of a standard arithmetic type.
template <class T>
MPI_Datatype datatype_of() noexcept {
  if constexpr (std::is_same_v<T, char>) return MPI_CHAR;
  else if constexpr (std::is_same_v<T, signed char>) return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<T, unsigned char>) return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<T, short>) return MPI_SHORT;
  else if constexpr (std::is_same_v<T, unsigned short>) return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, unsigned>) return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<T, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<T, unsigned long>) return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<T, long long>) return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<T, unsigned long long>) return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, long double>) return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>) return MPI_CXX_BOOL;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return MPI_CXX_FLOAT_COMPLEX;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return MPI_CXX_DOUBLE_COMPLEX;
  else static_assert(sizeof(T) == 0, "slaw::mpi: no standard MPI datatype for this type; pass an MPI_Datatype");
}

// ---- point to point ----
// co_await send(buf, count, type, dest, tag[, comm]); typed: send(const T* buf, count, dest, tag[, comm]).
inline slaw::task<MPI_Status> send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_send, op.name = "slaw::mpi::send", op.sbuf = buf, op.count = count, op.type = type;
  op.peer = dest, op.tag = tag, op.comm = comm;
  return detail::run(op);
}
template <class T>
slaw::task<MPI_Status> send(const T* buf, int count, int dest, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  return send(static_cast<const void*>(buf), count, datatype_of<T>(), dest, tag, comm);
}
// MPI_Status st = co_await recv(buf, count, type, source, tag[, comm]); source may be MPI_ANY_SOURCE,
// tag MPI_ANY_TAG.
inline slaw::task<MPI_Status> recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_recv, op.name = "slaw::mpi::recv", op.rbuf = buf, op.count = count, op.type = type;
  op.peer = source, op.tag = tag, op.comm = comm;
  return detail::run(op);
}
template <class T>
slaw::task<MPI_Status> recv(T* buf, int count, int source, int tag, MPI_Comm comm = MPI_COMM_WORLD) {
  return recv(static_cast<void*>(buf), count, datatype_of<T>(), source, tag, comm);
}

// ---- collectives (nonblocking MPI-3 collectives underneath) ----
inline slaw::task<MPI_Status> barrier(MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_barrier, op.name = "slaw::mpi::barrier", op.comm = comm;
  return detail::run(op);
}
inline slaw::task<MPI_Status> bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_bcast, op.name = "slaw::mpi::bcast", op.rbuf = buf, op.count = count, op.type = type;
  op.peer = root, op.comm = comm;
  return detail::run(op);
}
template <class T>
slaw::task<MPI_Status> bcast(T* buf, int count, int root, MPI_Comm comm = MPI_COMM_WORLD) {
  return bcast(static_cast<void*>(buf), count, datatype_of<T>(), root, comm);
}
// sendbuf may be MPI_IN_PLACE.
inline slaw::task<MPI_Status> allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op o,
                                        MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_allreduce, op.name = "slaw::mpi::allreduce", op.sbuf = sendbuf, op.rbuf = recvbuf;
  op.count = count, op.type = type, op.op = o, op.comm = comm;
  return detail::run(op);
}
// One value: T total = co_await allreduce(local, MPI_SUM).
template <class T>
slaw::task<T> allreduce(T value, MPI_Op o, MPI_Comm comm = MPI_COMM_WORLD) {
  T out{};
  co_await allreduce(&value, &out, 1, datatype_of<T>(), o, comm);
  co_return out;
}
inline slaw::task<MPI_Status> reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op o, int root,
                                     MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_reduce, op.name = "slaw::mpi::reduce", op.sbuf = sendbuf, op.rbuf = recvbuf;
  op.count = count, op.type = type, op.op = o, op.peer = root, op.comm = comm;
  return detail::run(op);
}
inline slaw::task<MPI_Status> allgather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                                        MPI_Datatype rtype, MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_allgather, op.name = "slaw::mpi::allgather", op.sbuf = sendbuf, op.count = scount;
  op.type = stype, op.rbuf = recvbuf, op.rcount = rcount, op.rtype = rtype, op.comm = comm;
  return detail::run(op);
}
inline slaw::task<MPI_Status> alltoall(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                                       MPI_Datatype rtype, MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_alltoall, op.name = "slaw::mpi::alltoall", op.sbuf = sendbuf, op.count = scount;
  op.type = stype, op.rbuf = recvbuf, op.rcount = rcount, op.rtype = rtype, op.comm = comm;
  return detail::run(op);
}
inline slaw::task<MPI_Status> alltoallv(const void* sendbuf, const int* scounts, const int* sdispls, MPI_Datatype stype,
                                        void* recvbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype,
                                        MPI_Comm comm = MPI_COMM_WORLD) {
  detail::operation op;
  op.issue = detail::issue_alltoallv, op.name = "slaw::mpi::alltoallv", op.sbuf = sendbuf, op.scounts = scounts;
  op.sdispls = sdispls, op.type = stype, op.rbuf = recvbuf, op.rcounts = rcounts, op.rdispls = rdispls;
  op.rtype = rtype, op.comm = comm;
  return detail::run(op);
}

}  // namespace slaw::mpi
