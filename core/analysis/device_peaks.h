// Dense peak throughput per device and precision, and memory bandwidth, from the vendors'
// datasheets (docs/flops.md lists every row with its source). Dense only: where a datasheet gives
// the 2:4-sparse figure (NVIDIA's Hopper/Ada/Blackwell tables, AMD's MI300 table mark it), the row
// holds half of it; tools that took the sparse figure report half the real MFU.
//
// Which row a trace's GPU is: by its deviceProperties (name first, then SM/CU count and memory,
// which tell SXM from PCIe and 40 from 80 GB where the name does not).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/analysis/flops.h"
#include "core/trace/trace_model.h"

namespace ks {

struct DevicePeak {
  std::string_view id;      // "h100-sxm": what --peak and the page's picker name it by
  std::string_view name;    // "NVIDIA H100 SXM5 80GB"
  // Dense TFLOP/s (INT8: TOPS); NaN where the device has no such unit (V100's BF16, A100's FP8).
  double fp32 = 0, tf32 = 0, bf16 = 0, fp16 = 0, fp8 = 0, int8 = 0;
  double memory_gbs = 0;    // GB/s
  std::string_view source;  // the datasheet, and how the dense figure was read from it
};

// Every row, in the table's order.
std::span<const DevicePeak> device_peaks();
const DevicePeak* device_peak(std::string_view id);  // null: no such id

// The row of a trace's GPU, or null; `why` says which properties chose it, or why none did.
const DevicePeak* match_device_peak(const DeviceInfo& d, std::string& why);

// The row a view measures against: row `id` when given (`why` says it was chosen), else the one
// matched from the first GPU's deviceProperties (null when none matches, or the trace records no
// GPU). False with `error` set when `id` names no row (the sentence lists the rows).
bool chosen_peak(const TraceModel& m, std::string_view id, const DevicePeak*& out, std::string& why, std::string& error);

// The peak against which `dtype` is measured (fp8 e4m3 and e5m2 both FP8; fp64 and unknown: NaN).
double peak_tflops(const DevicePeak& p, FlopDtype dtype);

}  // namespace ks
