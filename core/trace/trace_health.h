// Trace health: every event the reader skips or repairs is counted here under a named reason,
// with the byte offset (in the JSON text) of the first one, so nothing vanishes silently.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace ks {

enum class Severity : uint8_t { kInfo, kWarning, kError };

enum class HealthReason : uint8_t {
  kTruncated,            // input ended before the trace was complete
  kMalformedEvent,       // an element of traceEvents that is not valid JSON
  kNonObjectElement,     // an element of traceEvents that is not an object
  kJunkBetweenEvents,    // bytes between events that are neither ',' nor whitespace
  kRepairedBareNA,       // unquoted N/A read as the string "N/A"
  kRepairedControlChars, // raw control characters inside strings
  kRepairedInvalidUtf8,  // bytes that are not UTF-8, replaced
  kMissingPhase,         // event without "ph"
  kMissingTimestamp,     // timed event without a usable "ts"
  kMissingDuration,      // X event without "dur": duration 0
  kNegativeDuration,     // X event with dur < 0: duration 0
  kBadNumber,            // a ts/dur that is not a number or out of range
  kUnmatchedEnd,         // E event with no open B on its thread
  kUnclosedBegin,        // B event never closed
  kBadTopLevelMember,    // deviceProperties & co. that could not be read
  kTrailingData,         // bytes after the end of the trace
  kRecordWindowEnd,      // the 'Record Window End' marker far after the trace
  kGzipError,            // the gzip stream around the JSON is corrupt or cut off
  kReadError,            // reading the file itself failed part-way
  kCount
};

struct HealthEntry {
  uint64_t count = 0;
  uint64_t sample_offset = 0;
};

struct HealthReasonInfo {
  std::string_view id;
  Severity severity;
  std::string_view message;
};

const HealthReasonInfo& health_reason_info(HealthReason r);
std::string_view severity_name(Severity s);

class TraceHealth {
 public:
  void add(HealthReason r, uint64_t offset, uint64_t n = 1) {
    HealthEntry& e = entries_[static_cast<size_t>(r)];
    if (e.count == 0) e.sample_offset = offset;
    e.count += n;
  }
  // Counts n more whose first lies at `offset`, wherever it lies among those counted already:
  // every reason is counted by one stage of the reader in file order, so the first counted is
  // the earliest, and a merge of ranges read apart keeps that by taking the smallest offset.
  void add_earliest(HealthReason r, uint64_t offset, uint64_t n = 1) {
    if (n == 0) return;
    HealthEntry& e = entries_[static_cast<size_t>(r)];
    if (e.count == 0 || offset < e.sample_offset) e.sample_offset = offset;
    e.count += n;
  }
  const HealthEntry& get(HealthReason r) const { return entries_[static_cast<size_t>(r)]; }

 private:
  std::array<HealthEntry, static_cast<size_t>(HealthReason::kCount)> entries_{};
};

}  // namespace ks
