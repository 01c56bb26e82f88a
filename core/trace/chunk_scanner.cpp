#include "core/trace/chunk_scanner.h"

#include <algorithm>

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace ks {

namespace {

struct BlockMasks {
  uint64_t backslash = 0, quote = 0, open = 0, close = 0;
};

// '{' (0x7B) and '[' (0x5B) differ only in bit 0x20, as do '}' (0x7D) and ']' (0x5D):
// or-ing 0x20 in lets one compare find both.
inline BlockMasks classify(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  const __m128i bs = _mm_set1_epi8('\\'), q = _mm_set1_epi8('"'), b20 = _mm_set1_epi8(0x20),
                op = _mm_set1_epi8(0x7B), cl = _mm_set1_epi8(0x7D);
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    __m128i v20 = _mm_or_si128(v, b20);
    const int sh = 16 * k;
    m.backslash |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << sh;
    m.quote |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)))) << sh;
    m.open |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v20, op)))) << sh;
    m.close |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v20, cl)))) << sh;
  }
#elif defined(__wasm_simd128__)
  const v128_t bs = wasm_i8x16_splat('\\'), q = wasm_i8x16_splat('"'), b20 = wasm_i8x16_splat(0x20),
               op = wasm_i8x16_splat(0x7B), cl = wasm_i8x16_splat(0x7D);
  for (int k = 0; k < 4; ++k) {
    v128_t v = wasm_v128_load(p + 16 * k);
    v128_t v20 = wasm_v128_or(v, b20);
    const int sh = 16 * k;
    m.backslash |= uint64_t(uint32_t(wasm_i8x16_bitmask(wasm_i8x16_eq(v, bs)))) << sh;
    m.quote |= uint64_t(uint32_t(wasm_i8x16_bitmask(wasm_i8x16_eq(v, q)))) << sh;
    m.open |= uint64_t(uint32_t(wasm_i8x16_bitmask(wasm_i8x16_eq(v20, op)))) << sh;
    m.close |= uint64_t(uint32_t(wasm_i8x16_bitmask(wasm_i8x16_eq(v20, cl)))) << sh;
  }
#else
  for (int i = 0; i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    const uint64_t bit = uint64_t(1) << i;
    if (c == '\\') m.backslash |= bit;
    if (c == '"') m.quote |= bit;
    if ((c | 0x20) == 0x7B) m.open |= bit;
    if ((c | 0x20) == 0x7D) m.close |= bit;
  }
#endif
  return m;
}

// Bytes escaped by a backslash. Backslashes are rare in traces, so runs are walked one by
// one; `carry` says the previous block ended with an unpaired backslash.
inline uint64_t escaped_bytes(uint64_t backslash, bool& carry) {
  uint64_t escaped = 0;
  if (carry) {
    escaped |= 1;
    backslash &= ~uint64_t(1);
  }
  carry = false;
  while (backslash) {
    const int start = __builtin_ctzll(backslash);
    int end = start;
    while (end < 64 && ((backslash >> end) & 1)) ++end;
    const int len = end - start;
    const uint64_t run = (end == 64 ? ~uint64_t(0) : (uint64_t(1) << end) - 1) & ~((uint64_t(1) << start) - 1);
    backslash &= ~run;
    if (len & 1) {
      if (end < 64) {
        escaped |= uint64_t(1) << end;
        backslash &= ~(uint64_t(1) << end);
      } else {
        carry = true;
      }
    }
  }
  return escaped;
}

inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline size_t shifted(size_t x, size_t n) { return x >= n ? x - n : 0; }

// Counts what stands in buf[from, to) between two events: commas, and whether anything else
// than whitespace (junk) does.
inline void tally_gap(const char* buf, size_t from, size_t to, int& commas, bool& junk) {
  for (size_t p = from; p < to; ++p) {
    const char g = buf[p];
    if (g == ',') ++commas;
    else if (!is_space(g)) junk = true;
  }
}

}  // namespace

void ChunkScanner::start_in_events(RootKind root) {
  root_ = root;
  mode_ = Mode::kEvents;
  saw_trace_events_ = true;
  depth_ = 0;
  in_string_ = escape_carry_ = false;
  new_gap(pos_);
  first_elem_ = true;  // no comma before it: the earlier range counted the gap
}

void ChunkScanner::fail(std::string message) {
  mode_ = Mode::kFailed;
  error_ = std::move(message);
}

size_t ChunkScanner::keep_from() const {
  switch (mode_) {
    case Mode::kEvents: return depth_ > 0 ? elem_start_ : gap_start_;
    case Mode::kStopped: return elem_start_;
    case Mode::kColon:
    case Mode::kValue:
    case Mode::kSkipComposite:
    case Mode::kSkipString:
    case Mode::kSkipScalar: return key_.begin;
    default: return pos_;
  }
}

void ChunkScanner::shift(size_t n) {
  pos_ = shifted(pos_, n);
  elem_start_ = shifted(elem_start_, n);
  gap_start_ = shifted(gap_start_, n);
  key_.begin = shifted(key_.begin, n);
  key_.end = shifted(key_.end, n);
  value_start_ = shifted(value_start_, n);
}

bool ChunkScanner::scan_blocks(const char* buf, size_t limit, uint64_t base_offset,
                               std::vector<Span>& events, std::vector<Member>& members,
                               TraceHealth& health) {
  while (pos_ < limit) {
    const BlockMasks m = classify(buf + pos_);
    uint64_t quotes = m.quote;
    if (m.backslash | uint64_t(escape_carry_)) quotes &= ~escaped_bytes(m.backslash, escape_carry_);
    const uint64_t in_string = prefix_xor(quotes) ^ (in_string_ ? ~uint64_t(0) : 0);
    in_string_ = (in_string >> 63) != 0;
    const uint64_t opens = m.open & ~in_string;
    uint64_t structurals = (m.open | m.close) & ~in_string;
    while (structurals) {
      const int i = __builtin_ctzll(structurals);
      structurals &= structurals - 1;
      const size_t at = pos_ + size_t(i);
      const bool open = (opens >> i) & 1;
      if (mode_ == Mode::kEvents) {
        if (depth_ == 0) {
          // Between elements only whitespace and one comma may stand (none before the first,
          // none before the closing bracket); anything else, e.g. a bare number, is counted.
          int commas = gap_commas_;
          bool junk = gap_junk_;
          tally_gap(buf, gap_start_, at, commas, junk);
          const bool closing = !open && buf[at] == ']';
          if (junk || commas != ((first_elem_ || closing) ? 0 : 1))
            health.add(HealthReason::kJunkBetweenEvents, gap_folded_ ? gap_file_offset_ : base_offset + gap_start_);
          if (open && buf[at] == '{' && stop_at(base_offset + at)) {
            // A clean boundary: the later range read from here. The element is not ours.
            mode_ = Mode::kStopped;
            stopped_at_ = base_offset + at;
            elem_start_ = pos_ = at;
            return true;
          }
          if (open) {
            elem_start_ = at;
            first_elem_ = false;
            elem_is_object_ = buf[at] == '{';
            depth_ = 1;
          } else if (buf[at] == ']') {  // the events array closed
            pos_ = at + 1;
            in_string_ = escape_carry_ = false;
            mode_ = root_ == RootKind::kObject ? Mode::kAfterValue : Mode::kDone;
            return true;
          } else {
            new_gap(at + 1);  // a stray '}' (already counted as junk above)
          }
        } else if (open) {
          ++depth_;
        } else if (--depth_ == 0) {
          new_gap(at + 1);
          if (elem_is_object_) {
            events.push_back({elem_start_, at + 1});
          } else {
            health.add(HealthReason::kNonObjectElement, base_offset + elem_start_);
          }
          if (pause_) {  // the caller reads on from here (at depth 0 after a '}': outside strings)
            pos_ = at + 1;
            in_string_ = escape_carry_ = false;
            paused_ = true;
            return true;
          }
        }
      } else {  // kSkipComposite: a top-level member's object or array value
        if (open) {
          ++depth_;
        } else if (--depth_ == 0) {
          members.push_back({key_, {value_start_, at + 1}});
          pos_ = at + 1;
          in_string_ = escape_carry_ = false;
          mode_ = Mode::kAfterValue;
          return true;
        }
      }
    }
    pos_ += 64;
  }
  // Every byte before pos_ is classified and none was a bracket: fold those of the gap (up to
  // the data's end; the last block may run into the caller's padding) into the gap's counts so
  // that the buffer can release them (keep_from() is gap_start_).
  const size_t folded_end = std::min(pos_, limit);
  if (mode_ == Mode::kEvents && depth_ == 0 && gap_start_ < folded_end) {
    if (!gap_folded_) gap_file_offset_ = base_offset + gap_start_;
    gap_folded_ = true;
    tally_gap(buf, gap_start_, folded_end, gap_commas_, gap_junk_);
    gap_start_ = folded_end;
  }
  return false;
}

size_t ChunkScanner::next_object(const char* buf, size_t size, uint64_t base_offset) {
  if (mode_ != Mode::kEvents || depth_ != 0 || in_string_ || escape_carry_ || gap_junk_) return npos;
  int commas = gap_commas_;
  size_t p = gap_start_;
  for (; p < size; ++p) {
    const char c = buf[p];
    if (c == ',') ++commas;
    else if (!is_space(c)) break;
  }
  if (p >= size || buf[p] != '{' || commas != (first_elem_ ? 0 : 1) || stop_at(base_offset + p)) return npos;
  return p;
}

bool ChunkScanner::stop_at(uint64_t file_at) {
  while (next_stop_ < stops_.size() && stops_[next_stop_] < file_at) ++next_stop_;
  return next_stop_ < stops_.size() && stops_[next_stop_] == file_at;
}

void ChunkScanner::scan(const char* buf, size_t size, bool final, uint64_t base_offset,
                        std::vector<Span>& events, std::vector<Member>& members,
                        TraceHealth& health, bool pause) {
  pause_ = pause;
  paused_ = false;
  auto malformed_top_level = [&]() {
    if (saw_trace_events_) {
      health.add(HealthReason::kTrailingData, base_offset + pos_);
      trailing_reported_ = true;
      mode_ = Mode::kDone;
      pos_ = size;
    } else {
      fail("This file is not valid JSON, so it is not a PyTorch profiler trace.");
    }
  };
  while (pos_ < size) {
    if (mode_ == Mode::kStopped || paused_) return;
    if (mode_ != Mode::kEvents && mode_ != Mode::kSkipComposite && mode_ != Mode::kSkipString &&
        mode_ != Mode::kSkipScalar) {
      while (pos_ < size && is_space(buf[pos_])) ++pos_;
      if (pos_ >= size) return;
    }
    const char c = buf[pos_];
    switch (mode_) {
      case Mode::kFailed:
      case Mode::kStopped: return;
      case Mode::kDone:
        if (!trailing_reported_) health.add(HealthReason::kTrailingData, base_offset + pos_);
        trailing_reported_ = true;
        pos_ = size;
        return;
      case Mode::kStart:
        if (static_cast<unsigned char>(c) == 0xEF) {  // a UTF-8 byte order mark, EF BB BF
          if (pos_ + 3 > size && !final) return;     // wait for all three bytes
          if (pos_ + 3 <= size && static_cast<unsigned char>(buf[pos_ + 1]) == 0xBB &&
              static_cast<unsigned char>(buf[pos_ + 2]) == 0xBF) {
            pos_ += 3;
            break;
          }
        }
        if (c == '{') {
          root_ = RootKind::kObject;
          mode_ = Mode::kKeyOrEnd;
          ++pos_;
        } else if (c == '[') {
          root_ = RootKind::kArray;
          mode_ = Mode::kEvents;
          saw_trace_events_ = true;
          depth_ = 0;
          ++pos_;
          new_gap(pos_);
          first_elem_ = true;
        } else if (static_cast<unsigned char>(c) == 0x1f && pos_ + 1 < size &&
                   static_cast<unsigned char>(buf[pos_ + 1]) == 0x8b) {
          fail("This file is gzip-compressed twice (or is a gzip of something else); "
               "decompress it once and open the .json inside.");
        } else if ((static_cast<unsigned char>(c) == 0xFF || static_cast<unsigned char>(c) == 0xFE) &&
                   pos_ + 1 < size &&
                   (static_cast<unsigned char>(buf[pos_ + 1]) ^ static_cast<unsigned char>(c)) == 0x01) {
          // FF FE or FE FF: a UTF-16 byte order mark (a trace saved by an editor or PowerShell).
          fail("This file is UTF-16 text; traces are UTF-8: convert it (iconv -f UTF-16 -t UTF-8) and "
               "open it again.");
        } else if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
          // A JSON string, number or literal (or text that starts like one): not a trace, whatever follows.
          fail("This file does not start with { or [, so it is not a trace (an object with "
               "\"traceEvents\" or an array of events).");
        } else {
          fail("This file is not JSON, so it is not a PyTorch profiler trace.");
        }
        break;
      case Mode::kKeyOrEnd:
      case Mode::kKey: {
        if (c == '}' && mode_ == Mode::kKeyOrEnd) {
          mode_ = Mode::kDone;
          ++pos_;
          break;
        }
        if (c != '"') {
          malformed_top_level();
          break;
        }
        size_t j = pos_ + 1;
        while (j < size && buf[j] != '"') j += buf[j] == '\\' ? 2 : 1;
        if (j >= size) return;  // key continues in the next chunk
        key_ = {pos_ + 1, j};
        pos_ = j + 1;
        mode_ = Mode::kColon;
        break;
      }
      case Mode::kColon:
        if (c != ':') {
          malformed_top_level();
          break;
        }
        ++pos_;
        mode_ = Mode::kValue;
        break;
      case Mode::kValue: {
        key_is_trace_events_ =
            std::string_view(buf + key_.begin, key_.end - key_.begin) == "traceEvents";
        value_start_ = pos_;
        if (c == '[' && key_is_trace_events_) {
          saw_trace_events_ = true;
          mode_ = Mode::kEvents;
          depth_ = 0;
          ++pos_;
          new_gap(pos_);
          first_elem_ = true;
        } else if (c == '{' || c == '[') {
          mode_ = Mode::kSkipComposite;
          depth_ = 1;
          ++pos_;
        } else if (c == '"') {
          mode_ = Mode::kSkipString;
          string_escape_ = false;
          ++pos_;
        } else {
          mode_ = Mode::kSkipScalar;
        }
        break;
      }
      case Mode::kSkipString: {
        size_t j = pos_;
        for (; j < size; ++j) {
          if (string_escape_) {
            string_escape_ = false;
          } else if (buf[j] == '\\') {
            string_escape_ = true;
          } else if (buf[j] == '"') {
            break;
          }
        }
        if (j >= size) {
          pos_ = size;
          return;
        }
        members.push_back({key_, {value_start_, j + 1}});
        pos_ = j + 1;
        mode_ = Mode::kAfterValue;
        break;
      }
      case Mode::kSkipScalar: {
        size_t j = pos_;
        while (j < size && buf[j] != ',' && buf[j] != '}' && buf[j] != ']' && !is_space(buf[j])) ++j;
        if (j >= size && !final) {
          pos_ = j;
          return;
        }
        members.push_back({key_, {value_start_, j}});
        pos_ = j;
        mode_ = Mode::kAfterValue;
        break;
      }
      case Mode::kAfterValue:
        if (c == ',') {
          mode_ = Mode::kKey;
          ++pos_;
        } else if (c == '}') {
          mode_ = Mode::kDone;
          ++pos_;
        } else {
          malformed_top_level();
        }
        break;
      case Mode::kEvents:
      case Mode::kSkipComposite: {
        // Whole 64-byte blocks only, unless this is the end (then the caller padded).
        const size_t limit = final ? size : (size >= 64 ? size - 63 : 0);
        if (pos_ >= limit) return;
        if (!scan_blocks(buf, limit, base_offset, events, members, health)) return;
        break;
      }
    }
  }
  // A top-level scalar the input ends in: an earlier scan that reached the end of its bytes left
  // it open, waiting for more; there is no more. Closed here as it is when the final scan meets
  // it, so that where the input was cut does not depend on where the chunks (or ranges) fell.
  if (final && mode_ == Mode::kSkipScalar && pos_ >= size) {
    members.push_back({key_, {value_start_, size}});
    pos_ = size;
    mode_ = Mode::kAfterValue;
  }
}

}  // namespace ks
