#include "core/arbiter_job.hpp"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "arbiter/client.hpp"
#include "arbiter/robust_mutex.hpp"
#include "core/parking.hpp"
#include "core/runtime_impl.hpp"

namespace slaw::detail {

namespace {
constexpr auto rlx = std::memory_order_relaxed;
constexpr std::size_t max_changes = 256;

std::uint64_t now_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Monotonic counters read racily: a difference that went backwards (a torn pair of reads) counts 0.
std::uint64_t since(std::uint64_t now, std::uint64_t& mark) noexcept {
  const std::uint64_t d = now >= mark ? now - mark : 0;
  mark = now;
  return d;
}
}  // namespace

arbiter_job::arbiter_job(runtime_impl& rt, const arbiter_settings& s, std::uint32_t min_allotment)
    : rt_(rt),
      client_(std::make_unique<arbiter::client>(arbiter::settings{s})),
      rule_(s.desire),
      min_allotment_(min_allotment),
      marks_(rt.workers.size()) {
  const auto n = static_cast<std::uint32_t>(rt_.workers.size());
  params_ = arbiter::settings{s}.desire_params();
  params_.max_desire = n;  // I6: a job never asks for more workers than it has
  state_.reset(params_);
  allotment_ = n;
  summary_.allotment_last = summary_.allotment_min = summary_.allotment_max = n;
  client_->register_job(n, 0.0);  // idle until its first run (run_begins reports the desire then)
  summary_.jobs_max = client_->jobs();
  apply(client_->allotment());
  quantum_start_ns_ = now_ns();
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "slaw-quantum");
    loop();
  });
}

arbiter_job::~arbiter_job() {
  {
    std::lock_guard<std::mutex> g(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  client_->unregister();  // its cores go to the others at once
  apply(static_cast<std::uint32_t>(rt_.workers.size()));
}

void arbiter_job::loop() {
  std::unique_lock<std::mutex> lk(m_);
  for (;;) {
    if (client_->detached()) {
      // As if alone for good: the allotment is all workers, and nothing is left to report.
      lk.unlock();
      apply(client_->allotment());
      lk.lock();
      cv_.wait(lk, [this] { return stop_; });
      return;
    }
    const std::uint64_t quantum = std::max<std::uint64_t>(client_->quantum_ns(), 100'000);
    // Idle: the desire reported is 0 until a run begins, which wakes the thread (the idle stride).
    const std::uint64_t length = idle_.load(std::memory_order_relaxed) ? quantum * idle_stride_quanta(client_->stale_quanta()) : quantum;
    const auto next = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(quantum_start_ns_ + length));
    if (cv_.wait_until(lk, next, [this] { return stop_ || report_now_; })) {
      if (stop_) return;
      report_now_ = false;
      lk.unlock();
      report_busy();
      lk.lock();
      continue;  // a busy quantum starts
    }
    lk.unlock();
    end_quantum(now_ns());
    lk.lock();
  }
}

// Idle and busy (see idle_ in the header). The two sides form a Dekker pair over run_began_ and idle_,
// both seq_cst: end_quantum stores idle_ = true before it takes run_began_, run_begins stores
// run_began_ before it loads idle_; so either the quantum's end sees the run (the quantum is busy) or
// the run sees idle_ and asks for an immediate report. A run is never left reported idle for a quantum.
void arbiter_job::run_begins() {
  run_began_.store(true, std::memory_order_seq_cst);
  if (!idle_.load(std::memory_order_seq_cst)) return;
  {
    std::lock_guard<std::mutex> g(m_);
    report_now_ = true;
  }
  cv_.notify_all();
}

// The first report of a busy stretch. The quantum being measured starts now: the idle time before it
// (up to an idle stride) is not the run's, and would count as time asleep.
void arbiter_job::report_busy() {
  if (!idle_.load(std::memory_order_relaxed)) return;  // a quantum's end saw the run first
  idle_.store(false, std::memory_order_relaxed);
  const std::uint64_t now = now_ns();
  client_->report(state_.desire, {1.0, rt_.injected_size()});
  client_->tick(arbiter::monotonic_ns());
  apply(client_->allotment());
  rebase(now);
}

void arbiter_job::rebase(std::uint64_t now) {
  for (std::size_t i = 0; i < rt_.workers.size(); ++i) {
    const worker::quantum_counters& c = rt_.workers[i]->quantum();
    worker_marks& m = marks_[i];
    const std::uint64_t asleep = c.asleep_since.load(rlx);
    m.attempts = c.steal_attempts.get();
    m.purely = c.purely_unsuccessful.get();
    m.length = c.sampled_length.get();
    m.mugs = c.mugs.get();
    m.slept = c.sleep_ns.get() + (asleep && asleep < now ? now - asleep : 0);
  }
  quantum_start_ns_ = now;
}

// The end of quantum q (A-Deque §IV-B, digest §3.2): S, S_p, LEN and the mugs summed over the workers
// the allotment ran, plus time they slept as failed, purely unsuccessful attempts (a sleeping worker is
// an idle processor; the paper's would have kept stealing); e = the running workers' deques plus the
// muggable ones; Q' = the entries thieves can take now, over every deque and the injected roots.
void arbiter_job::end_quantum(std::uint64_t now) {
  const std::uint64_t elapsed = now > quantum_start_ns_ ? now - quantum_start_ns_ : 1;
  policy::quantum_sample x;
  x.allotment = allotment_;
  std::uint64_t slept_attempts = 0;
  for (std::size_t i = 0; i < rt_.workers.size(); ++i) {
    const worker& w = *rt_.workers[i];
    const worker::quantum_counters& c = w.quantum();
    worker_marks& m = marks_[i];
    const std::uint64_t asleep = c.asleep_since.load(rlx);
    const std::uint64_t slept_total = c.sleep_ns.get() + (asleep && asleep < now ? now - asleep : 0);
    const std::uint64_t attempts = since(c.steal_attempts.get(), m.attempts);
    const std::uint64_t purely = since(c.purely_unsuccessful.get(), m.purely);
    const std::uint64_t length = since(c.sampled_length.get(), m.length);
    const std::uint64_t mugs = since(c.mugs.get(), m.mugs);
    const std::uint64_t slept = std::min(since(slept_total, m.slept), elapsed);
    if (w.rank() >= allotment_) continue;  // parked by the allotment: not one of a(q)
    x.steal_attempts += attempts;
    x.purely_unsuccessful += purely;
    x.sampled_length += length;
    x.mugs += mugs;
    slept_attempts += static_cast<std::uint64_t>(static_cast<double>(slept) / steal_attempt_ns);
  }
  idle_.store(true, std::memory_order_seq_cst);
  const bool ran = run_began_.exchange(false, std::memory_order_seq_cst);
  if (!ran && rt_.active_runs.load(std::memory_order_seq_cst) == 0) {
    // No run was in progress: an idle job wants no cores, whatever its workers' counters say.
    client_->report(0.0, {0.0, rt_.injected_size()});
    client_->tick(arbiter::monotonic_ns());
    apply(client_->allotment());
    quantum_start_ns_ = now;
    std::lock_guard<std::mutex> g(summary_m_);
    ++summary_.idle_quanta;
    return;
  }
  idle_.store(false, std::memory_order_relaxed);
  x.steal_attempts += slept_attempts;
  x.purely_unsuccessful += slept_attempts;
  x.max_steal_attempts = policy::max_steal_attempts(allotment_, static_cast<double>(elapsed), steal_attempt_ns);
  x.active_deques = allotment_ + rt_.muggable_count.load(rlx);
  for (const auto& w : rt_.workers) x.queued += w->stealable();
  x.queued += rt_.injected_size();
  const double u = policy::utilization(x);
  const double desire = policy::next_desire(rule_, state_, x, params_);
  // The busy workers' private entries are invisible to Q': ask each to expose part of them at its next
  // push, so that the next quantum's snapshot sees the work queued there (a thief's request, once a
  // quantum; with one job the allotment does not depend on the desire, and nothing is asked).
  const std::uint32_t jobs = client_->jobs();
  if (jobs > 1)
    for (const auto& w : rt_.workers)
      if (!w->idle()) w->request_sample();
  client_->report(desire, {u, x.queued});
  client_->tick(arbiter::monotonic_ns());
  const std::uint32_t a = client_->allotment();
  apply(a);
  quantum_start_ns_ = now;
  {
    std::lock_guard<std::mutex> g(summary_m_);
    summary& s = summary_;
    ++s.quanta;
    s.desire_last = desire;
    s.desire_sum += desire;
    s.desire_max = std::max(s.desire_max, desire);
    s.utilization_sum += u;
    s.allotment_sum += allotment_;
    s.jobs_max = std::max(s.jobs_max, jobs);
  }
}

void arbiter_job::apply(std::uint32_t a) {
  const auto n = static_cast<std::uint32_t>(rt_.workers.size());
  a = std::clamp(a, std::min(min_allotment_, n), n);
  const std::uint32_t old = rt_.allowed.load(rlx);
  allotment_ = a;
  if (a == old) return;
  rt_.allowed.store(a, std::memory_order_seq_cst);
  if (a < old) {
    // Surplus workers running a chain stop at their next spawn; idle ones park at their next look.
    for (const auto& w : rt_.workers)
      if (w->rank() >= a && w->rank() < old) w->allocator()->request_yield();
    // Those asleep in the parking lot look now. Left there, they took the wake-ups meant for the
    // workers still allotted and parked again without passing them on (src/core/worker.cpp, find_work).
    rt_.park.wake_all_if_sleepers();  // after the seq_cst store of `allowed`: see find_work's re-check
  } else {
    for (const auto& w : rt_.workers)
      if (w->rank() >= old && w->rank() < a) w->allocator()->cancel_yield();
    rt_.allot_event.fetch_add(1, std::memory_order_seq_cst);  // after the store: see park_for_allotment
    futex_wake(&rt_.allot_event, 1 << 30);
  }
  // Every change is summarized here, the one at registration included (a job that registers beside
  // others starts with a share, and may leave before its first quantum ends).
  std::lock_guard<std::mutex> g(summary_m_);
  summary_.allotment_last = a;
  summary_.allotment_min = std::min(summary_.allotment_min, a);
  summary_.allotment_max = std::max(summary_.allotment_max, a);
  if (summary_.changes.size() < max_changes) summary_.changes.emplace_back(client_->quantum(), a);
}

std::string arbiter_job::stats_json() const {
  std::lock_guard<std::mutex> g(summary_m_);
  const summary& s = summary_;
  std::ostringstream o;
  const double q = s.quanta ? static_cast<double>(s.quanta) : 1.0;
  o << "{\"policy\":\"" << client_->policy() << "\",\"desire_rule\":\"" << policy::desire_rule_name(rule_)
    << "\",\"registered\":" << (client_->registered() ? "true" : "false") << ",\"quantum_ns\":" << client_->quantum_ns()
    << ",\"quanta\":" << s.quanta << ",\"idle_quanta\":" << s.idle_quanta << ",\"jobs_max\":" << s.jobs_max << ",\"desire_last\":" << s.desire_last
    << ",\"desire_mean\":" << (s.quanta ? s.desire_sum / q : 0.0) << ",\"desire_max\":" << s.desire_max
    << ",\"utilization_mean\":" << (s.quanta ? s.utilization_sum / q : 0.0) << ",\"allotment_last\":" << s.allotment_last
    << ",\"allotment_min\":" << s.allotment_min << ",\"allotment_max\":" << s.allotment_max
    << ",\"allotment_mean\":" << (s.quanta ? s.allotment_sum / q : static_cast<double>(s.allotment_last))
    << ",\"allotment_changes\":[";
  for (std::size_t i = 0; i < s.changes.size(); ++i)
    o << (i ? "," : "") << '[' << s.changes[i].first << ',' << s.changes[i].second << ']';
  o << "]";
  if (const std::string why = client_->off_reason(); !why.empty()) {
    o << ",\"off_reason\":\"";
    for (char c : why) {
      if (c == '"' || c == '\\') o << '\\';
      if (static_cast<unsigned char>(c) >= 0x20) o << c;
    }
    o << '"';
  }
  o << '}';
  return o.str();
}

void arbiter_job::reset_stats() {
  std::lock_guard<std::mutex> g(summary_m_);
  const std::uint32_t a = summary_.allotment_last;
  summary_ = summary{};
  summary_.allotment_last = summary_.allotment_min = summary_.allotment_max = a;
}

}  // namespace slaw::detail
