// The chunk scanner: finds, in a buffer that grows chunk by chunk, every complete element of
// the `traceEvents` array and every complete top-level member, without building a document.
//
// The root may be a Kineto object (members in any order, `traceEvents` among them) or a bare
// Chrome-trace array of events. Inside arrays and objects the scan runs 64 bytes at a time:
// bitmasks of quotes, backslashes and brackets (SSE2 natively, simd128 in wasm), a prefix-xor
// for "inside a string", and a depth counter stepped only at brackets outside strings.
// The top level (a few members) is read byte by byte.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace_health.h"

namespace ks {

class ChunkScanner {
 public:
  // Both ranges are offsets into the buffer passed to scan().
  struct Span {
    size_t begin, end;
  };
  struct Member {
    Span key;    // the key's characters, without quotes, as written (escapes not decoded)
    Span value;  // the value's JSON text
  };
  enum class RootKind : uint8_t { kUnknown, kObject, kArray };

  // Scans buf[position(), size). `size` may be any length; blocks that need bytes past `size`
  // wait for the next call unless `final`, in which case buf must hold at least 64 readable
  // bytes past `size`, filled with spaces. `base_offset` is the file offset of buf[0] (for
  // health samples). Found events and members are appended to the output vectors.
  // `pause`: return as soon as an element of the events array is complete (paused() says so),
  // so that the caller can read the next ones straight from the buffer (direct reading below).
  void scan(const char* buf, size_t size, bool final, uint64_t base_offset,
            std::vector<Span>& events, std::vector<Member>& members, TraceHealth& health,
            bool pause = false);
  // The last scan returned at a complete element (`pause`), before the end of the bytes.
  bool paused() const { return paused_; }

  // Direct reading (TraceReader): while the scan stands between two elements of the events
  // array, the caller may read the next element itself and skip the scan over its bytes.
  // next_object() is the index of that element's '{' when the gap before it holds only
  // whitespace and the comma it needs (none before the first), and no split stops there; else
  // npos, and the scan goes on as usual (it counts junk, reads non-objects, the array's end, the
  // top level, stops at splits). took_object() says the element ends at `end` (just past its
  // '}'): the scan goes on from there as if it had found it.
  static constexpr size_t npos = ~size_t(0);
  size_t next_object(const char* buf, size_t size, uint64_t base_offset);
  void took_object(size_t end) {
    first_elem_ = false;
    pos_ = end;
    new_gap(end);
  }

  // Bytes before this offset are no longer needed.
  size_t keep_from() const;
  // The file offset where an input that ended now was cut: keep_from(), except in the gap after
  // an element, where it is the gap's start whatever part of it was already folded and released
  // (which depends on where blocks fell: a range read from a split must give the same offset).
  uint64_t cut_offset(uint64_t base_offset) const {
    if (mode_ == Mode::kEvents && depth_ == 0 && gap_folded_) return gap_file_offset_;
    return base_offset + keep_from();
  }
  // The buffer dropped its first n bytes.
  void shift(size_t n);

  // Range reading (docs/contracts.md "One file, several workers"): a scanner that
  // starts inside the events array, at the '{' of an element (what the earlier range's
  // scanner checks), with the root kind the file was seen to have. Call before the first scan.
  void start_in_events(RootKind root);
  // Split points after this range's start, ascending (file offsets): the scan stops before the
  // first of them that is a clean boundary (the '{' of an element of the events array, outside
  // any string, at depth 1), after checking the gap before it as it always does. Points it
  // passes otherwise were not boundaries: it reads on.
  void set_stops(std::vector<uint64_t> file_offsets) { stops_ = std::move(file_offsets); next_stop_ = 0; }
  bool stopped() const { return mode_ == Mode::kStopped; }
  uint64_t stopped_at() const { return stopped_at_; }

  bool failed() const { return mode_ == Mode::kFailed; }
  bool done() const { return mode_ == Mode::kDone; }
  // True once the input ended (final scan) in the middle of the trace.
  bool incomplete() const { return mode_ != Mode::kDone && mode_ != Mode::kFailed && mode_ != Mode::kStopped; }
  bool saw_trace_events() const { return saw_trace_events_; }
  RootKind root() const { return root_; }
  const std::string& error() const { return error_; }

 private:
  enum class Mode : uint8_t {
    kStart, kKeyOrEnd, kKey, kColon, kValue, kAfterValue, kEvents, kSkipComposite,
    kSkipString, kSkipScalar, kDone, kFailed, kStopped
  };
  void fail(std::string message);
  // Whether a split stop is at this file offset (offsets are asked in rising order: the stops
  // passed are skipped for good).
  bool stop_at(uint64_t file_at);
  // Returns true when the block scan left block mode (array or value closed).
  bool scan_blocks(const char* buf, size_t limit, uint64_t base_offset,
                   std::vector<Span>& events, std::vector<Member>& members, TraceHealth& health);

  Mode mode_ = Mode::kStart;
  RootKind root_ = RootKind::kUnknown;
  size_t pos_ = 0;
  // block-scan state
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_carry_ = false;
  size_t elem_start_ = 0;
  size_t gap_start_ = 0;  // end of the previous element (or the array's '['), or where the
                          // part of the gap not yet folded into the counts below begins
  // The part of the gap between two elements already read and released (a long run of
  // whitespace, e.g. a gzip bomb, must not stay in the buffer): its commas, whether it held
  // anything else, and the file offset where the gap began.
  int gap_commas_ = 0;
  bool gap_junk_ = false;
  bool gap_folded_ = false;
  uint64_t gap_file_offset_ = 0;
  void new_gap(size_t at) {
    gap_start_ = at;
    gap_commas_ = 0;
    gap_junk_ = gap_folded_ = false;
  }
  bool first_elem_ = true;
  bool elem_is_object_ = false;
  // member being read
  Span key_{0, 0};
  size_t value_start_ = 0;
  bool key_is_trace_events_ = false;
  bool saw_trace_events_ = false;
  bool trailing_reported_ = false;
  bool string_escape_ = false;  // byte-wise string skip: previous byte was a backslash
  std::string error_;
  std::vector<uint64_t> stops_;
  size_t next_stop_ = 0;
  bool pause_ = false, paused_ = false;
  uint64_t stopped_at_ = 0;
};

}  // namespace ks
