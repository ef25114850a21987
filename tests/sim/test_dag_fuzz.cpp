// Fuzzing the recorded-DAG reader (src/dag/dag_reader.cpp): thousands of mutations of valid files --
// truncation at every length, every single-bit flip, byte insertions, random byte changes, header and
// task-table fields set to extreme values, events changed before encoding -- with the checksum
// recomputed where that lets the mutation reach the deeper checks. Every mutated file must either be
// rejected with std::invalid_argument, or read, analysed and replayed under the engine's checks
// with the simulator's analysis equal to the reader's. Never a crash, a hang or a huge allocation: this
// executable's operator new records the largest request.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "dag_test_util.hpp"
#include "sim_test_util.hpp"

namespace {
std::atomic<std::size_t> largest_request{0};
}  // namespace

// GCC sees malloc behind the replaced new and free behind the replaced delete as a mismatch.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  std::size_t seen = largest_request.load(std::memory_order_relaxed);
  while (n > seen && !largest_request.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace dagtest;
using simtest::dfd;
using simtest::violations;
using simtest::ws;
using slaw::policy::mode;
namespace sim = slaw::sim;

namespace {

constexpr std::size_t huge_allocation = std::size_t{16} << 20;

struct tally {
  std::uint64_t accepted = 0, rejected = 0;
};

// Reads `b`; if accepted, the DAG must analyse and replay correctly.
void probe(const std::vector<std::uint8_t>& b, tally& t, const std::string& how) {
  dag_file f;
  try {
    f = parse_dag(b, "fuzz.dag");
  } catch (const std::invalid_argument& e) {
    ++t.rejected;
    EXPECT_EQ(std::string(e.what()).rfind("fuzz.dag: ", 0), 0u) << how << ": " << e.what();
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << how << ": not std::invalid_argument: " << e.what();
    return;
  }
  ++t.accepted;
  const work_span a = analyze(f);
  EXPECT_EQ(a.work, f.totals().work_ns) << how;
  EXPECT_LE(a.span, a.work) << how;
  std::vector<sim::run_config> cfgs{ws(1, mode::dyn), ws(1, mode::hf), dfd(1, 0)};
  // More workers only for modest strands: an idle worker's timed sleeps would take long beside a
  // strand of days.
  if (f.totals().work_ns < 10'000'000) cfgs.push_back(ws(3, mode::dyn));
  for (const sim::run_config& cfg : cfgs) {
    const sim::run_result r = replay(f, cfg, strands_only());
    EXPECT_TRUE(r.violations.empty()) << how << ": " << violations(r);
    EXPECT_EQ(r.tasks, f.task_count()) << how;
    EXPECT_EQ(static_cast<std::uint64_t>(r.dag.work), a.work * 1000) << how;
    EXPECT_EQ(static_cast<std::uint64_t>(r.dag.span), a.span * 1000) << how;
  }
}

std::vector<dag> bases() {
  return {random_dag(7, 40, 8, true, true, 5000), fib_dag(6, 2, 2, 3), chain_dag(12, dag_op::spawn, true)};
}

}  // namespace

TEST(DagFuzz, EveryTruncationAndEveryBitFlipIsRejected) {
  for (const dag& d : bases()) {
    const std::vector<std::uint8_t> file = encode_dag(d, 1000, 2);
    tally t;
    for (std::size_t n = 0; n < file.size(); ++n)
      probe(std::vector<std::uint8_t>(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n)), t, "truncated");
    EXPECT_EQ(t.accepted, 0u);
    // The checksum catches every change of one byte (each FNV-1a step is a bijection of the state).
    tally flips;
    for (std::size_t i = 0; i < file.size() * 8; ++i) {
      std::vector<std::uint8_t> b = file;
      b[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
      probe(b, flips, "bit flip " + std::to_string(i));
    }
    EXPECT_EQ(flips.accepted, 0u);
    EXPECT_EQ(flips.rejected, file.size() * 8);
  }
  EXPECT_LT(largest_request.load(), huge_allocation);
}

TEST(DagFuzz, InsertionsAndRandomChangesWithTheChecksumFixed) {
  std::mt19937_64 rng(42);
  auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng); };
  tally plain, sized, changed;
  for (const dag& d : bases()) {
    const std::vector<std::uint8_t> file = encode_dag(d, 1000, 2);
    const std::uint64_t stream_at = header_bytes + d.size() * task_entry_bytes;
    for (int i = 0; i < 600; ++i) {
      // Bytes inserted anywhere: the sizes no longer add up.
      std::vector<std::uint8_t> b = file;
      const std::uint64_t k = 1 + pick(8);
      const std::uint64_t at = pick(b.size() + 1);
      for (std::uint64_t j = 0; j < k; ++j) b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(pick(256)));
      probe(b, plain, "insertion");
      // Bytes inserted in the stream with stream_bytes and the checksum fixed: the table's offsets and
      // the events' decoding must catch it.
      b = file;
      const std::uint64_t in = stream_at + pick(file.size() - trailer_bytes - stream_at + 1);
      for (std::uint64_t j = 0; j < k; ++j) b.insert(b.begin() + static_cast<std::ptrdiff_t>(in), static_cast<std::uint8_t>(pick(256)));
      store_u64(&b[24], load_u64(&b[24]) + k);
      reseal(b);
      probe(b, sized, "stream insertion");
    }
    for (int i = 0; i < 10000; ++i) {
      std::vector<std::uint8_t> b = file;
      for (std::uint64_t n = 1 + pick(4); n > 0; --n) {
        const std::uint64_t at = pick(b.size() - trailer_bytes);
        switch (pick(3)) {
          case 0: b[at] = static_cast<std::uint8_t>(pick(256)); break;
          case 1: b[at] ^= static_cast<std::uint8_t>(1u << pick(8)); break;
          default: b[at] = static_cast<std::uint8_t>(b[at] + (pick(2) ? 1 : 255)); break;
        }
      }
      reseal(b);
      probe(b, changed, "random change");
    }
  }
  EXPECT_EQ(plain.accepted, 0u);
  EXPECT_GT(sized.rejected, 0u);
  EXPECT_GT(changed.rejected, 0u);
  EXPECT_GT(changed.accepted, 0u);  // some changes (work, frames, clauses) make another valid DAG
  std::printf("stream insertions: %llu accepted, %llu rejected; random changes: %llu accepted, %llu rejected\n",
              static_cast<unsigned long long>(sized.accepted), static_cast<unsigned long long>(sized.rejected),
              static_cast<unsigned long long>(changed.accepted), static_cast<unsigned long long>(changed.rejected));
  EXPECT_LT(largest_request.load(), huge_allocation);
}

// Header and task-table fields set to extreme values, the checksum recomputed: no size arithmetic may
// wrap or size an allocation.
TEST(DagFuzz, ExtremeHeaderAndTableFields) {
  tally t;
  for (const dag& d : bases()) {
    const std::vector<std::uint8_t> file = encode_dag(d, 1000, 2);
    std::vector<std::uint64_t> values{0, 1, 2, 3, 7, 15, 16, 47, 48, 49, file.size() / 16, file.size(), 0x7FFFFFFF,
                                      0xFFFFFFFF, 0x100000000ull, std::uint64_t{1} << 60, std::uint64_t{1} << 63,
                                      ~std::uint64_t{0}, ~std::uint64_t{0} / 16, ~std::uint64_t{0} / 16 + 1};
    for (std::uint64_t m = 1; m < 64; m += 9) values.push_back((~std::uint64_t{0} / 16) * m);
    struct field {
      std::uint64_t at;
      int bytes;
    };
    std::vector<field> fields{{8, 4}, {12, 4}, {16, 8}, {24, 8}, {32, 8}, {40, 4}, {44, 4}};
    for (std::uint64_t task = 0; task < d.size(); ++task) {
      const std::uint64_t e = header_bytes + task * task_entry_bytes;
      fields.push_back({e, 8});
      fields.push_back({e + 8, 4});
      fields.push_back({e + 12, 4});
    }
    for (const field& f : fields) {
      const std::uint64_t original = f.bytes == 8 ? load_u64(&file[f.at]) : load_u32(&file[f.at]);
      std::vector<std::uint64_t> vs = values;
      vs.push_back(original + 1);
      vs.push_back(original - 1);
      for (std::uint64_t v : vs) {
        std::vector<std::uint8_t> b = file;
        if (f.bytes == 8) store_u64(&b[f.at], v);
        else store_u32(&b[f.at], static_cast<std::uint32_t>(v));
        reseal(b);
        probe(b, t, "field at byte " + std::to_string(f.at) + " = " + std::to_string(v));
      }
    }
  }
  EXPECT_GT(t.accepted, 0u);  // recorded_ns, workers and frame sizes take any value
  EXPECT_GT(t.rejected, 0u);
  EXPECT_LT(largest_request.load(), huge_allocation);
}

// Events changed before they are encoded (ops, clauses, children, amounts), so that every file is well
// formed and only the rules can reject it.
TEST(DagFuzz, ChangedEventsMeetTheRules) {
  std::mt19937_64 rng(7);
  auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng); };
  tally t;
  for (const dag& d : bases()) {
    for (int i = 0; i < 5000; ++i) {
      dag m = d;
      for (std::uint64_t n = 1 + pick(3); n > 0; --n) {
        task_record& r = m[pick(m.size())];
        if (r.events.empty()) continue;
        const std::uint64_t at = pick(r.events.size());
        const auto pos = r.events.begin() + static_cast<std::ptrdiff_t>(at);
        event e = *pos;
        switch (pick(7)) {
          case 0: e.op = static_cast<dag_op>(pick(dag_op_count)); break;
          case 1: e.clause = static_cast<std::uint8_t>(pick(4)); break;
          case 2: e.arg = pick(m.size() + 2); break;
          case 3: e.work_ns = pick(2) ? pick(1000) : (std::uint64_t{1} << 51) + pick(1000); break;
          case 4: r.events.erase(pos); continue;
          case 5: r.events.insert(pos, e); continue;
          default: std::swap(*pos, r.events[pick(r.events.size())]); continue;
        }
        *pos = e;  // an argument of an op without one is not encoded
      }
      probe(encode_unchecked(m), t, "changed events");
    }
  }
  EXPECT_GT(t.accepted, 0u);
  EXPECT_GT(t.rejected, 0u);
  EXPECT_LT(largest_request.load(), huge_allocation);
  std::printf("changed events: %llu accepted, %llu rejected; the largest allocation so far: %zu bytes\n",
              static_cast<unsigned long long>(t.accepted), static_cast<unsigned long long>(t.rejected),
              largest_request.load());
}
