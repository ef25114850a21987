// The places settings from the environment and their checks (src/places/settings.hpp).
#include "places/settings.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "slaw/config.hpp"

using namespace slaw::places;

namespace {

std::string error_of(const settings& s) {
  try {
    check(s);
  } catch (const slaw::config_error& e) {
    return e.what();
  }
  return "(no error)";
}

// Sets the places variables for one test and unsets them after.
class Env : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* v : env_variables) unsetenv(v);
  }
};

struct temp_file {
  std::string path;
  explicit temp_file(const std::string& text) {
    char p[] = "/tmp/slaw_settings_XXXXXX";
    const int fd = mkstemp(p);
    if (fd >= 0) close(fd);
    path = p;
    std::ofstream(path) << text;
  }
  ~temp_file() { std::remove(path.c_str()); }
};

}  // namespace

TEST(Settings, BindValues) {
  EXPECT_EQ(parse_bind(""), bind_mode::unset);
  EXPECT_EQ(parse_bind("true"), bind_mode::on);
  EXPECT_EQ(parse_bind("FALSE"), bind_mode::off);
  EXPECT_EQ(parse_bind(" close "), bind_mode::close);
  EXPECT_EQ(parse_bind("Spread"), bind_mode::spread);
  for (const char* bad : {"1", "yes", "closer", "primary", "master", "spread,close"}) {
    SCOPED_TRACE(bad);
    try {
      parse_bind(bad);
      FAIL() << "no error";
    } catch (const slaw::config_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string("SLAW_BIND='") + bad + "': expected one of true, false, close, spread"),
                std::string::npos)
          << m;
    }
  }
}

TEST(Settings, CombinationsThatCannotGoTogether) {
  temp_file f("2 1\n0 @ 0 -> 0\n1 @ 0 -> 0\n");
  settings ok;
  ok.deployment_file = f.path;
  EXPECT_EQ(error_of(ok), "(no error)");
  ok.bind = "false";
  EXPECT_EQ(error_of(ok), "(no error)");
  ok.bind = "true";
  ok.workers = 2;
  EXPECT_EQ(error_of(ok), "(no error)");

  settings both = ok;
  both.places = "cores";
  EXPECT_NE(error_of(both).find("SLAW_DEPLOYMENT='" + f.path + "' and SLAW_PLACES='cores' are both set"), std::string::npos);
  settings close = ok;
  close.bind = "close";
  EXPECT_NE(error_of(close).find("SLAW_BIND='close' with SLAW_DEPLOYMENT"), std::string::npos);
  settings count = ok;
  count.workers = 3;
  EXPECT_NE(error_of(count).find("SLAW_WORKERS=3 but SLAW_DEPLOYMENT=" + f.path + " declares 2 workers"),
            std::string::npos);
  settings syntax;
  syntax.places = "{0:4";
  EXPECT_NE(error_of(syntax).find("SLAW_PLACES='{0:4'"), std::string::npos);
  settings missing;
  missing.deployment_file = "/nonexistent/deploy.txt";
  EXPECT_NE(error_of(missing).find("cannot open the deployment file"), std::string::npos);
}

// SLAW_TOPOLOGY's synthetic machine is measured when the settings are checked, before hwloc is asked to
// build it (it ran for hours on 10^9 PUs).
TEST(Settings, SyntheticTopologiesAreBounded) {
  settings s;
  s.topology = "synthetic:pack:1000 core:1000 pu:1000";
  std::string m = error_of(s);
  EXPECT_NE(m.find("SLAW_TOPOLOGY='synthetic:pack:1000 core:1000 pu:1000': describes at least 1000000 PUs"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("at most 4096 PUs"), std::string::npos) << m;
  s.topology = "synthetic:pack:2 core:2048 pu:2";
  EXPECT_NE(error_of(s).find("describes at least 8192 PUs"), std::string::npos) << error_of(s);
  s.topology = "synthetic:pack:2 core:1024 pu:2";
  EXPECT_EQ(error_of(s), "(no error)");
}

TEST_F(Env, ReadsTheEnvironment) {
  setenv("SLAW_PLACES", "cores(2)", 1);
  setenv("SLAW_BIND", "spread", 1);
  setenv("SLAW_DISPLAY_PLACES", "1", 1);
  settings base;
  base.workers = 7;
  const settings s = settings_from_env(base);
  EXPECT_EQ(s.places, "cores(2)");
  EXPECT_EQ(s.bind, "spread");
  EXPECT_TRUE(s.display);
  EXPECT_TRUE(s.deployment_file.empty());
  EXPECT_EQ(s.workers, 7u);  // left alone
  setenv("SLAW_DISPLAY_PLACES", "0", 1);
  EXPECT_FALSE(settings_from_env(base).display);
}

TEST_F(Env, UnsetVariablesKeepTheBase) {
  settings base;
  base.places = "threads";
  base.bind = "close";
  base.display = true;
  const settings s = settings_from_env(base);
  EXPECT_EQ(s.places, "threads");
  EXPECT_EQ(s.bind, "close");
  EXPECT_TRUE(s.display);
}

TEST_F(Env, BadValuesAreErrors) {
  struct bad {
    const char* variable;
    const char* value;
    const char* message;
  };
  const bad cases[] = {
      {"SLAW_PLACES", "", "SLAW_PLACES='': accepted:"},
      {"SLAW_PLACES", "socket", "unknown abstract name 'socket'"},
      {"SLAW_BIND", "", "SLAW_BIND='': expected one of true, false, close, spread"},
      {"SLAW_BIND", "on", "SLAW_BIND='on': expected one of"},
      {"SLAW_DEPLOYMENT", "", "SLAW_DEPLOYMENT='': expected the path of a deployment file"},
      {"SLAW_DEPLOYMENT", "/nonexistent", "SLAW_DEPLOYMENT=/nonexistent: cannot open the deployment file"},
      {"SLAW_DISPLAY_PLACES", "yes", "SLAW_DISPLAY_PLACES='yes': expected 0 (off) or 1"},
      {"SLAW_DISPLAY_PLACES", "", "SLAW_DISPLAY_PLACES='': expected 0 (off) or 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.variable) + "=" + c.value);
    setenv(c.variable, c.value, 1);
    try {
      settings_from_env(settings{});
      ADD_FAILURE() << "no error";
    } catch (const slaw::config_error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
    unsetenv(c.variable);
  }
}
