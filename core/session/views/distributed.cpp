// The Distributed view's map step as an answer: one rank's summary (core/analysis/distributed.h
// RankSummary) as columns — a row per time range of its collective calls — and metadata (its
// rank, devices, steps). It crosses from the worker that read the rank to the one that reduces
// the run in its binary form (answer_bytes), and is read back here for the reduce: the numbers
// stay numbers on the way (the JSON text it used to cross as was written, parsed in the page,
// held as a string and parsed again in the core).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/analysis/distributed.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "simdjson.h"

namespace ks {

const ViewSchema kDistributedRankSchema = {
    "distributed_rank",
    "DistributedRank",
    "One rank's part of its run's Distributed view (the map step): a row per time range of each collective call it "
    "made (a call's rows consecutive, calls by host start), its steps with their computation/communication overlap "
    "and its devices in the metadata. Times in ns from `origin_ns`. The page carries it as bytes (answer_bytes) to "
    "the reduce, which reads it back; nothing shows it as a table.",
    {{"worker", "the rank's worker name in the run (from its file name)"},
     {"span", "its span in the run: \"default\" or 1..n"}},
    {
        {"call", ColumnType::kI32, "", "the call's index on this rank"},
        {"name", ColumnType::kString, "", "the collective (\"nccl:all_reduce\")"},
        {"group", ColumnType::kString, "", "its process group (its ranks as written, \"[0, 1]\", or its name); \"\" unknown"},
        {"group_size", ColumnType::kI32, "count", "ranks in the group; null unknown"},
        {"bytes", ColumnType::kF64, "bytes", "the call's message size; null unknown"},
        {"dtype", ColumnType::kString, "", "its element type as recorded"},
        {"host_start_ns", ColumnType::kF64, "ns", "the call's host range, from origin_ns"},
        {"host_end_ns", ColumnType::kF64, "ns", "the call's host range's end, from origin_ns"},
        {"step", ColumnType::kI32, "", "index into the steps of the metadata; -1 outside every step"},
        {"start_ns", ColumnType::kF64, "ns", "this range (a kernel of the call, or its host range), from origin_ns; null: the call has none"},
        {"end_ns", ColumnType::kF64, "ns", "this range's end, from origin_ns"},
    },
    {
        {"worker", "string", "the worker name"},
        {"span", "string", "\"default\" or 1..n"},
        {"tb_plugin", "boolean", "made in tb_plugin's mode (the reduce refuses a mix)"},
        {"rank", "number", "distributedInfo's rank; -1 absent"},
        {"world_size", "number", "distributedInfo's world size; -1 absent"},
        {"backend", "string", "distributedInfo's backend"},
        {"has_device_properties", "boolean", "the trace lists deviceProperties"},
        {"devices", "{ id: number; name: string; memory_bytes: number; compute_capability: string }[]",
         "the GPUs its device work ran on"},
        {"steps", "{ name: string; start_ns: number; end_ns: number; computation_ns: number; communication_ns: number; overlap_ns: number }[]",
         "its steps (absolute ns) with the time covered by computation, by communication and by both"},
        {"has_communication", "boolean", "tb_plugin's Communication role is not empty"},
        {"nccl", "boolean", "NCCL collectives seen"},
        {"gloo", "boolean", "Gloo collectives seen"},
        {"tb_failure", "string", "why tb_plugin fails the whole run on this rank; \"\" none"},
        {"origin_ns", "number", "the row times' origin (the trace's start), ns"},
        {"gpu_time",
         "{ any_work: boolean; overall: Record<string, number | boolean>; steps: Record<string, number | boolean | string>[]; "
         "overlap: Record<string, number> } | null",
         "its trace's GPU time for the run's GPU time table (core/analysis/run_gpu_time.h; times in ns from origin_ns); null "
         "in a summary written without it"},
    },
    {"call", "name", "group", "group_size", "bytes", "dtype", "host_start_ns", "host_end_ns", "step", "start_ns", "end_ns"},
};

Answer distributed_rank_answer(const Session& s, QueryParamsRef params) {
  const std::string_view span = param(params, "span", "default");
  RankSummary r = distributed_rank(s.model(), param(params, "worker"), span.empty() ? "default" : span, s.tb_plugin());
  // The GPU time as `kinetoscope gpu-time` gives it: the default steps, whatever the mode.
  r.gpu_time = s.tb_plugin() ? rank_gpu_time(s.model()) : rank_gpu_time(s.model(), s.steps());
  return rank_summary_answer(r, s.model().start_ns);
}

Answer rank_summary_answer(const RankSummary& r, int64_t origin_ns) {
  size_t rows = 0;
  for (const DistCall& c : r.calls) rows += std::max<size_t>(1, c.ranges.size());
  AnswerBuilder b(kDistributedRankSchema, rows);
  auto text = [](std::string_view v) {
    std::string out;
    append_json_escaped(out, v);
    return out;
  };
  auto flag = [](bool v) { return std::string(v ? "true" : "false"); };
  b.meta("worker", text(r.worker));
  b.meta("span", text(r.span));
  b.meta("tb_plugin", flag(r.tb_plugin));
  b.meta("rank", std::to_string(r.rank));
  b.meta("world_size", std::to_string(r.world_size));
  b.meta("backend", text(r.backend));
  b.meta("has_device_properties", flag(r.has_device_properties));
  {
    JsonWriter w;
    w.begin_array();
    for (const DistDevice& d : r.devices) {
      w.begin_object().key("id").value(d.id).key("name").value(d.name).key("memory_bytes").value(d.memory_bytes);
      w.key("compute_capability").value(d.compute_capability).end_object();
    }
    w.end_array();
    b.meta("devices", w.take());
  }
  {
    JsonWriter w;
    w.begin_array();
    for (const DistStep& s : r.steps) {
      w.begin_object().key("name").value(s.name).key("start_ns").value(s.start_ns).key("end_ns").value(s.end_ns);
      w.key("computation_ns").value(s.computation_ns).key("communication_ns").value(s.communication_ns);
      w.key("overlap_ns").value(s.overlap_ns).end_object();
    }
    w.end_array();
    b.meta("steps", w.take());
  }
  b.meta("has_communication", flag(r.has_communication));
  b.meta("nccl", flag(r.nccl));
  b.meta("gloo", flag(r.gloo));
  b.meta("tb_failure", text(r.tb_failure));
  b.meta("origin_ns", std::to_string(origin_ns));
  b.meta("gpu_time", rank_gpu_time_json(r.gpu_time));
  b.rows_here();
  // A call's fields on each of its rows (a call has one range in most traces: its kernel, or its
  // host range when it launched none); a call without ranges keeps one row with null times.
  auto each = [&](auto&& cell) {
    for (size_t i = 0; i < r.calls.size(); ++i) {
      const DistCall& c = r.calls[i];
      if (c.ranges.empty()) cell(i, c, nullptr);
      for (const Range& x : c.ranges) cell(i, c, &x);
    }
  };
  auto rel = [&](int64_t ns) { return double(ns - origin_ns); };
  AnswerColumn& call = b.add("call");
  each([&](size_t i, const DistCall&, const Range*) { call.i32.push_back(int32_t(i)); });
  AnswerColumn& name = b.add("name");
  each([&](size_t, const DistCall& c, const Range*) { name.str.push_back(b.intern(c.name)); });
  AnswerColumn& group = b.add("group");
  each([&](size_t, const DistCall& c, const Range*) { group.str.push_back(b.intern(c.group)); });
  AnswerColumn& group_size = b.add("group_size");
  each([&](size_t, const DistCall& c, const Range*) {
    group_size.i32.push_back(c.group_size < 0 || c.group_size > INT32_MAX ? kNullI32 : int32_t(c.group_size));
  });
  AnswerColumn& bytes = b.add("bytes");
  each([&](size_t, const DistCall& c, const Range*) { bytes.f64.push_back(c.bytes < 0 ? NAN : double(c.bytes)); });
  AnswerColumn& dtype = b.add("dtype");
  each([&](size_t, const DistCall& c, const Range*) { dtype.str.push_back(b.intern(c.dtype)); });
  AnswerColumn& host_start = b.add("host_start_ns");
  each([&](size_t, const DistCall& c, const Range*) { host_start.f64.push_back(rel(c.host_start_ns)); });
  AnswerColumn& host_end = b.add("host_end_ns");
  each([&](size_t, const DistCall& c, const Range*) { host_end.f64.push_back(rel(c.host_end_ns)); });
  AnswerColumn& step = b.add("step");
  each([&](size_t, const DistCall& c, const Range*) { step.i32.push_back(c.step); });
  AnswerColumn& start = b.add("start_ns");
  each([&](size_t, const DistCall&, const Range* x) { start.f64.push_back(x ? rel(x->start) : NAN); });
  AnswerColumn& end = b.add("end_ns");
  each([&](size_t, const DistCall&, const Range* x) { end.f64.push_back(x ? rel(x->end) : NAN); });
  return b.take();
}

namespace {

namespace dom = simdjson::dom;

bool get_str(dom::object o, const char* k, std::string& out) {
  std::string_view v;
  if (o[k].get_string().get(v)) return false;
  out = std::string(v);
  return true;
}
bool get_i64(dom::object o, const char* k, int64_t& out) { return !o[k].get_int64().get(out); }
bool get_bool(dom::object o, const char* k, bool& out) { return !o[k].get_bool().get(out); }

// A time of the rows back to absolute ns: exact while a trace spans under 2^53 ns (104 days).
// False for what no summary holds (NaN, infinities, beyond a year from the origin).
bool abs_ns(double rel, int64_t origin, int64_t& out) {
  if (!(std::fabs(rel) < 3.2e16)) return false;
  out = origin + int64_t(std::llround(rel));
  return true;
}

}  // namespace

bool rank_summary_from_answer(const Answer& a, RankSummary& r, std::string& error) {
  r = RankSummary{};
  if (a.schema != &kDistributedRankSchema) {
    error = "not a rank summary";
    return false;
  }
  if (!a.error.empty()) {
    error = a.error;
    return false;
  }
  // The metadata as one JSON object, read with the parser the trace reader uses.
  std::string meta = "{";
  for (const auto& [key, value] : a.meta) {
    if (meta.size() > 1) meta += ',';
    append_json_escaped(meta, key);
    meta += ':';
    meta += value;
  }
  meta += '}';
  dom::parser parser;
  dom::element doc;
  dom::object o;
  const simdjson::padded_string text(meta);
  int64_t origin = 0;
  bool ok = !parser.parse(text).get(doc) && !doc.get_object().get(o) && get_str(o, "worker", r.worker) &&
            get_str(o, "span", r.span) && get_bool(o, "tb_plugin", r.tb_plugin) && get_i64(o, "rank", r.rank) &&
            get_i64(o, "world_size", r.world_size) && get_str(o, "backend", r.backend) &&
            get_bool(o, "has_device_properties", r.has_device_properties) &&
            get_bool(o, "has_communication", r.has_communication) && get_bool(o, "nccl", r.nccl) &&
            get_bool(o, "gloo", r.gloo) && get_str(o, "tb_failure", r.tb_failure) && get_i64(o, "origin_ns", origin);
  dom::array devices, steps;
  ok = ok && !o["devices"].get_array().get(devices) && !o["steps"].get_array().get(steps);
  if (ok)
    for (dom::element e : devices) {
      dom::object d;
      DistDevice out;
      ok = ok && !e.get_object().get(d) && get_i64(d, "id", out.id) && get_str(d, "name", out.name) &&
           get_i64(d, "memory_bytes", out.memory_bytes) && get_str(d, "compute_capability", out.compute_capability);
      r.devices.push_back(std::move(out));
    }
  if (ok)
    for (dom::element e : steps) {
      dom::object s;
      DistStep out;
      ok = ok && !e.get_object().get(s) && get_str(s, "name", out.name) && get_i64(s, "start_ns", out.start_ns) &&
           get_i64(s, "end_ns", out.end_ns) && get_i64(s, "computation_ns", out.computation_ns) &&
           get_i64(s, "communication_ns", out.communication_ns) && get_i64(s, "overlap_ns", out.overlap_ns);
      r.steps.push_back(std::move(out));
    }
  if (!ok) {
    error = "a rank summary with a missing or mistyped metadata field";
    r = RankSummary{};
    return false;
  }
  // Its GPU time (absent from the summaries written before it was added: none then).
  for (const auto& [key, value] : a.meta)
    if (key == "gpu_time" && !rank_gpu_time_from_json(value, origin, r.gpu_time, error)) {
      r = RankSummary{};
      return false;
    }
  const AnswerColumn *call = a.column("call"), *name = a.column("name"), *group = a.column("group"),
                     *group_size = a.column("group_size"), *bytes = a.column("bytes"), *dtype = a.column("dtype"),
                     *host_start = a.column("host_start_ns"), *host_end = a.column("host_end_ns"),
                     *step = a.column("step"), *start = a.column("start_ns"), *end = a.column("end_ns");
  if (!call || !name || !group || !group_size || !bytes || !dtype || !host_start || !host_end || !step || !start || !end) {
    error = "a rank summary without one of its columns";
    r = RankSummary{};
    return false;
  }
  auto str = [&](const AnswerColumn* c, size_t row) {
    return c->str[row] == kNullString ? std::string() : a.strings[c->str[row]];
  };
  for (size_t row = 0; row < a.rows; ++row) {
    const int32_t i = call->i32[row];
    auto refuse = [&](const char* sentence) {
      error = std::string("a rank summary ") + sentence + " (row " + std::to_string(row + 1) + ")";
      r = RankSummary{};
      return false;
    };
    const bool next_call = size_t(uint32_t(i)) == r.calls.size();
    if (!next_call && (r.calls.empty() || size_t(uint32_t(i)) != r.calls.size() - 1)) return refuse("whose rows are not in call order");
    if (next_call) {
      DistCall c;
      c.name = str(name, row);
      c.group = str(group, row);
      c.group_size = group_size->i32[row] == kNullI32 ? -1 : group_size->i32[row];
      const double b = bytes->f64[row];
      if (!std::isnan(b) && !(b >= 0 && b < 9.2e18)) return refuse("with a message size that is no size");
      c.bytes = std::isnan(b) ? -1 : int64_t(b);
      c.dtype = str(dtype, row);
      if (!abs_ns(host_start->f64[row], origin, c.host_start_ns) || !abs_ns(host_end->f64[row], origin, c.host_end_ns))
        return refuse("with a call's host range that is no time");
      c.step = step->i32[row];
      if (c.step < -1 || c.step >= int(r.steps.size())) return refuse("with a call in a step it does not have");
      r.calls.push_back(std::move(c));
    }
    if (std::isnan(start->f64[row])) continue;
    Range x;
    if (!abs_ns(start->f64[row], origin, x.start) || !abs_ns(end->f64[row], origin, x.end))
      return refuse("with a time range that is no time");
    r.calls.back().ranges.push_back(x);
  }
  return true;
}

bool rank_summary_from_bytes(std::string_view bytes, RankSummary& r, std::string& error) {
  Answer a;
  return answer_from_bytes(bytes, kDistributedRankSchema, a, error) && rank_summary_from_answer(a, r, error);
}

namespace {
constexpr std::string_view kRankSummaryMagic = "kinetoscope rank summary 1\n";
}  // namespace

std::string rank_summary_file(std::string_view trace_name, const RankSummary& r, int64_t origin_ns) {
  std::string out(kRankSummaryMagic);
  const uint32_t n = uint32_t(trace_name.size());
  for (int i = 0; i < 4; ++i) out += char((n >> (8 * i)) & 0xff);
  out += trace_name;
  out += answer_bytes(rank_summary_answer(r, origin_ns));
  return out;
}

bool read_rank_summary_file(std::string_view bytes, std::string& trace_name, RankSummary& r, std::string& error) {
  if (bytes.substr(0, kRankSummaryMagic.size()) != kRankSummaryMagic) {
    error = "not a rank summary written by kinetoscope rank-summary (or of another version)";
    return false;
  }
  bytes.remove_prefix(kRankSummaryMagic.size());
  if (bytes.size() < 4) {
    error = "the rank summary is cut short";
    return false;
  }
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= uint32_t(uint8_t(bytes[size_t(i)])) << (8 * i);
  bytes.remove_prefix(4);
  if (n > bytes.size() || n > 4096) {
    error = "the rank summary is cut short";
    return false;
  }
  trace_name.assign(bytes.substr(0, n));
  return rank_summary_from_bytes(bytes.substr(n), r, error);
}

}  // namespace ks

// ---------------------------------------------------------------------------------------------
// The reduce: per span of a run, four tables — the workers, their communication operations, the
// stragglers and the collectives — and the metadata (the overlap and wait time keyed by step and
// worker, the matching's notes). The CLI's `distributed --json` line of a span is assembled from
// them (distributed_run_json), the page's Distributed view reads their columns.

namespace ks {

namespace {

constexpr std::string_view kRunViewOnly =
    "the Distributed view is a run's: it reduces the rank summaries (distributed_rank) of the run's traces";

Answer run_view_only(const ViewSchema& schema) {
  return error_answer(schema, std::string(kRunViewOnly));
}

}  // namespace

const ViewSchema kDistributedSchema = {
    "distributed",
    "Distributed",
    "A run's Distributed view, one answer per span of the run (`kinetoscope distributed --json`, one line per span): "
    "a row per worker (tb_plugin's workers by name, the default mode's by declared rank, then name); the overlap of "
    "computation and communication and the wait time of collectives per step and worker in the metadata.",
    {},
    {
        {"worker", ColumnType::kString, "", "the worker name (from the file name)"},
        {"rank", ColumnType::kI32, "", "its declared rank; null absent"},
        {"span", ColumnType::kString, "", "its span: \"default\" or 1..n"},
        {"world_size", ColumnType::kI32, "count", "its declared world size; -1 absent"},
        {"backend", ColumnType::kString, "", "its declared backend"},
        {"node", ColumnType::kString, "", "tb_plugin's node from the worker name"},
        {"process", ColumnType::kString, "", "tb_plugin's process from the worker name"},
    },
    {
        {"span", "string", "the span key: \"default\" or 1..n"},
        {"mode", "'default' | 'tb_plugin'", "how it was computed"},
        {"available", "boolean", "false: no view (tb_plugin's conditions), `reason` says why"},
        {"reason", "string | null", "why there is no view"},
        {"devices", "{ id: number; name: string; memory_bytes: number; compute_capability: string }[][]",
         "each worker's GPUs, in row order"},
        {"steps", "string[]", "the step names, first seen first"},
        {"overlap",
         "Record<string, Record<string, { computation_us: number; overlapping_us: number; communication_us: number; other_us: number }>>",
         "by \"all\" (the steps' mean) or step name, then worker: computation only, both, communication only, other (us)"},
        {"waittime", "Record<string, Record<string, { transfer_us: number; synchronizing_us: number; unmatched_us?: number }>>",
         "by \"all\", step name or \"null\" (calls outside every step), then worker: the collectives' data transfer, "
         "synchronizing and (default mode) unmatched time (us)"},
        {"matching", "{ calls: number; matched: number; notes: string[] }", "collective calls, those matched across the ranks, and where matching stopped"},
    },
    {"worker", "rank", "span", "world_size", "backend", "node", "process"},
    "workers",
};

const ViewSchema kDistributedCommopsSchema = {
    "distributed_commops",
    "DistributedCommops",
    "A run's communication operations per worker and collective name (first call first), one answer per span; "
    "empty when the view is not available.",
    {},
    {
        {"worker", ColumnType::kString, "", "the worker"},
        {"name", ColumnType::kString, "", "the collective"},
        {"calls", ColumnType::kCount, "count", "its calls on the worker"},
        {"total_bytes", ColumnType::kCount, "bytes", "their message sizes, summed (unknown sizes as 0)"},
        {"avg_bytes", ColumnType::kF64, "bytes", "per call (tb_plugin mode: rounded)"},
        {"total_latency_us", ColumnType::kF64, "us", "the union of their time ranges"},
        {"avg_latency_us", ColumnType::kF64, "us", "per call"},
        {"transfer_us", ColumnType::kF64, "us", "their data transfer part (matched calls)"},
        {"avg_transfer_us", ColumnType::kF64, "us", "per call"},
    },
    {},
    {"worker", "name", "calls", "total_bytes", "avg_bytes", "total_latency_us", "avg_latency_us", "transfer_us", "avg_transfer_us"},
    "commops",
};

const ViewSchema kDistributedStragglersSchema = {
    "distributed_stragglers",
    "DistributedStragglers",
    "A run's step time per worker: per step (\"all\": each worker's mean step time) the slowest worker and its distance "
    "from the median, one answer per span.",
    {},
    {
        {"step", ColumnType::kString, "", "\"all\" or a step name"},
        {"median_us", ColumnType::kF64, "us", "the median over the workers that have the step"},
        {"slowest_worker", ColumnType::kString, "", "the slowest worker"},
        {"slowest_rank", ColumnType::kI32, "", "its declared rank; null absent"},
        {"slowest_us", ColumnType::kF64, "us", "its step time"},
        {"behind_median_us", ColumnType::kF64, "us", "slowest minus median"},
        {"behind_median_pct", ColumnType::kF64, "percent", "of the median; null when the median is 0"},
    },
    {{"times_us", "Record<string, number>[]", "per row, each worker's step time (us) by worker name"}},
    {"step", "median_us", "slowest_worker", "slowest_rank", "slowest_us", "behind_median_us", "behind_median_pct"},
    "stragglers",
};

const ViewSchema kDistributedCollectivesSchema = {
    "distributed_collectives",
    "DistributedCollectives",
    "A run's collectives by process group, name and message size over all workers, longest total first, one answer "
    "per span.",
    {},
    {
        {"process_group", ColumnType::kString, "", "its ranks as written (\"[0, 1]\"), or its name; \"\" unknown"},
        {"group_size", ColumnType::kI32, "count", "ranks in the group; null unknown"},
        {"name", ColumnType::kString, "", "the collective"},
        {"bytes", ColumnType::kF64, "bytes", "the message size; null unknown"},
        {"calls", ColumnType::kCount, "count", "calls over all workers"},
        {"workers", ColumnType::kCount, "count", "workers that made them"},
        {"total_us", ColumnType::kF64, "us", "their time, summed over the workers"},
        {"avg_us", ColumnType::kF64, "us", "per call"},
        {"transfer_us", ColumnType::kF64, "us", "the data transfer part of the matched calls"},
    },
    {},
    {"process_group", "group_size", "name", "bytes", "calls", "workers", "total_us", "avg_us", "transfer_us"},
    "collectives",
};

Answer distributed_answer(const Session&, QueryParamsRef) { return run_view_only(kDistributedSchema); }
Answer distributed_commops_answer(const Session&, QueryParamsRef) { return run_view_only(kDistributedCommopsSchema); }
Answer distributed_stragglers_answer(const Session&, QueryParamsRef) { return run_view_only(kDistributedStragglersSchema); }
Answer distributed_collectives_answer(const Session&, QueryParamsRef) { return run_view_only(kDistributedCollectivesSchema); }

namespace {

std::string json_text(std::string_view v) {
  std::string out;
  append_json_escaped(out, v);
  return out;
}

int32_t i32_or_null(int64_t v) { return v < 0 || v > INT32_MAX ? kNullI32 : int32_t(v); }

DistributedSpanAnswers span_answers(const DistributedSpan& s) {
  DistributedSpanAnswers out;
  const std::vector<DistWorker>& wk = s.workers;
  {
    AnswerBuilder b(kDistributedSchema, wk.size());
    b.meta("span", json_text(s.span));
    b.meta("mode", s.tb_plugin ? "\"tb_plugin\"" : "\"default\"");
    b.meta("available", s.available ? "true" : "false");
    b.meta("reason", s.available ? "null" : json_text(s.reason));
    b.rows_here();
    {
      JsonWriter w;
      w.begin_array();
      for (const DistWorker& x : wk) {
        w.begin_array();
        for (const DistDevice& d : x.devices) {
          w.begin_object().key("id").value(d.id).key("name").value(d.name).key("memory_bytes").value(d.memory_bytes);
          w.key("compute_capability").value(d.compute_capability).end_object();
        }
        w.end_array();
      }
      w.end_array();
      b.meta("devices", w.take());
    }
    {
      JsonWriter w;
      w.begin_array();
      for (const std::string& name : s.steps) w.value(name);
      w.end_array();
      b.meta("steps", w.take());
    }
    {
      JsonWriter w;
      w.begin_object();
      for (const auto& [key, per] : s.overlap) {
        w.key(key).begin_object();
        for (const auto& [i, o] : per) {
          w.key(wk[i].worker).begin_object().key("computation_us").value(o.computation_us).key("overlapping_us").value(o.overlapping_us);
          w.key("communication_us").value(o.communication_us).key("other_us").value(o.other_us).end_object();
        }
        w.end_object();
      }
      w.end_object();
      b.meta("overlap", w.take());
    }
    {
      JsonWriter w;
      w.begin_object();
      for (const auto& [key, per] : s.waittime) {
        w.key(key).begin_object();
        for (const auto& [i, t] : per) {
          w.key(wk[i].worker).begin_object().key("transfer_us").value(t.transfer_us).key("synchronizing_us").value(t.synchronizing_us);
          if (!s.tb_plugin) w.key("unmatched_us").value(t.unmatched_us);
          w.end_object();
        }
        w.end_object();
      }
      w.end_object();
      b.meta("waittime", w.take());
    }
    {
      JsonWriter w;
      w.begin_object().key("calls").value(s.calls).key("matched").value(s.matched).key("notes").begin_array();
      for (const std::string& n : s.notes) w.value(n);
      w.end_array().end_object();
      b.meta("matching", w.take());
    }
    AnswerColumn& worker = b.add("worker");
    for (const DistWorker& x : wk) worker.str.push_back(b.intern(x.worker));
    AnswerColumn& rank = b.add("rank");
    for (const DistWorker& x : wk) rank.i32.push_back(i32_or_null(x.rank));
    AnswerColumn& span = b.add("span");
    for (const DistWorker& x : wk) span.str.push_back(b.intern(x.span));
    AnswerColumn& world = b.add("world_size");
    for (const DistWorker& x : wk) world.i32.push_back(int32_t(std::clamp<int64_t>(x.world_size, -1, INT32_MAX)));
    AnswerColumn& backend = b.add("backend");
    for (const DistWorker& x : wk) backend.str.push_back(b.intern(x.backend));
    AnswerColumn& node = b.add("node");
    for (const DistWorker& x : wk) node.str.push_back(b.intern(x.node));
    AnswerColumn& process = b.add("process");
    for (const DistWorker& x : wk) process.str.push_back(b.intern(x.process));
    out.workers = b.take();
  }
  {
    size_t rows = 0;
    for (const DistWorker& x : wk) rows += x.commops.size();
    AnswerBuilder b(kDistributedCommopsSchema, rows);
    b.rows_here();
    auto each = [&](auto&& cell) {
      for (const DistWorker& x : wk)
        for (const DistCommOp& o : x.commops) cell(x, o);
    };
    AnswerColumn& worker = b.add("worker");
    each([&](const DistWorker& x, const DistCommOp&) { worker.str.push_back(b.intern(x.worker)); });
    AnswerColumn& name = b.add("name");
    each([&](const DistWorker&, const DistCommOp& o) { name.str.push_back(b.intern(o.name)); });
    auto number = [&](std::string_view col, auto value) {
      AnswerColumn& c = b.add(col);
      each([&](const DistWorker&, const DistCommOp& o) { c.f64.push_back(value(o)); });
    };
    number("calls", [](const DistCommOp& o) { return double(o.calls); });
    number("total_bytes", [](const DistCommOp& o) { return double(o.total_bytes); });
    number("avg_bytes", [](const DistCommOp& o) { return o.avg_bytes; });
    number("total_latency_us", [](const DistCommOp& o) { return o.total_latency_us; });
    number("avg_latency_us", [](const DistCommOp& o) { return o.avg_latency_us; });
    number("transfer_us", [](const DistCommOp& o) { return o.transfer_us; });
    number("avg_transfer_us", [](const DistCommOp& o) { return o.avg_transfer_us; });
    out.commops = b.take();
  }
  {
    AnswerBuilder b(kDistributedStragglersSchema, s.stragglers.size());
    b.rows_here();
    {
      JsonWriter w;
      w.begin_array();
      for (const DistStraggler& x : s.stragglers) {
        w.begin_object();
        for (const auto& [i, t] : x.times_us) w.key(wk[i].worker).value(t);
        w.end_object();
      }
      w.end_array();
      b.meta("times_us", w.take());
    }
    AnswerColumn& step = b.add("step");
    for (const DistStraggler& x : s.stragglers) step.str.push_back(b.intern(x.step));
    AnswerColumn& median = b.add("median_us");
    for (const DistStraggler& x : s.stragglers) median.f64.push_back(x.median_us);
    AnswerColumn& slowest = b.add("slowest_worker");
    for (const DistStraggler& x : s.stragglers) slowest.str.push_back(b.intern(wk[x.slowest].worker));
    AnswerColumn& rank = b.add("slowest_rank");
    for (const DistStraggler& x : s.stragglers) rank.i32.push_back(i32_or_null(wk[x.slowest].rank));
    AnswerColumn& slowest_us = b.add("slowest_us");
    for (const DistStraggler& x : s.stragglers) slowest_us.f64.push_back(x.slowest_us);
    AnswerColumn& behind = b.add("behind_median_us");
    for (const DistStraggler& x : s.stragglers) behind.f64.push_back(x.behind_median_us);
    AnswerColumn& pct = b.add("behind_median_pct");
    for (const DistStraggler& x : s.stragglers) pct.f64.push_back(x.behind_median_pct);
    out.stragglers = b.take();
  }
  {
    AnswerBuilder b(kDistributedCollectivesSchema, s.collectives.size());
    b.rows_here();
    const std::vector<DistCollective>& cs = s.collectives;
    AnswerColumn& group = b.add("process_group");
    for (const DistCollective& c : cs) group.str.push_back(b.intern(c.process_group));
    AnswerColumn& size = b.add("group_size");
    for (const DistCollective& c : cs) size.i32.push_back(i32_or_null(c.group_size));
    AnswerColumn& name = b.add("name");
    for (const DistCollective& c : cs) name.str.push_back(b.intern(c.name));
    AnswerColumn& bytes = b.add("bytes");
    for (const DistCollective& c : cs) bytes.f64.push_back(c.bytes < 0 ? NAN : double(c.bytes));
    AnswerColumn& calls = b.add("calls");
    for (const DistCollective& c : cs) calls.f64.push_back(double(c.calls));
    AnswerColumn& workers = b.add("workers");
    for (const DistCollective& c : cs) workers.f64.push_back(double(c.workers));
    AnswerColumn& total = b.add("total_us");
    for (const DistCollective& c : cs) total.f64.push_back(c.total_us);
    AnswerColumn& avg = b.add("avg_us");
    for (const DistCollective& c : cs) avg.f64.push_back(c.avg_us);
    AnswerColumn& transfer = b.add("transfer_us");
    for (const DistCollective& c : cs) transfer.f64.push_back(c.transfer_us);
    out.collectives = b.take();
  }
  return out;
}

std::string_view meta_of(const Answer& a, std::string_view key) {
  for (const auto& [k, v] : a.meta)
    if (k == key) return v;
  return "null";
}

std::string str_cell(const Answer& a, std::string_view col, size_t row) {
  const AnswerColumn* c = a.column(col);
  return c && c->str[row] != kNullString ? a.strings[c->str[row]] : std::string();
}

double f64_cell(const Answer& a, std::string_view col, size_t row) {
  const AnswerColumn* c = a.column(col);
  return c ? c->f64[row] : NAN;
}

int32_t i32_cell(const Answer& a, std::string_view col, size_t row) {
  const AnswerColumn* c = a.column(col);
  return c ? c->i32[row] : kNullI32;
}

// The elements of a JSON array (a metadata value with one element per row) as their texts:
// split at the commas between them, strings skipped.
std::vector<std::string_view> array_items(std::string_view json) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool in_string = false;
  size_t start = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    const char ch = json[i];
    if (in_string) {
      if (ch == '\\') ++i;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == '[' || ch == '{') {
      if (depth++ == 0 && ch == '[') start = i + 1;
    } else if (ch == ']' || ch == '}') {
      if (--depth == 0 && i > start && ch == ']') out.push_back(json.substr(start, i - start));
    } else if (ch == ',' && depth == 1) {
      out.push_back(json.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

DistributedRunAnswers distributed_run_answers(const std::vector<RankSummary>& ranks, bool tb_plugin) {
  DistributedRunAnswers out;
  const DistributedRun run = distributed_reduce(ranks, tb_plugin);
  out.error = run.error;
  for (const DistributedSpan& s : run.spans) {
    out.spans.push_back(span_answers(s));
    out.spans.back().gpu_time = run_gpu_time_answer(s, ranks);
  }
  return out;
}

DistributedRunAnswers distributed_run_answers(const std::vector<std::string_view>& summaries, bool tb_plugin) {
  std::vector<RankSummary> ranks(summaries.size());
  for (size_t i = 0; i < summaries.size(); ++i) {
    std::string error;
    if (!rank_summary_from_bytes(summaries[i], ranks[i], error)) {
      DistributedRunAnswers out;
      out.error = "rank summary " + std::to_string(i + 1) + ": " + error;
      return out;
    }
  }
  return distributed_run_answers(ranks, tb_plugin);
}

std::string distributed_run_json(const DistributedRunAnswers& run) {
  if (!run.error.empty()) return error_json(run.error) + "\n";
  std::string out;
  for (const DistributedSpanAnswers& s : run.spans) {
    const Answer& wk = s.workers;
    // The metadata values are JSON texts already: the object is assembled around them.
    std::string line = "{\"span\":";
    line += meta_of(wk, "span");
    line += ",\"mode\":";
    line += meta_of(wk, "mode");
    line += ",\"available\":";
    line += meta_of(wk, "available");
    line += ",\"reason\":";
    line += meta_of(wk, "reason");
    line += ",\"workers\":[";
    {
      const std::vector<std::string_view> devices = array_items(meta_of(wk, "devices"));
      for (size_t r = 0; r < wk.rows; ++r) {
        JsonWriter w;
        w.begin_object().key("worker").value(str_cell(wk, "worker", r));
        const int32_t rank = i32_cell(wk, "rank", r);
        if (rank == kNullI32) w.key("rank").null();
        else w.key("rank").value(int64_t(rank));
        w.key("span").value(str_cell(wk, "span", r)).key("world_size").value(int64_t(i32_cell(wk, "world_size", r)));
        w.key("backend").value(str_cell(wk, "backend", r)).key("node").value(str_cell(wk, "node", r));
        w.key("process").value(str_cell(wk, "process", r)).key("devices");
        if (r) line += ',';
        line += w.take();
        line += r < devices.size() ? devices[r] : std::string_view("[]");
        line += '}';
      }
    }
    line += ']';
    line += ",\"steps\":";
    line += meta_of(wk, "steps");
    line += ",\"overlap\":";
    line += meta_of(wk, "overlap");
    line += ",\"waittime\":";
    line += meta_of(wk, "waittime");
    line += ",\"commops\":";
    {
      JsonWriter w;
      w.begin_object();
      if (meta_of(wk, "available") == "true") {
        const Answer& ops = s.commops;
        size_t r = 0;
        for (size_t k = 0; k < wk.rows; ++k) {
          const std::string worker = str_cell(wk, "worker", k);
          w.key(worker).begin_array();
          for (; r < ops.rows && str_cell(ops, "worker", r) == worker; ++r) {
            w.begin_object().key("name").value(str_cell(ops, "name", r));
            w.key("calls").value(int64_t(f64_cell(ops, "calls", r))).key("total_bytes").value(int64_t(f64_cell(ops, "total_bytes", r)));
            w.key("avg_bytes").value(f64_cell(ops, "avg_bytes", r)).key("total_latency_us").value(f64_cell(ops, "total_latency_us", r));
            w.key("avg_latency_us").value(f64_cell(ops, "avg_latency_us", r)).key("transfer_us").value(f64_cell(ops, "transfer_us", r));
            w.key("avg_transfer_us").value(f64_cell(ops, "avg_transfer_us", r)).end_object();
          }
          w.end_array();
        }
      }
      w.end_object();
      line += w.take();
    }
    line += ",\"stragglers\":[";
    {
      const Answer& st = s.stragglers;
      const std::vector<std::string_view> times = array_items(meta_of(st, "times_us"));
      for (size_t r = 0; r < st.rows; ++r) {
        JsonWriter w;
        w.begin_object().key("step").value(str_cell(st, "step", r)).key("median_us").value(f64_cell(st, "median_us", r));
        w.key("slowest_worker").value(str_cell(st, "slowest_worker", r));
        const int32_t rank = i32_cell(st, "slowest_rank", r);
        if (rank == kNullI32) w.key("slowest_rank").null();
        else w.key("slowest_rank").value(int64_t(rank));
        w.key("slowest_us").value(f64_cell(st, "slowest_us", r)).key("behind_median_us").value(f64_cell(st, "behind_median_us", r));
        w.key("behind_median_pct").value(f64_cell(st, "behind_median_pct", r));
        if (r) line += ',';
        line += w.take();
        line += ",\"times_us\":";
        line += r < times.size() ? times[r] : std::string_view("{}");
        line += '}';
      }
    }
    line += "],\"collectives\":";
    {
      const Answer& c = s.collectives;
      JsonWriter w;
      w.begin_array();
      for (size_t r = 0; r < c.rows; ++r) {
        w.begin_object().key("process_group").value(str_cell(c, "process_group", r));
        const int32_t size = i32_cell(c, "group_size", r);
        if (size == kNullI32) w.key("group_size").null();
        else w.key("group_size").value(int64_t(size));
        w.key("name").value(str_cell(c, "name", r));
        const double bytes = f64_cell(c, "bytes", r);
        if (std::isnan(bytes)) w.key("bytes").null();
        else w.key("bytes").value(int64_t(bytes));
        w.key("calls").value(int64_t(f64_cell(c, "calls", r))).key("workers").value(uint64_t(f64_cell(c, "workers", r)));
        w.key("total_us").value(f64_cell(c, "total_us", r)).key("avg_us").value(f64_cell(c, "avg_us", r));
        w.key("transfer_us").value(f64_cell(c, "transfer_us", r)).end_object();
      }
      w.end_array();
      line += w.take();
    }
    line += ",\"matching\":";
    line += meta_of(wk, "matching");
    line += "}\n";
    out += line;
  }
  return out;
}

}  // namespace ks
