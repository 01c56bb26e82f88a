// The peak table as a view (issue 25): every row of core/analysis/device_peaks.h, and the one
// matched from the trace's deviceProperties, for the page's peak picker (the CLI's --peak).
#include <cmath>

#include "core/analysis/device_peaks.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kDevicePeaksSchema = {
    "device_peaks",
    "DevicePeaks",
    "The dense peak table (docs/flops.md): per device row its dense TFLOP/s per precision, memory bandwidth and "
    "source, and which row the trace's GPU matched. Rows: the table's order.",
    {},
    {
        {"id", ColumnType::kString, "", "the row's name for --peak and the peak parameter (h100-sxm, ...)"},
        {"name", ColumnType::kString, "", "the device (NVIDIA H100 SXM5 80GB, ...)"},
        {"fp32", ColumnType::kF64, "TFLOP/s", "vector FP32 (null: no such unit)"},
        {"tf32", ColumnType::kF64, "TFLOP/s", "TF32 Tensor Cores, dense"},
        {"bf16", ColumnType::kF64, "TFLOP/s", "BF16 Tensor/Matrix Cores, dense"},
        {"fp16", ColumnType::kF64, "TFLOP/s", "FP16 Tensor/Matrix Cores, dense"},
        {"fp8", ColumnType::kF64, "TFLOP/s", "FP8 Tensor/Matrix Cores, dense"},
        {"int8", ColumnType::kF64, "TOPS", "INT8, dense"},
        {"memory_gbs", ColumnType::kF64, "GB/s", "memory bandwidth"},
        {"source", ColumnType::kString, "", "the datasheet, and how the dense figure was read from it"},
    },
    {
        {"matched_row", "string | null", "the row matched from the first GPU's deviceProperties (null: none matched, or no GPU)"},
        {"matched_by", "string", "which properties chose it, or why none did (\"\" without a GPU)"},
    },
    {"id", "name", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "memory_gbs", "source"},
};

Answer device_peaks_answer(const Session& s, QueryParamsRef) {
  const TraceModel& m = s.model();
  std::string why;
  const DevicePeak* matched = m.devices.empty() ? nullptr : match_device_peak(m.devices.front(), why);
  const std::span<const DevicePeak> rows = device_peaks();
  AnswerBuilder b(kDevicePeaksSchema, rows.size());
  b.rows_here();
  {
    JsonWriter w;
    if (matched) w.value(matched->id);
    else w.null();
    b.meta("matched_row", w.take());
    JsonWriter x;
    x.value(why);
    b.meta("matched_by", x.take());
  }
  AnswerColumn& id = b.add("id");
  AnswerColumn& name = b.add("name");
  for (const DevicePeak& p : rows) {
    id.str.push_back(b.intern(p.id));
    name.str.push_back(b.intern(p.name));
  }
  for (const auto& [col, field] : {std::pair<const char*, double DevicePeak::*>{"fp32", &DevicePeak::fp32},
                                   {"tf32", &DevicePeak::tf32},
                                   {"bf16", &DevicePeak::bf16},
                                   {"fp16", &DevicePeak::fp16},
                                   {"fp8", &DevicePeak::fp8},
                                   {"int8", &DevicePeak::int8},
                                   {"memory_gbs", &DevicePeak::memory_gbs}}) {
    AnswerColumn& c = b.add(col);
    for (const DevicePeak& p : rows) c.f64.push_back(p.*field);
  }
  AnswerColumn& source = b.add("source");
  for (const DevicePeak& p : rows) source.str.push_back(b.intern(p.source));
  return b.take();
}

}  // namespace ks
