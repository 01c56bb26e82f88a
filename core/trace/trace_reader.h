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

 private:
  void process(bool final);
  void read_member(std::string_view key, std::string_view value, uint64_t offset);

  std::unique_ptr<TraceModel> model_;
  TraceBuilder builder_;
  ScanFeed feed_;
  EventDecoder decoder_;
  std::string error_;
  bool finished_ = false;
  bool input_error_ = false;
  InputError input_error_kind_ = InputError::kRead;
};

}  // namespace ks
