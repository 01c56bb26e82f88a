// The roofline view (issue 25): the counted operator groups (core/analysis/roofline.h) by
// operator and input shape (or operator) and dtype, each with its arithmetic intensity, achieved
// TFLOP/s, the roof over it at that intensity (the dtype's dense compute peak or the memory
// bandwidth roof, whichever is lower) and a verdict: memory-bound, compute-bound, or far from
// both (overhead or small shapes). The page draws it as a log-log scatter under the device's roofs;
// `kinetoscope roofline --json` prints it.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/device_peaks.h"
#include "core/analysis/roofline.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kRooflineSchema = {
    "roofline",
    "Roofline",
    "The counted operators (docs/flops.md) grouped by operator, input shape and dtype (or operator and dtype), placed "
    "by arithmetic intensity against achieved TFLOP/s under the device's roofs, with the roof at their intensity and a "
    "verdict (`kinetoscope roofline --json`). Rows: device time descending.",
    {{"file", "the name the answer gives the file (its `file`); absent: \"\""},
     {"group_by", "op+shape (default: a row per operator, input shape and dtype, as the Operators view's op+shape rows) or op"},
     {"step", "a step's name as the steps view lists it: only the calls that step issued; absent: the whole trace"},
     {"peak", "a row of the peak table (docs/flops.md) instead of the one matched from the trace's deviceProperties"}},
    {
        {"name", ColumnType::kString, "", "the operator's name"},
        {"input_shape", ColumnType::kString, "", "its Input Dims as the Operators view's op+shape rows write them; null in op grouping"},
        {"dtype", ColumnType::kString, "", "the precision its FLOPs ran at: fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, int8, fp64, unknown"},
        {"calls", ColumnType::kCount, "count", "counted calls"},
        {"flops", ColumnType::kCount, "flop", "their FLOPs"},
        {"bytes", ColumnType::kCount, "bytes", "the bytes they read and write (flops.h)"},
        {"device_us", ColumnType::kF64, "us", "their device time"},
        {"tflops_per_s", ColumnType::kF64, "TFLOP/s", "flops over device time (null without device time)"},
        {"intensity", ColumnType::kF64, "flop/byte", "arithmetic intensity: flops over bytes"},
        {"peak_tflops", ColumnType::kF64, "TFLOP/s", "the device's dense compute peak for the dtype (null: no peak row, or no unit for the dtype)"},
        {"roof_tflops", ColumnType::kF64, "TFLOP/s", "the roof at its intensity: min(peak_tflops, memory bandwidth × intensity)"},
        {"pct_of_roof", ColumnType::kF64, "percent", "tflops_per_s as a share of roof_tflops"},
        {"bound", ColumnType::kString, "", "which roof is the lower at its intensity: memory (left of the ridge point) or compute; null: no roof"},
        {"verdict", ColumnType::kString, "", "memory-bound or compute-bound (at least 50 % of its roof), far from both (below: overhead or small shapes); null: no roof"},
        {"us_per_call", ColumnType::kF64, "us", "device time per call"},
        {"roof_us_per_call", ColumnType::kF64, "us", "what a call would take at its roof: under 10 us, launch and setup costs weigh on it"},
    },
    {
        {"file", "string", "the file's name (the `file` parameter)"},
        {"group_by", "'op+shape' | 'op'", "the grouping of the rows"},
        {"device",
         "{ name: string; peak_row: string | null; peak_name: string | null; matched_by: string; peaks_tflops: { fp32: "
         "number | null; tf32: number | null; bf16: number | null; fp16: number | null; fp8: number | null; int8: number "
         "| null } | null; memory_bandwidth_gbs: number | null } | null",
         "the GPU and the peak row the roofs are drawn from, as the flops view's `device`"},
        {"note", "string | null", "why there are no rows, or no roofs: no shapes recorded, nothing counted, no peak for the device"},
    },
    {"name", "input_shape", "dtype", "calls", "flops", "bytes", "device_us", "tflops_per_s", "intensity", "peak_tflops",
     "roof_tflops", "pct_of_roof", "bound", "verdict", "us_per_call", "roof_us_per_call"},
};

Answer roofline_answer(const Session& s, QueryParamsRef params) {
  const std::string_view group_by = param(params, "group_by", "op+shape");
  if (group_by != "op+shape" && group_by != "op") return error_answer(kRooflineSchema, "unknown group_by: " + std::string(group_by));
  std::optional<StepFilter> step;
  std::string error;
  if (!s.step_filter(param(params, "step"), step, error)) return error_answer(kRooflineSchema, error);
  const TraceModel& m = s.model();
  const DevicePeak* peak = nullptr;
  std::string matched_by;
  if (!chosen_peak(m, param(params, "peak"), peak, matched_by, error)) return error_answer(kRooflineSchema, error);
  const FlopsResult& fr = s.flops();
  std::vector<FlopGroup> groups = flop_groups(fr, s.tree(), m, group_by == "op+shape", step ? &*step : nullptr);
  std::stable_sort(groups.begin(), groups.end(), [](const FlopGroup& a, const FlopGroup& b) { return a.device_ns > b.device_ns; });

  std::string note;
  if (!fr.has_shapes) note = "recorded without record_shapes=True: no operator has Input Dims, so no FLOPs are counted";
  else if (fr.calls.empty()) note = "no operator with a FLOPs formula (docs/flops.md) was recorded with its shapes";
  else if (!peak && m.devices.empty()) note = "the trace records no GPU (no deviceProperties): no roofs to draw (choose a row with --peak)";
  else if (!peak) note = matched_by + ": no roofs to draw (choose a row with --peak)";

  AnswerBuilder b(kRooflineSchema, groups.size());
  {
    JsonWriter w;
    w.value(param(params, "file"));
    b.meta("file", w.take());
    JsonWriter g;
    g.value(group_by);
    b.meta("group_by", g.take());
  }
  b.meta("device", flops_device_json(m, peak, matched_by));
  b.rows_here();
  {
    JsonWriter w;
    if (note.empty()) w.null();
    else w.value(note);
    b.meta("note", w.take());
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool shape = group_by == "op+shape";
  AnswerColumn& name = b.add("name");
  AnswerColumn& input_shape = b.add("input_shape", shape);
  AnswerColumn& dtype = b.add("dtype");
  AnswerColumn& calls = b.add("calls");
  AnswerColumn& flops = b.add("flops");
  AnswerColumn& bytes = b.add("bytes");
  AnswerColumn& device_us = b.add("device_us");
  AnswerColumn& tflops = b.add("tflops_per_s");
  AnswerColumn& intensity = b.add("intensity");
  AnswerColumn& peak_col = b.add("peak_tflops");
  AnswerColumn& roof = b.add("roof_tflops");
  AnswerColumn& pct = b.add("pct_of_roof");
  AnswerColumn& bound = b.add("bound");
  AnswerColumn& verdict = b.add("verdict");
  AnswerColumn& per_call = b.add("us_per_call");
  AnswerColumn& roof_per_call = b.add("roof_us_per_call");
  for (const FlopGroup& g : groups) {
    name.str.push_back(b.intern(m.strings.get(g.name)));
    input_shape.str.push_back(shape ? b.intern(g.input_shape) : kNullString);
    dtype.str.push_back(b.intern(flop_dtype_word(g.dtype)));
    calls.f64.push_back(double(g.calls));
    flops.f64.push_back(g.flops);
    bytes.f64.push_back(g.bytes);
    device_us.f64.push_back(g.device_ns / 1e3);
    tflops.f64.push_back(g.tflops_per_s());
    intensity.f64.push_back(g.intensity());
    const double p = peak ? peak_tflops(*peak, g.dtype) : nan;
    peak_col.f64.push_back(p > 0 ? p : nan);
    const RoofCheck r = roof_check(g.tflops_per_s(), g.intensity(), p, peak ? peak->memory_gbs : nan);
    roof.f64.push_back(r.roof_tflops);
    pct.f64.push_back(r.pct_of_roof);
    const bool judged = r.verdict != RoofVerdict::kNone;
    bound.str.push_back(judged ? b.intern(r.memory_side ? "memory" : "compute") : kNullString);
    verdict.str.push_back(judged ? b.intern(roof_verdict_word(r.verdict)) : kNullString);
    per_call.f64.push_back(g.calls ? g.device_ns / 1e3 / double(g.calls) : nan);
    roof_per_call.f64.push_back(roof_us_per_call(g, r.roof_tflops));
  }
  return b.take();
}

}  // namespace ks
