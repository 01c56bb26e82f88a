#include "core/trace/event_fast_path.h"

#include <cstdint>
#include <cstring>

#include "core/util/bytes.h"
#include "core/util/numbers.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace ks {

size_t find_string_special_scalar(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
  }
  return n;
}

namespace {

// A signed compare "< 0x20" catches both the control characters (0x00-0x1F) and every byte
// >= 0x80 (negative as int8), so three compares classify 16 bytes. Inlined into read_string:
// as a call it was 9% of the native read (most strings are keys of a few bytes).
[[gnu::always_inline]] inline size_t find_special(const char* p, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                     _mm_cmplt_epi8(v, space));
    const int bits = _mm_movemask_epi8(hit);
    if (bits) return i + size_t(__builtin_ctz(unsigned(bits)));
  }
#elif defined(__wasm_simd128__)
  const v128_t quote = wasm_i8x16_splat('"'), backslash = wasm_i8x16_splat('\\'), space = wasm_i8x16_splat(0x20);
  for (; i + 16 <= n; i += 16) {
    const v128_t v = wasm_v128_load(p + i);
    const v128_t hit = wasm_v128_or(wasm_v128_or(wasm_i8x16_eq(v, quote), wasm_i8x16_eq(v, backslash)),
                                    wasm_i8x16_lt(v, space));
    const uint32_t bits = wasm_i8x16_bitmask(hit);
    if (bits) return i + size_t(__builtin_ctz(bits));
  }
#endif
  return i + find_string_special_scalar(p + i, n - i);
}

}  // namespace

size_t find_string_special(const char* p, size_t n) { return find_special(p, n); }

namespace {

constexpr int kMaxDepth = 64;

// k == lit for a literal: fixed-size loads and compares the compiler unrolls, where
// string_view's operator== calls memcmp (a call per key of every event, 10% of the native
// read on the modern shape, and worse in wasm).
template <size_t n>
inline bool bytes_equal(const char* a, const char* b) {
  if constexpr (n == 0) {
    return true;
  } else if constexpr (n >= 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return x == y && bytes_equal<n - 8>(a + 8, b + 8);
  } else if constexpr (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    return x == y && bytes_equal<n - 4>(a + 4, b + 4);
  } else if constexpr (n >= 2) {
    uint16_t x, y;
    std::memcpy(&x, a, 2);
    std::memcpy(&y, b, 2);
    return x == y && bytes_equal<n - 2>(a + 2, b + 2);
  } else {
    return *a == *b;
  }
}

template <size_t N>
inline bool key_is(std::string_view k, const char (&lit)[N]) {
  return k.size() == N - 1 && bytes_equal<N - 1>(k.data(), lit);
}

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// True when each of the 8 bytes of w is '0'-'9' (0x30-0x39): every high nibble is 3, and stays 3
// when 6 is added (no byte carries, since each is at most 0x3F after the first test).
inline bool all_digits8(uint64_t w) {
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ULL, kThrees = 0x3030303030303030ULL;
  return (w & kHigh) == kThrees && ((w + 0x0606060606060606ULL) & kHigh) == kThrees;
}

// The value of 8 ASCII digits loaded little-endian (the first digit in the lowest byte), with
// three multiplications: the digits become 4 two-digit numbers in bytes 0, 2, 4, 6 (each byte
// times 10 plus the next: at most 99, nothing carries), then those are weighted 10^6, 10^4,
// 10^2, 1 and summed in the high half of two products.
inline uint64_t eight_digits(uint64_t w) {
  w -= 0x3030303030303030ULL;
  w = w * 10 + (w >> 8);
  constexpr uint64_t kPairs = 0x000000FF000000FFULL;
  const uint64_t a = (w & kPairs) * (100 + (1000000ULL << 32));      // pair 0 * 10^6 + pair 2 * 100
  const uint64_t b = ((w >> 16) & kPairs) * (1 + (10000ULL << 32));  // pair 1 * 10^4 + pair 3
  return (a + b) >> 32;
}

struct Reader {
  const char* p;
  const char* end;
  void skip_ws() {
    while (p < end && is_ws(*p)) ++p;
  }
  bool at(char ch) const { return p < end && *p == ch; }
};

enum class Kind : uint8_t { kString, kNumber, kTrue, kFalse, kNull, kObject, kArray };

// One value as On-Demand would hand it over: `str` is a string's characters (no escapes, so
// the same bytes get_string() yields) or a number's or literal's text, `token` runs from the value's first byte to the next
// structural character, i.e. with the whitespace after it — the extent of simdjson's
// raw_json_token() for scalars and of raw_json() for arrays and objects.
struct Value {
  Kind kind = Kind::kNull;
  std::string_view str;
  std::string_view token;
  // A number, as read_number walked it (left unset for other kinds): `plain` when it has no
  // exponent and at most 18 integer digits — then parse_int gives ±whole and parse_us_to_ns
  // ±(whole * 1000 + frac_ns) within its range, so neither needs to walk the digits again.
  uint64_t whole;
  uint32_t frac_ns;  // the first 3 decimals as ns, +1 when the 4th is 5 or more
  bool neg, plain;
};

// r.p at the opening quote. Only printable ASCII without backslashes is taken.
[[gnu::always_inline]] inline bool read_string(Reader& r, std::string_view& out) {
  const char* s = r.p + 1;
  const size_t n = size_t(r.end - s);
  const size_t i = find_special(s, n);
  if (i >= n || s[i] != '"') return false;
  out = {s, i};
  r.p = s + i + 1;
  return true;
}

// RFC 8259 number grammar (stricter than On-Demand, which takes number tokens unchecked). The
// digits are added up on the way (v.whole, v.frac_ns: parse_us_to_ns's rounding).
[[gnu::always_inline]] inline bool read_number(Reader& r, Value& v) {
  const char* p = r.p;
  const char* end = r.end;
  v.neg = p < end && *p == '-';
  if (v.neg) ++p;
  if (p >= end) return false;
  uint64_t whole = 0;
  const char* int_start = p;
  if (*p == '0') {
    ++p;
  } else if (*p >= '1' && *p <= '9') {
    // Eight digits a step while they last (a PyTorch 2.x `ts` has 16 before the point), then
    // one by one: the byte loop was a third of reading a value.
    for (uint64_t w; end - p >= 8 && all_digits8(w = load_u64(p)); p += 8) whole = whole * 100000000 + eight_digits(w);
    for (; p < end && is_digit(*p); ++p) whole = whole * 10 + uint64_t(*p - '0');
  } else {
    return false;
  }
  bool plain = p - int_start <= 18;
  uint32_t frac = 0;
  if (p < end && *p == '.') {
    const char* d = ++p;
    for (; p < end && is_digit(*p) && p - d < 3; ++p) frac = frac * 10 + uint32_t(*p - '0');
    const ptrdiff_t digits = p - d;
    if (digits == 0) return false;
    for (ptrdiff_t k = digits; k < 3; ++k) frac *= 10;
    if (p < end && is_digit(*p)) {
      frac += *p >= '5';
      while (p < end && is_digit(*p)) ++p;
    }
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    plain = false;
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* d = p;
    while (p < end && is_digit(*p)) ++p;
    if (p == d) return false;
  }
  v.whole = whole;
  v.frac_ns = frac;
  v.plain = plain;
  r.p = p;
  return true;
}

[[gnu::always_inline]] inline bool read_literal(Reader& r, std::string_view lit) {
  if (size_t(r.end - r.p) < lit.size() || std::string_view(r.p, lit.size()) != lit) return false;
  r.p += lit.size();
  return true;
}

// The readers that are not inlined (recursive, or large) run out of line on a Reader of their
// own: the cursor goes in as two pointers and comes back as one (nullptr: declined). In wasm a
// Reader passed by reference lives in linear memory, so every step of the cursor in the caller
// was a load and a store; as plain values it stays in locals (registers). The parameters are
// Body's own (values stay values, references references).
template <auto Body>
struct OutOfLine;
template <class... Params, bool (*Body)(Reader&, Params...)>
struct OutOfLine<Body> {
  [[gnu::noinline]] static const char* run(const char* p, const char* end, Params... args) {
    Reader r{p, end};
    return Body(r, args...) ? r.p : nullptr;
  }
  // The caller's side: r moved to where Body ended; false when it declined.
  [[gnu::always_inline]] static bool step(Reader& r, Params... args) {
    const char* q = run(r.p, r.end, args...);
    if (!q) return false;
    r.p = q;
    return true;
  }
};

inline bool read_value_body(Reader& r, int depth, Value& v);
[[gnu::always_inline]] inline bool read_value(Reader& r, int depth, Value& v) { return OutOfLine<read_value_body>::step(r, depth, v); }

// After a member or element: ',' then the next one, or the closing bracket.
// Returns 1 to go on, 0 when closed, -1 on anything else.
[[gnu::always_inline]] inline int after_item(Reader& r, char close) {
  if (r.at(',')) {
    ++r.p;
    r.skip_ws();
    return 1;
  }
  if (r.at(close)) {
    ++r.p;
    return 0;
  }
  return -1;
}

// r.p just after '{' or '['.
[[gnu::always_inline]] inline bool skip_object_rest_body(Reader& r, int depth) {
  r.skip_ws();
  if (r.at('}')) {
    ++r.p;
    return true;
  }
  for (;;) {
    std::string_view key;
    if (!r.at('"') || !read_string(r, key)) return false;
    r.skip_ws();
    if (!r.at(':')) return false;
    ++r.p;
    r.skip_ws();
    Value v;
    if (!read_value(r, depth, v)) return false;
    const int next = after_item(r, '}');
    if (next < 0) return false;
    if (next == 0) return true;
  }
}

[[gnu::always_inline]] inline bool skip_object_rest(Reader& r, int depth) { return OutOfLine<skip_object_rest_body>::step(r, depth); }

[[gnu::always_inline]] inline bool skip_array_rest_body(Reader& r, int depth) {
  r.skip_ws();
  if (r.at(']')) {
    ++r.p;
    return true;
  }
  for (;;) {
    Value v;
    if (!read_value(r, depth, v)) return false;
    const int next = after_item(r, ']');
    if (next < 0) return false;
    if (next == 0) return true;
  }
}

[[gnu::always_inline]] inline bool skip_array_rest(Reader& r, int depth) { return OutOfLine<skip_array_rest_body>::step(r, depth); }

// r.p at the value's first byte; on return r.p is at the next non-whitespace byte after it.
inline bool read_value_body(Reader& r, int depth, Value& v) {
  const char* start = r.p;
  if (r.p >= r.end) return false;
  switch (*r.p) {
    case '"':
      v.kind = Kind::kString;
      if (!read_string(r, v.str)) return false;
      break;
    case '{':
      if (depth >= kMaxDepth) return false;
      v.kind = Kind::kObject;
      ++r.p;
      if (!skip_object_rest(r, depth + 1)) return false;
      break;
    case '[':
      if (depth >= kMaxDepth) return false;
      v.kind = Kind::kArray;
      ++r.p;
      if (!skip_array_rest(r, depth + 1)) return false;
      break;
    case 't':
      v.kind = Kind::kTrue;
      if (!read_literal(r, "true")) return false;
      v.str = {start, 4};
      break;
    case 'f':
      v.kind = Kind::kFalse;
      if (!read_literal(r, "false")) return false;
      v.str = {start, 5};
      break;
    case 'n':
      v.kind = Kind::kNull;
      if (!read_literal(r, "null")) return false;
      break;
    default:
      v.kind = Kind::kNumber;
      if (!read_number(r, v)) return false;
      v.str = {start, size_t(r.p - start)};
      break;
  }
  r.skip_ws();
  v.token = {start, size_t(r.p - start)};
  return true;
}


// The readings of ondemand_values.h, on a Value.
// A number's or literal's `str` is its text without the whitespace after it: trim_token(token).
inline std::string_view scalar_text(const Value& v) {
  switch (v.kind) {
    case Kind::kString:
    case Kind::kNumber:
    case Kind::kTrue:
    case Kind::kFalse: return v.str;
    default: return {};
  }
}

inline void number_token(const Value& v, std::string_view& out, bool& present) {
  present = false;
  if (v.kind == Kind::kNumber) {
    out = v.token;
    present = true;
  } else if (v.kind == Kind::kString) {
    out = v.str;
    present = true;
  }
}

inline void get_int(const Value& v, int64_t& out) {
  if (v.kind == Kind::kNumber && v.plain) {  // parse_int's value, without a second walk
    out = v.neg ? -int64_t(v.whole) : int64_t(v.whole);
    return;
  }
  std::string_view tok;
  bool present = false;
  number_token(v, tok, present);
  if (present) {
    if (auto n = parse_int(tok)) out = *n;
  }
}

// parse_us_to_ns of a number's token: `read` 1 with `ns`, -1 for none; 0 left for the builder
// to parse (a string, or a number with an exponent or beyond 18 integer digits).
inline void us_to_ns(const Value& v, int8_t& read, int64_t& ns) {
  read = 0;
  if (v.kind != Kind::kNumber || !v.plain) return;
  if (v.whole > uint64_t(INT64_MAX) / 1000) {
    read = -1;
    return;
  }
  const uint64_t total = v.whole * 1000 + v.frac_ns;
  if (total > uint64_t(INT64_MAX)) {
    read = -1;
    return;
  }
  ns = v.neg ? -static_cast<int64_t>(total) : static_cast<int64_t>(total);
  read = 1;
}

inline void get_double(const Value& v, double& out) {
  if (v.kind != Kind::kNumber && v.kind != Kind::kString) return;
  if (auto d = parse_double(v.str)) out = *d;  // number_token, without the whitespace to trim
}

// event_decoder.cpp get_raw: a string's characters, else the value's JSON text.
inline std::string_view raw_text(const Value& v) { return v.kind == Kind::kString ? v.str : v.token; }

// get_dim3 on an array: each element read as an int (0 when it is not a number), the first
// three kept. r.p at '['.
[[gnu::always_inline]] inline bool read_dim3_body(Reader& r, int depth, std::array<int32_t, 3>& out) {
  if (depth >= kMaxDepth) return false;
  ++r.p;
  r.skip_ws();
  if (r.at(']')) {
    ++r.p;
    r.skip_ws();
    return true;
  }
  int i = 0;
  for (;;) {
    Value ev;
    if (!read_value(r, depth + 1, ev)) return false;
    int64_t n = 0;
    get_int(ev, n);
    if (i < 3) out[size_t(i)] = static_cast<int32_t>(n);
    ++i;
    const int next = after_item(r, ']');
    if (next < 0) return false;
    if (next == 0) break;
  }
  r.skip_ws();
  return true;
}

[[gnu::always_inline]] inline bool read_dim3(Reader& r, int depth, std::array<int32_t, 3>& out) { return OutOfLine<read_dim3_body>::step(r, depth, out); }

enum class Arg : uint8_t {
  kOther, kExternalId, kCorrelation, kDevice, kStream, kGrid, kBlock, kRegisters, kSharedMemory,
  kBlocksPerSm, kWarpsPerSm, kOccupancy, kBytes, kBandwidth, kInputDims, kInputType, kCallStack,
  kModuleHierarchy, kSequenceNumber, kFwdThreadId, kPythonId, kPythonParentId, kPythonModuleId,
  kDeviceType, kDeviceId, kAddr, kMemBytes, kTotalAllocated, kTotalReserved, kCollectiveName,
  kDtype, kProcessGroupName, kProcessGroupRanks, kInMsgNelems, kOutMsgNelems, kGroupSize, kMetaValue,
  kConcreteInputs
};

// The keys decode_args (event_decoder.cpp) knows, by length first: one switch instead of a
// chain of 38 comparisons for every member of every event's args.
Arg arg_key(std::string_view k) {
  switch (k.size()) {
    case 4:
      if (key_is(k, "grid")) return Arg::kGrid;
      if (key_is(k, "Addr")) return Arg::kAddr;
      if (key_is(k, "name")) return Arg::kMetaValue;
      break;
    case 5:
      if (key_is(k, "block")) return Arg::kBlock;
      if (key_is(k, "bytes")) return Arg::kBytes;
      if (key_is(k, "Bytes")) return Arg::kMemBytes;
      if (key_is(k, "dtype")) return Arg::kDtype;
      break;
    case 6:
      if (key_is(k, "device")) return Arg::kDevice;
      if (key_is(k, "stream")) return Arg::kStream;
      if (key_is(k, "labels")) return Arg::kMetaValue;
      break;
    case 9:
      if (key_is(k, "Python id")) return Arg::kPythonId;
      if (key_is(k, "Device Id")) return Arg::kDeviceId;
      break;
    case 10:
      if (key_is(k, "Input Dims") || key_is(k, "Input dims")) return Arg::kInputDims;
      if (key_is(k, "Input type")) return Arg::kInputType;
      if (key_is(k, "Call stack")) return Arg::kCallStack;
      if (key_is(k, "Group size")) return Arg::kGroupSize;
      break;
    case 11:
      if (key_is(k, "External id") || key_is(k, "external id")) return Arg::kExternalId;
      if (key_is(k, "correlation")) return Arg::kCorrelation;
      if (key_is(k, "Device Type")) return Arg::kDeviceType;
      break;
    case 12:
      if (key_is(k, "warps per SM")) return Arg::kWarpsPerSm;
      break;
    case 13:
      if (key_is(k, "shared memory")) return Arg::kSharedMemory;
      if (key_is(k, "blocks per SM")) return Arg::kBlocksPerSm;
      if (key_is(k, "Fwd thread id")) return Arg::kFwdThreadId;
      if (key_is(k, "In msg nelems")) return Arg::kInMsgNelems;
      break;
    case 14:
      if (key_is(k, "Total Reserved")) return Arg::kTotalReserved;
      if (key_is(k, "Out msg nelems")) return Arg::kOutMsgNelems;
      break;
    case 15:
      if (key_is(k, "Sequence number")) return Arg::kSequenceNumber;
      if (key_is(k, "Total Allocated")) return Arg::kTotalAllocated;
      if (key_is(k, "Collective name")) return Arg::kCollectiveName;
      if (key_is(k, "Concrete Inputs")) return Arg::kConcreteInputs;
      break;
    case 16:
      if (key_is(k, "Module Hierarchy")) return Arg::kModuleHierarchy;
      if (key_is(k, "Python parent id")) return Arg::kPythonParentId;
      if (key_is(k, "Python module id")) return Arg::kPythonModuleId;
      break;
    case 18:
      if (key_is(k, "Process Group Name")) return Arg::kProcessGroupName;
      break;
    case 19:
      if (key_is(k, "Process Group Ranks")) return Arg::kProcessGroupRanks;
      break;
    case 20:
      if (key_is(k, "registers per thread")) return Arg::kRegisters;
      break;
    case 23:
      if (key_is(k, "memory bandwidth (GB/s)")) return Arg::kBandwidth;
      break;
    case 25:
      if (key_is(k, "est. achieved occupancy %")) return Arg::kOccupancy;
      break;
    default: break;
  }
  return Arg::kOther;
}

void apply_arg(Arg which, std::string_view key, const Value& v, RawArgs& a) {
  switch (which) {
    case Arg::kExternalId: get_int(v, a.external_id); break;
    case Arg::kCorrelation: get_int(v, a.correlation); break;
    case Arg::kDevice: get_int(v, a.device); break;
    case Arg::kStream: get_int(v, a.stream); break;
    case Arg::kGrid:
    case Arg::kBlock: break;  // not an array: nothing (arrays go through read_dim3)
    case Arg::kRegisters: get_int(v, a.registers_per_thread); break;
    case Arg::kSharedMemory: get_int(v, a.shared_memory); break;
    case Arg::kBlocksPerSm: get_double(v, a.blocks_per_sm); break;
    case Arg::kWarpsPerSm: get_double(v, a.warps_per_sm); break;
    case Arg::kOccupancy: get_double(v, a.occupancy_pct); break;
    case Arg::kBytes: get_int(v, a.bytes); break;
    case Arg::kBandwidth: get_double(v, a.bandwidth_gbps); break;
    case Arg::kInputDims: a.input_dims = raw_text(v); break;
    case Arg::kInputType: a.input_type = raw_text(v); break;
    case Arg::kConcreteInputs: a.concrete_inputs = raw_text(v); break;
    case Arg::kCallStack: a.call_stack = scalar_text(v); break;
    case Arg::kModuleHierarchy: a.module_hierarchy = scalar_text(v); break;
    case Arg::kSequenceNumber: get_int(v, a.sequence_number); break;
    case Arg::kFwdThreadId: get_int(v, a.fwd_thread_id); break;
    case Arg::kPythonId: get_int(v, a.python_id); break;
    case Arg::kPythonParentId: get_int(v, a.python_parent_id); break;
    case Arg::kPythonModuleId: get_int(v, a.python_module_id); break;
    case Arg::kDeviceType: get_int(v, a.device_type); break;
    case Arg::kDeviceId: get_int(v, a.device_id); break;
    case Arg::kAddr: get_int(v, a.addr); break;
    case Arg::kMemBytes: get_int(v, a.mem_bytes); break;
    case Arg::kTotalAllocated: get_int(v, a.total_allocated); break;
    case Arg::kTotalReserved: get_int(v, a.total_reserved); break;
    case Arg::kCollectiveName: a.collective_name = scalar_text(v); break;
    case Arg::kDtype: a.dtype = scalar_text(v); break;
    case Arg::kProcessGroupName: a.process_group_name = scalar_text(v); break;
    case Arg::kProcessGroupRanks: a.process_group_ranks = raw_text(v); break;
    case Arg::kInMsgNelems: get_int(v, a.in_msg_nelems); break;
    case Arg::kOutMsgNelems: get_int(v, a.out_msg_nelems); break;
    case Arg::kGroupSize: get_int(v, a.group_size); break;
    case Arg::kMetaValue: a.meta_value = scalar_text(v); break;
    case Arg::kOther:
      if (v.kind == Kind::kNumber && a.numeric_room()) {
        a.numeric_keys[size_t(a.numeric_count)] = key;
        a.numeric_tokens[size_t(a.numeric_count)] = v.token;
        ++a.numeric_count;
      }
      break;
  }
}

// decode_args on an object: r.p at '{'; on return r.p is past the whitespace after '}'.
[[gnu::always_inline]] inline bool read_args_body(Reader& r, int depth, RawArgs& a) {
  if (depth >= kMaxDepth) return false;
  ++r.p;
  r.skip_ws();
  if (r.at('}')) {
    ++r.p;
    r.skip_ws();
    return true;
  }
  for (;;) {
    std::string_view key;
    if (!r.at('"') || !read_string(r, key)) return false;
    r.skip_ws();
    if (!r.at(':')) return false;
    ++r.p;
    r.skip_ws();
    const Arg which = arg_key(key);
    if ((which == Arg::kGrid || which == Arg::kBlock) && r.at('[')) {
      if (!read_dim3(r, depth + 1, which == Arg::kGrid ? a.grid : a.block)) return false;
    } else {
      Value v;
      if (!read_value(r, depth + 1, v)) return false;
      apply_arg(which, key, v, a);
    }
    const int next = after_item(r, '}');
    if (next < 0) return false;
    if (next == 0) break;
  }
  r.skip_ws();
  return true;
}

[[gnu::always_inline]] inline bool read_args(Reader& r, int depth, RawArgs& a) { return OutOfLine<read_args_body>::step(r, depth, a); }

enum class EventKey : uint8_t { kOther, kPh, kTs, kId, kBp, kCat, kPid, kTid, kDur, kName, kArgs };

// An event's own keys, once: each with its characters and closing quote as the low bytes of a
// little-endian word (read_event_key compares the word after a key's opening quote with them).
struct KnownKey {
  std::string_view text;
  EventKey key;
  uint64_t word;  // the characters and the closing quote
  uint64_t mask;  // the bytes of `word`
};

constexpr KnownKey known_key(std::string_view text, EventKey key) {
  uint64_t w = 0;
  for (size_t i = 0; i < text.size(); ++i) w |= uint64_t(static_cast<unsigned char>(text[i])) << (8 * i);
  return {text, key, w | uint64_t('"') << (8 * text.size()), (uint64_t(1) << (8 * (text.size() + 1))) - 1};
}

constexpr KnownKey kEventKeys[] = {
    known_key("ph", EventKey::kPh),   known_key("ts", EventKey::kTs),   known_key("id", EventKey::kId),
    known_key("bp", EventKey::kBp),   known_key("cat", EventKey::kCat), known_key("pid", EventKey::kPid),
    known_key("tid", EventKey::kTid), known_key("dur", EventKey::kDur), known_key("name", EventKey::kName),
    known_key("args", EventKey::kArgs),
};

// r.p at a member's opening quote: the event's own keys are told from the word that follows the
// quote (their characters and the closing quote, compared at once), any other key is read as a
// string (false when it is not a plain one) and looked up. r.p ends past the closing quote.
[[gnu::always_inline]] inline bool read_event_key(Reader& r, EventKey& key) {
  const char* q = r.p + 1;
  if (r.end - q >= 8) {
    const uint64_t w = load_u64(q);
    for (const KnownKey& k : kEventKeys) {
      if ((w & k.mask) == k.word) {
        key = k.key;
        r.p = q + k.text.size() + 1;
        return true;
      }
    }
  }
  std::string_view text;
  if (!read_string(r, text)) return false;
  key = EventKey::kOther;
  for (const KnownKey& k : kEventKeys) {
    if (text.size() == k.text.size() && same_bytes(text.data(), k.text.data(), text.size())) {  // no memcmp call
      key = k.key;
      break;
    }
  }
  return true;
}

}  // namespace

// decode_object (event_decoder.cpp), member by member in the order written.
const char* read_event_prefix(const char* begin, const char* end, RawEvent& e) {
  Reader r{begin, end};
  if (!r.at('{')) return nullptr;
  ++r.p;
  r.skip_ws();
  if (r.at('}')) return r.p + 1;
  for (;;) {
    EventKey key;
    if (!r.at('"') || !read_event_key(r, key)) return nullptr;
    r.skip_ws();
    if (!r.at(':')) return nullptr;
    ++r.p;
    r.skip_ws();
    if (key == EventKey::kArgs && r.at('{')) {
      if (!read_args(r, 1, e.args)) return nullptr;
    } else {
      Value v;
      if (!read_value(r, 1, v)) return nullptr;
      switch (key) {
        case EventKey::kPh:
          e.ph = scalar_text(v);
          e.has_ph = !e.ph.empty();
          break;
        case EventKey::kTs:
          number_token(v, e.ts, e.has_ts);
          us_to_ns(v, e.ts_read, e.ts_ns);
          break;
        case EventKey::kId:
          e.id = scalar_text(v);
          e.has_id = true;
          break;
        case EventKey::kBp: e.bp = scalar_text(v); break;
        case EventKey::kCat:
          e.cat = scalar_text(v);
          e.has_cat = true;
          break;
        case EventKey::kPid: e.pid = scalar_text(v); break;
        case EventKey::kTid: e.tid = scalar_text(v); break;
        case EventKey::kDur:
          number_token(v, e.dur, e.has_dur);
          us_to_ns(v, e.dur_read, e.dur_ns);
          break;
        case EventKey::kName: e.name = scalar_text(v); break;
        case EventKey::kArgs:  // "args" that is not an object: decode_args ignores it
        case EventKey::kOther: break;
      }
    }
    const int next = after_item(r, '}');
    if (next < 0) return nullptr;
    if (next == 0) break;
  }
  return r.p;
}

bool read_event_fast(std::string_view text, RawEvent& e) {
  return read_event_prefix(text.data(), text.data() + text.size(), e) == text.data() + text.size();
}

}  // namespace ks
