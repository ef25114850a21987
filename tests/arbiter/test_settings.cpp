// The arbiter's settings from the environment: good values are taken, bad ones fail with a
// slaw::config_error naming the variable and what is accepted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "arbiter/settings.hpp"
#include "slaw/config.hpp"
#include "support/stress.hpp"

namespace arb = slaw::arbiter;
using slaw_test::env_guard;

namespace {
std::string error_for(const char* name, const char* value) {
  return slaw_test::from_env_error<arb::settings, slaw::config_error>(name, value);
}

void expect_error(const char* name, const char* value, const std::string& accepted) {
  const std::string m = error_for(name, value);
  EXPECT_NE(m.find(name), std::string::npos) << name << "=" << value << ": " << m;
  EXPECT_NE(m.find(std::string("'") + value + "'"), std::string::npos) << m;
  EXPECT_NE(m.find(accepted), std::string::npos) << name << "=" << value << ": " << m;
}
}  // namespace

TEST(ArbiterSettings, DefaultsWhenUnset) {
  const arb::settings s = arb::settings::from_env();
  EXPECT_FALSE(s.arbiter.has_value());  // deq when more than one job is registered
  EXPECT_EQ(s.desire, slaw::policy::desire_rule::adeque);
  EXPECT_EQ(s.quantum_ns, 10'000'000u);
  EXPECT_FALSE(s.quantum_set);
  EXPECT_EQ(s.beta, 2.0);
  EXPECT_EQ(s.cores, 0u);
  EXPECT_EQ(s.segment_name(), "/slaw-arbiter-" + std::to_string(::geteuid()));
  EXPECT_EQ(arb::segment_name_problem(s.segment_name()), "");
}

TEST(ArbiterSettings, ReadsValidValues) {
  env_guard a("SLAW_ARBITER", "equi"), b("SLAW_DESIRE", "asteal"), c("SLAW_QUANTUM_MS", "2.5"), d("SLAW_BETA", "4"),
      e("SLAW_CORES", "16"), f("SLAW_ARBITER_NAME", "/slaw-test.settings_1");
  const arb::settings s = arb::settings::from_env();
  EXPECT_EQ(s.arbiter, slaw::policy::arbiter::equi);
  EXPECT_EQ(s.desire, slaw::policy::desire_rule::asteal);
  EXPECT_EQ(s.quantum_ns, 2'500'000u);
  EXPECT_TRUE(s.quantum_set);
  EXPECT_EQ(s.beta, 4.0);
  EXPECT_EQ(s.desire_params().beta, 4.0);
  EXPECT_EQ(s.cores, 16u);
  EXPECT_EQ(s.segment_name(), "/slaw-test.settings_1");
  for (const char* v : {"deq", "off"}) {
    env_guard g("SLAW_ARBITER", v);
    EXPECT_EQ(slaw::policy::arbiter_name(*arb::settings::from_env().arbiter), v);
  }
  env_guard q("SLAW_QUANTUM_MS", "0.1");
  EXPECT_EQ(arb::settings::from_env().quantum_ns, 100'000u);
}

TEST(ArbiterSettings, BadValuesNameTheVariableAndTheAcceptedValues) {
  for (const char* v : {"", "DEQ", "dynamic", "deq,equi"}) expect_error("SLAW_ARBITER", v, "deq, equi, off");
  for (const char* v : {"", "a-deque", "mimd"}) expect_error("SLAW_DESIRE", v, "adeque, asteal");
  for (const char* v : {"", "0", "0.05", "10001", "ten", "5ms", "nan", "inf", "-1"})
    expect_error("SLAW_QUANTUM_MS", v, "milliseconds in [0.1, 10000]");
  for (const char* v : {"", "0.5", "0", "2e6", "two", "nan"}) expect_error("SLAW_BETA", v, "[1, 1e6]");
  for (const char* v : {"", "0", "-2", "4097", "2.5", "all"}) expect_error("SLAW_CORES", v, "integer in [1, 4096]");
  for (const char* v : {"", "slaw", "/", "/a/b", "/a b", "/..", "/ä"}) expect_error("SLAW_ARBITER_NAME", v, "/NAME");
  expect_error("SLAW_ARBITER_NAME", ("/" + std::string(201, 'x')).c_str(), "200 characters");
}

TEST(ArbiterSettings, SegmentNames) {
  EXPECT_EQ(arb::segment_name_problem("/slaw-arbiter-1000"), "");
  EXPECT_EQ(arb::segment_name_problem("/A.b_c-9"), "");
  EXPECT_EQ(arb::segment_name_problem("/" + std::string(200, 'x')), "");
  EXPECT_NE(arb::segment_name_problem("slaw"), "");
  EXPECT_NE(arb::segment_name_problem("/."), "");
  EXPECT_NE(arb::segment_name_problem("//"), "");
}
