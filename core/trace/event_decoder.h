// Decodes complete events: each first by the fast path (event_fast_path.h: a strict subset of
// JSON read in one pass from the chunk buffer); the events it declines go to simdjson
// On-Demand: one `iterate` per run of them (wrapped in [ ] in a padded copy), falling back to
// one event at a time, with repairs, only where a run fails. Both read an event the same way,
// so which one did is invisible in the model. Every event either reaches the sink or is
// counted in health.
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
  // Off: every event goes through simdjson (tests compare the two paths).
  void set_fast_path(bool on) { fast_path_ = on; }

 private:
  void decode_simdjson(const char* buf, const std::vector<ChunkScanner::Span>& spans,
                       uint64_t base_offset, EventSink& sink, TraceHealth& health);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool fast_path_ = true;
  std::vector<ChunkScanner::Span> declined_;  // events the fast path left to simdjson
};

}  // namespace ks
