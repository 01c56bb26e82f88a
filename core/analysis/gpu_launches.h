// The GPU time view's kernel launch statistics (Holistic Trace Analysis's
// get_cuda_kernel_launch_stats): per launch — a runtime call that put a kernel, memcpy or memset
// on a stream, matched to its GPU event by correlation id — the call's CPU duration, the GPU
// event's duration and the launch delay (the GPU event's start less the call's end, 0 when the
// GPU started it before the call returned, as HTA); their distributions (pandas' describe(): mean,
// standard deviation, min, linear quartiles, max); the short kernels (a call of at most the runtime
// cutoff whose GPU work took less time than the call itself: launching it cost more than running
// it), the runtime outliers (calls longer than the runtime cutoff, 50 µs) and the launch delay
// outliers (delays over the launch delay cutoff, 100 µs), HTA's defaults; per operator (the
// innermost operator around the call) its launches and their mean durations and delay.
//
// Rows as HTA selects them: the runtime calls HTA counts as launches (cudaLaunchKernel,
// cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync, and the driver's cuLaunchKernel /
// cuLaunchKernelEx that Triton uses, and HIP's) in HTA's scope (gpu_time.h: with two or more
// ProfilerStep ranges, the calls that start before the last one), each joined with its GPU events
// (a call with two gives two rows). HTA's own launch statistics leave out the driver's
// cuLaunchKernel and cuLaunchKernelEx (a Triton kernel, and on PyTorch 2.11 a fifth of the kernels
// — cuBLAS's and cuDNN's — have no row there) though its queue length counts them: Kinetoscope
// counts them in both (docs/compatibility.md; hta_calls_only gives HTA's selection). A call without a GPU event (the launch of a kernel the
// profiler did not record) has no row and is counted apart. cudaGraphLaunch is left out as HTA
// leaves it out: its kernels share one call, whose end says nothing about when each was launched.
// Times are exact ns, or HTA's whole µs with rounding=hta (GpuTimeRounding).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/gpu_time.h"
#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

// pandas' describe() of some values: count, mean, standard deviation (n - 1), min, quartiles
// (linear interpolation between the nearest ranks, pandas' default), max. With no value all but
// the count are NaN; with one the standard deviation is.
struct Describe {
  uint64_t count = 0;
  double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};
Describe describe_values(std::vector<double> v);

// Whether a runtime (or driver) call's name is one HTA counts as launching GPU work.
bool is_hta_launch_call(std::string_view name);
// Whether it is one of those HTA's launch statistics read (hta_calls_only below).
bool is_hta_launch_stats_call(std::string_view name);

struct KernelLaunch {
  int64_t correlation = 0;
  uint32_t call = 0;  // the call's launch index as OpTree numbers them: a runtime row, or runtimes.size() + a driver row
  int64_t cpu_start_ns = 0, cpu_dur_ns = 0;  // the call
  int64_t gpu_start_ns = 0, gpu_dur_ns = 0;  // its GPU event
  int64_t delay_ns = 0;
  int64_t stream = -1;
  StringId call_name = 0, gpu_name = 0;
};

struct LaunchOperator {
  std::string name;  // "" : no operator around the call
  uint64_t launches = 0, short_kernels = 0;
  int64_t cpu_ns = 0, gpu_ns = 0, delay_ns = 0;  // sums
};

struct LaunchStatsOptions {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
  int64_t runtime_cutoff_ns = 50000;       // HTA's runtime_cutoff (50 µs)
  int64_t launch_delay_cutoff_ns = 100000;  // HTA's launch_delay_cutoff (100 µs)
  // Only the calls HTA's launch statistics read (cudaLaunchKernel, cudaLaunchKernelExC,
  // cudaMemcpyAsync, cudaMemsetAsync): not the driver's cuLaunchKernel(Ex) that Triton, cuBLAS and
  // cuDNN launch with (to compare with HTA's own numbers).
  bool hta_calls_only = false;
};

struct LaunchStatsResult {
  std::vector<KernelLaunch> launches;  // by the call's start, then correlation, then the GPU event's start
  Describe cpu, gpu, delay;            // ns
  uint64_t short_kernels = 0, runtime_outliers = 0, delay_outliers = 0;
  uint64_t calls_without_gpu_event = 0;  // launch calls in scope whose GPU event the trace lacks
  std::vector<LaunchOperator> operators;  // launches descending, then name
};

bool is_short_kernel(const KernelLaunch& k, const LaunchStatsOptions& o);

// `tree` gives each call its operator (null: none are named).
LaunchStatsResult gpu_launch_stats(const TraceModel& m, const OpTree* tree, const LaunchStatsOptions& options = {});
// The same from HTA's scope already found (`scoped`, of options.rounding: Session::hta_scoped).
LaunchStatsResult gpu_launch_stats(const TraceModel& m, const HtaScoped& scoped, const OpTree* tree, const LaunchStatsOptions& options = {});

}  // namespace ks
