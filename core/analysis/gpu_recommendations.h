// The GPU time view's recommendations (issue 24 §9): what the idle time breakdown, the critical
// path and the frequent kernel sequences say, each linked to the section that shows the evidence.
// The rules (thresholds named here once, docs/contracts.md repeats them):
// - host-bound stream: host wait is at least half of the stream's idle time and at least a tenth
//   of the GPU's span (the temporal breakdown's): the GPU waited for the host to launch work;
// - launch-bound step: the CPU, launch overhead and data loading parts of the step's critical path
//   are at least half of it: the step is bound by the host, not the GPU;
// - fusion candidate: a frequent kernel sequence that repeats (2 or more times) whose GPU events
//   average under 10 µs: short kernels whose launches cost about what they run (the three most
//   frequent such).
// - stream at the queue limit: a stream that spent at least a tenth of its queue's span (from its
//   first launch to its last GPU event's start, gpu_queue.h's series) at CUDA's limit of 1024
//   launches in flight: there each launch call blocks the CPU until the GPU starts one, so the
//   host's times include waiting on the GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/critical_path.h"
#include "core/analysis/gpu_idle.h"
#include "core/analysis/gpu_queue.h"
#include "core/analysis/kernel_sequences.h"
#include "core/trace/trace_model.h"

namespace ks {

inline constexpr double kHostBoundRatio = 0.5, kHostBoundSpanShare = 0.1, kLaunchBoundShare = 0.5, kQueueLimitShare = 0.1;
inline constexpr int64_t kShortKernelNs = 10000;
inline constexpr size_t kFusionCandidates = 3;

struct GpuRecommendation {
  std::string kind;      // host_bound_stream, queue_limit_stream, launch_bound_step, fusion_candidate
  std::string subject;   // "stream 7", "step 5", the operator's name
  std::string evidence;  // the view that shows it: gpu-idle, gpu-queue, gpu-critical-path, gpu-kernel-sequences
  std::string text;      // one or two sentences with the numbers
  double value = 0;      // the share (0-1) or, for a fusion candidate, its count
};

// `span_ns`: the GPU's span (temporal breakdown), 0 when it has none; `step_name` the critical
// path's step; `queue` the queue length (null: no queue rule).
std::vector<GpuRecommendation> gpu_recommendations(const TraceModel& m, const GpuIdleResult& idle, int64_t span_ns,
                                                   const CriticalPathResult& path, const std::string& step_name,
                                                   const KernelSequencesResult& sequences, const GpuQueueResult* queue = nullptr);

}  // namespace ks
