// TraceTrimmer: streams a trace and writes a smaller, valid trace holding only a time window —
// for the timeline, which struggles with JSON traces over ~1 GB. Kept: every top-level member
// but the events (deviceProperties, distributedInfo, ...) as written, every metadata event
// ("M"), every event overlapping the window (duration events) or inside it (instants, counters,
// B/E ends), and the flow events (s/t/f) of every flow whose events are all inside the window.
// Kept events are copied byte for byte. Fed like TraceReader: prepare(n) -> write -> commit(n).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/trace/scan_feed.h"
#include "core/trace/trace_health.h"

namespace ks {

// The kinds of event a trimmer keeps or drops by its own rule (the trim report's rows):
// metadata ("M", all kept), duration ("X", kept when it overlaps the window), instant (every other
// phase, kept inside the window), flow (s/t/f, a flow kept when all its events are inside), and
// unreadable (not an event object, or no readable "ts": dropped).
enum class TrimKind : uint8_t { kMetadata, kDuration, kInstant, kFlow, kUnreadable };
inline constexpr size_t kTrimKindCount = 5;
std::string_view trim_kind_name(TrimKind k);  // "metadata", "duration", ...

struct TrimCounts {
  std::array<uint64_t, kTrimKindCount> kept{}, dropped{};
};

class TraceTrimmer {
 public:
  // The window in ns of the trace's clock (as the model's times), both ends included.
  TraceTrimmer(int64_t start_ns, int64_t end_ns) : start_ns_(start_ns), end_ns_(end_ns) {}

  char* prepare(size_t n) { return feed_.prepare(n); }
  void commit(size_t n);
  void finish();
  // The bytes around the JSON failed part-way (gzip cut off or corrupt, read error): the window
  // is written from what came before, and input_error() says so.
  void note_input_error(bool gzip) { input_error_ = gzip ? "gzip" : "read"; }
  const std::string& input_error() const { return input_error_; }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // The trimmed trace (after finish()).
  const std::string& output() const { return out_; }
  uint64_t total_events() const { return total_; }
  uint64_t kept_events() const { return kept_; }
  // Kept and dropped by kind (complete after finish()): they add up to kept_events() and
  // total_events().
  const TrimCounts& counts() const { return counts_; }
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }

 private:
  void process(bool final);
  void take_event(std::string_view text);

  int64_t start_ns_, end_ns_;
  ScanFeed feed_;
  TraceHealth health_;
  std::string members_;  // "key":value,... as written
  std::string events_;   // kept events joined by ",\n"
  struct Flow {
    std::vector<std::string> texts;  // its events inside the window
    bool outside = false;            // one of its events lies outside
  };
  std::unordered_map<std::string, size_t> flow_index_;
  std::vector<Flow> flows_;  // in first-seen order
  std::string out_, error_, input_error_;
  uint64_t total_ = 0, kept_ = 0, flow_events_ = 0;
  TrimCounts counts_;
  bool finished_ = false;
};

}  // namespace ks
