// A runtime's timeline trace (SLAW_TRACE=timeline:PATH, docs/design/tracing.md): the workers' recorders and
// their buffers, the clock, and the output file. The file is opened (output_file.hpp's rules) and the
// buffers are allocated when the runtime is built, so that a bad path or a buffer too large fails then
// with a config_error; the trace is written when the runtime ends, after its workers stopped.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "slaw/config.hpp"
#include "trace/output_file.hpp"
#include "trace/timeline_recorder.hpp"
#include "trace/trace_clock.hpp"

namespace slaw::detail {

class timeline {
 public:
  // Throws config_error naming SLAW_TRACE and the path (cannot be opened for writing) or
  // SLAW_TRACE_EVENTS (the buffers cannot be allocated).
  timeline(const config& cfg, unsigned workers);
  ~timeline();
  timeline(const timeline&) = delete;
  timeline& operator=(const timeline&) = delete;

  timeline_recorder& recorder(unsigned worker) noexcept { return recorders_[worker]; }

  // Call once, after the workers stopped. Writes the JSON and says on stderr where it went and how
  // many events were dropped. Returns why it could not be written ("SLAW_TRACE='timeline:PATH': ..."),
  // empty if it was (or if this timeline only carries SLAW_RECORD's hooks).
  std::string write();

 private:
  std::string path_;  // the file written: cfg.timeline_path, or a numbered variant of it (timeline.cpp)
  output_file out_;
  std::string scheduler_, policy_;
  trace_clock clock_;
  std::size_t per_worker_;
  std::unique_ptr<tl_event[]> events_;
  std::vector<timeline_recorder> recorders_;
};

}  // namespace slaw::detail
