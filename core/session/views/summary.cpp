// The summary view's schema and answer: what a file is (schema, devices, distributed setup, span)
// and holds (events per category, phase and kind) as metadata, and its trace health (what was
// skipped or repaired, reason by reason) as rows. The page's first screen and `kinetoscope summary`.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/accelerator.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kSummarySchema = {
    "summary",
    "Summary",
    "What a file is (schema, devices, distributed setup, span) and holds (events per category, phase and kind) "
    "(`kinetoscope summary --json`). Rows: its trace health, one per reason that happened, in the reasons' order.",
    {{"file", "the name the answer gives the file (its `file`); absent: \"\""}},
    {
        {"reason", ColumnType::kString, "", "what was skipped or repaired (docs/robustness.md lists the reasons)"},
        {"severity", ColumnType::kString, "", "error, warning or info"},
        {"count", ColumnType::kCount, "count", "events (or places) it happened to"},
        {"sample_offset", ColumnType::kCount, "bytes", "byte offset in the JSON of one of them"},
        {"message", ColumnType::kString, "", "what it means, in one sentence"},
    },
    {
        {"file", "string", "the file's name (the `file` parameter)"},
        {"ok", "boolean", "it is a trace (error is empty)"},
        {"error", "string", "why it is not a trace, in one sentence; \"\" when it is one"},
        {"format", "string", "'object' (Kineto's JSON object) or 'array' (a bare Chrome trace array)"},
        {"schema",
         "{ schema_version: number | null; display_time_unit: string; trace_name: string; base_time_ns: number | null; "
         "framework: string; naming: string }",
         "the trace's own description of itself; naming: 'pytorch-2' or 'pytorch-1.8' category names"},
        {"events", "number", "events read"},
        {"categories", "Record<string, number>", "events per category (\"cat\")"},
        {"phases", "Record<string, number>", "events per phase (\"ph\")"},
        {"kinds", "Record<string, number>", "events per kind the core tells apart"},
        {"devices",
         "{ id: number; name: string; memory_bytes: number; compute_capability: string; sms: number; vendor: string; arch: string }[]",
         "the devices of deviceProperties (compute_capability \"\" on AMD, arch \"sm_90\" or \"gfx90a\")"},
        {"accelerator", "string", "what ran the GPU work: nvidia, amd, mtia, none or unknown"},
        {"distributed", "{ rank: number; world_size: number; backend: string } | null", "distributedInfo, when the trace has it"},
        {"start_us", "number", "first event's start (absolute µs; 0 without events)"},
        {"end_us", "number", "last event's end (absolute µs)"},
        {"span_us", "number", "end_us - start_us"},
        {"bytes", "number", "bytes of JSON read"},
        {"model_bytes", "number", "bytes the core's tables of the trace hold"},
        {"truncated", "boolean", "the file ends part-way (what was complete is loaded)"},
    },
    {"reason", "severity", "count", "sample_offset", "message"},
    "health",
};

namespace {

// Counts keyed by interned string, sorted by text so outputs are stable (no id order).
std::string sorted_counts_json(const TraceModel& m, const std::vector<uint64_t>& c) {
  std::vector<std::pair<std::string_view, uint64_t>> v;
  for (size_t id = 0; id < c.size(); ++id)
    if (c[id]) v.emplace_back(m.strings.get(static_cast<StringId>(id)), c[id]);
  std::sort(v.begin(), v.end());
  JsonWriter w;
  w.begin_object();
  for (const auto& [name, n] : v) w.key(name).value(n);
  w.end_object();
  return w.take();
}

std::string json_of(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return w.take();
}

std::string json_of(double v) {
  JsonWriter w;
  w.value(v);
  return w.take();
}

}  // namespace

Answer summary_answer(const Session& s, QueryParamsRef params) {
  return summary_model_answer(s.model(), param(params, "file"), s.reader().error());
}

Answer summary_model_answer(const TraceModel& m, std::string_view file, std::string_view error) {
  std::vector<HealthReason> happened;
  for (size_t r = 0; r < static_cast<size_t>(HealthReason::kCount); ++r)
    if (m.health.get(static_cast<HealthReason>(r)).count) happened.push_back(static_cast<HealthReason>(r));
  AnswerBuilder b(kSummarySchema, happened.size());
  b.meta("file", json_of(file));
  b.meta("ok", error.empty() ? "true" : "false");
  b.meta("error", json_of(error));
  b.meta("format", json_of(m.format));
  {
    JsonWriter w;
    w.begin_object();
    w.key("schema_version");
    if (m.schema_version) w.value(*m.schema_version); else w.null();
    w.key("display_time_unit").value(m.display_time_unit);
    w.key("trace_name").value(m.trace_name);
    w.key("base_time_ns");
    if (m.base_time_ns) w.value(*m.base_time_ns); else w.null();
    w.key("framework").value(m.framework);
    w.key("naming").value(m.old_naming ? "pytorch-1.8" : "pytorch-2");
    w.end_object();
    b.meta("schema", w.take());
  }
  b.meta("events", std::to_string(m.event_count));
  b.meta("categories", sorted_counts_json(m, m.category_counts));
  b.meta("phases", sorted_counts_json(m, m.phase_counts));
  {
    JsonWriter w;
    w.begin_object();
    for (size_t k = 0; k < m.kind_counts.size(); ++k) w.key(event_kind_name(static_cast<EventKind>(k))).value(m.kind_counts[k]);
    w.end_object();
    b.meta("kinds", w.take());
  }
  {
    JsonWriter w;
    w.begin_array();
    for (const DeviceInfo& d : m.devices) {
      w.begin_object();
      w.key("id").value(d.id);
      w.key("name").value(d.name);
      w.key("memory_bytes").value(d.memory_bytes);
      w.key("compute_capability").value(compute_capability_text(d));
      w.key("sms").value(static_cast<int64_t>(d.sms));
      w.key("vendor").value(vendor_name(device_vendor(d)));
      w.key("arch").value(device_arch(d));
      w.end_object();
    }
    w.end_array();
    b.meta("devices", w.take());
  }
  // A file that is not a trace says nothing of hardware ("none" would claim a CPU-only run).
  b.meta("accelerator", json_of(accelerator_name(error.empty() ? trace_accelerator(m) : Accelerator::kUnknown)));
  if (m.distributed.present) {
    JsonWriter w;
    w.begin_object();
    w.key("rank").value(m.distributed.rank);
    w.key("world_size").value(m.distributed.world_size);
    w.key("backend").value(m.distributed.backend);
    w.end_object();
    b.meta("distributed", w.take());
  } else {
    b.meta("distributed", "null");
  }
  b.meta("start_us", json_of(m.has_span ? double(m.start_ns) / 1e3 : 0.0));
  b.meta("end_us", json_of(m.has_span ? double(m.end_ns) / 1e3 : 0.0));
  b.meta("span_us", json_of(m.has_span ? double(m.end_ns - m.start_ns) / 1e3 : 0.0));
  b.meta("bytes", std::to_string(m.bytes_read));
  b.meta("model_bytes", std::to_string(static_cast<uint64_t>(m.table_bytes())));
  b.meta("truncated", m.truncated ? "true" : "false");
  b.rows_here();
  // One column at a time: add() may move the columns added before.
  auto text = [&](std::string_view col, auto of) {
    AnswerColumn& c = b.add(col);
    for (HealthReason r : happened) c.str.push_back(b.intern(of(r)));
  };
  auto number = [&](std::string_view col, auto of) {
    AnswerColumn& c = b.add(col);
    for (HealthReason r : happened) c.f64.push_back(double(of(m.health.get(r))));
  };
  text("reason", [](HealthReason r) { return health_reason_info(r).id; });
  text("severity", [](HealthReason r) { return severity_name(health_reason_info(r).severity); });
  number("count", [](const HealthEntry& e) { return e.count; });
  number("sample_offset", [](const HealthEntry& e) { return e.sample_offset; });
  text("message", [](HealthReason r) { return health_reason_info(r).message; });
  return b.take();
}

}  // namespace ks
