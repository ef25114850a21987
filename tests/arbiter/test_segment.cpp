// The segment: created once by whichever process comes first, also when many start at once; a segment
// with the wrong magic, version or size is reported and ignored (the job runs as if alone), never
// trusted or overwritten; one left half-initialised by a dead creator is initialised again.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>
#include <set>
#include <vector>

#include "support.hpp"
#include "support/stress.hpp"

using namespace arbiter_test;

namespace {

// Writes a segment-sized object holding `prefix` (and zeros), truncated to `bytes`.
void write_object(const std::string& name, const arb::segment_prefix& prefix, std::uint64_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(bytes)), 0);
  const std::size_t n = bytes < sizeof prefix ? static_cast<std::size_t>(bytes) : sizeof prefix;
  ASSERT_EQ(pwrite(fd, &prefix, n, 0), static_cast<ssize_t>(n));
  close(fd);
}

arb::segment_prefix good_prefix() {
  arb::segment_prefix p{};
  p.magic = arb::segment_magic;
  p.version = arb::layout_version;
  p.abi = arb::abi_tag;
  p.total_bytes = sizeof(arb::segment);
  p.header_bytes = sizeof(arb::segment_header);
  p.slot_bytes = sizeof(arb::job_slot);
  p.slots = arb::slot_count;
  p.ready = 1;
  return p;
}

arb::segment_prefix read_back(const std::string& name) {
  arb::segment_prefix p{};
  const int fd = shm_open(name.c_str(), O_RDONLY, 0);
  if (fd >= 0) {
    EXPECT_GE(pread(fd, &p, sizeof p, 0), 0);  // a truncated object gives fewer bytes (the rest stays 0)
    close(fd);
  }
  return p;
}

std::uint64_t object_size(const std::string& name) {
  struct stat st {};
  return stat(arb::shm_file(name).c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

// The corrupt segment is rejected by open_or_create, by open_readonly (slaw-top) and by a client, which
// warns and runs as if alone; the object is left exactly as it was.
void expect_rejected(const std::string& name, const std::string& why) {
  const arb::segment_prefix before = read_back(name);
  const std::uint64_t size = object_size(name);
  arb::attach_result r = arb::open_or_create(name, {});
  EXPECT_FALSE(r.map);
  EXPECT_NE(r.error.find(why), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(name), std::string::npos) << r.error;
  arb::attach_result ro = arb::open_readonly(name);
  EXPECT_FALSE(ro.map);
  EXPECT_NE(ro.error.find(why), std::string::npos) << ro.error;

  std::vector<std::string> warnings;
  arb::client_options o;
  o.warn = [&](const std::string& m) { warnings.push_back(m); };
  arb::client c(settings_for(name, 2), o);
  EXPECT_FALSE(c.attached());
  EXPECT_FALSE(c.register_job(6));
  EXPECT_EQ(c.allotment(), 6u);  // as if alone: all its workers
  EXPECT_FALSE(c.tick(arb::monotonic_ns() + 1'000'000'000));
  c.report(3);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(why), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("runs as if alone"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("SLAW_ARBITER_NAME"), std::string::npos) << warnings[0];
  EXPECT_NE(c.off_reason().find(why), std::string::npos);

  const arb::segment_prefix after = read_back(name);
  EXPECT_EQ(std::memcmp(&before, &after, sizeof before), 0) << "a rejected segment was written";
  EXPECT_EQ(object_size(name), size);
}

}  // namespace

TEST(ArbiterSegment, CreatedByTheFirstAndAttachedByTheNext) {
  scoped_name name;
  arb::creation_params p;
  p.cores = 5;
  p.quantum_ns = 3'000'000;
  arb::attach_result a = arb::open_or_create(name, p);
  ASSERT_TRUE(a.map) << a.error;
  EXPECT_TRUE(a.created);
  EXPECT_FALSE(a.reinitialised);
  const arb::segment_header& h = a.map->view().header;
  EXPECT_EQ(h.prefix.magic, arb::segment_magic);
  EXPECT_EQ(h.prefix.version, arb::layout_version);
  EXPECT_EQ(h.prefix.total_bytes, sizeof(arb::segment));
  EXPECT_EQ(h.prefix.slots, arb::slot_count);
  EXPECT_EQ(arb::load_ready(h), 1u);
  EXPECT_EQ(h.cores.load(), 5u);
  EXPECT_EQ(h.quantum_ns.load(), 3'000'000u);
  EXPECT_EQ(h.creator_pid.load(), getpid());
  EXPECT_EQ(object_size(name), sizeof(arb::segment));

  // The same process gets its one mapping back; another process attaches without creating.
  arb::attach_result b = arb::open_or_create(name, p);
  EXPECT_EQ(b.map, a.map);
  EXPECT_FALSE(b.created);
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    alarm(20);
    arb::attach_result c = arb::open_or_create(name.str(), p);
    _exit(c.map && !c.created && c.map->view().header.creator_pid.load() == getppid() ? 0 : 1);
  }
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
}

TEST(ArbiterSegment, WrongMagicIsRejectedAndIgnored) {
  scoped_name name;
  arb::segment_prefix p = good_prefix();
  p.magic = 0x1122334455667788ull;
  write_object(name, p, sizeof(arb::segment));
  expect_rejected(name, "not a slaw arbiter segment: magic number 0x1122334455667788");
}

TEST(ArbiterSegment, AForeignObjectOfAnySizeIsRejected) {
  scoped_name name;
  arb::segment_prefix p{};
  std::memcpy(&p, "some other program's data, not slaw's....", sizeof p);
  write_object(name, p, 4096);
  expect_rejected(name, "not a slaw arbiter segment");
}

TEST(ArbiterSegment, WrongVersionIsRejectedAndIgnored) {
  scoped_name name;
  arb::segment_prefix p = good_prefix();
  p.version = 99;
  write_object(name, p, sizeof(arb::segment));
  expect_rejected(name, "layout version 99, this slaw reads version 1");
}

TEST(ArbiterSegment, WrongAbiIsRejectedAndIgnored) {
  scoped_name name;
  arb::segment_prefix p = good_prefix();
  p.abi ^= 0x00100000u;
  write_object(name, p, sizeof(arb::segment));
  expect_rejected(name, "another ABI");
}

TEST(ArbiterSegment, TruncatedIsRejectedAndIgnored) {
  scoped_name name;
  write_object(name, good_prefix(), sizeof(arb::segment) / 2);
  expect_rejected(name, "truncated: " + std::to_string(sizeof(arb::segment) / 2) + " bytes, its header says " +
                            std::to_string(sizeof(arb::segment)));
}

TEST(ArbiterSegment, TruncatedInsideThePrefixIsRejectedAndIgnored) {
  scoped_name name;
  write_object(name, good_prefix(), 16);
  expect_rejected(name, "truncated: 16 bytes");
}

TEST(ArbiterSegment, InconsistentSizesAreRejectedAndIgnored) {
  scoped_name name;
  arb::segment_prefix p = good_prefix();
  p.slots = 1000;  // a header that claims more than the object holds
  write_object(name, p, sizeof(arb::segment));
  expect_rejected(name, "its header describes 1000 slots");
}

TEST(ArbiterSegment, OneLeftHalfInitialisedByADeadCreatorIsInitialisedAgain) {
  for (const bool with_magic : {false, true}) {
    scoped_name name;
    arb::segment_prefix p{};  // the creator died after ftruncate (all zeros) ...
    if (with_magic) {
      p = good_prefix();  // ... or after the prefix, before `ready`
      p.ready = 0;
    }
    write_object(name, p, sizeof(arb::segment));
    EXPECT_NE(arb::open_readonly(name).error.find(with_magic ? "not initialised" : "not a slaw arbiter segment"),
              std::string::npos);
    arb::attach_result r = arb::open_or_create(name, {});
    ASSERT_TRUE(r.map) << r.error;
    EXPECT_TRUE(r.reinitialised);
    EXPECT_FALSE(r.created);
    EXPECT_EQ(arb::load_ready(r.map->view().header), 1u);
    EXPECT_EQ(r.map->view().header.prefix.magic, arb::segment_magic);
    EXPECT_TRUE(arb::open_readonly(name).map);
  }
}

TEST(ArbiterSegment, ReadOnlyOpeningNeverCreates) {
  scoped_name name;
  arb::attach_result r = arb::open_readonly(name);
  EXPECT_FALSE(r.map);
  EXPECT_NE(r.error.find("does not exist"), std::string::npos) << r.error;
  EXPECT_EQ(object_size(name), 0u);
  struct stat st {};
  EXPECT_NE(stat(arb::shm_file(name).c_str(), &st), 0);
}

TEST(ArbiterSegment, AnotherUsersSegmentIsRejected) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make a segment owned by another user";
  scoped_name name;
  ASSERT_TRUE(arb::open_or_create(name, {}).map);
  ASSERT_EQ(chown(arb::shm_file(name).c_str(), 12345, 12345), 0);
  std::fflush(nullptr);
  // A fresh process (this one has the segment mapped already, which it trusts).
  const pid_t child = fork();
  if (child == 0) {
    alarm(20);
    arb::attach_result r = arb::open_or_create(name.str(), {});
    _exit(!r.map && r.error.find("belongs to uid 12345") != std::string::npos ? 0 : 1);
  }
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

// A creator stopped while holding the creation lock delays the others by the wait only.
TEST(ArbiterSegment, AStuckCreatorDelaysOthersByTheWaitOnly) {
  scoped_name name;
  const int fd = shm_open(name.str().c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);  // another open file description: it conflicts in this process too
  const auto t0 = std::chrono::steady_clock::now();
  arb::attach_result r = arb::open_or_create(name, {}, 100'000'000);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.map);
  EXPECT_NE(r.error.find("creation lock"), std::string::npos) << r.error;
  EXPECT_GE(waited, 0.09);
  EXPECT_LT(waited, 5.0);
  close(fd);  // releases the lock: the next attach creates it
  arb::attach_result again = arb::open_or_create(name, {});
  ASSERT_TRUE(again.map) << again.error;
  EXPECT_TRUE(again.created);
}

// Many processes attach at the same instant to a segment that does not exist: exactly one creates it,
// all see the same one, and all register in the same table.
TEST(ArbiterSegment, ConcurrentCreationByManyProcessesYieldsOneSegment) {
  slaw_test::watchdog dog("ConcurrentCreation", "a process did not attach or register", 120);
  const int procs = 24, rounds = static_cast<int>(slaw_test::scaled(20, 4));
  for (int round = 0; round < rounds; ++round) {
    scoped_name name;
    int go[2], results[2], done[2];
    ASSERT_EQ(pipe(go), 0);
    ASSERT_EQ(pipe(results), 0);
    ASSERT_EQ(pipe(done), 0);
    struct result {
      int created, reinitialised, attached, slot;
      pid_t creator;
      std::uint64_t created_ns;
    };
    std::vector<pid_t> kids;
    std::fflush(nullptr);
    for (int i = 0; i < procs; ++i) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        alarm(60);
        close(go[1]);
        close(results[0]);
        close(done[1]);
        char c;
        (void)!read(go[0], &c, 1);  // returns 0 when the parent closes its end: all start together
        result res{};
        arb::client_options o;
        o.warn = [](const std::string&) {};
        arb::client cl(settings_for(name.str(), 8), o);
        res.attached = cl.register_job(2) ? 1 : 0;
        res.created = cl.created_segment() ? 1 : 0;
        res.slot = cl.slot();
        if (cl.map()) {
          res.creator = cl.map()->view().header.creator_pid.load();
          res.created_ns = cl.map()->view().header.created_unix_ns.load();
        }
        (void)!write(results[1], &res, sizeof res);
        (void)!read(done[0], &c, 1);  // stay registered until the parent has looked
        _exit(0);
      }
      kids.push_back(pid);
    }
    close(go[0]);
    close(results[1]);
    close(done[0]);
    close(go[1]);  // go
    std::vector<result> got;
    result res;
    while (got.size() < static_cast<std::size_t>(procs) && read(results[0], &res, sizeof res) == sizeof res) got.push_back(res);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(procs));
    int creators = 0;
    std::set<int> slots;
    for (const result& x : got) {
      EXPECT_EQ(x.attached, 1);
      creators += x.created;
      slots.insert(x.slot);
      EXPECT_EQ(x.creator, got[0].creator);
      EXPECT_EQ(x.created_ns, got[0].created_ns);
    }
    EXPECT_EQ(creators, 1) << "round " << round;
    EXPECT_EQ(slots.size(), static_cast<std::size_t>(procs));
    const arb::segment_view v = look(name);
    EXPECT_TRUE(v.consistent);
    EXPECT_EQ(v.jobs.size(), static_cast<std::size_t>(procs));
    EXPECT_EQ(v.cores, 8u);
    std::uint32_t sum = 0;
    for (const auto& j : v.jobs) sum += j.allotment;
    EXPECT_LE(sum, 8u);  // 24 jobs on 8 cores: deq gives 8 of them one core this quantum
    close(done[1]);
    close(results[0]);
    for (pid_t k : kids) {
      int st = 0;
      EXPECT_EQ(waitpid(k, &st, 0), k);
      EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
    }
  }
}
