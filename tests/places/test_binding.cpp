// Binding threads with hwloc, checked from inside the thread with sched_getaffinity (the kernel's
// own view, not hwloc's) on this machine (src/places/binding.hpp).
#include "places/binding.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>
#include <sched.h>

#include <stdexcept>
#include <thread>

using namespace slaw::places;

namespace {

// The calling thread's CPUs from the kernel, written here independently of binding.cpp.
cpu_set kernel_affinity() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) throw std::runtime_error("sched_getaffinity");
  cpu_set s;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) s.insert(c);
  return s;
}

// Runs f on a fresh thread (binding it leaves the test's own thread alone).
template <class F>
void on_thread(F f) {
  std::thread t(f);
  t.join();
}

}  // namespace

TEST(Binding, EachCpuInTurnThenAllOfThem) {
  auto topo = machine_topology::load_system();
  const cpu_set usable = topo->usable();
  on_thread([&] {
    for (unsigned c : usable.cpus()) {
      bind_this_thread(*topo, cpu_set{c});
      EXPECT_EQ(kernel_affinity(), cpu_set{c});
      EXPECT_EQ(this_thread_binding(*topo), cpu_set{c});
      EXPECT_EQ(this_thread_affinity(), cpu_set{c});
      EXPECT_EQ(sched_getcpu(), static_cast<int>(c));  // it runs there, not only may
    }
    bind_this_thread(*topo, usable);
    EXPECT_EQ(kernel_affinity(), usable);
  });
}

TEST(Binding, BindingIsPerThread) {
  auto topo = machine_topology::load_system();
  const cpu_set before = kernel_affinity();
  const unsigned first = topo->usable().first();
  on_thread([&] { bind_this_thread(*topo, cpu_set{first}); });
  EXPECT_EQ(kernel_affinity(), before);
}

TEST(Binding, UsableCpusAreTheProcessAffinity) {
  // hwloc's usable set is what the kernel lets this process run on.
  EXPECT_EQ(machine_topology::load_system()->usable(), kernel_affinity());
}

TEST(Binding, ErrorsAreReported) {
  auto topo = machine_topology::load_system();
  auto synthetic = machine_topology::load_synthetic("pack:1 core:2 pu:1");
  on_thread([&] {
    EXPECT_THROW(bind_this_thread(*synthetic, cpu_set{0}), std::runtime_error);  // not this machine
    EXPECT_THROW(bind_this_thread(*topo, cpu_set{}), std::runtime_error);
    try {
      bind_this_thread(*topo, cpu_set{60000});  // no such CPU
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot bind a thread to CPUs 60000"), std::string::npos) << e.what();
    }
  });
}
