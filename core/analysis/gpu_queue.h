// The GPU time view's counters (Holistic Trace Analysis's trace counters):
// - queue length per stream (get_queue_length_time_series / get_queue_length_summary): the GPU
//   work a stream has been given and not yet started — +1 when a launch call (gpu_launches.h's,
//   in HTA's scope) that has a GPU event on the stream starts, -1 when that event starts. Its
//   summary is pandas' describe() of the values the series takes (one after each change, as HTA's
//   summary reads them: not weighted by time), with the time spent at CUDA's limit of 1024
//   launches in flight (where the host blocks on the next launch);
// - memory bandwidth per copy kind (get_memory_bw_time_series / get_memory_bw_summary): each
//   memcpy and memset adds its bandwidth (the trace's "memory bandwidth (GB/s)", else its bytes
//   over its duration) while it runs, per kind as HTA names them ("Memcpy HtoD", "Memset",
//   "Memcpy Unknown"); the summary describes the series' values above 0.
// Both series are kept as their change points and drawn over pixel columns on request
// (counter_series), so a chart of a trace of millions of launches gets a few thousand numbers.
//
// At equal times (HTA's whole µs make many) a launch's +1 comes before an event's -1 (unless
// starts_first) and otherwise the trace's order is kept, as a stable sort of HTA's concatenation (calls, then GPU
// events) would order them; HTA sorts with pandas' unstable quicksort, so its order of equal times
// is not defined and its mean may differ from any stable order's by the ties it holds
// (docs/compatibility.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/gpu_launches.h"
#include "core/analysis/gpu_time.h"
#include "core/trace/trace_model.h"

namespace ks {

inline constexpr int64_t kCudaQueueLimit = 1024;

struct CounterPoint {
  int64_t t_ns = 0;
  double value = 0;  // the value from t_ns on
};

struct StreamQueue {
  int64_t stream = -1;
  uint64_t launches = 0;
  Describe stats;  // of the values after each change (count: 2 per launch)
  int64_t time_at_limit_ns = 0;  // at kCudaQueueLimit or more
  std::vector<CounterPoint> series;
};

struct CopyBandwidth {
  std::string kind;  // "Memcpy HtoD", "Memset", ...
  uint64_t events = 0;
  int64_t bytes = 0, busy_ns = 0;  // bytes of the events that say; their durations summed
  Describe stats;  // GB/s, of the series' values above 0
  std::vector<CounterPoint> series;  // GB/s
};

struct GpuQueueOptions {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
  // At equal times a GPU event's -1 before a launch's +1 (the other order): the two orders bound
  // what any order of equal times gives, HTA's included (tests/golden/gpu_counters_test.mjs).
  bool starts_first = false;
};

struct GpuQueueResult {
  std::vector<StreamQueue> streams;     // by stream
  std::vector<CopyBandwidth> bandwidth;  // by kind
  int64_t start_ns = 0, end_ns = 0;     // the first and last change of any series (0, 0: none)
};

GpuQueueResult gpu_queue(const TraceModel& m, const GpuQueueOptions& options = {});
// The same from HTA's scope already found (`scoped`, of options.rounding: Session::hta_scoped).
GpuQueueResult gpu_queue(const TraceModel& m, const HtaScoped& scoped, const GpuQueueOptions& options = {});
// The same with the launches already found: `launches` of gpu_launch_stats(m, scoped, any tree, {rounding}),
// any cutoffs (they change only its counts), every launch call (hta_calls_only false).
GpuQueueResult gpu_queue(const TraceModel& m, const HtaScoped& scoped, const LaunchStatsResult& launches, const GpuQueueOptions& options = {});
// HTA's get_memory_kernel_type: "Memset", "Memcpy Unknown", or the name's first 11 characters.
std::string memory_kind_of(std::string_view name);

// A step series drawn over `columns` equal columns of [from_ns, to_ns): per column the least and
// greatest value it takes there (the value carried in from the left included) and its value at
// the column's end (the last column's: at to_ns, a change there included).
struct CounterColumn {
  int64_t start_ns = 0;
  double min = 0, max = 0, last = 0;
};
std::vector<CounterColumn> counter_columns(const std::vector<CounterPoint>& series, int64_t from_ns, int64_t to_ns, int columns);

}  // namespace ks
