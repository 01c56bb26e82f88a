// The fast path of event decoding: one event's JSON read in a single pass, straight from the
// chunk buffer, without simdjson.
//
// Why: simdjson has no SIMD kernel for WebAssembly, and its scalar ("fallback") stage 1, which
// indexes every structural character of a chunk before On-Demand walks it, was the largest
// single cost of the wasm core (docs/benchmarks.md, "Wasm core speed"). Kineto events are small
// flat objects; reading them directly, 16 bytes at a time inside strings (simd128 in wasm, SSE2
// natively), does the work once.
//
// The contract is exactness, not coverage: read_event_fast() accepts only a strict subset of
// JSON (RFC 8259 grammar, strings of printable ASCII without backslashes, nesting up to 64) and
// for it fills the RawEvent exactly as EventDecoder's simdjson On-Demand reading would (the
// same views, token extents and "last duplicate wins" order). Anything else — escapes, non-ASCII
// bytes, control characters, bare N/A, malformed numbers — returns false and the caller reads
// that event with simdjson as before, so repairs and health counters are unchanged.
#pragma once
#include <cstddef>
#include <string_view>

#include "core/trace/raw_event.h"

namespace ks {

// `text` is one complete event as the scanner found it ('{' ... its matching '}'). On true, `e`
// holds views into `text`; on false `e` is unspecified.
bool read_event_fast(std::string_view text, RawEvent& e);
// The same read on the bytes [begin, end) that start with an event's '{' and hold it whole or
// in part, with whatever follows: where the event ends (just past its '}'), or nullptr when it
// is declined or runs past `end`. TraceReader reads events this way straight from its buffer.
const char* read_event_prefix(const char* begin, const char* end, RawEvent& e);

// The string scan used inside: the index of the first byte of p[0, n) that is '"', '\\', a
// control character (< 0x20) or not ASCII (>= 0x80); n when there is none. The SIMD version
// (simd128 in wasm, SSE2 natively; scalar where neither exists) and the scalar reference are
// both exposed so that tests can check they agree.
size_t find_string_special(const char* p, size_t n);
size_t find_string_special_scalar(const char* p, size_t n);

}  // namespace ks
