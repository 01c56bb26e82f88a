#include "core/analysis/recommendations.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <string_view>

#include "core/analysis/tensor_cores.h"

namespace ks {

namespace {

std::string fmt1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Names seen on node-creating events (tb_plugin's use_dp / use_ddp and communication libraries).
struct Usage {
  bool dp = false, ddp = false, nccl = false;
};

Usage usage(const TraceModel& m) {
  Usage u;
  auto scan = [&](const auto& table) {
    for (const auto& r : table) {
      const std::string_view n = m.strings.get(r.s.name);
      if (n == "DataParallel.forward") u.dp = true;
      else if (n == "DistributedDataParallel.forward") u.ddp = true;
      else if (n.starts_with("nccl:") && is_communication_op(n)) u.nccl = true;
    }
  };
  scan(m.cpu_ops);
  scan(m.user_annotations);
  scan(m.python_functions);
  return u;
}

size_t used_devices(const TraceModel& m) {
  std::vector<StringId> pids;
  auto add = [&](StringId pid) {
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
  };
  for (const KernelRow& k : m.kernels) add(k.s.pid);
  for (const MemcpyRow& r : m.memcpys) add(r.s.pid);
  for (const MemcpyRow& r : m.memsets) add(r.s.pid);
  return pids.size();
}

}  // namespace

std::vector<Recommendation> recommendations(const OverviewInputs& in) {
  const TraceModel& m = in.model;
  const bool tb = in.tb_plugin;
  std::vector<Recommendation> out;
  const double total = in.steps.average_total_ns;
  auto share = [&](Role r) { return total > 0 ? in.steps.average_ns[size_t(r)] / total : 0.0; };

  // 1. Input loading.
  if (const double s = share(Role::kDataLoader); s > 0.05) {
    const std::string pct = fmt1(s * 100);
    out.push_back({"dataloader",
                   tb ? "This run has high time cost on input data loading. " + pct +
                            "% of the step time is in DataLoader. You could try to set num_workers on DataLoader's "
                            "construction and <a href=\"https://pytorch.org/docs/stable/data.html#single-and-multi-"
                            "process-data-loading\" target=\"_blank\">enable multi-processes on data loading</a>."
                      : pct + "% of the step time is spent waiting for the DataLoader. Load data in worker "
                              "processes (DataLoader num_workers > 0, with pin_memory=True) so the next batch is "
                              "ready while the GPU computes.",
                   "overview"});
  }

  // 2-3. Distributed training setup.
  const Usage u = usage(m);
  if (u.dp && used_devices(m) > 1) {
    out.push_back({"data-parallel",
                   tb ? "It is recommended to use DistributedDataParallel instead of DataParallel to do multi-GPU "
                        "training."
                      : "This run uses DataParallel on several GPUs. DistributedDataParallel (one process per GPU) "
                        "is usually faster: it avoids replicating the model and gathering outputs in one process "
                        "every step.",
                   "overview"});
  }
  if (u.ddp && !u.nccl) {
    for (const DeviceInfo& d : m.devices) {
      if (d.compute_major < 0 || d.compute_minor < 0) continue;
      if (std::strtod((std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)).c_str(), nullptr) < 3.5)
        continue;
      out.push_back({"nccl",
                     tb ? "Nccl backend is currently the fastest and highly recommended backend when using DDP for "
                          "training."
                        : "This run uses DistributedDataParallel without NCCL on GPUs that support it. The NCCL "
                          "backend is usually the fastest for GPU collectives (init_process_group(\"nccl\")).",
                     "distributed"});
      break;
    }
  }

  // 4. Communication.
  if (const double s = share(Role::kCommunication); s > 0.1) {
    const std::string pct = fmt1(s * 100);
    out.push_back({"communication",
                   tb ? "This run has high time cost on communication. " + pct +
                            "% of the step time is in communication. You could try <a href=\"('https://pytorch.org/"
                            "docs/stable/ddp_comm_hooks.html',)\" target=\"_blank\">Gradient Compression</a> or "
                            "<a href=\"https://towardsdatascience.com/what-is-gradient-accumulation-in-deep-learning-"
                            "ec034122cfa\" target=\"_blank\">Gradient Accumulation</a> or increase the batch size. "
                            "Note: Gradient accumulation will increase global effective batch size, which may hurt "
                            "model convergence and accuracy. For such case, you may want to evaluate <a href=\"https:"
                            "//nvidia.github.io/apex/optimizers.html#apex.optimizers.FusedLAMB\" target=\"_blank\">"
                            "LAMB optimizer</a>."
                      : pct + "% of the step time is spent in communication that nothing else overlaps. Try "
                              "gradient compression (DDP communication hooks), gradient accumulation or a larger "
                              "batch; larger effective batches can hurt convergence (optimizers such as LAMB help).",
                   "distributed"});
  }

  // 5. Low GPU utilization.
  std::vector<const GpuMetrics*> low;
  for (const GpuMetrics& g : in.gpus.gpus)
    if (g.utilization < 0.5) low.push_back(&g);
  if (!low.empty()) {
    std::string text;
    if (tb) {
      std::string ids = std::to_string(low[0]->device);
      for (size_t i = 1; i < low.size(); ++i)
        ids += (i + 1 == low.size() ? "and " : ", ") + std::to_string(low[i]->device);
      text = "GPU ";
      text += ids;
      text += ids.size() == 1 ? " has" : " have";
      text += " low utilization. You could try to increase batch size to improve. Note: Increasing batch size may "
             "affect the speed and stability of model convergence.";
    } else {
      for (size_t i = 0; i < low.size(); ++i) {
        if (i) text += i + 1 == low.size() ? " and " : ", ";
        text += "GPU " + std::to_string(low[i]->device) + " (" + fmt1(low[i]->utilization * 100) + "%)";
      }
      text += (low.size() == 1 ? " runs kernels" : " run kernels") +
              std::string(" less than half of the steps' time. A larger batch, fewer host-side stalls (see the "
                          "step-time breakdown) or CUDA graphs can keep the GPU busier; a larger batch may change "
                          "convergence.");
    }
    out.push_back({"gpu-utilization", text, "overview"});
  }

  if (m.devices.empty() || (tb && m.devices_from_compute_properties)) return out;
  // 6a. Mixed precision: Tensor Core eligible operators, but no kernel used Tensor Cores.
  const std::optional<double> used = tc_kernel_share(m).ratio();
  if (m.devices[0].compute_major >= 7 && used && *used == 0.0) {
    if (const double r = tc_eligible_kernel_ratio(in.tree, m); r > 0) {
      const std::string pct = std::to_string(int64_t(std::nearbyint(r * 100)));
      out.push_back({"amp",
                     tb ? "Kernels with " + pct +
                              "% time are launched by Tensor Cores eligible operators. You could enable <a href=\""
                              "https://pytorch.org/docs/stable/amp.html\" target=\"_blank\">Automatic Mixed "
                              "Precision</a> to speedup by using FP16."
                        : pct + "% of the kernel time is launched by operators that could use Tensor Cores "
                                "(convolutions, matrix multiplies), but no kernel used them. Automatic Mixed "
                                "Precision (torch.autocast) or TF32 lets these operators run on Tensor Cores.",
                     "operators"});
    }
  }
  // 6b. Peak memory near the device's capacity.
  std::map<std::pair<int32_t, int32_t>, int64_t> peaks;  // (device type, id) in first-seen order below
  std::vector<std::pair<int32_t, int32_t>> order;
  for (const MemoryRow& r : m.memory) {
    if (r.total_allocated < 0) continue;
    const auto key = std::make_pair(r.device_type, r.device_id);
    auto [it, fresh] = peaks.try_emplace(key, r.total_allocated);
    if (fresh) order.push_back(key);
    else it->second = std::max(it->second, r.total_allocated);
  }
  for (const auto& key : order) {
    const auto [type, id] = key;
    if (type == -1) continue;
    // tb_plugin also checks the CPU (type 0, id -1: Python's last device); here only GPUs count.
    if (!tb && type == 0) continue;
    const int64_t n = int64_t(m.devices.size());
    const int64_t index = id < 0 ? n + id : id;
    if (index < 0 || index >= n || m.devices[size_t(index)].memory_bytes <= 0) continue;
    const double capacity = double(m.devices[size_t(index)].memory_bytes);
    const double peak = double(peaks[key]);
    if (peak <= 0.9 * capacity) continue;
    const std::string pct = fmt1(peak / capacity * 100), gb = fmt1(capacity / (1024.0 * 1024 * 1024));
    out.push_back({"memory",
                   tb ? "Device memory usage is at the limit of device memory capacity (" + pct + "% of " + gb +
                            "GB on GPU" + std::to_string(id) +
                            "). To get better value of huge batch size, you can use memory optimizations such as "
                            "gradient checkpointing or mixed precision."
                      : "Peak memory on GPU " + std::to_string(id) + " reaches " + pct + "% of its " + gb +
                            " GB. Near the limit the allocator retries and fragments, which slows steps; reduce "
                            "the batch or activation memory (activation checkpointing, mixed precision).",
                   "memory"});
    break;
  }
  return out;
}

}  // namespace ks
