// The FLOPs view's schema and answer (issue 25): the counted operators (core/analysis/flops.h)
// grouped by name and dtype, each step's FLOPs, achieved TFLOP/s and MFU against the device's
// dense peak (core/analysis/device_peaks.h), and how much of the kernel time the counted calls
// cover. `kinetoscope flops --json` prints it.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/analysis/device_peaks.h"
#include "core/analysis/flops.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kFlopsSchema = {
    "flops",
    "Flops",
    "FLOPs counted from the operators' recorded shapes with torch.utils.flop_counter's formulas (docs/flops.md), "
    "grouped by operator and dtype, with bytes moved, arithmetic intensity, achieved TFLOP/s over their device time "
    "and its share of the device's dense peak; per step its FLOPs, TFLOP/s and MFU (`kinetoscope flops --json`). "
    "Rows: FLOPs descending. A trace recorded without shapes has no rows and null numbers, with `note` saying why.",
    {{"file", "the name the answer gives the file (its `file`); absent: \"\""},
     {"step", "a step's name as the steps view lists it: only the work that step issued; absent: the whole trace"},
     {"peak", "a row of the peak table (docs/flops.md: h100-sxm, a100-sxm-80gb, ...) instead of the one matched from "
              "the trace's deviceProperties"}},
    {
        {"name", ColumnType::kString, "", "the operator's name (a call inside another counted call is not counted again)"},
        {"calls", ColumnType::kCount, "count", "counted calls"},
        {"dtype", ColumnType::kString, "", "the precision of its operands: fp32, tf32 (fp32 whose kernels ran on Tensor Cores), bf16, fp16, fp8_e4m3, fp8_e5m2, int8, fp64, unknown"},
        {"flops", ColumnType::kCount, "flop", "floating-point operations (a multiply-add is 2), summed over the calls"},
        {"bytes", ColumnType::kCount, "bytes", "tensor inputs read and results written, at their element sizes, summed"},
        {"device_us", ColumnType::kF64, "us", "the calls' device time (their kernels, as the Operators view's device total)"},
        {"tflops_per_s", ColumnType::kF64, "TFLOP/s", "flops over device time (null without device time)"},
        {"pct_of_peak", ColumnType::kF64, "percent", "tflops_per_s as a share of the device's dense peak for its dtype (null: no peak)"},
        {"intensity", ColumnType::kF64, "flop/byte", "arithmetic intensity: flops over bytes"},
    },
    {
        {"file", "string", "the file's name (the `file` parameter)"},
        {"device",
         "{ name: string; peak_row: string | null; peak_name: string | null; matched_by: string; peaks_tflops: { fp32: "
         "number | null; tf32: number | null; bf16: number | null; fp16: number | null; fp8: number | null; int8: number "
         "| null } | null; memory_bandwidth_gbs: number | null } | null",
         "the GPU the numbers are measured against and its dense peaks (null: the trace records no GPU)"},
        {"steps",
         "{ step: string; duration_us: number; flops: number | null; tflops_per_s: number | null; mfu_pct: number | "
         "null; mfu_dtype: string | null }[]",
         "per step: its duration, counted FLOPs, achieved TFLOP/s and MFU against the peak of the dtype carrying most "
         "of its FLOPs (null: no shapes, or no peak)"},
        {"average", "{ duration_us: number; flops: number | null; tflops_per_s: number | null; mfu_pct: number | null; mfu_dtype: string | null } | null",
         "the same over the steps: mean duration and FLOPs, total FLOPs over total time (null without steps)"},
        {"coverage", "{ counted_device_us: number; kernel_us: number; pct: number | null } | null",
         "the counted calls' device time against all kernel time (in the chosen step): \"counted ops: pct % of kernel time\""},
        {"uncounted", "{ no_shapes: number; no_concrete_inputs: number; bad_shapes: number }",
         "calls of operators with a formula that could not be counted, by why"},
        {"note", "string | null", "why numbers are missing: no shapes recorded, no GPU, no peak for the device"},
    },
    {"name", "dtype", "calls", "flops", "bytes", "device_us", "tflops_per_s", "pct_of_peak", "intensity"},
    "operators",
};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number (a whole one without exponent: FLOPs read 2147483648, not 2.147483648e+09), or null.
void number_or_null(JsonWriter& w, double v) {
  if (!std::isfinite(v)) w.null();
  else if (v == std::floor(v) && std::fabs(v) < 9e15) w.value(int64_t(v));
  else w.value(v);
}

// The peak of the dtype carrying most of `by_dtype`'s FLOPs (its word in `dtype`).
double dominant_peak(const std::map<FlopDtype, double>& by_dtype, const DevicePeak* peak, std::string& dtype) {
  FlopDtype best = FlopDtype::kUnknown;
  double most = -1;
  for (const auto& [d, f] : by_dtype)
    if (f > most) most = f, best = d;
  dtype = most > 0 ? std::string(flop_dtype_word(best)) : std::string();
  return peak && most > 0 ? peak_tflops(*peak, best) : kNaN;
}

struct StepFlops {
  std::string name;
  double duration_us = 0;
  double flops = 0;
  std::map<FlopDtype, double> by_dtype;
};

void step_json(JsonWriter& w, std::string_view name, double duration_us, double flops, const std::map<FlopDtype, double>& by_dtype,
               bool shapes, const DevicePeak* peak, bool with_name) {
  w.begin_object();
  if (with_name) w.key("step").value(name);
  w.key("duration_us");
  number_or_null(w, duration_us);
  w.key("flops");
  number_or_null(w, shapes ? flops : kNaN);
  const double tflops = shapes && duration_us > 0 ? flops / duration_us / 1e6 : kNaN;
  w.key("tflops_per_s");
  number_or_null(w, tflops);
  std::string dtype;
  const double p = shapes ? dominant_peak(by_dtype, peak, dtype) : kNaN;
  w.key("mfu_pct");
  number_or_null(w, p > 0 ? tflops / p * 100 : kNaN);
  w.key("mfu_dtype");
  if (dtype.empty()) w.null();
  else w.value(dtype);
  w.end_object();
}

}  // namespace

std::string flops_device_json(const TraceModel& m, const DevicePeak* peak, std::string_view matched_by) {
  JsonWriter w;
  if (m.devices.empty() && !peak) {
    w.null();
  } else {
    w.begin_object();
    w.key("name").value(m.devices.empty() ? std::string_view() : std::string_view(m.devices.front().name));
    w.key("peak_row");
    if (peak) w.value(peak->id);
    else w.null();
    w.key("peak_name");
    if (peak) w.value(peak->name);
    else w.null();
    w.key("matched_by").value(matched_by);
    w.key("peaks_tflops");
    if (peak) {
      w.begin_object();
      for (const auto& [k, v] : {std::pair<const char*, double>{"fp32", peak->fp32}, {"tf32", peak->tf32}, {"bf16", peak->bf16},
                                 {"fp16", peak->fp16}, {"fp8", peak->fp8}, {"int8", peak->int8}}) {
        w.key(k);
        number_or_null(w, v);
      }
      w.end_object();
    } else {
      w.null();
    }
    w.key("memory_bandwidth_gbs");
    number_or_null(w, peak ? peak->memory_gbs : kNaN);
    w.end_object();
  }
  return w.take();
}

Answer flops_answer(const Session& s, QueryParamsRef params) {
  std::optional<StepFilter> step;
  std::string error;
  if (!s.step_filter(param(params, "step"), step, error)) return error_answer(kFlopsSchema, error);
  const TraceModel& m = s.model();
  // The device: the --peak row, or the one matched from the first GPU's deviceProperties.
  const DevicePeak* peak = nullptr;
  std::string matched_by, note;
  if (!chosen_peak(m, param(params, "peak"), peak, matched_by, error)) return error_answer(kFlopsSchema, error);

  const FlopsResult& fr = s.flops();
  const bool shapes = fr.has_shapes;
  const StepAttribution* attribution = nullptr;
  const StepsResult& steps = s.steps();
  if (!steps.steps.empty()) attribution = &s.attribution();

  // Operator groups (name, dtype) over the chosen step's calls, or all.
  struct Group {
    uint64_t calls = 0;
    double flops = 0, bytes = 0, device_ns = 0;
  };
  std::map<std::pair<std::string_view, FlopDtype>, Group> groups;
  std::vector<StepFlops> per_step(steps.steps.size());
  double counted_device_ns = 0;
  for (const FlopCall& c : fr.calls) {
    const int32_t si = attribution ? attribution->node[size_t(c.node)] : -1;
    if (si >= 0) {
      per_step[size_t(si)].flops += double(c.count.flops);
      per_step[size_t(si)].by_dtype[c.count.dtype] += double(c.count.flops);
    }
    if (step && !step->has_node(c.node)) continue;
    Group& g = groups[{m.strings.get(c.name), c.count.dtype}];
    ++g.calls;
    g.flops += double(c.count.flops);
    g.bytes += double(c.count.bytes);
    g.device_ns += double(c.device_ns);
    counted_device_ns += double(c.device_ns);
  }
  double kernel_ns = 0;
  for (size_t k = 0; k < m.kernels.size(); ++k)
    if (!step || step->has_kernel(uint32_t(k))) kernel_ns += double(m.dur_ns(m.kernels[k].s));

  std::vector<std::pair<std::pair<std::string_view, FlopDtype>, Group>> rows(groups.begin(), groups.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.flops > b.second.flops; });

  if (!shapes) {
    note = "recorded without record_shapes=True: no operator has Input Dims, so no FLOPs are counted";
  } else if (fr.calls.empty()) {
    note = "no operator with a FLOPs formula (docs/flops.md) was recorded with its shapes, so 0 FLOPs are counted (a "
           "compiled region or a CUDA graph replay, for one, hides its matmuls from the profiler)";
  } else if (m.devices.empty() && !peak) {
    note = "the trace records no GPU (no deviceProperties): FLOPs and TFLOP/s are shown, MFU is not";
  } else if (!peak) {
    note = matched_by + ": FLOPs and TFLOP/s are shown, MFU is not (choose a row with --peak)";
  }

  AnswerBuilder b(kFlopsSchema, rows.size());
  {
    JsonWriter w;
    w.value(param(params, "file"));
    b.meta("file", w.take());
  }
  b.meta("device", flops_device_json(m, peak, matched_by));
  {
    JsonWriter w;
    w.begin_array();
    double total_us = 0, total_flops = 0;
    size_t n = 0;
    std::map<FlopDtype, double> all;
    for (size_t i = 0; i < steps.steps.size(); ++i) {
      const Step& st = steps.steps[i];
      if (step && !step->chosen[i]) continue;
      const double us = double(st.end_ns - st.start_ns) / 1e3;
      step_json(w, st.name, us, per_step[i].flops, per_step[i].by_dtype, shapes, peak, true);
      total_us += us;
      total_flops += per_step[i].flops;
      for (const auto& [d, f] : per_step[i].by_dtype) all[d] += f;
      ++n;
    }
    w.end_array();
    b.meta("steps", w.take());
    JsonWriter a;
    if (n) step_json(a, "", total_us / double(n), total_flops / double(n), all, shapes, peak, false);
    else a.null();
    b.meta("average", a.take());
  }
  b.rows_here();
  {
    JsonWriter w;
    if (!shapes) {
      w.null();
    } else {
      w.begin_object();
      w.key("counted_device_us");
      number_or_null(w, counted_device_ns / 1e3);
      w.key("kernel_us");
      number_or_null(w, kernel_ns / 1e3);
      w.key("pct");
      number_or_null(w, kernel_ns > 0 ? counted_device_ns / kernel_ns * 100 : kNaN);
      w.end_object();
    }
    b.meta("coverage", w.take());
  }
  {
    JsonWriter w;
    w.begin_object();
    w.key("no_shapes").value(fr.no_shapes);
    w.key("no_concrete_inputs").value(fr.no_concrete);
    w.key("bad_shapes").value(fr.bad_shapes);
    w.end_object();
    b.meta("uncounted", w.take());
  }
  {
    JsonWriter w;
    if (note.empty()) w.null();
    else w.value(note);
    b.meta("note", w.take());
  }
  AnswerColumn& name = b.add("name");
  AnswerColumn& calls = b.add("calls");
  AnswerColumn& dtype = b.add("dtype");
  AnswerColumn& flops = b.add("flops");
  AnswerColumn& bytes = b.add("bytes");
  AnswerColumn& device_us = b.add("device_us");
  AnswerColumn& tflops = b.add("tflops_per_s");
  AnswerColumn& pct = b.add("pct_of_peak");
  AnswerColumn& intensity = b.add("intensity");
  for (const auto& [key, g] : rows) {
    name.str.push_back(b.intern(key.first));
    calls.f64.push_back(double(g.calls));
    dtype.str.push_back(b.intern(flop_dtype_word(key.second)));
    flops.f64.push_back(g.flops);
    bytes.f64.push_back(g.bytes);
    device_us.f64.push_back(g.device_ns / 1e3);
    const double tf = g.device_ns > 0 ? g.flops / g.device_ns / 1e3 : kNaN;
    tflops.f64.push_back(tf);
    const double p = peak ? peak_tflops(*peak, key.second) : kNaN;
    pct.f64.push_back(std::isfinite(tf) && p > 0 ? tf / p * 100 : kNaN);
    intensity.f64.push_back(g.bytes > 0 ? g.flops / g.bytes : kNaN);
  }
  return b.take();
}

}  // namespace ks
