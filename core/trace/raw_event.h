// One event as decoded from JSON, before the builder files it. Views point into the parser's
// buffers and are valid only while the builder handles this event.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/trace/trace_model.h"
#include "core/util/numbers.h"

namespace ks {

struct RawArgs {
  int64_t external_id = kNoId, correlation = kNoId;
  int64_t device = kNoId, stream = kNoId;
  int64_t registers_per_thread = kNoId, shared_memory = kNoId;
  double blocks_per_sm = std::numeric_limits<double>::quiet_NaN();
  double warps_per_sm = std::numeric_limits<double>::quiet_NaN();
  double occupancy_pct = std::numeric_limits<double>::quiet_NaN();
  std::array<int32_t, 3> grid{{0, 0, 0}}, block{{0, 0, 0}};
  int64_t bytes = kNoId;
  double bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();
  std::string_view input_dims, input_type, call_stack, module_hierarchy;
  std::string_view concrete_inputs;  // "Concrete Inputs", raw JSON text
  int64_t sequence_number = kNoId, fwd_thread_id = kNoId;
  int64_t python_id = kNoId, python_parent_id = kNoId, python_module_id = kNoId;
  // [memory]
  int64_t device_type = kNoId, device_id = kNoId, addr = kNoId, mem_bytes = kNoId;
  int64_t total_allocated = kNoId, total_reserved = kNoId;
  // collectives
  std::string_view collective_name, dtype, process_group_name, process_group_ranks;
  int64_t in_msg_nelems = kNoId, out_msg_nelems = kNoId, group_size = kNoId;
  // metadata ("M": args.name / args.labels / args.sort_index)
  std::string_view meta_value;
  // Other numeric members, for counters ("C"): kept as text and parsed only for counters
  // (the phase may come after args, and strtod is slow in wasm). They are stored in arrays of
  // kMaxNumeric the decoder owns (NumericScratch): as members, the 512 bytes were zeroed for
  // every event, a visible cost in wasm. Null pointers: nothing is recorded.
  static constexpr int kMaxNumeric = 16;
  std::string_view* numeric_keys = nullptr;
  std::string_view* numeric_tokens = nullptr;
  int numeric_count = 0;
  bool numeric_room() const { return numeric_keys && numeric_count < kMaxNumeric; }
};

// Storage for RawArgs' numeric members; attach() points a fresh event's args at it.
struct NumericScratch {
  std::array<std::string_view, RawArgs::kMaxNumeric> keys, tokens;
  void attach(RawArgs& a) {
    a.numeric_keys = keys.data();
    a.numeric_tokens = tokens.data();
  }
};

struct RawEvent {
  std::string_view ph, cat, name, pid, tid, id, bp;
  std::string_view ts, dur;  // number tokens
  bool has_ph = false, has_cat = false, has_ts = false, has_dur = false, has_id = false;
  // ts and dur in ns when the fast path worked them out as it read the number (what
  // parse_us_to_ns gives for the token): 1 with the value in ts_ns / dur_ns, -1 when it gives
  // nothing, 0 when not worked out (the token is to be parsed).
  int8_t ts_read = 0, dur_read = 0;
  int64_t ts_ns = 0, dur_ns = 0;
  RawArgs args;
};

// An event's ts or dur in ns: parse_us_to_ns of its token, unless the fast path has done it.
inline std::optional<int64_t> us_to_ns(std::string_view token, int8_t read, int64_t ns) {
  if (read > 0) return ns;
  if (read < 0) return std::nullopt;
  return parse_us_to_ns(token);
}

}  // namespace ks
