#include "core/analysis/recommendations.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <string_view>

#include "core/analysis/accelerator.h"
#include "core/analysis/tensor_cores.h"
#include "core/util/format_pct.h"

namespace ks {

namespace {

std::string fmt1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Names seen on node-creating events (tb_plugin's use_dp / use_ddp and communication libraries),
// and, for the default mode, which collective libraries the trace shows at work.
struct Usage {
  bool dp = false, ddp = false, nccl = false;
  bool nccl_seen = false, gloo_seen = false;  // any nccl:* / gloo:* range, NCCL kernels
};

Usage usage(const TraceModel& m) {
  Usage u;
  auto scan = [&](const auto& table) {
    for (const auto& r : table) {
      const std::string_view n = m.strings.get(r.s.name);
      if (n == "DataParallel.forward") u.dp = true;
      else if (n == "DistributedDataParallel.forward") u.ddp = true;
      else if (n.starts_with("nccl:")) {
        u.nccl_seen = true;
        if (is_communication_op(n)) u.nccl = true;
      } else if (n.starts_with("gloo:")) {
        u.gloo_seen = true;
      }
    }
  };
  scan(m.cpu_ops);
  scan(m.user_annotations);
  scan(m.python_functions);
  for (const KernelRow& k : m.kernels) {
    const std::string_view n = m.strings.get(k.s.name);
    if (n.starts_with("nccl") || n.find(" nccl") != std::string_view::npos) {
      u.nccl_seen = true;
      break;
    }
  }
  return u;
}

// tb_plugin counts devices by the pids of GPU events.
// Kernels replayed from a captured graph: a CUDA graph replay shows in a Kineto trace as one
// `cudaGraphLaunch` runtime call (`cuGraphLaunch` from the driver, `hipGraphLaunch` on ROCm) whose
// correlation id every kernel of the graph shares (torch.compile's "reduce-overhead" trace in
// tests/data/h200_pt211/compiled_cudagraph: 2 launches, 20 kernels each). PyTorch 2.11 writes no
// graph id on the kernels, so the correlation is what ties them.
size_t graph_kernels(const TraceModel& m) {
  std::vector<int64_t> launches;
  auto collect = [&](const ChunkedTable<SliceRow>& rows) {
    for (const SliceRow& r : rows) {
      const std::string_view name = m.strings.get(r.name);
      if (m.id_value(r.correlation) != kNoId && (name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch") ||
                                     name.starts_with("hipGraphLaunch")))
        launches.push_back(m.id_value(r.correlation));
    }
  };
  collect(m.runtimes);
  collect(m.drivers);
  if (launches.empty()) return 0;
  std::sort(launches.begin(), launches.end());
  size_t n = 0;
  for (const KernelRow& k : m.kernels)
    if (std::binary_search(launches.begin(), launches.end(), m.id_value(k.s.correlation))) ++n;
  return n;
}

size_t used_device_pids(const TraceModel& m) {
  std::vector<StringId> pids;
  auto add = [&](StringId pid) {
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
  };
  for (const KernelRow& k : m.kernels) add(k.s.pid);
  for (const MemcpyRow& r : m.memcpys) add(r.s.pid);
  for (const MemcpyRow& r : m.memsets) add(r.s.pid);
  return pids.size();
}

// The GPUs the trace's device work ran on, by its "device" argument (the pid where none has one).
size_t used_devices(const TraceModel& m) {
  std::vector<int32_t> ids;
  auto add = [&](int32_t d) {
    if (d >= 0 && std::find(ids.begin(), ids.end(), d) == ids.end()) ids.push_back(d);
  };
  for (const KernelRow& k : m.kernels) add(k.device);
  for (const MemcpyRow& r : m.memcpys) add(r.device);
  for (const MemcpyRow& r : m.memsets) add(r.device);
  return ids.empty() ? used_device_pids(m) : ids.size();
}

// The step (by name) where a role takes the most time; "" without steps.
std::string step_with_most(const StepBreakdown& b, Role r) {
  const StepCosts* best = nullptr;
  for (const StepCosts& c : b.steps)
    if (!best || c.ns[size_t(r)] > best->ns[size_t(r)]) best = &c;
  return best ? best->step.name : "";
}

bool compute_capability_at_least(const DeviceInfo& d, double v) {
  if (d.compute_major < 0 || d.compute_minor < 0) return false;
  return std::strtod((std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)).c_str(), nullptr) >= v;
}

}  // namespace

std::vector<Recommendation> recommendations(const OverviewInputs& in) {
  const TraceModel& m = in.model;
  const bool tb = in.tb_plugin;
  const Accelerator acc = trace_accelerator(m);
  std::vector<Recommendation> out;
  const double total = in.steps.average_total_ns;
  auto share = [&](Role r) { return total > 0 ? in.steps.average_ns[size_t(r)] / total : 0.0; };

  // 1. Input loading: the DataLoader's share of the average step. pin_memory only helps copies
  // to an accelerator.
  if (const double s = share(Role::kDataLoader); s > 0.05) {
    // tb_plugin's "12.3%", else the Overview's own digits ("12.34 %", format_pct).
    const std::string pct = tb ? fmt1(s * 100) : format_pct(s * 100);
    out.push_back({"dataloader",
                   tb ? "This run has high time cost on input data loading. " + pct +
                            "% of the step time is in DataLoader. You could try to set num_workers on DataLoader's "
                            "construction and <a href=\"https://pytorch.org/docs/stable/data.html#single-and-multi-"
                            "process-data-loading\" target=\"_blank\">enable multi-processes on data loading</a>."
                      : pct + " of the step time is spent waiting for the DataLoader. Load data in worker "
                              "processes (DataLoader num_workers > 0" +
                            std::string(acc == Accelerator::kNone ? "" : ", with pin_memory=True") +
                            ") so the next batch is ready while the " +
                            (acc == Accelerator::kNone ? "model computes." : "GPU computes."),
                   "overview",
                   {"overview", step_with_most(in.steps, Role::kDataLoader), "", "", "", ""}});
  }

  // 2-3. Distributed training setup.
  const Usage u = usage(m);
  // DataParallel drives several GPUs from one process: counted from the devices the work ran on.
  if (u.dp && (tb ? used_device_pids(m) : used_devices(m)) > 1) {
    out.push_back({"data-parallel",
                   tb ? "It is recommended to use DistributedDataParallel instead of DataParallel to do multi-GPU "
                        "training."
                      : "This run uses DataParallel on several GPUs. DistributedDataParallel (one process per GPU) "
                        "is usually faster: it avoids replicating the model and gathering outputs in one process "
                        "every step.",
                   "overview",
                   {"overview", "", "", "", "", ""}});
  }
  if (tb) {
    // tb_plugin: DDP, no nccl:* collective among the ranges, some CUDA-capable device; it ignores the
    // declared backend, so a cut-off trace of an NCCL run is told to use NCCL.
    if (u.ddp && !u.nccl) {
      for (const DeviceInfo& d : m.devices) {
        if (!compute_capability_at_least(d, 3.5)) continue;
        out.push_back({"nccl",
                       "Nccl backend is currently the fastest and highly recommended backend when using DDP for "
                       "training.",
                       "distributed",
                       {"distributed", "", "", "", "", ""}});
        break;
      }
    }
  } else if (u.ddp && (acc == Accelerator::kNvidia || acc == Accelerator::kAmd)) {
    // GPU collectives only: a CPU-only run is right with gloo, MTIA has its own backend. On ROCm
    // the "nccl" backend is RCCL, so a run declaring it is fine there too. The backend is the one
    // the trace declares; without a declaration, the collectives seen tell (gloo ranges and no
    // NCCL), and a trace showing neither says nothing.
    const std::string& backend = m.distributed.backend;
    const bool declared = !backend.empty();
    const bool not_nccl = declared ? backend.find("nccl") == std::string::npos : (u.gloo_seen && !u.nccl_seen);
    const bool amd = acc == Accelerator::kAmd;
    bool gpus = false;
    for (const DeviceInfo& d : m.devices)
      gpus |= amd ? device_vendor(d) == Vendor::kAmd : compute_capability_at_least(d, 3.5);
    if (not_nccl && gpus) {
      const std::string used = declared ? backend : std::string("gloo");
      out.push_back({"nccl",
                     amd ? "This run uses DistributedDataParallel with the " + used +
                               " backend on AMD GPUs. RCCL, ROCm's NCCL (init_process_group(\"nccl\")), is usually "
                               "the fastest for GPU collectives."
                         : "This run uses DistributedDataParallel with the " + used +
                               " backend on NVIDIA GPUs. The NCCL backend is usually the fastest for GPU collectives "
                               "(init_process_group(\"nccl\")).",
                     "distributed",
                     {"distributed", "", "", "", "", ""}});
    }
  }

  // 4. Communication that nothing overlaps, as a share of the average step.
  if (const double s = share(Role::kCommunication); s > 0.1) {
    const std::string pct = tb ? fmt1(s * 100) : format_pct(s * 100);
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
                      : pct + " of the step time is spent in communication that nothing else overlaps. Try "
                              "gradient compression (DDP communication hooks), gradient accumulation or a larger "
                              "batch; larger effective batches can hurt convergence (optimizers such as LAMB help).",
                   "distributed",
                   {"distributed", step_with_most(in.steps, Role::kCommunication), "", "", "", ""}});
  }

  // 5. Low GPU utilization over the steps (the GPUs that ran kernels).
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
        text += "GPU " + std::to_string(low[i]->device) + " (" + format_pct(low[i]->utilization * 100) + ")";
      }
      // Graph capture replays a step's launches at once: CUDA graphs, HIP graphs on ROCm (the same
      // torch.cuda.CUDAGraph API).
      // A trace that already replays graphs is not told to use them: it is told how much of its
      // kernel work they cover.
      const size_t replayed = graph_kernels(m);
      const std::string graphs = replayed                          ? ""
                                 : acc == Accelerator::kNvidia ? "CUDA graphs"
                                 : acc == Accelerator::kAmd    ? "HIP graphs (torch.cuda.CUDAGraph on ROCm)"
                                                               : "";
      text += (low.size() == 1 ? " runs kernels" : " run kernels") +
              std::string(" less than half of the steps' time. A larger batch") +
              (graphs.empty() ? " or fewer host-side stalls (see the step-time breakdown)"
                              : ", fewer host-side stalls (see the step-time breakdown) or " + graphs) +
              " can keep the GPU busier; a larger batch may change convergence.";
      if (replayed)
        text += " The trace already replays " + std::string(acc == Accelerator::kAmd ? "HIP" : "CUDA") + " graphs (" +
                std::to_string(replayed) + " of its " + std::to_string(m.kernels.size()) +
                " kernels ran from one): the GPU idles between replays, so look at what the host does there.";
    }
    out.push_back({"gpu-utilization", text, "overview", {"overview", "", "", "", "", ""}});
  }

  if (m.devices.empty() || (tb && m.devices_from_compute_properties)) return out;
  // 6a. Mixed precision: Tensor Core eligible operators, but no kernel used Tensor Cores.
  if (tb) {
    const std::optional<double> used = tc_kernel_share(m, true).ratio();
    if (m.devices[0].compute_major >= 7 && used && *used == 0.0) {
      if (const double r = in.eligible ? in.eligible->ratio() : tc_eligible_kernel_ratio(in.tree, m); r > 0) {
        const std::string pct = std::to_string(int64_t(std::nearbyint(r * 100)));
        out.push_back({"amp",
                       "Kernels with " + pct +
                           "% time are launched by Tensor Cores eligible operators. You could enable <a href=\""
                           "https://pytorch.org/docs/stable/amp.html\" target=\"_blank\">Automatic Mixed "
                           "Precision</a> to speedup by using FP16.",
                       "operators",
                       {"operators", "", "", "device_self_us.desc", "", ""}});
      }
    }
  } else {
    // Only where the hardware has the units (NVIDIA Volta+, AMD CDNA/RDNA3+), no kernel is known to
    // use them, and every kernel of the eligible operators is known not to (an unknown one, say a
    // Triton template, may be using them). Under 1% is not worth a sentence.
    const DeviceInfo* hw = nullptr;
    for (const DeviceInfo& d : m.devices)
      if (has_matrix_units(d)) {
        hw = &d;
        break;
      }
    const TcShare all = tc_kernel_share(m, false);
    const EligibleKernels e = in.eligible ? *in.eligible : tc_eligible_kernels(in.tree, m);
    const int64_t pct = int64_t(std::nearbyint(e.ratio() * 100));
    if (hw && (acc == Accelerator::kNvidia || acc == Accelerator::kAmd) && all.total_ns > 0 && all.tc_ns == 0 &&
        e.eligible_unknown_ns == 0 && pct >= 1) {
      const std::string units(matrix_units_term(acc));
      // TF32 exists from Ampere (8.0) on; ROCm has no TF32 switch in PyTorch, so AMD gets autocast only.
      const bool tf32 = acc == Accelerator::kNvidia && hw->compute_major >= 8;
      out.push_back({"amp",
                     std::to_string(pct) + "% of the kernel time is launched by operators that could use " + units +
                         " (convolutions, matrix multiplies, attention), but no kernel used them. Automatic Mixed "
                         "Precision (torch.autocast with bfloat16 or float16)" +
                         (tf32 ? std::string(" or TF32 for float32 (torch.backends.cuda.matmul.allow_tf32 = True)")
                               : std::string()) +
                         " lets these operators run on " + units + ".",
                     "operators",
                     {"operators", "", "", "device_self_us.desc", "", std::string(m.strings.get(e.top_op))}});
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
    const DeviceInfo* device = nullptr;
    if (tb) {
      // tb_plugin indexes deviceProperties by the id, Python-style: the CPU's -1 is the last GPU.
      const int64_t n = int64_t(m.devices.size());
      const int64_t index = id < 0 ? n + id : id;
      if (index >= 0 && index < n) device = &m.devices[size_t(index)];
    } else {
      // Only GPU memory (c10 device type 1, CUDA; ROCm reports its GPUs as CUDA too), against the
      // capacity of the device with that id.
      if (type != 1) continue;
      for (const DeviceInfo& d : m.devices)
        if (d.id == id) device = &d;
    }
    if (!device || device->memory_bytes <= 0) continue;
    const double capacity = double(device->memory_bytes);
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
                   "memory",
                   {"memory", "", "", "", "", ""}});
    break;
  }
  return out;
}

}  // namespace ks
