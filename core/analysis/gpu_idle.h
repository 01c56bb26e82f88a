// The GPU time view's idle time breakdown (Holistic Trace Analysis's get_idle_time_breakdown): per
// stream, the gap before each GPU event on it, each gap put in one of three categories —
//   host wait:   the event's launch (its runtime call) started after the previous event on the
//                stream ended: the GPU waited on the host to enqueue work;
//   kernel wait: else, a gap shorter than the threshold (HTA's consecutive_kernel_delay): the
//                overhead of launching back-to-back kernels;
//   other:       the rest (a kernel waiting on an event, a sync) —
// with each category's time, its share of the stream's idle time and the statistics of its gaps
// (count, mean, standard deviation, min, quartiles, max; pandas' describe()).
//
// The events are the kernels, memcpys and memsets on a stream in HTA's scope (gpu_time.h
// hta_scoped_events: with two or more steps, the work launched before the last one; no CUDA sync,
// the host's wait). Each stream's events are taken in order of start; the first has no gap.
//
// As HTA with rounding=hta (its whole µs, its "previous event" the one before in start order, so a
// gap may be negative where events overlap: a stream sync waits while the kernel before it runs).
// Exact (the default): ns as the trace gives them, the gap measured from the furthest end so far
// on the stream and never below 0 (an event that starts under the one before waited for nothing).
//
// The threshold: HTA documents consecutive_kernel_delay as 30 ns but compares it with times it
// holds in µs, so its default is in effect 30 µs; kernel_wait_ns defaults to that (docs/compatibility.md).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/analysis/gpu_time.h"
#include "core/trace/trace_model.h"

namespace ks {

enum class IdleCategory : uint8_t { kHostWait, kKernelWait, kOther };
inline constexpr size_t kIdleCategories = 3;
const char* idle_category_name(IdleCategory c);  // "host_wait", "kernel_wait", "other"

struct IdleIntervalStats {
  uint64_t count = 0;
  // In ns; meaningless (the answer's nulls) with no interval; std also with one (pandas' NaN).
  double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};

struct StreamIdle {
  int64_t stream = -1;
  uint64_t events = 0;
  std::array<int64_t, kIdleCategories> idle_ns{};  // summed gaps per category
  std::array<IdleIntervalStats, kIdleCategories> intervals{};
  int64_t total_ns() const { return idle_ns[0] + idle_ns[1] + idle_ns[2]; }
};

struct GpuIdleOptions {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
  int64_t kernel_wait_ns = 30000;  // a gap shorter than this (not host wait) is kernel wait
};

struct GpuIdleResult {
  // Streams in order of their first event's start (HTA: in order of first appearance).
  std::vector<StreamIdle> streams;
};

GpuIdleResult gpu_idle(const TraceModel& m, const GpuIdleOptions& options = {});

// One gap as the breakdown reads it: before `events[next]`, from `start_ns` (the previous event's
// end: the furthest so far, exact; the one before in start order, hta), in `category`.
struct IdleGap {
  int64_t stream = -1;
  int64_t start_ns = 0, gap_ns = 0;
  IdleCategory category = IdleCategory::kOther;
  size_t next = 0;
};
// Sorts events as the breakdown reads them: by stream, then start (then end).
void sort_idle_events(std::vector<ScopedGpuEvent>& events);
// Every gap of sorted events (each stream's first event has none), in their order.
std::vector<IdleGap> idle_gaps(const std::vector<ScopedGpuEvent>& sorted, const GpuIdleOptions& options);
// The breakdown of given events (each stream's in any order): the building block, for tests.
GpuIdleResult gpu_idle_of(std::vector<ScopedGpuEvent> events, const GpuIdleOptions& options);

}  // namespace ks
