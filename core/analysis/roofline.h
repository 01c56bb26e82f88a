// The roofline of the counted operators (issue 25): each group of counted calls (operator, input
// shape, dtype) placed by its arithmetic intensity (FLOPs per byte moved, flops.h) against its
// achieved TFLOP/s, under the device's roofs: the dense compute peak of its dtype and the memory
// bandwidth roof (bandwidth × intensity), whichever is lower at its intensity (docs/flops.md
// "Roofline"). A group near its roof is memory-bound (left of the ridge point, where the two roofs
// meet) or compute-bound (right of it); a group far below both spends its time elsewhere: launch
// and setup overhead, or shapes too small to fill the GPU.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/device_peaks.h"
#include "core/analysis/flops.h"
#include "core/analysis/step_scope.h"

namespace ks {

// A group of counted calls: one operator name (and input shape, by_shape), one dtype.
struct FlopGroup {
  StringId name = 0;
  std::string input_shape;  // Python repr of its Input Dims, as the Operators view's op+shape rows ("" unless by_shape)
  FlopDtype dtype = FlopDtype::kUnknown;
  uint64_t calls = 0;
  double flops = 0, bytes = 0, device_ns = 0;
  double tflops_per_s() const;  // NaN without device time
  double intensity() const;     // FLOPs per byte; NaN without bytes
};

// The counted calls (of one step, or all) grouped by name, [input shape,] dtype, in first-call
// order; with by_shape the shape is the Operators view's op+shape key, so a group is one of its rows.
std::vector<FlopGroup> flop_groups(const FlopsResult& fr, const OpTree& t, const TraceModel& m, bool by_shape,
                                   const StepFilter* step = nullptr);

// A kernel that is the only kernel a counted call put on the GPU (its subtree's launches hold
// no other): the Kernels table gives it that call's FLOPs. A call whose work is several kernels
// (attention backward, a split-K GEMM and its reduction) gives none of them any: how its FLOPs
// divide among them is not known.
struct SoleKernel {
  uint32_t kernel = 0;    // its model row
  int32_t launcher = -1;  // the node whose launch put it on the GPU (the props grouping's operator)
  uint32_t call = 0;      // index into FlopsResult::calls
};
std::vector<SoleKernel> sole_kernels(const FlopsResult& fr, const OpTree& t);

// Several dtypes' FLOPs against their peaks in `time_ns`: Σ flops_d / peak_d over the time, as a
// percent (one dtype: TFLOP/s over its peak). NaN when a dtype has no peak or there is no time.
double pct_of_peaks(const std::map<FlopDtype, double>& flops_by_dtype, const DevicePeak& peak, double time_ns);
// The dtypes by FLOPs, most first, joined by "+" ("bf16", "bf16+fp32").
std::string dtype_mix(const std::map<FlopDtype, double>& flops_by_dtype);

enum class RoofVerdict : uint8_t { kNone, kMemoryBound, kComputeBound, kFarFromBoth };
// "memory-bound", "compute-bound", "far from both", "" (kNone: no peak, or no time).
std::string_view roof_verdict_word(RoofVerdict v);

// A group at `intensity` achieving `tflops`, against compute peak `peak_tflops` and `memory_gbs`.
struct RoofCheck {
  double roof_tflops = 0;   // min(peak, bandwidth × intensity): what the hardware allows at that intensity
  double pct_of_roof = 0;   // achieved / roof × 100
  bool memory_side = false; // left of the ridge point: the bandwidth roof is the lower one
  RoofVerdict verdict = RoofVerdict::kNone;
};
// Within this share of its roof a group is bound by it; below it, far from both.
inline constexpr double kNearRoofPct = 50;
// NaN inputs (no peak for the dtype, no bandwidth, no time) give kNone and NaN numbers.
RoofCheck roof_check(double tflops, double intensity, double peak_tflops, double memory_gbs);
// The intensity where the bandwidth roof meets the compute roof: peak / bandwidth (FLOP/byte).
double ridge_intensity(double peak_tflops, double memory_gbs);

// Calls that would take under this many µs each even at their roof are small: a few µs of launch
// and setup per call then weigh on them (the small-matmul recommendation).
inline constexpr double kSmallCallUs = 10;
// Their time at the roof per call, µs (flops / roof).
double roof_us_per_call(const FlopGroup& g, double roof_tflops);

}  // namespace ks
