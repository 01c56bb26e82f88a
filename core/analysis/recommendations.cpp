#include "core/analysis/recommendations.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>

#include "core/analysis/accelerator.h"
#include "core/analysis/device_peaks.h"
#include "core/analysis/roofline.h"
#include "core/analysis/tensor_cores.h"
#include "core/util/format_pct.h"

namespace ks {

namespace {

std::string fmt1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Two significant digits under 1 ("0.0073"), else one decimal ("12.5").
std::string fmt_small(double v) {
  if (v >= 1) return fmt1(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2g", v);
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
  // 6. Precision. tb_plugin: Tensor Core eligible operators, but no kernel used Tensor Cores.
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
    // The default mode's precision advice (issue 25), only where the hardware has the units
    // (NVIDIA Volta+, AMD CDNA/RDNA3+): FP32 matmuls that could run on TF32/BF16 units, the
    // eligible operators' kernel time not on the units (whatever the rest does: a trace mostly in
    // one strict-FP32 GEMM beside a few BF16 ones is told, which tb_plugin's "no kernel used them"
    // missed), and small matmuls far below their roof. Each advises what the architecture has: no
    // bfloat16 for Volta or Turing, TF32 from Ampere on, none on ROCm (PyTorch has no TF32 switch there).
    const DeviceInfo* hw = nullptr;
    for (const DeviceInfo& d : m.devices)
      if (has_matrix_units(d)) {
        hw = &d;
        break;
      }
    const bool gpu = hw && (acc == Accelerator::kNvidia || acc == Accelerator::kAmd);
    const TcShare all = tc_kernel_share(m, false);
    const std::string units(matrix_units_term(acc));
    const bool tf32 = acc == Accelerator::kNvidia && hw && hw->compute_major >= 8;
    const bool bf16 = acc == Accelerator::kAmd || (hw && hw->compute_major >= 8);
    std::optional<FlopsResult> own;
    const FlopsResult& fr = in.flops ? *in.flops : own.emplace(count_flops(in.tree, m));
    std::string why;
    const DevicePeak* peak = m.devices.empty() ? nullptr : match_device_peak(m.devices.front(), why);
    const std::vector<FlopGroup> groups = flop_groups(fr, in.tree, m, true);
    auto kernel_pct = [&](double ns) { return all.total_ns > 0 ? int64_t(std::nearbyint(ns / double(all.total_ns) * 100)) : 0; };
    auto row_key = [&](const FlopGroup& g) { return std::string(m.strings.get(g.name)) + " " + g.input_shape; };

    // 6a. FP32 matmuls, convolutions and attention on CUDA cores where TF32 or BF16 units exist.
    bool fp32_advised = false;
    if (gpu && (tf32 || bf16)) {
      double fp32_ns = 0, fp32_flops = 0;
      const FlopGroup* top = nullptr;
      for (const FlopGroup& g : groups) {
        if (g.dtype != FlopDtype::kFp32) continue;
        fp32_ns += g.device_ns;
        fp32_flops += g.flops;
        if (!top || g.device_ns > top->device_ns) top = &g;
      }
      if (const int64_t pct = kernel_pct(fp32_ns); top && pct >= 5) {
        std::string text = std::to_string(pct) + "% of the kernel time is FP32 matrix multiplies, convolutions or attention (" +
                           std::string(m.strings.get(top->name)) + " the most) on the GPU's vector units, at " +
                           fmt1(fp32_flops / fp32_ns / 1e3) + " TFLOP/s.";
        if (peak) {
          auto g = [](double v) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g", v);
            return std::string(buf);
          };
          text += " The " + std::string(peak->name) + "'s dense peaks: " +
                  (tf32 && peak->tf32 > 0 ? g(peak->tf32) + " TFLOP/s TF32 and " + g(peak->bf16) + " BF16"
                                          : g(peak->bf16) + " TFLOP/s BF16") +
                  " on " + units + ", against " + g(peak->fp32) + " FP32.";
        }
        text += tf32 ? " Allow TF32 for float32 matmuls (torch.set_float32_matmul_precision(\"high\"); "
                       "torch.backends.cudnn.allow_tf32 for convolutions) or run them under torch.autocast with bfloat16."
                     : " Run them under torch.autocast with bfloat16 or float16.";
        out.push_back({"fp32-matmul", text, "operators", {"operators", "", "op+shape", "device_self_us.desc", "", row_key(*top)}});
        fp32_advised = true;
      }
    }

    // 6b. Mixed precision: the eligible operators' kernel time known not to be on the units
    // (kernels of unknown use, a Triton template say, are left out: they may be), as a share of
    // the kernel time operators launched. The FP32 advice above, when given, covers it.
    const EligibleKernels e = in.eligible ? *in.eligible : tc_eligible_kernels(in.tree, m);
    const int64_t off = e.eligible_ns - e.eligible_tc_ns - e.eligible_unknown_ns;
    const int64_t pct = e.all_ns ? int64_t(std::nearbyint(double(off) / double(e.all_ns) * 100)) : 0;
    if (gpu && !fp32_advised && all.total_ns > 0 && off > 0 && pct >= 5) {
      std::string text = std::to_string(pct) + "% of the kernel time is launched by operators that could use " + units +
                         " (convolutions, matrix multiplies, attention), but ";
      if (all.tc_ns == 0) {
        text += "no kernel used them.";
      } else {
        text += "ran without them (" + format_pct(double(e.eligible_tc_ns) / double(e.eligible_ns) * 100) +
                " of these operators' kernel time did use them).";
      }
      text += bf16 ? " Automatic Mixed Precision (torch.autocast with bfloat16 or float16)"
                   : " Automatic Mixed Precision (torch.autocast with float16: this GPU's " + units + " have no bfloat16)";
      if (tf32) text += " or TF32 for float32 (torch.backends.cuda.matmul.allow_tf32 = True)";
      text += " lets these operators run on " + units + ".";
      out.push_back({"amp", text, "operators", {"operators", "", "", "device_self_us.desc", "", std::string(m.strings.get(e.top_op))}});
    }

    // 6c. Small matmuls far below their roof: calls that would take under kSmallCallUs even at
    // their roof, running at under a tenth of it, so launch and setup time dominate them.
    if (gpu && peak) {
      double small_ns = 0;
      size_t shapes = 0;
      const FlopGroup* top = nullptr;
      RoofCheck top_check;
      for (const FlopGroup& g : groups) {
        const std::string_view n = m.strings.get(g.name);
        if (n != "aten::mm" && n != "aten::addmm" && n != "aten::bmm" && n != "aten::baddbmm" && n != "aten::_scaled_mm") continue;
        const RoofCheck r = roof_check(g.tflops_per_s(), g.intensity(), peak_tflops(*peak, g.dtype), peak->memory_gbs);
        if (r.verdict == RoofVerdict::kNone || r.pct_of_roof >= 10 || !(roof_us_per_call(g, r.roof_tflops) < kSmallCallUs)) continue;
        small_ns += g.device_ns;
        ++shapes;
        if (!top || g.device_ns > top->device_ns) top = &g, top_check = r;
      }
      if (const int64_t small = kernel_pct(small_ns); top && small >= 5) {
        out.push_back({"small-matmuls",
                       std::to_string(small) + "% of the kernel time is small matrix multiplies far below their roof: " +
                           std::to_string(shapes) + (shapes == 1 ? " shape" : " shapes") + " at under 10% of it (" +
                           std::string(m.strings.get(top->name)) + " " + top->input_shape + " the most: " +
                           fmt1(top->device_ns / 1e3 / double(top->calls)) + " us a call where its roof allows " +
                           fmt_small(roof_us_per_call(*top, top_check.roof_tflops)) +
                           "). Launch and setup time dominate calls this small: batch them (one torch.bmm, a larger "
                           "batch), fuse them (torch.compile) or replay them with " +
                           (acc == Accelerator::kAmd ? "HIP graphs." : "CUDA graphs."),
                       "operators",
                       {"operators", "", "op+shape", "device_self_us.desc", "", row_key(*top)}});
      }
    }
  }
  // 7. Peak memory near the device's capacity.
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
