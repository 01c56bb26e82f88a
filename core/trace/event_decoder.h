// Decodes runs of complete events with simdjson On-Demand: one `iterate` per run (wrapped in
// [ ] in a padded copy), falling back to one event at a time, with repairs, only where a run
// fails. Every event either reaches the sink or is counted in health.
#pragma once
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/trace/chunk_scanner.h"
#include "core/trace/raw_event.h"
#include "core/trace/trace_health.h"

namespace ks {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const RawEvent& e, uint64_t offset) = 0;
};

class EventDecoder {
 public:
  EventDecoder();
  ~EventDecoder();
  // Decodes buf[span] for every span, in order. `base_offset` is the file offset of buf[0].
  void decode(const char* buf, const std::vector<ChunkScanner::Span>& spans, uint64_t base_offset,
              EventSink& sink, TraceHealth& health);
  // Frees the parser's buffers (sized to the largest run decoded); the next decode allocates anew.
  void free_buffers();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks
