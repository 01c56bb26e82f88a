#include "core/analysis/gpu_recommendations.h"

#include <cstdio>

namespace ks {

namespace {

std::string ms(int64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, ns >= 1000000 ? "%.2f ms" : "%.1f µs", ns >= 1000000 ? double(ns) / 1e6 : double(ns) / 1e3);
  return b;
}
std::string pct(double share) {
  char b[16];
  std::snprintf(b, sizeof b, "%.0f %%", 100 * share);
  return b;
}

}  // namespace

std::vector<GpuRecommendation> gpu_recommendations(const TraceModel& m, const GpuIdleResult& idle, int64_t span_ns,
                                                   const CriticalPathResult& path, const std::string& step_name,
                                                   const KernelSequencesResult& sequences, const GpuQueueResult* queue) {
  std::vector<GpuRecommendation> out;
  for (const StreamIdle& s : idle.streams) {
    const int64_t total = s.total_ns(), host = s.idle_ns[size_t(IdleCategory::kHostWait)];
    if (total <= 0 || span_ns <= 0) continue;
    const double ratio = double(host) / double(total);
    if (ratio < kHostBoundRatio || double(host) < kHostBoundSpanShare * double(span_ns)) continue;
    GpuRecommendation r;
    r.kind = "host_bound_stream";
    r.subject = "stream " + std::to_string(s.stream);
    r.evidence = "gpu-idle";
    r.text = "Stream " + std::to_string(s.stream) + " waits on the host: host wait is " + pct(ratio) + " of its idle time (" +
             ms(host) + ", " + pct(double(host) / double(span_ns)) +
             " of the GPU's span). Launch work sooner: fewer host syncs and .item() calls, larger batches, CUDA graphs.";
    r.value = ratio;
    out.push_back(std::move(r));
  }
  static const std::vector<StreamQueue> kNoStreams;
  for (const StreamQueue& q : queue ? queue->streams : kNoStreams) {
    if (q.time_at_limit_ns <= 0 || q.series.size() < 2) continue;
    const int64_t span = q.series.back().t_ns - q.series.front().t_ns;
    if (span <= 0) continue;
    const double share = double(q.time_at_limit_ns) / double(span);
    if (share < kQueueLimitShare) continue;
    GpuRecommendation r;
    r.kind = "queue_limit_stream";
    r.subject = "stream " + std::to_string(q.stream);
    r.evidence = "gpu-queue";
    r.text = "Stream " + std::to_string(q.stream) + " sat at CUDA's limit of " + std::to_string(kCudaQueueLimit) + " queued launches for " +
             ms(q.time_at_limit_ns) + " (" + pct(share) + " of the time it had work queued): there each launch call blocks the CPU until "
             "the GPU starts a kernel, so the GPU is the bottleneck and the host's operator times include that wait. Shorten the GPU's "
             "work (fewer, larger kernels, lower precision) rather than the host's, or give the blocked host other work.";
    r.value = share;
    out.push_back(std::move(r));
  }
  if (path.has_step && path.total_ns > 0) {
    const int64_t host = path.by_bound[size_t(PathBound::kCpu)] + path.by_bound[size_t(PathBound::kLaunchOverhead)] +
                         path.by_bound[size_t(PathBound::kDataLoading)];
    const double share = double(host) / double(path.total_ns);
    if (share >= kLaunchBoundShare) {
      GpuRecommendation r;
      r.kind = "launch_bound_step";
      const std::string what = step_name.empty() ? "the trace" : "step " + step_name;
      r.subject = what;
      r.evidence = "gpu-critical-path";
      r.text = std::string(step_name.empty() ? "The trace" : "Step " + step_name) + " is bound by the host: CPU " + pct(double(path.by_bound[size_t(PathBound::kCpu)]) / double(path.total_ns)) +
               ", launch overhead " + pct(double(path.by_bound[size_t(PathBound::kLaunchOverhead)]) / double(path.total_ns)) +
               ", data loading " + pct(double(path.by_bound[size_t(PathBound::kDataLoading)]) / double(path.total_ns)) +
               " of its critical path (" + ms(path.total_ns) + "). A faster GPU would not shorten it: cut host work (torch.compile, CUDA graphs).";
      r.value = share;
      out.push_back(std::move(r));
    }
  }
  size_t fusion = 0;
  for (const KernelSequence& k : sequences.sequences) {
    if (fusion >= kFusionCandidates) break;
    const uint64_t events = k.count * k.kernels.size();
    if (k.count < 2 || events == 0) continue;
    const int64_t mean = k.gpu_ns / int64_t(events);
    if (mean >= kShortKernelNs) continue;
    ++fusion;
    GpuRecommendation r;
    r.kind = "fusion_candidate";
    r.subject = std::string(m.strings.get(k.op));
    r.evidence = "gpu-kernel-sequences";
    r.text = r.subject + " launches the same " + std::to_string(k.kernels.size()) + " GPU kernels " + std::to_string(k.count) +
             " times, " + ms(mean) + " each on average (" + ms(k.gpu_ns) +
             " in all): short kernels whose launches cost about what they run, a candidate for fusion (torch.compile, a fused op).";
    r.value = double(k.count);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ks
