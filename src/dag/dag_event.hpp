// One event of a recorded task and its encoding in the stream (the layout is dag_format.hpp's):
// a tag byte (op, and a spawn's clause), the computation since the previous event as a varint, and
// a spawn's or call's child id or an alloc's or free's bytes as a varint. The writer and the reader
// share this codec, so the two can never disagree about a byte.
#pragma once

#include <cstdint>

#include "dag/dag_format.hpp"

namespace slaw::dag {

struct event {
  dag_op op = dag_op::ret;
  std::uint8_t clause = 0;     // spawn only: policy::schedule's value (0 dyn, 1 wf, 2 hf)
  std::uint64_t work_ns = 0;   // the task's computation since its previous event (or its start)
  std::uint64_t arg = 0;       // spawn/call: the child's task id; alloc/free: bytes; else 0
};

// The largest encoding of one event: a tag and two varints.
inline constexpr std::size_t max_event_bytes = 1 + 2 * max_varint_bytes;

// Bits of the tag byte that no version-1 event sets.
inline constexpr std::uint8_t tag_reserved_bits = 0xE0;

// Encodes `e` at `out` (room for max_event_bytes) and returns its length. The caller has checked
// that op and clause fit their bits (rules::encodable).
inline std::size_t encode_event(std::uint8_t* out, const event& e) noexcept {
  out[0] = static_cast<std::uint8_t>(static_cast<unsigned>(e.op) | (static_cast<unsigned>(e.clause) << clause_shift));
  std::size_t n = 1 + put_varint(out + 1, e.work_ns);
  if (has_argument(e.op)) n += put_varint(out + n, e.arg);
  return n;
}

inline std::size_t encoded_size(const event& e) noexcept {
  std::uint8_t buf[max_event_bytes];
  return encode_event(buf, e);
}

// Why an event could not be decoded.
enum class decode_error : std::uint8_t { none, truncated_tag, reserved_bits, bad_op, bad_work, bad_arg };

inline const char* describe(decode_error d) noexcept {
  switch (d) {
    case decode_error::none: return "no error";
    case decode_error::truncated_tag: return "the event's tag lies past the end of the task's events";
    case decode_error::reserved_bits: return "the tag sets reserved bits (bits 5-7 must be 0)";
    case decode_error::bad_op: return "the tag's op is not an operation (accepted 0-6: spawn, call, start_finish, "
                                      "end_finish, alloc, free, ret)";
    case decode_error::bad_work: return "the work varint runs past the end of the task's events or exceeds 64 bits";
    case decode_error::bad_arg: return "the argument varint runs past the end of the task's events or exceeds 64 bits";
  }
  return "?";
}

// Decodes one event from [p, end), advancing p. Checks the encoding only; what the event means (a
// clause on a spawn only, a child in range, ...) is rules::check's.
inline decode_error decode_event(const std::uint8_t*& p, const std::uint8_t* end, event& e) noexcept {
  if (p == end) return decode_error::truncated_tag;
  const std::uint8_t tag = *p++;
  if (tag & tag_reserved_bits) return decode_error::reserved_bits;
  const unsigned op = tag & 0x7u;
  if (op >= dag_op_count) return decode_error::bad_op;
  e.op = static_cast<dag_op>(op);
  e.clause = static_cast<std::uint8_t>((tag >> clause_shift) & clause_mask);
  if (!get_varint(p, end, e.work_ns)) return decode_error::bad_work;
  e.arg = 0;
  if (has_argument(e.op) && !get_varint(p, end, e.arg)) return decode_error::bad_arg;
  return decode_error::none;
}

}  // namespace slaw::dag
