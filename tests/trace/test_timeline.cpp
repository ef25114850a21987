// Timeline traces from C++ (docs/guide/tracing.md): the buffer-full path, task names and clause order, and
// the errors of a bad output path. The JSON each test writes is also loaded by Python's json module
// (SLAW_TEST_PYTHON, set by CMake): "valid" means what a real reader accepts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "slaw/slaw.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Python's json.load accepts the file (and finds traceEvents and otherData in it).
bool loads_as_json(const std::string& path) {
  const std::string cmd = std::string(SLAW_TEST_PYTHON) +
                          " -c \"import json,sys; d=json.load(open(sys.argv[1])); d['traceEvents']; d['otherData']\" '" +
                          path + "'";
  return std::system(cmd.c_str()) == 0;
}

std::string temp_path(const char* name) { return ::testing::TempDir() + "slaw_timeline_" + name; }

slaw::task<> empty() { co_return; }

slaw::task<> spawn_all(long k) {
  auto f = co_await slaw::start_finish();
  for (long i = 0; i < k; ++i) co_await slaw::async(slaw::wf, empty);
  co_await slaw::end_finish(f);
}

}  // namespace

// One worker that never parks (so that nothing but the program records events) runs K work-first
// spawns: it records 1 root segment, K work-first and K resumed segments, a counter sample every 128
// segment switches, and the idle at the end. With room for 99 events (and the marker) it must drop
// the rest, count them exactly, say so on stderr, and still write a loadable trace.
TEST(Timeline, FullBufferCountsDroppedEventsAndStaysLoadable) {
  const long k = 1000;
  const std::size_t capacity = 100;
  const long recorded = 1 + 2 * k + (2 * k + 1) / 128 + 1;
  const long dropped = recorded - static_cast<long>(capacity - 1);
  const std::string path = temp_path("full.json");
  slaw::config c;
  c.workers = 1;
  c.policy = slaw::policy::mode::wf;
  c.spin_rounds = UINT_MAX;  // never parks: no park/wake events
  c.timeline_path = path;
  c.timeline_events = capacity;
  testing::internal::CaptureStderr();
  {
    slaw::runtime rt(c);
    rt.run(spawn_all(k));
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(err, std::to_string(dropped) + " events dropped")) << err;
  EXPECT_TRUE(has(err, "SLAW_TRACE_EVENTS")) << err;
  const std::string json = read_file(path);
  EXPECT_TRUE(has(json, "\"dropped\":[" + std::to_string(dropped) + "]")) << json.substr(json.size() - 400);
  EXPECT_TRUE(has(json, "\"dropped_total\":" + std::to_string(dropped)));
  EXPECT_TRUE(has(json, "\"recorded\":[" + std::to_string(capacity) + "]"));
  EXPECT_TRUE(has(json, "\"name\":\"trace buffer full\""));
  EXPECT_TRUE(has(json, "\"args\":{\"dropped\":" + std::to_string(dropped) + "}"));
  EXPECT_FALSE(has(json, "\"closed\":false")) << "the segment open when the buffer filled must end at the marker";
  EXPECT_TRUE(loads_as_json(path));
}

// With room for everything, nothing is dropped and nothing is said about it.
TEST(Timeline, RoomyBufferDropsNothing) {
  const std::string path = temp_path("roomy.json");
  slaw::config c;
  c.workers = 2;
  c.timeline_path = path;
  c.timeline_events = 1 << 14;
  testing::internal::CaptureStderr();
  {
    slaw::runtime rt(c);
    rt.run(spawn_all(500));
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(has(err, "dropped")) << err;
  EXPECT_TRUE(has(err, "timeline trace written to " + path)) << err;
  const std::string json = read_file(path);
  EXPECT_TRUE(has(json, "\"dropped_total\":0"));
  EXPECT_TRUE(has(json, "\"name\":\"wf\",\"cat\":\"wf\""));
  EXPECT_TRUE(loads_as_json(path));
}

namespace {
slaw::task<long> leaf(long x) { co_return x; }
slaw::task<> inner() {
  long a = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(slaw::wf, slaw::named("wf-leaf"), &a, leaf, 1);
  co_await slaw::end_finish(f);
}
slaw::task<> named_program() {
  long x = 0, y = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(slaw::named("hf-leaf"), slaw::hf, &x, leaf, 2);  // name first
  co_await slaw::async(slaw::hf, slaw::named("hf-leaf-2"), &y, leaf(3));  // name second, a task object
  co_await slaw::async(slaw::named("outer"), slaw::wf, inner);  // resumes after its child: named again
  co_await slaw::async(slaw::named("quote \" backslash \\ newline \n end"), leaf, 4);
  co_await slaw::end_finish(f);
  if (x != 2 || y != 3) throw std::runtime_error("named spawns lost their results");
}
}  // namespace

// Names reach the segments of the tasks that carry them, whatever the clause order, also when the task
// goes on after its work-first child returned; special characters are escaped.
TEST(Timeline, NamedTasksInAnyClauseOrder) {
  const std::string path = temp_path("named.json");
  slaw::config c;
  c.workers = 1;
  c.timeline_path = path;
  {
    slaw::runtime rt(c);
    rt.run(named_program());
  }
  const std::string json = read_file(path);
  EXPECT_TRUE(has(json, "\"name\":\"hf-leaf\",\"cat\":\"hf\"")) << json;
  EXPECT_TRUE(has(json, "\"name\":\"hf-leaf-2\",\"cat\":\"hf\"")) << json;
  EXPECT_TRUE(has(json, "\"name\":\"outer\",\"cat\":\"wf\"")) << json;
  EXPECT_TRUE(has(json, "\"name\":\"wf-leaf\",\"cat\":\"wf\"")) << json;
  EXPECT_TRUE(has(json, "\"name\":\"outer\",\"cat\":\"resumed\"")) << json;  // after wf-leaf returned
  EXPECT_TRUE(has(json, "\"name\":\"quote \\\" backslash \\\\ newline \\u000a end\"")) << json;
  EXPECT_TRUE(has(json, "\"name\":\"root\",\"cat\":\"root\"")) << json;
  EXPECT_TRUE(loads_as_json(path));
}

// Named spawns behave as unnamed ones when no trace is recorded.
TEST(Timeline, NamesWithoutATrace) {
  slaw::config c;
  c.workers = 2;
  slaw::runtime rt(c);
  EXPECT_NO_THROW(rt.run(named_program()));
}

TEST(Timeline, UnwritablePathFailsWhenTheRuntimeIsBuilt) {
  slaw::config c;
  c.workers = 1;
  c.timeline_path = "/nonexistent-slaw-dir/trace.json";
  try {
    slaw::runtime rt(c);
    ADD_FAILURE() << "built a runtime that cannot write its trace";
  } catch (const slaw::config_error& e) {
    EXPECT_TRUE(has(e.what(), "SLAW_TRACE")) << e.what();
    EXPECT_TRUE(has(e.what(), "/nonexistent-slaw-dir/trace.json")) << e.what();
    EXPECT_TRUE(has(e.what(), "No such file or directory")) << e.what();
  }
}

// A write that fails at the end (here a full device, only written to) is reported by close(), which
// throws output_error naming the setting, the path and the reason; the program decides what follows
// (tests/trace/test_output_paths.cpp has the destructor's status 1 and the other kinds of paths).
TEST(Timeline, FailedWriteIsReportedByClose) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  slaw::config c;
  c.workers = 1;
  c.timeline_path = "/dev/full";
  slaw::runtime rt(c);
  rt.run(spawn_all(10));
  try {
    rt.close();
    ADD_FAILURE() << "close() reported no failure";
  } catch (const slaw::output_error& e) {
    EXPECT_TRUE(has(e.what(), "SLAW_TRACE='timeline:/dev/full'")) << e.what();
    EXPECT_TRUE(has(e.what(), "could not be written to '/dev/full'")) << e.what();
    EXPECT_TRUE(has(e.what(), "No space left on device")) << e.what();
  }
}

// A second runtime of the process with the same path writes a numbered file instead of overwriting.
TEST(Timeline, SecondRuntimeWritesANumberedFile) {
  const std::string dir = ::testing::TempDir();
  const std::string first = dir + "slaw_timeline_twice.json", second = dir + "slaw_timeline_twice-2.json";
  std::remove(second.c_str());
  slaw::config c;
  c.workers = 1;
  c.timeline_path = first;
  testing::internal::CaptureStderr();
  for (int i = 0; i < 2; ++i) {
    slaw::runtime rt(c);
    rt.run(spawn_all(3));
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(err, "written to " + first + ":")) << err;
  EXPECT_TRUE(has(err, "written to " + second + ":")) << err;
  EXPECT_TRUE(loads_as_json(first));
  EXPECT_TRUE(loads_as_json(second));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLAW_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLAW_TEST_SANITIZED 1
#endif
#endif
#ifndef SLAW_TEST_SANITIZED
// Buffers that cannot be had (here more than the address space) are a config_error, not a bad_alloc
// from deep inside. (Sanitizer allocators abort on such a request instead of failing it.)
TEST(Timeline, BuffersTooLargeAreAConfigError) {
  slaw::config c;
  c.workers = 4096;
  c.timeline_path = temp_path("huge.json");
  c.timeline_events = std::size_t{1} << 32;
  try {
    slaw::runtime rt(c);
    ADD_FAILURE() << "allocated 2^49 bytes of trace buffers";
  } catch (const slaw::config_error& e) {
    EXPECT_TRUE(has(e.what(), "SLAW_TRACE_EVENTS")) << e.what();
  }
}
#endif

// A recording worker's hooks ride on its allocator's fast-path byte (frame_allocator::fast_path_blocked),
// and allocators are pooled (LIFO): the one a traced worker gave back must lose the hook bit when the
// next worker takes it, or every later runtime's spawns and calls would take the slow path for nothing.
namespace {
slaw::task<bool> fast_path_blocked_here() { co_return slaw::detail::tls_allocator->fast_path_blocked(); }
}  // namespace

TEST(Timeline, ATracedWorkersAllocatorGoesBackToThePoolWithoutItsHooks) {
  slaw::config traced;
  traced.workers = 1;
  traced.timeline_path = temp_path("hooks.json");
  slaw::config plain;
  plain.workers = 1;
  testing::internal::CaptureStderr();
  bool blocked_traced = false, blocked_after = true;
  {
    slaw::runtime rt(traced);
    blocked_traced = rt.run(fast_path_blocked_here());
  }
  {
    slaw::runtime rt(plain);
    blocked_after = rt.run(fast_path_blocked_here());
  }
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(blocked_traced);
  EXPECT_FALSE(blocked_after);
}
