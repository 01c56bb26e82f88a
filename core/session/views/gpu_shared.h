// The GPU time view's computations that more than one of its answers read (the recommendations
// read the idle time, temporal breakdown, queue, critical path and kernel sequences the other
// sections show), each kept by Session::shared under its own family, so that each is computed
// once per Session and parameters, whichever view asks first. Defined in their views' files.
#pragma once
#include <cstddef>

#include "core/analysis/critical_path.h"
#include "core/analysis/gpu_idle.h"
#include "core/analysis/gpu_queue.h"
#include "core/analysis/gpu_time.h"
#include "core/analysis/kernel_sequences.h"
#include "core/session/session.h"

namespace ks {

const GpuTimeResult& shared_gpu_time(const Session& s, const GpuTimeOptions& o);
const GpuIdleResult& shared_gpu_idle(const Session& s, const GpuIdleOptions& o);
const GpuQueueResult& shared_gpu_queue(const Session& s, const GpuQueueOptions& o);
// The launch statistics with the operator trees (gpu_launches.h).
const LaunchStatsResult& shared_launch_stats(const Session& s, const LaunchStatsOptions& o);
// The critical path of step `index` of s.steps() (critical_path.h).
const CriticalPathResult& shared_critical_path(const Session& s, size_t index);
const KernelSequencesResult& shared_kernel_sequences(const Session& s, const KernelSequenceOptions& o);

}  // namespace ks
