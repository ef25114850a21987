// Recorded DAG files (src/dag/, docs/simulation.md "Recorded DAGs"): the writer's bytes are the
// documented layout, a written DAG reads back event for event, the writer and the reader reject the
// same broken DAGs with the same words, the reader rejects bad headers and layouts naming where, and
// the direct work/span analysis gives hand-computed values without recursion on 10^5-deep chains.
#include <gtest/gtest.h>

#include <stdexcept>

#include "dag_test_util.hpp"

using namespace dagtest;

namespace {

dag decoded(const dag_file& f) {
  dag out(f.task_count());
  for (std::uint64_t t = 0; t < f.task_count(); ++t) {
    out[t].frame_bytes = f.frame_bytes(t);
    std::uint64_t pos = f.first_event(t);
    for (std::uint32_t i = 0; i < f.event_count(t); ++i) {
      event e;
      pos = f.decode(pos, e);
      out[t].events.push_back(e);
    }
  }
  return out;
}

void expect_same(const dag& a, const dag& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t t = 0; t < a.size(); ++t) {
    EXPECT_EQ(a[t].frame_bytes, b[t].frame_bytes) << "task " << t;
    ASSERT_EQ(a[t].events.size(), b[t].events.size()) << "task " << t;
    for (std::size_t i = 0; i < a[t].events.size(); ++i) {
      const event &x = a[t].events[i], &y = b[t].events[i];
      EXPECT_TRUE(x.op == y.op && x.clause == y.clause && x.work_ns == y.work_ns && x.arg == y.arg)
          << "task " << t << " event " << i;
    }
  }
}

// The exception's message, or "" if `f` did not throw E.
template <class E, class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(DagFormat, WrittenDagsReadBackEventForEvent) {
  std::vector<dag> dags{fib_dag(10, 2, 2, 3), chain_dag(50, dag_op::call, true), random_dag(1, 200),
                        random_dag(2, 1, 0), random_dag(3, 500, 8, true, false)};
  dags.back()[0].events.front().work_ns = std::uint64_t{1} << 50;  // a 8-byte varint
  for (std::size_t i = 0; i < dags.size(); ++i) {
    temp_file tmp("roundtrip" + std::to_string(i) + ".dag");
    write_dag(tmp.path, dags[i], 123456789, 16);
    const dag_file f = read_dag(tmp.path);
    EXPECT_EQ(f.name(), tmp.path);
    EXPECT_EQ(f.task_count(), dags[i].size());
    EXPECT_EQ(f.header().recorded_ns, 123456789u);
    EXPECT_EQ(f.header().workers, 16u);
    expect_same(decoded(f), dags[i]);
    EXPECT_EQ(encode_dag(dags[i], 123456789, 16), encode_unchecked(dags[i], 123456789, 16));
  }
}

// The layout of dag_format.hpp, byte for byte: root = spawn(wf) of task 1 after 5 ns, ret after 300 ns;
// task 1 = ret after 10 ns.
TEST(DagFormat, BytesAreTheDocumentedLayout) {
  const dag d{{200, {ev(dag_op::spawn, 5, 1, 1), ev(dag_op::ret, 300)}}, {104, {ev(dag_op::ret, 10)}}};
  const std::vector<std::uint8_t> b = encode_dag(d, 0x0102030405060708ull, 7);
  const std::vector<std::uint8_t> stream{0x08, 0x05, 0x01, 0x06, 0xAC, 0x02, 0x06, 0x0A};
  ASSERT_EQ(b.size(), 48u + 2 * 16 + stream.size() + 8);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data()), 8), std::string("SLAWDAG\0", 8));
  EXPECT_EQ(load_u32(&b[8]), 1u);
  EXPECT_EQ(load_u32(&b[12]), 48u);
  EXPECT_EQ(load_u64(&b[16]), 2u);
  EXPECT_EQ(load_u64(&b[24]), stream.size());
  EXPECT_EQ(b[32], 0x08);  // recorded_ns little-endian
  EXPECT_EQ(b[39], 0x01);
  EXPECT_EQ(load_u32(&b[40]), 7u);
  EXPECT_EQ(load_u32(&b[44]), 0u);
  EXPECT_EQ(load_u64(&b[48]), 0u);  // task 0: offset, frame, events
  EXPECT_EQ(load_u32(&b[56]), 200u);
  EXPECT_EQ(load_u32(&b[60]), 2u);
  EXPECT_EQ(load_u64(&b[64]), 6u);  // task 1
  EXPECT_EQ(load_u32(&b[72]), 104u);
  EXPECT_EQ(load_u32(&b[76]), 1u);
  EXPECT_EQ(std::vector<std::uint8_t>(b.begin() + 80, b.end() - 8), stream);
  EXPECT_EQ(load_u64(&b[b.size() - 8]), fnv1a(fnv_offset, b.data(), b.size() - 8));
}

// Each rule of dag_rules.hpp, broken once: the writer refuses the DAG and the reader refuses the file
// (encoded without the checks), both naming the task and the same problem.
TEST(DagFormat, WriterAndReaderRejectTheSameDags) {
  struct broken {
    const char* what;
    dag d;
    std::uint64_t task;
    const char* problem;
  };
  const auto R = [](std::uint64_t w = 0) { return ev(dag_op::ret, w); };
  const std::vector<broken> cases{
      {"a task without events", {{0, {ev(dag_op::spawn, 0, 1), R()}}, {0, {}}}, 1, "has no events"},
      {"no ret at the end", {{0, {ev(dag_op::start_finish), ev(dag_op::end_finish)}}}, 0, "last event is end_finish, not ret"},
      {"ret before the end", {{0, {R(), R()}}}, 0, "ret before the task's last event"},
      {"end_finish unopened", {{0, {ev(dag_op::end_finish), R()}}}, 0, "end_finish without a start_finish open"},
      {"a finish left open", {{0, {ev(dag_op::start_finish), R()}}}, 0, "1 finish(es) still open"},
      {"a clause on a call", {{0, {ev(dag_op::call, 0, 1, 2), R()}}, {0, {R()}}}, 0, "only a spawn carries one"},
      {"clause 3", {{0, {ev(dag_op::spawn, 0, 1, 3), R()}}, {0, {R()}}}, 0, "clause 3 is not a schedule"},
      {"the root spawned", {{0, {ev(dag_op::spawn, 0, 0), R()}}}, 0, "spawn of task 0, the root"},
      {"a child out of range", {{0, {ev(dag_op::call, 0, 2), R()}}, {0, {R()}}}, 0, "call of task 2, out of range"},
      {"two parents", {{0, {ev(dag_op::spawn, 0, 1), ev(dag_op::call, 0, 1), R()}}, {0, {R()}}}, 0,
       "already the child of task 0"},
      {"an orphan", {{0, {R()}}, {0, {R()}}}, 1, "no spawn or call names this task"},
      {"a cycle", {{0, {R()}}, {0, {ev(dag_op::spawn, 0, 2), R()}}, {0, {ev(dag_op::call, 0, 1), R()}}}, 1,
       "loop back to task 1"},
      {"a self-spawn", {{0, {ev(dag_op::spawn, 0, 1), R()}}, {0, {ev(dag_op::spawn, 0, 1), R()}}}, 1,
       "already the child of task 0"},
      {"too much work", {{0, {ev(dag_op::start_finish, max_total_work_ns / 2 + 1), ev(dag_op::end_finish, max_total_work_ns / 2), R()}}},
       0, "passes 2^52 ns"},
      {"too many bytes", {{0, {ev(dag_op::alloc, 0, max_total_bytes), ev(dag_op::alloc, 0, 1), R()}}}, 0,
       "the bytes of all allocs pass 2^62"},
  };
  for (const broken& c : cases) {
    const std::string w = thrown<std::invalid_argument>([&] { encode_dag(c.d, 0, 1); });
    EXPECT_TRUE(has(w, "encode_dag: task " + std::to_string(c.task)) && has(w, c.problem)) << c.what << ": " << w;
    const std::string r = thrown<std::invalid_argument>([&] { parse_dag(encode_unchecked(c.d), "bad.dag"); });
    EXPECT_TRUE(has(r, "bad.dag: task " + std::to_string(c.task)) && has(r, c.problem)) << c.what << ": " << r;
  }
  // What only an event in memory can be (the encoding has no room for it): the writer alone sees it.
  EXPECT_TRUE(has(thrown<std::invalid_argument>([] { encode_dag({}, 0, 1); }), "no tasks"));
  EXPECT_TRUE(has(thrown<std::invalid_argument>([] { encode_dag({{0, {ev(static_cast<dag_op>(9)), ev(dag_op::ret)}}}, 0, 1); }),
                  "task 0, event 0: op 9 is not an operation"));
  EXPECT_TRUE(has(thrown<std::invalid_argument>([] { encode_dag({{0, {ev(dag_op::ret, 0, 5)}}}, 0, 1); }),
                  "task 0, event 0 (ret): ret carries no argument"));
  // A rejected DAG leaves no file behind.
  temp_file tmp("rejected.dag");
  EXPECT_THROW(write_dag(tmp.path, {{0, {}}}, 0, 1), std::invalid_argument);
  EXPECT_EQ(std::fopen(tmp.path.c_str(), "rb"), nullptr);
}

TEST(DagFormat, ReaderRejectsBadHeadersAndLayoutsNamingWhere) {
  const dag good{{64, {ev(dag_op::spawn, 1, 1), ev(dag_op::call, 1, 2), ev(dag_op::ret, 1)}},
                 {64, {ev(dag_op::ret, 300)}},
                 {64, {ev(dag_op::ret, 2)}}};
  const std::vector<std::uint8_t> base = encode_dag(good, 10, 1);
  ASSERT_NO_THROW(parse_dag(base, "x.dag"));
  // The stream (from byte 96): task 0's spawn, call, ret in bytes 0-7, task 1's ret in 8-10, task 2's in 11-12.
  auto mutated = [&](auto&& change, bool fix_checksum = true) {
    std::vector<std::uint8_t> b = base;
    change(b);
    if (fix_checksum) reseal(b);
    return thrown<std::invalid_argument>([&] { parse_dag(b, "x.dag"); });
  };
  const std::uint64_t task1 = 48 + 16, task2 = 48 + 32, stream_at = 48 + 3 * 16;
  struct bad_case {
    std::string why;
    std::string message;
    const char* want;
  };
  const std::vector<bad_case> cases{
      {"too short", thrown<std::invalid_argument>([] { parse_dag(std::vector<std::uint8_t>(55), "x.dag"); }),
       "55 bytes, shorter than"},
      {"magic", mutated([](auto& b) { b[3] = 'X'; }), "not a slaw DAG file"},
      {"version", mutated([](auto& b) { store_u32(&b[8], 2); }), "format version 2 (byte 8)"},
      {"header size", mutated([](auto& b) { store_u32(&b[12], 64); }), "header_bytes 64 (byte 12)"},
      {"flags", mutated([](auto& b) { store_u32(&b[44], 4); }), "flags 0x00000004 (byte 44)"},
      {"no tasks", mutated([](auto& b) { store_u64(&b[16], 0); }), "task_count 0 (byte 16)"},
      {"huge task_count", mutated([](auto& b) { store_u64(&b[16], ~std::uint64_t{0}); }),
       "task_count 18446744073709551615 (byte 16) needs 16 bytes of task table per task"},
      {"task_count wrapping to the size", mutated([](auto& b) { store_u64(&b[16], (std::uint64_t{1} << 60) + 3); }),
       "needs 16 bytes of task table per task"},
      {"one task fewer", mutated([](auto& b) { store_u64(&b[16], 2); }), "stream_bytes"},
      {"stream_bytes", mutated([](auto& b) { store_u64(&b[24], load_u64(&b[24]) + 1); }), "stream_bytes"},
      {"truncated", mutated([](auto& b) { b.pop_back(); }, false), "stream_bytes"},
      {"checksum", mutated([](auto& b) { b[b.size() - 20] ^= 1; }, false), "differs from the content's"},
      {"root offset", mutated([&](auto& b) { store_u64(&b[48], 1); }), "task 0: its first event's offset 1 (byte 48) is not 0"},
      {"offsets out of order", mutated([&](auto& b) { store_u64(&b[task2], 0); }), "task 2: its first event's offset 0"},
      {"offset past the end", mutated([&](auto& b) { store_u64(&b[task2], 1000); }), "past the stream's end"},
      {"events overrun their range", mutated([&](auto& b) { store_u64(&b[task1], 7); }),
       "task 0, event 2 at byte 102: the work varint runs past the end of the task's events"},
      {"bytes left over", mutated([&](auto& b) { store_u32(&b[48 + 12], 2); }), "event 1 (call)"},
      {"a range longer than its events", mutated([&](auto& b) { store_u64(&b[task2], load_u64(&b[task2]) + 1); }),
       "task 1: its 1 events end at byte"},
      {"reserved tag bits", mutated([&](auto& b) { b[stream_at] |= 0x20; }),
       "task 0, event 0 at byte 96: the tag sets reserved bits"},
      {"op 7", mutated([&](auto& b) { b[stream_at] = 0x07; }), "the tag's op is not an operation"},
      {"a zero event count", mutated([&](auto& b) { store_u32(&b[task1 + 12], 0); }), "task 1 (table entry at byte 64)"},
  };
  for (const bad_case& c : cases) {
    EXPECT_TRUE(has(c.message, "x.dag: ") && has(c.message, c.want)) << c.why << ": " << c.message;
  }
  // A varint longer than 10 bytes, or with bits beyond 64.
  dag big{{0, {ev(dag_op::ret, ~std::uint64_t{0})}}};
  std::vector<std::uint8_t> b = encode_unchecked(big);
  ASSERT_EQ(b.size(), 48u + 16 + 11 + 8);
  b[48 + 16 + 10] = 0x02;  // the 10th byte of the varint may hold bit 63 only
  reseal(b);
  EXPECT_TRUE(has(thrown<std::invalid_argument>([&] { parse_dag(b, "x.dag"); }), "the work varint"));
}

TEST(DagFormat, UnreadableAndUnwritablePathsAreNamed) {
  const std::string r = thrown<std::invalid_argument>([] { read_dag("/nonexistent/fib.dag"); });
  EXPECT_TRUE(has(r, "/nonexistent/fib.dag: cannot read it: No such file or directory")) << r;
  const std::string d = thrown<std::invalid_argument>([] { read_dag("/tmp"); });
  EXPECT_TRUE(has(d, "/tmp: cannot read it: Is a directory")) << d;
  const std::string w = thrown<std::runtime_error>([] { write_dag("/nonexistent/fib.dag", fib_dag(3, 1, 1, 1), 0, 1); });
  EXPECT_TRUE(has(w, "'/nonexistent/fib.dag': No such file or directory")) << w;
}

// ---------------------------------------------------------------- the direct analysis

namespace {

work_span ws_of(const dag& d, const op_weights& w = {}) { return analyze(parse(d), w); }

}  // namespace

// Small programs whose work and span are worked out by hand (the comment gives each path).
TEST(DagWorkSpan, HandComputedPrograms) {
  using O = dag_op;
  // One strand.
  work_span a = ws_of({{0, {ev(O::ret, 7)}}});
  EXPECT_EQ(a.work, 7u);
  EXPECT_EQ(a.span, 7u);
  // An escaping spawn joins the run's implicit finish: max(5 + 3, 5 + 10).
  a = ws_of({{0, {ev(O::spawn, 5, 1), ev(O::ret, 3)}}, {0, {ev(O::ret, 10)}}});
  EXPECT_EQ(a.work, 18u);
  EXPECT_EQ(a.span, 15u);
  // end_finish waits for its child: start 1, spawn 3, child 3..13, continuation 6 -> 13, ret 17.
  a = ws_of({{0, {ev(O::start_finish, 1), ev(O::spawn, 2, 1), ev(O::end_finish, 3), ev(O::ret, 4)}}, {0, {ev(O::ret, 10)}}});
  EXPECT_EQ(a.work, 20u);
  EXPECT_EQ(a.span, 17u);
  // A called task's spawn joins the caller's finish, so the caller's 50 ns after it come after the
  // 100 ns child: call at 1, spawn at 2, child 2..102, end_finish at 102, ret 152.
  a = ws_of({{0, {ev(O::start_finish), ev(O::call, 1, 1), ev(O::end_finish), ev(O::ret, 50)}},
             {0, {ev(O::spawn, 1, 2), ev(O::ret, 1)}},
             {0, {ev(O::ret, 100)}}});
  EXPECT_EQ(a.work, 153u);
  EXPECT_EQ(a.span, 152u);
  // A spawned task's own spawn escapes to the finish it joins: 1 + 100, then the parent's 10.
  a = ws_of({{0, {ev(O::start_finish), ev(O::spawn, 0, 1), ev(O::end_finish), ev(O::ret, 10)}},
             {0, {ev(O::spawn, 1, 2), ev(O::ret, 1)}},
             {0, {ev(O::ret, 100)}}});
  EXPECT_EQ(a.work, 112u);
  EXPECT_EQ(a.span, 111u);
  // Nested finishes: F1 at 1, spawn A at 2 (A until 22), F2 at 3, spawn B at 4 (until 9), F2 ends at
  // max(5, 9) = 9, F1 at max(10, 22) = 22, ret 23.
  a = ws_of({{0, {ev(O::start_finish, 1), ev(O::spawn, 1, 1), ev(O::start_finish, 1), ev(O::spawn, 1, 2),
                  ev(O::end_finish, 1), ev(O::end_finish, 1), ev(O::ret, 1)}},
             {0, {ev(O::ret, 20)}},
             {0, {ev(O::ret, 5)}}});
  EXPECT_EQ(a.work, 32u);
  EXPECT_EQ(a.span, 23u);
  // Memory operations cost nothing of their own.
  a = ws_of({{0, {ev(O::alloc, 2, 1 << 20), ev(O::free, 3, 1 << 20), ev(O::ret, 4)}}});
  EXPECT_EQ(a.work, 9u);
  EXPECT_EQ(a.span, 9u);
}

// fib with weights on the runtime's operations: the closed forms of tests/sim/test_analysis.cpp.
TEST(DagWorkSpan, FibIsTheClosedFormWithOperationWeights) {
  const op_weights w{10, 20, 2, 1000};
  const std::uint64_t half = 2, rest = 2, leaf = 3;
  struct wsb {
    std::uint64_t work, span, bspan;
  };
  std::vector<wsb> v(21);
  v[0] = v[1] = {leaf, leaf, leaf};
  for (int i = 2; i <= 20; ++i) {
    const std::uint64_t pre = half + w.finish + w.spawn;
    v[i].work = v[i - 1].work + v[i - 2].work + half + rest + w.finish + w.spawn + w.call;
    v[i].span = pre + std::max(v[i - 1].span, w.call + v[i - 2].span) + rest;
    v[i].bspan = pre + std::max(v[i - 1].bspan + w.burden, w.burden + w.call + v[i - 2].bspan) + rest;
  }
  for (int n : {0, 1, 2, 5, 12, 20}) {
    const work_span a = ws_of(fib_dag(n, half, rest, leaf), w);
    EXPECT_EQ(a.work, v[n].work) << n;
    EXPECT_EQ(a.span, v[n].span) << n;
    EXPECT_EQ(a.burdened_span, v[n].bspan) << n;
  }
}

// 10^5-deep chains of calls and of spawns, with and without a finish per task, written to a file, read
// back and analysed (a recursive walk would overflow the stack here under the sanitizers).
TEST(DagWorkSpan, DeepChainsWalkWithoutRecursion) {
  const std::uint64_t n = 100000;
  struct chain {
    dag_op link;
    bool finish;
    std::uint64_t work, span;
  };
  for (const chain& c : {chain{dag_op::call, false, 2 * (n - 1) + 1, 2 * (n - 1) + 1},
                         chain{dag_op::spawn, false, 2 * (n - 1) + 1, n},
                         chain{dag_op::call, true, 4 * (n - 1) + 1, 4 * (n - 1) + 1},
                         chain{dag_op::spawn, true, 4 * (n - 1) + 1, 3 * (n - 1) + 1}}) {
    temp_file tmp("chain.dag");
    write_dag(tmp.path, chain_dag(n, c.link, c.finish), 0, 1);
    const dag_file f = read_dag(tmp.path);
    const work_span a = analyze(f);
    EXPECT_EQ(a.work, c.work) << dag_op_name(c.link) << c.finish;
    EXPECT_EQ(a.span, c.span) << dag_op_name(c.link) << c.finish;
    EXPECT_EQ(f.totals().work_ns, c.work);
  }
  // A cycle that long is found without recursion too.
  dag loop = chain_dag(n, dag_op::call, false);
  loop[0].events = {ev(dag_op::ret)};
  loop[n - 1].events = {ev(dag_op::call, 0, 1), ev(dag_op::ret)};
  EXPECT_TRUE(has(thrown<std::invalid_argument>([&] { encode_dag(loop, 0, 1); }), "task 1: not reachable from the root"));
}
