// TraceReader: the one entry point for reading a trace, chunk by chunk. The CLI and the wasm
// Session feed it the same way: prepare(n) -> write up to n bytes -> commit(n), then finish().
// Memory stays proportional to the chunk size plus the model, whatever the file size.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/trace/scan_feed.h"
#include "core/trace/event_decoder.h"
#include "core/trace/trace_builder.h"
#include "core/trace/trace_model.h"

namespace ks {

class TraceReader {
 public:
  TraceReader();
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Room for n more bytes; valid until the next call.
  char* prepare(size_t n);
  // n bytes were written at prepare()'s pointer: read every complete event.
  void commit(size_t n);
  // End of input. Idempotent.
  void finish();
  // The bytes around the JSON failed (gzip corrupt or cut off, read error): recorded in health
  // at the current offset; call before finish(). Nothing read is lost.
  enum class InputError { kGzip, kRead };
  void note_input_error(InputError e);
  // Convenience: prepare + copy + commit.
  void feed(const char* data, size_t n);

  // True once the input is certainly not a trace (then stop feeding).
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  bool finished() const { return finished_; }
  const TraceModel& model() const { return *model_; }
  TraceModel& model() { return *model_; }
  // Bytes currently held (the unfinished tail plus room): for memory measurements.
  size_t buffer_capacity() const { return feed_.capacity(); }
  // Off: every event is read by simdjson (tests check the fast path changes nothing).
  void set_fast_path(bool on) { decoder_.set_fast_path(on); }

  // ---- One file, several readers (docs/contracts.md "One file, several workers").
  // Range 0 is an ordinary reader; each later range's reader starts at a proposed split (the
  // '{' of an element inside the events array; model_merge.h proposes them) with the root kind
  // of the file (the first byte that is not a BOM or whitespace: '[' or '{'). Call start_at
  // before the first prepare(). Its model is partial: finish() ends its input without closing
  // the model, and PartialWriter (model_merge.h) serializes it for the earlier reader.
  void start_at(uint64_t offset, bool root_is_array);
  // The later ranges' starts (ascending): reading stops before the first that proves a clean
  // boundary (the earlier reader is the one that can check it). Call before feeding past them.
  void stop_at(std::vector<uint64_t> offsets);
  // Reading stopped at covered_end(): merge the range that starts there (PartialMerger), or
  // read_on() and feed the bytes from covered_end() yourself (the later range is lost).
  bool stopped() const { return stopped_; }
  // The file offset up to which the model holds the file (once stopped, or after a merge).
  uint64_t covered_end() const { return covered_end_; }
  void read_on();
  bool partial() const { return range_start_ > 0; }
  uint64_t range_start() const { return range_start_; }

 private:
  friend class PartialWriter;
  friend class PartialMerger;
  void process(bool final);
  void read_member(std::string_view key, std::string_view value, uint64_t offset);
  void apply_stops();
  // Where the input ended, as the range that read it last saw it: stopped at a split (more
  // follows), or its end, complete or cut in an element at `cut`.
  struct Tail {
    bool stopped = false;
    bool incomplete = false;
    uint64_t cut = 0;
  };
  struct DeferredMember {
    std::string key, value;
    uint64_t offset;
  };

  std::unique_ptr<TraceModel> model_;
  TraceBuilder builder_;
  ScanFeed feed_;
  EventDecoder decoder_;
  std::string error_;
  bool finished_ = false;
  bool input_error_ = false;
  InputError input_error_kind_ = InputError::kRead;
  // range reading
  uint64_t range_start_ = 0;
  bool root_is_array_ = false;
  std::vector<uint64_t> stops_;
  bool stopped_ = false;
  uint64_t covered_end_ = 0;
  bool merged_end_ = false;  // a merged range read to the end of the input: tail_ says how
  Tail tail_;
  std::vector<DeferredMember> deferred_members_;  // a partial reader's, replayed by the merge
};

}  // namespace ks
