// The Embind layer: a Session wraps one TraceReader. Only conversion lives here; the worker
// copies chunk bytes straight into the reader's buffer (prepare returns a heap offset).
#include <emscripten/bind.h>

#include <cstdint>
#include <string>

#include "core/analysis/summary.h"
#include "core/trace/trace_reader.h"

namespace {

class Session {
 public:
  // Heap offset where n bytes may be written (HEAPU8 may have grown: re-read it).
  double prepare(double n) { return static_cast<double>(reinterpret_cast<uintptr_t>(reader_.prepare(static_cast<size_t>(n)))); }
  void commit(double n) { reader_.commit(static_cast<size_t>(n)); }
  void finish() { reader_.finish(); }
  // The stream around the JSON failed part-way (gzip corrupt or cut off, or a read error).
  void inputError(bool gzip) {
    reader_.note_input_error(gzip ? ks::TraceReader::InputError::kGzip : ks::TraceReader::InputError::kRead);
  }
  bool failed() const { return reader_.failed(); }
  std::string error() const { return reader_.error(); }
  std::string summaryJson() const { return ks::summary_json(reader_.model(), "", reader_.error()); }
  double bytesRead() const { return static_cast<double>(reader_.model().bytes_read); }
  double eventCount() const { return static_cast<double>(reader_.model().event_count); }
  double bufferCapacity() const { return static_cast<double>(reader_.buffer_capacity()); }

 private:
  ks::TraceReader reader_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("prepare", &Session::prepare)
      .function("commit", &Session::commit)
      .function("finish", &Session::finish)
      .function("inputError", &Session::inputError)
      .function("failed", &Session::failed)
      .function("error", &Session::error)
      .function("summaryJson", &Session::summaryJson)
      .function("bytesRead", &Session::bytesRead)
      .function("eventCount", &Session::eventCount)
      .function("bufferCapacity", &Session::bufferCapacity);
}
