// The recorded-DAG file (SLAW_RECORD=path writes it, `slaw-sim --dag path` replays it; docs/simulation.md,
// "Recorded DAGs"). One format, written by the runtime (src/trace/dag_recorder.cpp) and read by the
// simulator (src/dag/dag_reader.cpp); both take every constant and codec from here.
//
// Layout (all integers little-endian):
//
//   header      48 bytes (dag_header below)
//   task table  task_count x 16 bytes: { u64 offset of the task's first event in the stream,
//                                        u32 frame bytes, u32 event count }
//   stream      stream_bytes of events, each task's events contiguous and in program order:
//                 u8 tag     (bits 0-2: dag_op, bits 3-4: the spawn's schedule clause, 0 otherwise)
//                 varint     the task's computation in ns since its previous event (or its start)
//                 varint     spawn/call: the child's task id; alloc/free: bytes; other ops: absent
//   trailer     u64 FNV-1a-64 of every byte before it (a truncated or altered file is rejected)
//
// The tasks' events lie in the stream in task-id order without gaps: task 0's start at offset 0, and
// each task's end where the next one's start. Task 0 is the root (the task passed to runtime::run, or
// for a task with a result the frame run() makes to call it). Every other task is the child of exactly one
// spawn or call event; a task's last event, and only that one, is `ret`; start_finish/end_finish pair up
// within a task like brackets. A finish body (slaw::finish's lambda form) is a called task of the frame
// that opened the finish: `start_finish, call(body), end_finish` in the opener.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace slaw::dag {

inline constexpr char magic[8] = {'S', 'L', 'A', 'W', 'D', 'A', 'G', '\0'};
inline constexpr std::uint32_t version = 1;
inline constexpr std::size_t header_bytes = 48;
inline constexpr std::size_t task_entry_bytes = 16;
inline constexpr std::size_t trailer_bytes = 8;

enum class dag_op : std::uint8_t { spawn = 0, call = 1, start_finish = 2, end_finish = 3, alloc = 4, free = 5, ret = 6 };
inline constexpr unsigned dag_op_count = 7;
// The clause bits of a spawn's tag: policy::schedule's values (0 dyn, 1 wf, 2 hf).
inline constexpr unsigned clause_shift = 3;
inline constexpr std::uint8_t clause_mask = 0x3;

inline bool has_argument(dag_op o) noexcept {
  return o == dag_op::spawn || o == dag_op::call || o == dag_op::alloc || o == dag_op::free;
}
inline const char* dag_op_name(dag_op o) noexcept {
  switch (o) {
    case dag_op::spawn: return "spawn";
    case dag_op::call: return "call";
    case dag_op::start_finish: return "start_finish";
    case dag_op::end_finish: return "end_finish";
    case dag_op::alloc: return "alloc";
    case dag_op::free: return "free";
    case dag_op::ret: return "ret";
  }
  return "?";
}

struct dag_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;  // 48: the task table starts here
  std::uint64_t task_count;    // >= 1 (the root)
  std::uint64_t stream_bytes;
  std::uint64_t recorded_ns;   // the recorded run's wall time (runtime::run, root start to end)
  std::uint32_t workers;       // the recording runtime's worker count
  std::uint32_t flags;         // 0; any other value is rejected by this version
};
static_assert(sizeof(dag_header) == header_bytes, "the header is 48 bytes without padding");

// LEB128 unsigned varints: 7 bits a byte, low first; at most 10 bytes for 64 bits.
inline constexpr std::size_t max_varint_bytes = 10;
inline std::size_t put_varint(std::uint8_t* out, std::uint64_t v) noexcept {
  std::size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<std::uint8_t>(v);
  return n;
}
// Decodes one varint from [p, end); false if it runs past `end` or is longer than 10 bytes / 64 bits.
inline bool get_varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& v) noexcept {
  v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const std::uint8_t b = *p++;
    if (shift == 63 && b > 1) return false;  // bits beyond 64
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// FNV-1a, 64 bits, incremental.
inline constexpr std::uint64_t fnv_offset = 0xcbf29ce484222325ull;
inline std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t n) noexcept {
  const auto* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

inline void store_u32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void store_u64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
  return v;
}
inline std::uint64_t load_u64(const std::uint8_t* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

// The header as bytes (explicit little-endian fields, not the struct's memory).
inline void encode_header(const dag_header& h, std::uint8_t out[header_bytes]) noexcept {
  std::memcpy(out, h.magic, 8);
  store_u32(out + 8, h.version);
  store_u32(out + 12, h.header_bytes);
  store_u64(out + 16, h.task_count);
  store_u64(out + 24, h.stream_bytes);
  store_u64(out + 32, h.recorded_ns);
  store_u32(out + 40, h.workers);
  store_u32(out + 44, h.flags);
}
inline dag_header decode_header(const std::uint8_t in[header_bytes]) noexcept {
  dag_header h{};
  std::memcpy(h.magic, in, 8);
  h.version = load_u32(in + 8);
  h.header_bytes = load_u32(in + 12);
  h.task_count = load_u64(in + 16);
  h.stream_bytes = load_u64(in + 24);
  h.recorded_ns = load_u64(in + 32);
  h.workers = load_u32(in + 40);
  h.flags = load_u32(in + 44);
  return h;
}

}  // namespace slaw::dag
