// The trim report's schema and answer. Trimming writes a smaller trace, a byte stream and not a
// table (docs/architecture.md says why its bytes are not columns): a TraceTrimmer reads the file
// again and streams the kept events out. What it kept and dropped, by kind of event, is an answer
// like any view's (`kinetoscope trim --json`, the page's Timeline), read from the trimmer once it
// is finished; a Session has no trimmer, so it does not answer this view itself.
#include <string>

#include "core/session/views.h"
#include "core/trace/trace_trimmer.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kTrimSchema = {
    "trim",
    "Trim",
    "What trimming a trace to a time window kept and dropped (`kinetoscope trim --json`; the page's Timeline): a "
    "trimmer reads the file again and writes the kept events as a trace of their own; this is its report. Rows: each "
    "kind of event, in the order below, with the events kept and dropped.",
    {},
    {
        {"kind", ColumnType::kString, "",
         "metadata (\"M\": all kept), duration (\"X\": kept when it overlaps the window), instant (every other phase: kept "
         "inside the window), flow (s/t/f: a flow kept when all its events are inside), unreadable (not an event, or no "
         "readable \"ts\": dropped)"},
        {"kept", ColumnType::kCount, "count", "events of that kind written to the trimmed trace"},
        {"dropped", ColumnType::kCount, "count", "events of that kind left out"},
    },
    {
        {"window_start_us", "number", "the window's start (absolute µs; whole µs, rounded down)"},
        {"window_end_us", "number", "the window's end (absolute µs; whole µs, rounded up; both ends included)"},
        {"kept_events", "number", "events written"},
        {"total_events", "number", "events read"},
        {"bytes", "number", "bytes of the trimmed trace"},
        {"input_error", "string", "\"gzip\" or \"read\" when the bytes around the JSON failed part-way (the window is "
                                  "written from what came before), else \"\""},
    },
    {"kind", "kept", "dropped"},
    "kinds",
};

Answer trim_report_answer(const TraceTrimmer& t) {
  const TrimCounts& c = t.counts();
  AnswerBuilder b(kTrimSchema, kTrimKindCount);
  auto number = [](double v) {
    JsonWriter w;
    w.value(v);
    return w.take();
  };
  b.meta("window_start_us", number(double(t.start_ns()) / 1e3));
  b.meta("window_end_us", number(double(t.end_ns()) / 1e3));
  b.meta("kept_events", std::to_string(t.kept_events()));
  b.meta("total_events", std::to_string(t.total_events()));
  b.meta("bytes", std::to_string(t.output().size()));
  b.rows_here();
  {
    JsonWriter w;
    w.value(t.input_error());
    b.meta("input_error", w.take());
  }
  AnswerColumn& kind = b.add("kind");
  for (size_t k = 0; k < kTrimKindCount; ++k) kind.str.push_back(b.intern(trim_kind_name(TrimKind(k))));
  AnswerColumn& kept = b.add("kept");
  for (size_t k = 0; k < kTrimKindCount; ++k) kept.f64.push_back(double(c.kept[k]));
  AnswerColumn& dropped = b.add("dropped");
  for (size_t k = 0; k < kTrimKindCount; ++k) dropped.f64.push_back(double(c.dropped[k]));
  return b.take();
}

}  // namespace ks
