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
#include "core/trace/scan_feed.h"
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

  // Scans what `feed` holds (`final`: the input ended) and decodes its complete events into
  // `sink`, in file order; `on_member` gets each complete top-level member (its key, its value's
  // JSON text, the value's file offset). What TraceReader runs on every chunk.
  //
  // With the fast path on, events are read straight from the buffer while they can be: the
  // scanner's own pass over their bytes was 8% of the wasm read and 12% of the native one. Where
  // they cannot (the gap before an element holds more than whitespace and one comma, the element
  // is not an object, the array ends, a split stops there, the element runs past the bytes
  // held, or the fast path declines it), the scanner takes over until one element is complete,
  // and the direct reading resumes after it. After a declined event the rest of the buffer goes
  // the scanner's way: declined events often come in runs, which simdjson reads in one call.
  using MemberFn = std::function<void(std::string_view key, std::string_view value, uint64_t offset)>;
  void read(ScanFeed& feed, bool final, EventSink& sink, TraceHealth& health, const MemberFn& on_member);
  // Events read straight from the buffer so far (tests check that the direct reading is taken).
  uint64_t direct_events() const { return direct_events_; }

 private:
  // read()'s direct reading: true when it stopped at an element the fast path did not take.
  bool read_direct(ScanFeed& feed, EventSink& sink);
  void decode_simdjson(const char* buf, const std::vector<ChunkScanner::Span>& spans,
                       uint64_t base_offset, EventSink& sink, TraceHealth& health);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool fast_path_ = true;
  std::vector<ChunkScanner::Span> declined_;  // events the fast path left to simdjson
  uint64_t direct_events_ = 0;
};

}  // namespace ks
