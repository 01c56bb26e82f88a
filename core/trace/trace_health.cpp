#include "core/trace/trace_health.h"

namespace ks {

namespace {
using S = Severity;
constexpr HealthReasonInfo kInfos[] = {
    {"truncated", S::kError,
     "The file ends before the trace is complete (cut off while being written?); every event "
     "complete before that point was loaded."},
    {"malformed-event", S::kError, "Events that are not valid JSON were skipped."},
    {"non-object-element", S::kWarning,
     "Elements of traceEvents that are not objects were skipped."},
    {"junk-between-events", S::kWarning,
     "Unexpected bytes between events were ignored."},
    {"repaired-bare-na", S::kInfo,
     "Events with an unquoted N/A value were read with N/A as a string."},
    {"repaired-control-chars", S::kInfo,
     "Events with raw control characters inside strings were read as they are."},
    {"repaired-invalid-utf8", S::kWarning,
     "Events with bytes that are not UTF-8 were read with those bytes replaced by '?'."},
    {"missing-phase", S::kWarning, "Events without a \"ph\" (phase) were skipped."},
    {"missing-timestamp", S::kWarning, "Timed events without a usable \"ts\" were skipped."},
    {"missing-duration", S::kWarning,
     "Complete (X) events without \"dur\" were given a duration of 0."},
    {"negative-duration", S::kWarning,
     "Complete (X) events with a negative \"dur\" were given a duration of 0."},
    {"bad-number", S::kWarning,
     "Events whose ts or dur is not a number (or out of range) were skipped."},
    {"unmatched-end", S::kWarning, "End (E) events with no open begin (B) on their thread were skipped."},
    {"unclosed-begin", S::kWarning, "Begin (B) events that never ended were dropped."},
    {"bad-top-level-member", S::kWarning,
     "A top-level member (such as deviceProperties or distributedInfo) could not be read and was "
     "ignored."},
    {"trailing-data", S::kWarning, "Bytes after the end of the trace were ignored."},
    {"record-window-end", S::kInfo,
     "The 'Record Window End' marker lies more than 24 h after the last event; it was left out "
     "of the time span."},
    {"gzip-error", S::kError,
     "The gzip stream is corrupt or cut off; everything decompressed before that point was "
     "loaded."},
    {"read-error", S::kError,
     "Reading the file failed part-way; everything read before that point was loaded."},
};
static_assert(sizeof(kInfos) / sizeof(kInfos[0]) == static_cast<size_t>(HealthReason::kCount));
}  // namespace

const HealthReasonInfo& health_reason_info(HealthReason r) { return kInfos[static_cast<size_t>(r)]; }

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

}  // namespace ks
