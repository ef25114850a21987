// The SLAW_PLACES parser (OpenMP's OMP_PLACES grammar, src/places/omp_places.hpp) against a table of
// valid strings with their places, and of invalid ones with the part of the message that names the
// problem.
#include "places/omp_places.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/input_guard.hpp"
#include "slaw/config.hpp"

using namespace slaw::places;

namespace {

std::vector<cpu_set> list_of(const places_spec& s) {
  if (auto* l = std::get_if<std::vector<cpu_set>>(&s)) return *l;
  ADD_FAILURE() << "expected an explicit list";
  return {};
}

std::string error_of(const std::string& value) {
  try {
    parse_places(value);
  } catch (const slaw::config_error& e) {
    return e.what();
  }
  return "(no error)";
}

struct valid_case {
  const char* text;
  std::vector<cpu_set> places;
};

}  // namespace

TEST(OmpPlaces, ExplicitListsGiveTheirPlacesInOrder) {
  const valid_case cases[] = {
      {"{0:4},{4:4}", {{0, 1, 2, 3}, {4, 5, 6, 7}}},
      {"{0,1},{2,3}", {{0, 1}, {2, 3}}},
      {"{0:2}:4:2", {{0, 1}, {2, 3}, {4, 5}, {6, 7}}},
      // OpenMP's own three spellings of one list.
      {"{0,1,2},{3,4,6},{7,8,9},{10,11,12}", {{0, 1, 2}, {3, 4, 6}, {7, 8, 9}, {10, 11, 12}}},
      {"{0:3},{3:3},{7:3},{10:3}", {{0, 1, 2}, {3, 4, 5}, {7, 8, 9}, {10, 11, 12}}},
      {"{0:4}:4:4", {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}},
      {"{0:4:2}", {{0, 2, 4, 6}}},               // a stride inside a place
      {"{6:4:-2}", {{0, 2, 4, 6}}},              // a negative stride
      {"{0,1}:3", {{0, 1}, {1, 2}, {2, 3}}},     // places interval, unit stride
      {"{4}:3:-2", {{4}, {2}, {0}}},
      {"3", {{3}}},                              // a place without braces
      {"0,1,2", {{0}, {1}, {2}}},
      {"0:3", {{0}, {1}, {2}}},
      {"{0:8,!3,!5}", {{0, 1, 2, 4, 6, 7}}},     // CPUs excluded from a place
      {"{!3,0:8}", {{0, 1, 2, 4, 5, 6, 7}}},     // wherever the exclusion stands
      {"{0:2}:4:2,!{2,3}", {{0, 1}, {4, 5}, {6, 7}}},  // a place excluded from the list
      {"!{2,3},{0:2}:4:2", {{0, 1}, {4, 5}, {6, 7}}},
      {"{0},{0}", {{0}, {0}}},                   // repeated places are allowed
      {"  { 0 : 2 } , { 2 : 2 }  ", {{0, 1}, {2, 3}}},  // blanks around tokens
      {"{65535}", {{65535}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(list_of(parse_places(c.text)), c.places);
  }
}

TEST(OmpPlaces, AbstractNamesWithOptionalCount) {
  struct named {
    const char* text;
    abstract_places want;
  };
  const named cases[] = {
      {"threads", {abstract_name::threads, 0}},     {"cores", {abstract_name::cores, 0}},
      {"ll_caches", {abstract_name::ll_caches, 0}}, {"numa_domains", {abstract_name::numa_domains, 0}},
      {"sockets", {abstract_name::sockets, 0}},     {"tree", {abstract_name::tree, 0}},
      {"flat", {abstract_name::flat, 0}},           {"cores(4)", {abstract_name::cores, 4}},
      {"threads(1)", {abstract_name::threads, 1}},  {"CORES ( 2 )", {abstract_name::cores, 2}},
      {" Sockets ", {abstract_name::sockets, 0}},   {"numa_domains(3)", {abstract_name::numa_domains, 3}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    places_spec s = parse_places(c.text);
    ASSERT_TRUE(std::holds_alternative<abstract_places>(s));
    EXPECT_EQ(std::get<abstract_places>(s), c.want);
  }
}

TEST(OmpPlaces, BadStringsAreErrorsNamingTheProblem) {
  struct bad {
    const char* text;
    const char* message;  // a part of the error
  };
  const bad cases[] = {
      {"", "the value is empty"},
      {"   ", "the value is empty"},
      {"core", "unknown abstract name 'core'"},
      {"cores(0)", "a number of places must be at least 1"},
      {"cores(", "expected a number of places"},
      {"cores(4", "expected ')'"},
      {"cores(4)x", "unexpected 'x'"},
      {"tree(2)", "'tree' takes no count"},
      {"flat(1)", "'flat' takes no count"},
      {"{0:4", "expected ',' or '}'"},
      {"{0:4},", "expected a CPU number or '{'"},
      {"{}", "expected a CPU number"},
      {"{0:0}", "a count of CPUs must be at least 1"},
      {"{0:4}:0", "a number of places must be at least 1"},
      {"{-1}", "expected a CPU number"},
      {"{1:3:-1}", "reaches CPU -1"},
      {"{0:2}:3:-2", "reaches CPU -2"},
      {"{65536}", "a CPU number above 65535"},
      {"{0:70000}", "a count of CPUs above 65535"},
      {"{!0}", "excludes CPU 0, which it does not contain"},
      {"{0,!0}", "the place is empty"},
      {"{0:2,!0,!1}", "the place is empty"},
      {"{0,1,!2}", "excludes CPU 2, which it does not contain"},
      {"{0},!{1}", "excludes the place of CPUs 1, which is not in the list"},
      {"{0},!{0}", "every place is excluded"},
      {"{0:4};{4:4}", "unexpected ';'"},
      {"{a}", "expected a CPU number"},
      {"cores,threads", "unexpected ','"},
      {"{0:4:x}", "expected a stride"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
    EXPECT_NE(e.find(std::string("SLAW_PLACES='") + c.text + "'"), std::string::npos) << e;  // names the variable
    EXPECT_NE(e.find("accepted:"), std::string::npos) << e;                                  // and the forms
  }
}

TEST(OmpPlaces, ErrorsNameTheVariableGiven) {
  try {
    parse_places("nope", "config.places");
    FAIL() << "no error";
  } catch (const slaw::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("config.places='nope'"), std::string::npos) << e.what();
  }
}

TEST(OmpPlaces, ErrorsPointAtThePosition) {
  const std::string e = error_of("{0:4},{4:4},{x}");
  EXPECT_NE(e.find("at position 14 ('x}')"), std::string::npos) << e;
}

// Counts, lengths and strides are bounded before anything is built (docs/guide/places.md): at most
// max_list_places places listed and as many excluded, and max_list_cpus CPU numbers in all of them
// together. `{0:65535}:65535:0` asked for 17 GB before these limits.
TEST(OmpPlaces, ListsAreBoundedBeforeTheyAreBuilt) {
  const slaw_test::watchdog dog("OmpPlaces.ListsAreBoundedBeforeTheyAreBuilt", "a list built unbounded", 60);
  const slaw_test::address_space_limit limit(std::size_t{256} << 20);
  std::string many_exclusions;
  for (int i = 0; i < 17; ++i) many_exclusions += "!{0:65535},";
  many_exclusions += "{0}";
  std::string many_excluded_places = "{0}";
  for (int i = 0; i < 4097; ++i) many_excluded_places += ",!{" + std::to_string(i % 8) + "}";
  struct bad {
    std::string text;
    const char* message;
  };
  const bad cases[] = {
      {"{0:65535}:65535:0", "more than 4096 places"},
      {"0:4097", "more than 4096 places"},
      {"{0:4}:4097:4", "more than 4096 places"},
      {"{0:256}:4096:0,{1}", "more than 4096 places"},
      {"{0:65535}:17:0", "more than 1048576 CPU numbers"},
      {"{0:65535}:16:0,{0:17}", "more than 1048576 CPU numbers"},
      {many_exclusions, "more than 1048576 CPU numbers"},
      {many_excluded_places, "more than 4096 excluded places"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 60));
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.message), std::string::npos) << e.substr(0, 300);
    EXPECT_NE(e.find("accepted:"), std::string::npos) << e.substr(0, 300);
  }
  // The limits themselves are accepted.
  EXPECT_EQ(list_of(parse_places("{0:256}:4096:0")).size(), 4096u);
  EXPECT_EQ(list_of(parse_places("{0:65535}:16:0")).size(), 16u);
  const std::vector<cpu_set> down = list_of(parse_places("{65535:65535:-1}"));  // CPUs 65535 down to 1
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0], cpu_set::range(1, 65535));
}
