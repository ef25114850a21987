// SLAW's deployment file, the paper's format (src/places/deployment_file.hpp): the paper's own
// 16-worker file, variants of layout, and malformed files with the message naming the line.
#include "places/deployment_file.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "../support/input_guard.hpp"
#include "slaw/config.hpp"

using namespace slaw::places;

namespace {

// Thesis Fig 3.2: the 4 x quad-core Xeon, core pairs sharing an L2, 8 places of 2 workers.
constexpr const char* paper = R"(16 8
0 @ 0 -> 0 4
1 @ 0 -> 0 4
2 @ 1 -> 8 12
3 @ 1 -> 8 12
4 @ 2 -> 1 5
5 @ 2 -> 1 5
6 @ 3 -> 9 13
7 @ 3 -> 9 13
8 @ 4 -> 2 6
9 @ 4 -> 2 6
10 @ 5 -> 10 14
11 @ 5 -> 10 14
12 @ 6 -> 3 7
13 @ 6 -> 3 7
14 @ 7 -> 11 15
15 @ 7 -> 11 15
)";

std::string error_of(const std::string& text) {
  try {
    parse_deployment(text, "SLAW_DEPLOYMENT=d.txt");
  } catch (const slaw::config_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(DeploymentFile, ThePapersFile) {
  const deployment_spec d = parse_deployment(paper, "paper");
  EXPECT_EQ(d.places, 8u);
  ASSERT_EQ(d.workers.size(), 16u);
  EXPECT_EQ(d.workers[0].place, 0u);
  EXPECT_EQ(d.workers[0].cpus, (cpu_set{0, 4}));
  EXPECT_EQ(d.workers[5].place, 2u);
  EXPECT_EQ(d.workers[5].cpus, (cpu_set{1, 5}));
  EXPECT_EQ(d.workers[15].place, 7u);
  EXPECT_EQ(d.workers[15].cpus, (cpu_set{11, 15}));
  EXPECT_EQ(d.workers[15].line, 17u);
}

TEST(DeploymentFile, CommentsBlankLinesAnyOrderTightSpacing) {
  const deployment_spec d = parse_deployment(
      "# two places\n\n3 2   // workers places\n2@1->3\n  0 @ 0 -> 0 1 # shares\n1@0->1\n", "x");
  ASSERT_EQ(d.workers.size(), 3u);
  EXPECT_EQ(d.places, 2u);
  EXPECT_EQ(d.workers[0].cpus, (cpu_set{0, 1}));
  EXPECT_EQ(d.workers[1].cpus, (cpu_set{1}));
  EXPECT_EQ(d.workers[2].place, 1u);
  EXPECT_EQ(d.workers[2].cpus, (cpu_set{3}));
  EXPECT_EQ(d.workers[2].line, 4u);
  // Windows line ends and no final newline.
  EXPECT_EQ(parse_deployment("1 1\r\n0 @ 0 -> 2\r\n", "x").workers[0].cpus, (cpu_set{2}));
  EXPECT_EQ(parse_deployment("1 1\n0 @ 0 -> 2", "x").workers[0].cpus, (cpu_set{2}));
}

TEST(DeploymentFile, MalformedFilesNameTheLineAndTheProblem) {
  struct bad {
    const char* text;
    const char* message;
  };
  const bad cases[] = {
      {"", "SLAW_DEPLOYMENT=d.txt: the file has no 'WORKERS PLACES' line"},
      {"# only a comment\n", "has no 'WORKERS PLACES' line"},
      {"2\n", "d.txt:1: expected 'WORKERS PLACES'"},
      {"2 1 3\n", "d.txt:1: expected 'WORKERS PLACES'"},
      {"0 0\n", "d.txt:1: the number of workers must be in [1, 4096]"},
      {"5000 1\n", "the number of workers must be in [1, 4096]"},
      {"2 3\n", "d.txt:1: the number of places must be in [1, WORKERS]"},
      {"2 0\n", "the number of places must be in [1, WORKERS]"},
      {"1 1\n0 0 -> 1\n", "d.txt:2: expected 'WORKER @ PLACE -> CPU ...'"},
      {"1 1\n0 @ 0 1\n", "d.txt:2: expected 'WORKER @ PLACE -> CPU ...'"},
      {"1 1\n0 @ 0 ->\n", "d.txt:2: worker 0 has no CPU after '->'"},
      {"1 1\n0 @ 0 -> 1 @\n", "d.txt:2: expected CPU numbers after '->'"},
      {"1 1\n0 @ 0 -> x\n", "d.txt:2: unexpected 'x'"},
      {"1 1\n0 @ 0 -> -1\n", "d.txt:2: unexpected '-'"},
      {"1 1\n1 @ 0 -> 1\n", "d.txt:2: worker 1 is not in [0, 0]"},
      {"2 1\n0 @ 1 -> 1\n1 @ 0 -> 0\n", "d.txt:2: place 1 is not in [0, 0]"},
      {"2 1\n0 @ 0 -> 1\n0 @ 0 -> 1\n", "d.txt:3: worker 0 appears twice (first on line 2)"},
      {"2 1\n0 @ 0 -> 1\n", "worker 1 has no line"},
      {"2 2\n0 @ 0 -> 0\n1 @ 0 -> 1\n", "place 1 has no worker (an empty place)"},
      {"1 1\n0 @ 0 -> 99999\n", "d.txt:2: number '99999' too large"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
    EXPECT_NE(e.find("the format:"), std::string::npos) << e;
  }
}

TEST(DeploymentFile, ReadFromDisk) {
  char path[] = "/tmp/slaw_deploy_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path);
    f << paper;
  }
  EXPECT_EQ(read_deployment_file(path).workers.size(), 16u);
  std::remove(path);
  try {
    read_deployment_file(path);
    FAIL() << "no error for a missing file";
  } catch (const slaw::config_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::string("SLAW_DEPLOYMENT=") + path + ": cannot open the deployment file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_deployment_file("/tmp"), slaw::config_error);  // a directory
  EXPECT_THROW(read_deployment_file(""), slaw::config_error);
}

// The file is read with a size limit (max_deployment_file_bytes), and only a regular file or a pipe:
// /dev/zero was read until memory ran out.
TEST(DeploymentFile, ReadingIsBounded) {
  const slaw_test::watchdog dog("DeploymentFile.ReadingIsBounded", "a device read whole", 60);
  const slaw_test::address_space_limit limit(std::size_t{512} << 20);
  auto message = [](const std::string& path) -> std::string {
    try {
      read_deployment_file(path);
    } catch (const slaw::config_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  std::string m = message("/dev/zero");
  EXPECT_NE(m.find("SLAW_DEPLOYMENT=/dev/zero: not a regular file"), std::string::npos) << m;
  char path[] = "/tmp/slaw_deploy_big_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(max_deployment_file_bytes) + 1), 0);  // sparse: nothing written
  close(fd);
  m = message(path);
  EXPECT_NE(m.find("larger than the limit of 4194304 bytes"), std::string::npos) << m;
  std::remove(path);
  m = message("/tmp");
  EXPECT_NE(m.find("SLAW_DEPLOYMENT=/tmp: is a directory"), std::string::npos) << m;
}
