// The GPU time view's kernel breakdown (Holistic Trace Analysis's get_gpu_kernel_breakdown):
// - kernel types: the time the GPU spent running computation, communication and memory work, and
//   each overlapping combination, named as HTA names them ("COMPUTATION overlapping
//   COMMUNICATION"): each type's work merged into ranges, then the timeline cut where the set of
//   types running changes; each piece is the time of that set. The shares are of their sum (the
//   GPU's busy time).
// - top kernels per type: per kernel name its calls and the sum, max, min, mean and standard
//   deviation (n - 1, pandas' std; 0 for one call) of its durations; with more than num_kernels
//   names in a type, HTA's selection names the first ones by sum whose running sum is at most the
//   duration_ratio quantile of the running sums (linear, as pandas') and at most num_kernels of
//   them, and groups the rest as "others".
//
// The events are the kernels, memcpys and memsets of HTA's scope (gpu_time.h hta_scoped_events),
// their type by name as HTA's get_kernel_type reads it.
// Where HTA is wrong, Kinetoscope is right (docs/compatibility.md): when HTA groups a type's
// "others" it groups again every row by its sum, so each named kernel's max, min and mean come
// out as its sum and its stddev 0, and the "others" row's statistics are of the kernels' sums,
// not of their calls; here every row's statistics are of its calls.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/gpu_time.h"
#include "core/trace/trace_model.h"

namespace ks {

enum class KernelType : uint8_t { kComputation, kCommunication, kMemory };
inline constexpr size_t kKernelTypes = 3;
const char* kernel_type_name(KernelType t);  // "COMPUTATION", "COMMUNICATION", "MEMORY"
KernelType kernel_type_of(GpuWorkKind k);
// A set of types (bit t: KernelType t) as HTA names it: "COMPUTATION overlapping MEMORY".
std::string kernel_type_set_name(unsigned set);

struct KernelTypeTime {
  unsigned set = 0;  // bit per KernelType
  int64_t ns = 0;
};

struct TopKernel {
  KernelType type = KernelType::kComputation;
  std::string name;     // "others": the rest of the type's kernels
  bool others = false;
  uint64_t kernels = 1;  // names in the row (others: how many)
  uint64_t calls = 0;
  int64_t sum_ns = 0, max_ns = 0, min_ns = 0;
  double mean_ns = 0, stddev_ns = 0;
};

struct GpuKernelsOptions {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
  double duration_ratio = 0.8;
  size_t num_kernels = 10;
};

struct GpuKernelsResult {
  std::vector<KernelTypeTime> types;  // time descending, then set; pieces of no time left out
  int64_t busy_ns = 0;                // their sum
  std::vector<TopKernel> top;         // by type (computation, communication, memory), sum descending, "others" last
};

GpuKernelsResult gpu_kernels(const TraceModel& m, const GpuKernelsOptions& options = {});
// The breakdown of given events, names read from `strings`: the building block, for tests.
GpuKernelsResult gpu_kernels_of(const std::vector<ScopedGpuEvent>& events, const StringPool& strings, const GpuKernelsOptions& options);

}  // namespace ks
