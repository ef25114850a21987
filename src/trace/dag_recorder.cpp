#include "trace/dag_recorder.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <queue>
#include <unordered_map>
#include <utility>

#include "dag/dag_writer.hpp"
#include "slaw/config.hpp"
#include "slaw/detail/record_hooks.hpp"

namespace slaw::detail {

const char dag_internal_task[] = "slaw:dummy";

// ---------------------------------------------------------------------------------------------- the log

dag_log::~dag_log() { release(); }

bool dag_log::grow() noexcept {
  if (lost_) return false;  // out of memory once: the DAG is incomplete, keep no more
  const std::size_t bytes = last_ ? std::min(2 * last_->bytes, dag_chunk_max) : dag_chunk_min;
  // Populated now, so that the stores of the events that follow do not fault page by page.
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (m == MAP_FAILED) return false;
  auto* c = static_cast<dag_chunk*>(m);
  c->next = nullptr;
  c->bytes = bytes;
  c->count = 0;
  if (last_) {
    last_->count = static_cast<std::size_t>(cur_ - last_->events());
    last_->next = c;
  } else {
    first_ = c;
  }
  last_ = c;
  cur_ = c->events();
  end_ = cur_ + c->capacity();
  return true;
}

void dag_log::release() noexcept {
  while (first_) drop_first();
}

void dag_log::clear() noexcept {
  if (!first_) return;
  while (first_->next) {  // keeps the first (smallest) chunk
    dag_chunk* second = first_->next;
    first_->next = second->next;
    if (second == last_) last_ = first_;
    ::munmap(second, second->bytes);
  }
  first_->count = 0;
  last_ = first_;
  cur_ = first_->events();
  end_ = cur_ + first_->capacity();
  lost_ = 0;
}

std::size_t dag_log::size() const noexcept {
  std::size_t n = 0;
  for (const dag_chunk* c = first_; c; c = c->next) n += c == last_ ? static_cast<std::size_t>(cur_ - last_->events()) : c->count;
  return n;
}

dag_log::reader::reader(dag_log& log) noexcept : log_(log) {
  if (log_.last_) log_.last_->count = static_cast<std::size_t>(log_.cur_ - log_.last_->events());
  enter(log_.first_);
}

// The log keeps the chunks not read yet (log_.first_ is the reader's chunk), and frees them itself.
dag_log::reader::~reader() = default;

void dag_log::reader::enter(dag_chunk* c) noexcept {
  while (c && c->count == 0) c = log_.drop_first();
  chunk_ = c;
  at_ = c ? c->events() : nullptr;
  end_ = c ? c->events() + c->count : nullptr;
}

void dag_log::reader::take() noexcept {
  // A chunk read is unmapped at once, so that the DAG being built reuses its memory.
  if (++at_ == end_) enter(log_.drop_first());
}

dag_chunk* dag_log::drop_first() noexcept {
  dag_chunk* done = first_;
  first_ = done->next;
  if (done == last_) last_ = nullptr, cur_ = end_ = nullptr;
  ::munmap(done, done->bytes);
  return first_;
}

// ------------------------------------------------------------------------------------------ the recorder

dag_recorder::dag_recorder(const std::string& path, unsigned workers)
    : out_(output_file::open("SLAW_RECORD='" + path + "'", path, true, false)),
      workers_(workers),
      logs_(new dag_log[workers]) {
  for (unsigned i = 0; i < workers; ++i) logs_[i].attach(this, &clock_);
  calibrate();
}

namespace {
// One event as a hook makes it: a call from elsewhere into a function that notes it.
[[gnu::noinline]] void calibration_event(dag_log& log, const void* frame) noexcept {
  log.note(dag::dag_op::start_finish, frame, frame);
  asm volatile("" ::: "memory");
}
}  // namespace

void dag_recorder::calibrate() noexcept {
  // Worker 0's log, before any worker runs; its first chunk stays for the run, populated already.
  constexpr std::size_t per_round = 2048;
  static_assert(per_round * sizeof(dag_raw_event) + sizeof(dag_chunk) <= dag_chunk_min, "a round fits one chunk");
  constexpr int rounds = 5;
  dag_log& log = logs_[0];
  const int frame = 0;
  std::vector<std::uint64_t> ticks(per_round);
  std::uint64_t best = 0;
  on_.store(true, std::memory_order_relaxed);
  for (int r = 0; r < rounds; ++r) {
    log.clear();
    log.resume(&frame);
    for (std::size_t i = 0; i < per_round; ++i) calibration_event(log, &frame);
    if (log.size() != per_round) {  // no memory for a chunk: the run will say so
      best = 0;
      break;
    }
    const dag_raw_event* ev = log.first_->events();
    for (std::size_t i = 0; i < per_round; ++i) ticks[i] = ev[i].ticks;
    std::nth_element(ticks.begin(), ticks.begin() + per_round / 2, ticks.end());
    best = r == 0 ? ticks[per_round / 2] : std::min(best, ticks[per_round / 2]);
  }
  on_.store(false, std::memory_order_relaxed);
  log.clear();
  seq_.store(0, std::memory_order_relaxed);
  overhead_ticks_ = best;
}

dag_recorder::~dag_recorder() { end_run(); }

bool dag_recorder::begin_run(const void* root, std::uint32_t root_bytes) noexcept {
  if (claimed_.exchange(true, std::memory_order_relaxed)) return false;
  root_ = root;
  root_bytes_ = root_bytes;
  run_start_ = clock_.now();
  on_.store(true, std::memory_order_relaxed);
  dag_recorders_on.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void dag_recorder::end_run() noexcept {
  if (!on_.exchange(false, std::memory_order_relaxed)) return;
  run_end_ = clock_.now();
  dag_recorders_on.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

// The workers' logs in the order of their events' numbers. Each log is in that order already (a
// worker takes its numbers one after the other), so this is a merge; it unmaps each chunk read.
class merged_logs {
 public:
  merged_logs(dag_log* logs, unsigned n) {
    readers_.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      readers_.push_back(std::make_unique<dag_log::reader>(logs[i]));
      if (readers_.back()->peek()) heap_.push(readers_.back().get());
    }
  }
  // The next event, or null after the last; valid until the next call.
  const dag_raw_event* next() {
    if (last_) {
      last_->take();
      if (last_->peek()) heap_.push(last_);
      last_ = nullptr;
    }
    if (heap_.empty()) return nullptr;
    last_ = heap_.top();
    heap_.pop();
    return last_->peek();
  }

 private:
  struct later {
    bool operator()(const dag_log::reader* a, const dag_log::reader* b) const noexcept {
      return a->peek()->seq > b->peek()->seq;
    }
  };
  std::vector<std::unique_ptr<dag_log::reader>> readers_;
  std::priority_queue<dag_log::reader*, std::vector<dag_log::reader*>, later> heap_;
  dag_log::reader* last_ = nullptr;
};

// The merged logs as one DAG: tasks numbered in the order their spawn or call was recorded (the root
// first), each with its events in program order. Events of frames outside the recorded run (another
// run of the same runtime, started meanwhile) are left out: their frames were never born in it.
// An internal spawn is left out with its whole subtree, and so is the finish that only waits for it
// (slaw::reserve's `start_finish, spawn, end_finish`); the work of a left-out event goes to the task's
// next event. Every strand loses the recorder's own share, `overhead` ticks (at most all of it).
std::vector<dag::task_record> build_dag(merged_logs& in, const void* root, std::uint32_t root_bytes, double ns_per_tick,
                                        std::uint64_t overhead) {
  constexpr std::uint64_t dropped = ~std::uint64_t{0};
  std::vector<dag::task_record> tasks(1);
  std::vector<std::uint64_t> carry(1, 0);        // per task: ns of left-out events, for its next event
  std::vector<std::uint32_t> drop_ends(1, 0);    // per task: end_finish events still to leave out
  tasks[0].frame_bytes = root_bytes;
  std::unordered_map<const void*, std::uint64_t> live{{root, 0}};
  while (const dag_raw_event* next = in.next()) {
    const dag_raw_event& e = *next;
    auto it = live.find(e.frame);
    if (it == live.end()) continue;
    const std::uint64_t id = it->second;
    const bool birth = e.op == dag::dag_op::spawn || e.op == dag::dag_op::call;
    const void* child = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(e.arg));
    if (e.op == dag::dag_op::ret) live.erase(it);
    if (id == dropped) {  // inside an internal task: its children are left out too
      if (birth && !live.emplace(child, dropped).second)
        throw std::logic_error("a frame was born twice without returning (the recorder lost an event)");
      continue;
    }
    const std::uint64_t ticks = e.ticks > overhead ? e.ticks - overhead : 0;
    const auto work = static_cast<std::uint64_t>(std::llround(static_cast<double>(ticks) * ns_per_tick));
    std::vector<dag::event>& evs = tasks[id].events;
    if (e.op == dag::dag_op::spawn && e.internal) {
      if (!live.emplace(child, dropped).second)
        throw std::logic_error("a frame was born twice without returning (the recorder lost an event)");
      carry[id] += work;
      if (!evs.empty() && evs.back().op == dag::dag_op::start_finish) {  // the finish that waits for it
        carry[id] += evs.back().work_ns;
        evs.pop_back();
        ++drop_ends[id];
      }
      continue;
    }
    if (e.op == dag::dag_op::end_finish && drop_ends[id] > 0) {
      --drop_ends[id];
      carry[id] += work;
      continue;
    }
    dag::event out;
    out.op = e.op;
    out.clause = e.clause;
    out.work_ns = work + std::exchange(carry[id], 0);
    out.arg = e.arg;
    if (birth) {
      out.arg = tasks.size();
      if (!live.emplace(child, out.arg).second)
        throw std::logic_error("a frame was born twice without returning (the recorder lost an event)");
      tasks.emplace_back();
      tasks.back().frame_bytes = e.child_bytes;
      carry.push_back(0);
      drop_ends.push_back(0);
    }
    std::vector<dag::event>& mine = tasks[id].events;  // `evs` is stale if a birth grew `tasks`
    mine.push_back(out);
    // A task is complete at its ret: a small one gives back the room its vector kept for more (most
    // tasks have a handful of events; a large one's copy would cost more than its room saves).
    if (out.op == dag::dag_op::ret && mine.capacity() <= 64) mine.shrink_to_fit();
  }
  if (!live.empty())
    throw std::logic_error(std::to_string(live.size()) + " task(s) of the recorded run never returned");
  return tasks;
}

}  // namespace

std::string dag_recorder::write() {
  end_run();
  if (!root_) {
    std::fprintf(stderr, "slaw: %s: the runtime ran nothing, no DAG written (the file is empty)\n",
                 out_.setting().c_str());
    return out_.close("the DAG");
  }
  clock_.calibrate_end();
  try {
    std::uint64_t lost = 0;
    for (unsigned i = 0; i < workers_; ++i) lost += logs_[i].lost();
    if (lost)
      throw std::runtime_error("out of memory for the recorder's logs: " + std::to_string(lost) + " events lost");
    merged_logs in(logs_.get(), workers_);
    std::vector<dag::task_record> tasks = build_dag(in, root_, root_bytes_, clock_.ns_per_tick(), overhead_ticks_);
    std::size_t events = 0;
    for (const dag::task_record& t : tasks) events += t.events.size();
    const auto recorded_ns = static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, clock_.to_ns(run_end_) - clock_.to_ns(run_start_)));
    dag::write_dag([this](const std::uint8_t* p, std::size_t n) { return out_.write(p, n); }, out_.path(), tasks,
                   recorded_ns, workers_);
    std::string failure = out_.close("the DAG");
    if (failure.empty())
      std::fprintf(stderr,
                   "slaw: DAG of %zu tasks and %zu events recorded to %s (the recorder's own %.1f ns per event taken "
                   "out of each strand)\n",
                   tasks.size(), events, out_.path().c_str(), overhead_ns());
    return failure;
  } catch (const std::exception& e) {  // out of memory, or logs that make no DAG (a recorder bug)
    out_.failed(EIO);
    (void)out_.close("the DAG");
    return out_.setting() + ": the DAG could not be written to '" + out_.path() + "': " + e.what();
  }
}

}  // namespace slaw::detail
