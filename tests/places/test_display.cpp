// SLAW_DISPLAY_PLACES text and the stats JSON fragment (src/places/display.hpp).
#include "places/display.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <hwloc.h>

#include <string>

using namespace slaw::places;

namespace {

unsigned hwloc_api_major() { return hwloc_get_api_version() >> 16; }
unsigned hwloc_api_minor() { return (hwloc_get_api_version() >> 8) & 0xff; }

deployment spread_over_packages() {
  settings s;
  s.places = "cores";
  s.bind = "spread";
  s.workers = 2;
  return resolve(s, [] { return machine_topology::load_synthetic("pack:2 core:2 pu:2"); });
}

}  // namespace

TEST(Display, TextShowsTheTreeCpusWorkersAndBinding) {
  const std::string text = display_text(spread_over_packages());
  const std::string want =
      "SLAW PLACES BEGIN\n"
      "  source: SLAW_PLACES=cores\n"
      "  binding: spread\n"
      "  topology: hwloc API " +
      std::to_string(hwloc_api_major()) + "." + std::to_string(hwloc_api_minor()) +
      ", synthetic 'pack:2 core:2 pu:2'\n"
      "  workers: 2, places: 3 (2 leaves)\n"
      "  place 2 [Machine + NUMANode L#0] CPUs 0-1,4-5, workers 0-1\n"
      "    place 0 [Package L#0 + Core L#0] CPUs 0-1, worker 0 (bound to CPUs 0-1)\n"
      "    place 1 [Package L#1 + Core L#2] CPUs 4-5, worker 1 (bound to CPUs 4-5)\n"
      "  warning: SLAW_PLACES='cores': 2 of its 4 places get no worker (2 workers, spread) and are left out of the "
      "deployment\n"
      "SLAW PLACES END\n";
  EXPECT_EQ(text, want);
}

TEST(Display, TextOfAnUnboundFlatDeployment) {
  settings s;
  s.workers = 2;
  const std::string text = display_text(resolve(s));
  EXPECT_NE(text.find("  source: flat (SLAW_PLACES unset)\n  binding: none\n  topology: not read\n"
                      "  workers: 2, places: 1 (1 leaf)\n  place 0 CPU"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(", workers 0 (not bound), 1 (not bound)\n"), std::string::npos) << text;
}

TEST(Display, OneCpuIsSingular) {
  settings s;
  s.places = "threads";
  s.bind = "close";
  const std::string text =
      display_text(resolve(s, [] { return machine_topology::load_synthetic("pack:1 core:2 pu:1"); }));
  EXPECT_NE(text.find("    place 0 [Core L#0 + PU L#0] CPU 0, worker 0 (bound to CPU 0)\n"), std::string::npos) << text;
}

TEST(Display, Json) {
  const std::string json = display_json(spread_over_packages());
  EXPECT_EQ(json.substr(0, json.find(",\"topology\"")), "{\"source\":\"SLAW_PLACES=cores\",\"binding\":\"spread\"");
  const std::string rest = json.substr(json.find(",\"root\""));
  EXPECT_EQ(rest,
            ",\"root\":2,\"leaves\":2,\"places\":["
            "{\"id\":0,\"parent\":2,\"depth\":1,\"leaf\":true,\"objects\":[\"Package L#0\",\"Core L#0\"],"
            "\"cpus\":[0,1],\"workers\":[0]},"
            "{\"id\":1,\"parent\":2,\"depth\":1,\"leaf\":true,\"objects\":[\"Package L#1\",\"Core L#2\"],"
            "\"cpus\":[4,5],\"workers\":[1]},"
            "{\"id\":2,\"parent\":null,\"depth\":0,\"leaf\":false,\"objects\":[\"Machine\",\"NUMANode L#0\"],"
            "\"cpus\":[0,1,4,5],\"workers\":[0,1]}],"
            "\"workers\":[{\"id\":0,\"place\":0,\"bound\":[0,1]},{\"id\":1,\"place\":1,\"bound\":[4,5]}]}");
}

TEST(Display, JsonEscapesStrings) {
  deployment d = spread_over_packages();
  d.source = "SLAW_DEPLOYMENT=a \"b\"\\c\n";
  const std::string json = display_json(d);
  EXPECT_NE(json.find("\"source\":\"SLAW_DEPLOYMENT=a \\\"b\\\"\\\\c\\u000a\""), std::string::npos) << json;
}
