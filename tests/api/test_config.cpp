// Configuration from the environment: good values are taken, bad ones fail with a message naming the
// variable and the accepted values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "slaw/slaw.hpp"
#include "../support/stress.hpp"

namespace {
using slaw_test::env_guard;

std::string error_for(const char* name, const char* value) {
  return slaw_test::from_env_error<slaw::config, slaw::config_error>(name, value);
}
}  // namespace

TEST(Config, ReadsValidValues) {
  env_guard a("SLAW_WORKERS", "3"), b("SLAW_POLICY", "hf"), c("SLAW_S", "17"), d("SLAW_F", "9"),
      e("SLAW_INT", "5"), f("SLAW_STATS", "1");
  slaw::config cfg = slaw::config::from_env();
  EXPECT_EQ(cfg.workers, 3u);
  EXPECT_EQ(cfg.policy, slaw::policy::mode::hf);
  EXPECT_EQ(cfg.adp.S, 17u);
  EXPECT_EQ(cfg.adp.F, 9u);
  EXPECT_EQ(cfg.adp.INT, 5u);
  EXPECT_EQ(cfg.adp.steal_threshold, 5u);
  EXPECT_EQ(cfg.stats, slaw::stats_output::stderr_stream);
}

TEST(Config, DefaultsWhenUnset) {
  slaw::config cfg = slaw::config::from_env();
  EXPECT_EQ(cfg.policy, slaw::policy::mode::dyn);
  EXPECT_EQ(cfg.adp.S, 256u);
  EXPECT_EQ(cfg.adp.F, 128u);
  EXPECT_EQ(cfg.adp.INT, 64u);
  EXPECT_EQ(cfg.stats, slaw::stats_output::off);
}

TEST(Config, BadValuesNameTheVariableAndTheAcceptedValues) {
  std::string m = error_for("SLAW_WORKERS", "abc");
  EXPECT_NE(m.find("SLAW_WORKERS"), std::string::npos) << m;
  EXPECT_NE(m.find("integer"), std::string::npos) << m;
  EXPECT_NE(error_for("SLAW_WORKERS", "0").find("SLAW_WORKERS"), std::string::npos);
  EXPECT_NE(error_for("SLAW_WORKERS", "-2").find("SLAW_WORKERS"), std::string::npos);
  EXPECT_NE(error_for("SLAW_WORKERS", "4x").find("SLAW_WORKERS"), std::string::npos);
  EXPECT_NE(error_for("SLAW_WORKERS", "").find("SLAW_WORKERS"), std::string::npos);
  m = error_for("SLAW_POLICY", "fast");
  EXPECT_NE(m.find("SLAW_POLICY"), std::string::npos) << m;
  EXPECT_NE(m.find("wf, hf, dyn"), std::string::npos) << m;
  EXPECT_NE(error_for("SLAW_S", "0").find("SLAW_S"), std::string::npos);
  EXPECT_NE(error_for("SLAW_F", "1e3").find("SLAW_F"), std::string::npos);
  EXPECT_NE(error_for("SLAW_INT", "99999999999999999999").find("SLAW_INT"), std::string::npos);
  EXPECT_NE(error_for("SLAW_STATS", "").find("SLAW_STATS"), std::string::npos);
}

TEST(Config, SchedulerQuotaAndTrace) {
  {
    env_guard a("SLAW_SCHEDULER", "dfdeques"), b("SLAW_K", "4096"), c("SLAW_TRACE", "policy");
    slaw::config cfg = slaw::config::from_env();
    EXPECT_EQ(cfg.scheduler, slaw::scheduler_kind::dfdeques);
    EXPECT_EQ(cfg.quota, 4096u);
    EXPECT_GT(cfg.policy_trace, 0u);
  }
  {
    env_guard a("SLAW_K", "inf");
    EXPECT_EQ(slaw::config::from_env().quota, slaw::quota_infinite);
  }
  slaw::config d = slaw::config::from_env();
  EXPECT_EQ(d.scheduler, slaw::scheduler_kind::ws);
  EXPECT_EQ(d.quota, 50000u);
  EXPECT_EQ(d.policy_trace, 0u);
  std::string m = error_for("SLAW_SCHEDULER", "fifo");
  EXPECT_NE(m.find("SLAW_SCHEDULER"), std::string::npos) << m;
  EXPECT_NE(m.find("ws, dfdeques"), std::string::npos) << m;
  m = error_for("SLAW_K", "100");
  EXPECT_NE(m.find("SLAW_K"), std::string::npos) << m;
  EXPECT_NE(m.find("1024"), std::string::npos) << m;
  EXPECT_NE(m.find("inf"), std::string::npos) << m;
  EXPECT_NE(error_for("SLAW_K", "infinite").find("SLAW_K"), std::string::npos);
  m = error_for("SLAW_TRACE", "all");
  EXPECT_NE(m.find("SLAW_TRACE"), std::string::npos) << m;
  EXPECT_NE(m.find("policy"), std::string::npos) << m;
}

// ------------------------------------------------- SLAW_TRACE items (docs/guide/tracing.md § Recording)

TEST(Config, TraceTakesPolicyAndTimelineInAnyOrder) {
  for (const char* v : {"policy,timeline:/tmp/t.json", "timeline:/tmp/t.json,policy"}) {
    env_guard a("SLAW_TRACE", v);
    slaw::config c = slaw::config::from_env();
    EXPECT_GT(c.policy_trace, 0u) << v;
    EXPECT_EQ(c.timeline_path, "/tmp/t.json") << v;
  }
  {
    env_guard a("SLAW_TRACE", "timeline:rel/dir:with:colons.json");  // everything after the first colon
    slaw::config c = slaw::config::from_env();
    EXPECT_EQ(c.policy_trace, 0u);
    EXPECT_EQ(c.timeline_path, "rel/dir:with:colons.json");
  }
  for (const char* none : {"0", ""}) {
    env_guard a("SLAW_TRACE", none);
    slaw::config c = slaw::config::from_env();
    EXPECT_EQ(c.policy_trace, 0u);
    EXPECT_TRUE(c.timeline_path.empty());
  }
  slaw::config d = slaw::config::from_env();
  EXPECT_TRUE(d.timeline_path.empty());
  EXPECT_EQ(d.timeline_events, std::size_t{1} << 20);
}

TEST(Config, BadTraceItemsNameTheVariableAndTheAcceptedForms) {
  const struct {
    const char* value;
    const char* why;
  } bad[] = {{"timeline", "has no path"},          {"timeline:", "has no path"},
             {"policy,policy", "'policy' given twice"}, {"timeline:a,timeline:b", "'timeline' given twice"},
             {"policy,,timeline:a", "an empty item"},   {"policy,", "an empty item"},
             {"timelines:a", "unknown item 'timelines:a'"}, {"policy,0", "unknown item '0'"},
             {"Policy", "unknown item 'Policy'"}};
  for (const auto& b : bad) {
    std::string m = error_for("SLAW_TRACE", b.value);
    EXPECT_NE(m.find(std::string("SLAW_TRACE='") + b.value + "'"), std::string::npos) << b.value << ": " << m;
    EXPECT_NE(m.find(b.why), std::string::npos) << b.value << ": " << m;
    EXPECT_NE(m.find("policy, timeline:PATH"), std::string::npos) << b.value << ": " << m;
  }
}

TEST(Config, TraceEventsPerWorker) {
  {
    env_guard a("SLAW_TRACE", "timeline:/tmp/t.json"), b("SLAW_TRACE_EVENTS", "4096");
    EXPECT_EQ(slaw::config::from_env().timeline_events, 4096u);
  }
  for (const char* v : {"abc", "0", "15", "-5", "4294967297", ""}) {
    std::string m = error_for("SLAW_TRACE_EVENTS", v);
    EXPECT_NE(m.find("SLAW_TRACE_EVENTS"), std::string::npos) << v << ": " << m;
    EXPECT_NE(m.find("[16, 4294967296]"), std::string::npos) << v << ": " << m;
  }
  slaw::config c;
  c.timeline_events = 8;
  EXPECT_THROW(c.validate(), slaw::config_error);
}

TEST(Config, RuntimeRejectsBadCodeConfig) {
  slaw::config c;
  c.adp.S = 0;
  EXPECT_THROW(slaw::runtime{c}, slaw::config_error);
  slaw::config k;
  k.scheduler = slaw::scheduler_kind::dfdeques;
  k.quota = 10;
  EXPECT_THROW(slaw::runtime{k}, slaw::config_error);
  slaw::config a;
  a.adp.start = static_cast<slaw::policy::spawn_policy>(7);
  try {
    a.validate();
    ADD_FAILURE() << "adp.start=7 accepted";
  } catch (const slaw::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("adp.start=7: expected spawn_policy::wf or spawn_policy::hf"), std::string::npos) << e.what();
  }
}

TEST(Config, StatsFileIsWrittenAtRuntimeEnd) {
  std::string path = ::testing::TempDir() + "slaw_stats_test.json";
  {
    slaw::config c;
    c.workers = 2;
    c.stats = slaw::stats_output::file;
    c.stats_path = path;
    slaw::runtime rt(c);
    rt.run([]() -> slaw::task<> { co_return; }());
  }
  std::FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[256] = {};
  ASSERT_GT(std::fread(buf, 1, sizeof buf - 1, f), 10u);
  std::fclose(f);
  EXPECT_EQ(buf[0], '{');
  EXPECT_NE(std::string(buf).find("\"workers\":2"), std::string::npos);
}

// ------------------------------------------------------------ warnings (docs/guide/configuration.md)

namespace {
std::string stderr_of_from_env() {
  testing::internal::CaptureStderr();
  (void)slaw::config::from_env();
  return testing::internal::GetCapturedStderr();
}
bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }
}  // namespace

// A misspelt SLAW_WORKER=2 used to be ignored without a word.
TEST(Config, WarnsOnceAboutUnknownVariables) {
  {
    env_guard a("SLAW_WORKER", "2");
    std::string out = stderr_of_from_env();
    EXPECT_TRUE(has(out, "slaw: warning: unknown environment variable SLAW_WORKER=2")) << out;
    EXPECT_TRUE(has(out, "did you mean SLAW_WORKERS?")) << out;
    EXPECT_EQ(stderr_of_from_env(), "");  // once per process
  }
  {
    env_guard a("SLAW_NO_SUCH_SETTING", "1");
    std::string out = stderr_of_from_env();
    EXPECT_TRUE(has(out, "SLAW_NO_SUCH_SETTING=1")) << out;
    EXPECT_TRUE(has(out, "SLAW_WORKERS SLAW_POLICY")) << out;  // lists what is read
  }
  env_guard a("SLAW_WORKERS", "2"), b("SLAW_POLICY", "dyn"), c("SLAW_S", "100"), d("SLAW_STATS", "0"),
      e("SLAW_TEST_SCALE", "1");  // known ones, and the test suite's own
  EXPECT_EQ(stderr_of_from_env(), "");
}

TEST(Config, WarnsAboutSettingsTheChosenSchedulerDoesNotUse) {
  {
    env_guard a("SLAW_TRACE_EVENTS", "2048"), b("SLAW_TRACE", "policy");  // no timeline to size
    std::string out = stderr_of_from_env();
    EXPECT_TRUE(has(out, "SLAW_TRACE_EVENTS=2048 is ignored")) << out;
    EXPECT_TRUE(has(out, "timeline:PATH")) << out;
  }
  {
    env_guard a("SLAW_K", "8192");  // the scheduler is ws
    std::string out = stderr_of_from_env();
    EXPECT_TRUE(has(out, "SLAW_K=8192 is ignored")) << out;
    EXPECT_TRUE(has(out, "dfdeques")) << out;
  }
  {
    env_guard a("SLAW_SCHEDULER", "dfdeques"), b("SLAW_S", "17"), c("SLAW_POLICY", "hf"), d("SLAW_K", "8192");
    std::string out = stderr_of_from_env();
    EXPECT_TRUE(has(out, "SLAW_S=17 is ignored under SLAW_SCHEDULER=dfdeques")) << out;
    EXPECT_TRUE(has(out, "SLAW_POLICY=hf is ignored under SLAW_SCHEDULER=dfdeques")) << out;
    EXPECT_FALSE(has(out, "SLAW_K")) << out;
  }
  {
    env_guard a("SLAW_POLICY", "wf"), b("SLAW_F", "33");  // the bounds belong to dyn
    std::string out = stderr_of_from_env();
    EXPECT_TRUE(has(out, "SLAW_F=33 is ignored")) << out;
    EXPECT_TRUE(has(out, "SLAW_POLICY=dyn")) << out;
  }
  {
    env_guard a("SLAW_POLICY", "dyn"), b("SLAW_F", "34"), c("SLAW_SCHEDULER", "ws");
    EXPECT_EQ(stderr_of_from_env(), "");
  }
}

// ----------------------------------------------- SLAW_STATS (docs/guide/configuration.md § Output files)

// SLAW_STATS=true used to write a file named `true`.
TEST(Config, StatsTakesZeroOneOrAPathAndNoOtherWordOrNumber) {
  for (const char* bad : {"true", "false", "yes", "no", "on", "off", "TRUE", "Yes", "2", "01", "10"}) {
    std::string m = error_for("SLAW_STATS", bad);
    EXPECT_NE(m.find("SLAW_STATS"), std::string::npos) << bad << ": " << m;
    EXPECT_NE(m.find("0 (off), 1"), std::string::npos) << bad << ": " << m;
  }
  env_guard g("SLAW_STATS", "./true");
  slaw::config c = slaw::config::from_env();
  EXPECT_EQ(c.stats, slaw::stats_output::file);
  EXPECT_EQ(c.stats_path, "./true");
}

// A bad path used to fail silently at exit; now the runtime is not built.
TEST(Config, StatsFileIsOpenedWhenTheRuntimeIsBuilt) {
  slaw::config c;
  c.workers = 1;
  c.stats = slaw::stats_output::file;
  for (std::string bad : {std::string("/nonexistent-slaw-dir/stats.json"), ::testing::TempDir()}) {
    c.stats_path = bad;
    try {
      slaw::runtime rt(c);
      ADD_FAILURE() << "built a runtime with the stats file " << bad;
    } catch (const slaw::config_error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  c.stats_path = ::testing::TempDir() + "slaw_stats_open_test.json";
  std::remove(c.stats_path.c_str());
  {
    slaw::runtime rt(c);
    std::FILE* f = std::fopen(c.stats_path.c_str(), "r");  // there, and empty, while the runtime lives
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(std::fgetc(f), EOF);
    std::fclose(f);
  }
  std::FILE* f = std::fopen(c.stats_path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::fgetc(f), '{');
  std::fclose(f);
}

TEST(Config, ArbiterSettingsFromTheEnvironment) {
  env_guard a("SLAW_ARBITER", "equi"), b("SLAW_DESIRE", "asteal"), c("SLAW_QUANTUM_MS", "2.5"), d("SLAW_BETA", "3"),
      e("SLAW_CORES", "5"), f("SLAW_ARBITER_NAME", "/slaw-config-test");
  const slaw::config cfg = slaw::config::from_env();
  ASSERT_TRUE(cfg.arbiter.arbiter.has_value());
  EXPECT_EQ(*cfg.arbiter.arbiter, slaw::policy::arbiter::equi);
  EXPECT_EQ(cfg.arbiter.desire, slaw::policy::desire_rule::asteal);
  EXPECT_EQ(cfg.arbiter.quantum_ns, 2'500'000u);
  EXPECT_TRUE(cfg.arbiter.quantum_set);
  EXPECT_EQ(cfg.arbiter.beta, 3.0);
  EXPECT_EQ(cfg.arbiter.cores, 5u);
  EXPECT_EQ(cfg.arbiter.name, "/slaw-config-test");
}

TEST(Config, BadArbiterValuesNameTheVariableAndTheAcceptedValues) {
  std::string m = error_for("SLAW_ARBITER", "maybe");
  EXPECT_NE(m.find("SLAW_ARBITER"), std::string::npos) << m;
  EXPECT_NE(m.find("deq, equi, off"), std::string::npos) << m;
  m = error_for("SLAW_DESIRE", "greedy");
  EXPECT_NE(m.find("adeque, asteal"), std::string::npos) << m;
  EXPECT_NE(error_for("SLAW_QUANTUM_MS", "0").find("SLAW_QUANTUM_MS"), std::string::npos);
  EXPECT_NE(error_for("SLAW_BETA", "0.5").find("SLAW_BETA"), std::string::npos);
  EXPECT_NE(error_for("SLAW_CORES", "0").find("SLAW_CORES"), std::string::npos);
  EXPECT_NE(error_for("SLAW_ARBITER_NAME", "no-slash").find("SLAW_ARBITER_NAME"), std::string::npos);
}
