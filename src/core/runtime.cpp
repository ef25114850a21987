#include "slaw/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <latch>
#include <stdexcept>
#include <string>
#include <system_error>

#include "arbiter/settings.hpp"
#include "core/runtime_impl.hpp"
#include "places/binding.hpp"
#include "places/display.hpp"
#include "places/settings.hpp"
#include "trace/policy_trace.hpp"
#include "slaw/finish.hpp"

namespace slaw {
namespace detail {

namespace {
// A task's place is a 16-bit index (promise_base::place).
constexpr std::size_t max_places = 65535;

// SLAW_TOPOLOGY: this machine, or an hwloc synthetic one (checked by places::check already).
places::topology_source topology_source(const std::string& topology) {
  if (topology.empty()) return &places::machine_topology::load_system;
  const std::string desc = topology.substr(places::synthetic_prefix.size());
  return [desc, topology] {
    try {
      return places::machine_topology::load_synthetic(desc);
    } catch (const std::invalid_argument& e) {
      throw config_error("SLAW_TOPOLOGY='" + topology + "': hwloc does not accept the synthetic description (" +
                         e.what() + "); example: synthetic:pack:2 l3:2 core:4 pu:2");
    }
  };
}
}  // namespace

runtime_impl::runtime_impl(config c) : cfg(std::move(c)) {
  cfg.validate();
  cfg.arbiter = arbiter::with_environment_defaults(arbiter::settings{cfg.arbiter});
  // The worker count: as asked, or one per CPU of the places (flat and unbound: hardware_concurrency).
  deployment = places::resolve({cfg.places, cfg.bind, cfg.deployment_file, cfg.display_places, cfg.workers, cfg.topology},
                               topology_source(cfg.topology));
  if (deployment.tree.size() > max_places)
    throw config_error(deployment.source + " gives " + std::to_string(deployment.tree.size()) +
                       " places (with the internal ones); slaw supports at most " + std::to_string(max_places));
  for (const std::string& w : deployment.warnings) std::fprintf(stderr, "slaw: warning: %s\n", w.c_str());
  if (cfg.display_places) std::fputs(places::display_text(deployment).c_str(), stderr);
  const auto n = static_cast<unsigned>(deployment.workers.size());
  cfg.workers = n;
  if (cfg.stats == stats_output::file) stats_out = open_stats_file(cfg);  // a bad path fails here, not at exit
  // A bad path fails here too. Recording needs the workers' trace hooks: a timeline without a buffer.
  if (!cfg.timeline_path.empty() || !cfg.record_path.empty()) trace_timeline = std::make_unique<timeline>(cfg, n);
  if (!cfg.record_path.empty()) recorder = std::make_unique<dag_recorder>(cfg.record_path, n);
  sched = make_scheduler(cfg, *this);
  config worker_cfg = cfg;
  sched->configure_workers(worker_cfg);
  const worker_settings settings{worker_cfg.policy, worker_cfg.adp, worker_cfg.policy_trace, worker_cfg.loop};
  // The order in which the job's allotment keeps workers running: one per leaf place first, so that
  // every place keeps a worker, then the rest (docs/design/multijob.md § Parking to the allotment, and waking).
  std::vector<unsigned> rank(n);
  std::uint32_t leaves = 0;
  {
    std::vector<bool> leaf_seen(deployment.tree.size());
    std::vector<unsigned> order;
    for (unsigned i = 0; i < n; ++i)
      if (!leaf_seen[deployment.workers[i].place]) {
        leaf_seen[deployment.workers[i].place] = true;
        order.push_back(i);
      }
    leaves = static_cast<std::uint32_t>(order.size());
    for (unsigned i = 0; i < n; ++i)
      if (std::find(order.begin(), order.begin() + leaves, i) == order.begin() + leaves) order.push_back(i);
    for (unsigned r = 0; r < n; ++r) rank[order[r]] = r;
  }
  allowed.store(n, std::memory_order_relaxed);
  mugging = deployment.tree.size() == 1 && !sched->yields_by_give_up();
  std::vector<std::string> bind_errors(n);
  std::latch bound(n);
  try {
    workers.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      workers.push_back(std::make_unique<worker>(this, sched.get(), i, settings));
      workers.back()->set_rank(rank[i]);
      sched->attach(*workers.back());
    }
    threads_.reserve(n);
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this, i, &bind_errors, &bound] {
        // Bound before it runs anything, so that the memory it first touches is its place's.
        if (const places::cpu_set& cpus = deployment.workers[i].bind; !cpus.empty()) {
          try {
            places::bind_this_thread(*deployment.topology, cpus);
          } catch (const std::exception& e) {
            bind_errors[i] = e.what();
          }
        }
        bound.count_down();
        workers[i]->main_loop();
      });
  } catch (const std::exception& e) {
    // Thread creation failed part-way (ulimit -v, a pids limit, many workers): the started threads
    // would be destroyed joinable (std::terminate). Stop and join them, then report.
    const std::size_t started = threads_.size();
    stopping.store(true, std::memory_order_seq_cst);
    park.wake_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    auto* se = dynamic_cast<const std::system_error*>(&e);
    if (!se || workers.size() < n) throw;  // e.g. out of memory for the workers themselves
    throw std::system_error(se->code(), "slaw::runtime: could not start worker thread " + std::to_string(started + 1) +
                                            " of " + std::to_string(n) + " (" + std::to_string(started) +
                                            " started, stopped again)");
  }
  bound.wait();
  for (unsigned i = 0; i < n; ++i) {
    if (bind_errors[i].empty()) continue;
    shutdown();
    throw std::runtime_error("slaw::runtime: could not bind worker " + std::to_string(i) + " to CPUs " +
                             deployment.workers[i].bind.to_string() + ": " + bind_errors[i]);
  }
  if (cfg.arbiter.arbiter != policy::arbiter::off) {
    try {
      job = std::make_unique<arbiter_job>(*this, cfg.arbiter, leaves);
    } catch (...) {
      shutdown();
      throw;
    }
  }
}

runtime_impl::~runtime_impl() { shutdown(); }

void runtime_impl::shutdown() {
  if (threads_.empty()) return;
  while (active_runs.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  if (job) {
    job_final_json = job->stats_json();
    job.reset();  // leaves the arbiter's table; every worker may run again
  }
  stopping.store(true, std::memory_order_seq_cst);
  park.wake_all();
  allot_event.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&allot_event, 1 << 30);
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void runtime_impl::inject(promise_base* root) {
  {
    std::lock_guard<std::mutex> g(injected_mutex_);
    injected_.push_back(root);
    injected_size_.fetch_add(1, std::memory_order_seq_cst);
  }
  park.wake_one();
}

promise_base* runtime_impl::take_injected() noexcept {
  if (injected_size_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard<std::mutex> g(injected_mutex_);
  if (injected_.empty()) return nullptr;
  promise_base* r = injected_.front();
  injected_.pop_front();
  injected_size_.fetch_sub(1, std::memory_order_seq_cst);
  return r;
}

void runtime_impl::resume_external(promise_base* frame) {
  {
    std::lock_guard<std::mutex> g(injected_mutex_);
    resumed_.push_back(frame);
    injected_size_.fetch_add(1, std::memory_order_seq_cst);
  }
  park.wake_one();
}

promise_base* runtime_impl::take_resumed(const worker& w, const finish_node* inside) noexcept {
  if (injected_size_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard<std::mutex> g(injected_mutex_);
  for (auto it = resumed_.begin(); it != resumed_.end(); ++it) {
    promise_base* p = *it;
    if (!w.may_run(p->place) || (inside && !p->cur->is_inside(inside))) continue;
    resumed_.erase(it);
    injected_size_.fetch_sub(1, std::memory_order_seq_cst);
    return p;
  }
  return nullptr;
}

bool runtime_impl::work_visible_to(const worker& w) const noexcept {
  return injected_nonempty() || sched->work_visible_to(w, workers);
}

}  // namespace detail

runtime::runtime(config cfg) : impl_(std::make_unique<detail::runtime_impl>(std::move(cfg))) {}

namespace {
// The runtime's end, from close() or the destructor: the workers stop, then every output is written
// (one failure does not keep the others from being written). Returns the failures, one per line.
std::string end_runtime(runtime& rt, detail::runtime_impl& impl) {
  impl.shutdown();  // the counters and the recorders are final from here on
  impl.closed = true;
  const detail::sigpipe_blocked quiet;  // a FIFO whose reader left: EPIPE, reported, not a killed process
  std::string failures;
  auto attempt = [&](const char* what, auto&& write) {
    std::string f;
    try {
      f = write();
    } catch (const std::exception& e) {  // no memory to build the output
      f = std::string(what) + " could not be written: " + e.what();
    }
    if (!f.empty()) failures += (failures.empty() ? "" : "\n") + f;
  };
  if (impl.cfg.stats != stats_output::off)
    attempt("SLAW_STATS: the counters", [&] { return detail::write_stats(rt.stats(), impl.cfg, impl.stats_out); });
  if (impl.trace_timeline) attempt("SLAW_TRACE: the timeline trace", [&] { return impl.trace_timeline->write(); });
  if (impl.recorder) attempt("SLAW_RECORD: the DAG", [&] { return impl.recorder->write(); });
  return failures;
}

bool on_own_worker(const detail::runtime_impl* impl) noexcept {
  return detail::tls_worker && detail::tls_worker->rt() == impl;
}
}  // namespace

void runtime::close() {
  if (impl_->closed) return;
  if (on_own_worker(impl_.get()))  // it would wait for its own run, and its own worker, to end: forever
    throw std::logic_error("slaw::runtime::close called from one of this runtime's own workers");
  const std::string failures = end_runtime(*this, *impl_);
  if (!failures.empty()) throw output_error(failures);
}

runtime::~runtime() {
  if (!impl_ || impl_->closed) return;
  if (on_own_worker(impl_.get())) {
    // It would wait for its own run, and its own worker, to end: forever. A destructor cannot report
    // this by throwing.
    std::fprintf(stderr,
                 "slaw: a slaw::runtime is being destroyed from one of its own tasks (on its worker %u); it "
                 "would wait for itself forever. Destroy it on the thread that created it, after run() returned.\n",
                 detail::tls_worker->index());
    std::abort();
  }
  const std::string failures = end_runtime(*this, *impl_);
  if (failures.empty()) return;
  // Not a status 0 for a program whose outputs are lost, and no exception out of a destructor.
  for (std::size_t at = 0; at < failures.size();) {
    const std::size_t end = std::min(failures.find('\n', at), failures.size());
    std::fprintf(stderr, "slaw: %.*s\n", static_cast<int>(end - at), failures.c_str() + at);
    at = end + 1;
  }
  std::fprintf(stderr,
               "slaw: the runtime ended in its destructor, which cannot throw slaw::output_error (call "
               "runtime::close() to handle it); exiting with status 1\n");
  std::cout.flush();
  std::cerr.flush();
  std::clog.flush();
  std::fflush(nullptr);
  std::_Exit(EXIT_FAILURE);
}

unsigned runtime::workers() const noexcept { return static_cast<unsigned>(impl_->workers.size()); }
const config& runtime::cfg() const noexcept { return impl_->cfg; }

void runtime::run_root_erased(detail::promise_base* root) {
  if (detail::tls_worker && detail::tls_worker->rt() == impl_.get()) {
    root->self().destroy();
    throw std::logic_error("slaw::runtime::run called from one of this runtime's own workers; use co_await");
  }
  if (impl_->closed) {
    root->self().destroy();
    throw std::logic_error("slaw::runtime::run called after runtime::close(): its workers have stopped");
  }
  detail::external_waiter ew;
  detail::finish_node rf;
  rf.open_root(&ew);  // count 1: the root task
  root->kind = detail::task_kind::queued;
  root->join = &rf;
  root->cur = &rf;
  root->parent = nullptr;
  root->place = static_cast<std::uint16_t>(impl_->deployment.tree.root());  // anywhere
  impl_->active_runs.fetch_add(1, std::memory_order_acq_rel);
  if (impl_->job) impl_->job->run_begins();
  // SLAW_RECORD: the first run is recorded (begun before any of its tasks can run).
  const bool recorded = impl_->recorder &&
                        impl_->recorder->begin_run(root, detail::header_of(root->self().address())->block_size);
  impl_->inject(root);
  while (ew.done.load(std::memory_order_acquire) == 0) detail::futex_wait(&ew.done, 0, -1);
  if (recorded) impl_->recorder->end_run();
  impl_->active_runs.fetch_sub(1, std::memory_order_acq_rel);
  if (rf.has_exception()) std::rethrow_exception(rf.take_exception());
}

runtime_stats runtime::stats() const {
  runtime_stats s;
  for (const auto& w : impl_->workers) {
    worker_stats ws;
    const auto& c = w->counters();
#define SLAW_COUNTER_event(name) ws.name = c.name.get();
#define SLAW_COUNTER_derived(name)
#define SLAW_COUNTER(type, name, total, source) SLAW_COUNTER_##source(name)
#include "slaw/counters.def"
#undef SLAW_COUNTER
#undef SLAW_COUNTER_event
#undef SLAW_COUNTER_derived
    // The derived ones.
    ws.stolen_preempted = w->stolen_pre();
    ws.stolen_fresh = w->stolen_fresh();
    ws.policy_switches = w->policy_switches();
    const auto& fs = w->allocator()->stats();
    const auto& fk = fs.kind[static_cast<unsigned>(detail::mem_kind::frame)];
    const auto& uk = fs.kind[static_cast<unsigned>(detail::mem_kind::user)];
    ws.frame_bytes_live = w->allocator()->live_bytes(detail::mem_kind::frame);
    ws.frame_bytes_peak = fk.peak.load(std::memory_order_relaxed);
    ws.frame_bytes_total = fk.total.load(std::memory_order_relaxed);
    ws.user_bytes_live = uk.live.load(std::memory_order_relaxed);
    ws.user_bytes_peak = uk.peak.load(std::memory_order_relaxed);
    ws.user_bytes_total = uk.total.load(std::memory_order_relaxed);
    ws.frame_chunk_bytes = fs.chunk_bytes.load(std::memory_order_relaxed);
    ws.fresh_bytes_live = w->fresh_bytes_live();
    const auto& q = w->allocator()->quota_stats();
    ws.quota_max_used = q.max_used.load(std::memory_order_relaxed);
    ws.quota_overrun_bytes = q.overrun_bytes.load(std::memory_order_relaxed);
    ws.policy = w->current_policy() == policy::spawn_policy::wf ? "wf" : "hf";
    if (w->trace()) ws.policy_trace = w->trace()->copy();
    s.workers.push_back(ws);
  }
  s.total = sum_stats(s.workers);
  const detail::memory_gauge& mg = detail::process_gauge();
  const detail::memory_gauge& tg = detail::process_task_gauge();
  // The live gauges may lag below the truth (within the error bounds), even below 0; the truth is >= 0.
  auto at_least_0 = [](std::int64_t v) { return v > 0 ? v : 0; };
  s.memory_live = at_least_0(mg.live.load(std::memory_order_relaxed));
  s.memory_peak = mg.peak.load(std::memory_order_relaxed);  // >= 0 by construction (memory_gauge)
  s.active_tasks = at_least_0(tg.live.load(std::memory_order_relaxed));
  s.active_tasks_peak = tg.peak.load(std::memory_order_relaxed);
  s.gauge_error_bytes = 2 * static_cast<std::int64_t>(impl_->workers.size()) * detail::gauge_step;
  s.gauge_error_tasks = static_cast<std::int64_t>(impl_->workers.size()) * detail::task_step;
  s.scheduler = to_string(impl_->cfg.scheduler);
  s.places_json = places::display_json(impl_->deployment);
  s.arbiter_json = impl_->job ? impl_->job->stats_json() : impl_->job_final_json;
  impl_->sched->add_stats(s);
  return s;
}

// Peaks restart from the current values. Call it between runs (the allocators' owners are idle then).
void runtime::reset_stats() {
  for (auto& w : impl_->workers) {
    w->reset_counters();
    w->allocator()->reset_peaks();
  }
  detail::process_gauge().reset_peak();
  detail::process_task_gauge().reset_peak();
  impl_->sched->reset_stats();
  if (impl_->job) impl_->job->reset_stats();
}

}  // namespace slaw
