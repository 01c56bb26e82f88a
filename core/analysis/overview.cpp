#include "core/analysis/overview.h"

#include "core/analysis/accelerator.h"
#include "core/analysis/tensor_cores.h"
#include "core/util/format_pct.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

const DeviceInfo* device_info(const TraceModel& m, int device) {
  for (const DeviceInfo& d : m.devices)
    if (d.id == device) return &d;
  return nullptr;
}

// Each GPU's Tensor Core share, in the order of gpus.gpus (over the step's kernels when `step`).
std::vector<TcShare> tc_shares(const TraceModel& m, const GpuMetricsResult& gpus, bool tb_plugin, const StepFilter* step) {
  std::vector<int> ids;
  for (const GpuMetrics& g : gpus.gpus) ids.push_back(g.device);
  return tc_kernel_share_by_gpu(m, tb_plugin, ids, step);
}

}  // namespace

std::string_view overview_phase_name(OverviewPhase phase) {
  switch (phase) {
    case OverviewPhase::kSteps: return "steps";
    case OverviewPhase::kBreakdown: return "step breakdown";
    case OverviewPhase::kGpuMetrics: return "GPU metrics";
    case OverviewPhase::kOperatorTrees: return "operator trees";
    case OverviewPhase::kRecommendations: return "recommendations";
  }
  return "overview";
}

std::string overview_json(const OverviewInputs& in, std::string_view file_name) {
  const TraceModel& m = in.model;
  JsonWriter w;
  w.begin_object();
  w.key("file").value(file_name);
  write_step_costs(w, in.steps);

  const Accelerator acc = trace_accelerator(m);
  w.key("accelerator").value(accelerator_name(acc));
  std::vector<int> ids;
  for (const GpuMetrics& g : in.gpus.gpus) ids.push_back(g.device);
  // One definition by default: every kernel of the GPU, as the Kernels pie (docs/compatibility.md).
  const std::optional<std::vector<TcShare>> tc =
      in.tb_plugin ? tc_share_by_gpu(in.tree, m, ids)
                   : std::optional<std::vector<TcShare>>(tc_kernel_share_by_gpu(m, false, ids));
  w.key("gpus").begin_array();
  for (size_t i = 0; i < in.gpus.gpus.size(); ++i) {
    const GpuMetrics& g = in.gpus.gpus[i];
    const DeviceInfo* d = device_info(m, g.device);
    w.begin_object();
    w.key("device").value(int64_t(g.device));
    w.key("name");
    if (d && !d->name.empty()) w.value(d->name); else w.null();
    w.key("memory_bytes");
    if (d && d->memory_bytes >= 0) w.value(d->memory_bytes); else w.null();
    // tb_plugin prints HIP's major.minor as a compute capability on AMD too; the default mode
    // gives the architecture instead.
    w.key("compute_capability");
    if (d && d->compute_major >= 0 && (in.tb_plugin || device_vendor(*d) != Vendor::kAmd))
      w.value(std::to_string(d->compute_major) + "." + std::to_string(d->compute_minor));
    else w.null();
    w.key("vendor").value(d ? vendor_name(device_vendor(*d)) : "");
    w.key("arch").value(d ? device_arch(*d) : "");
    w.key("utilization_pct").value(g.utilization * 100);
    w.key("sm_efficiency_pct");
    if (g.sm_efficiency) w.value(*g.sm_efficiency * 100); else w.null();
    w.key("achieved_occupancy_pct");
    if (g.occupancy_pct) w.value(*g.occupancy_pct); else w.null();
    w.key("tensor_core_pct");
    if (tc) w.value((*tc)[i].ratio().value_or(0.0) * 100); else w.null();
    w.key("tensor_core_unknown_pct");
    if (tc) w.value((*tc)[i].unknown_ratio().value_or(0.0) * 100); else w.null();
    w.end_object();
  }
  w.end_array();

  // Trace-wide: Tensor Core kernels' share of all kernel time (and of unknown use), the share of
  // operator kernel time launched by Tensor Core eligible operators (what the mixed-precision
  // advice quotes), and in words what each figure covers.
  const TcShare all = tc_kernel_share(m, in.tb_plugin);
  w.key("tensor_cores").begin_object();
  w.key("term").value(matrix_units_term(acc));
  w.key("kernel_pct");
  if (const std::optional<double> r = all.ratio()) w.value(*r * 100); else w.null();
  w.key("kernel_unknown_pct");
  if (const std::optional<double> r = all.unknown_ratio()) w.value(*r * 100); else w.null();
  const EligibleKernels eligible = tc_eligible_kernels(in.tree, m);
  w.key("eligible_op_kernel_pct").value(eligible.ratio() * 100);
  w.key("gpu_of").value(in.tb_plugin ? "operator_kernels" : "all_kernels");
  w.key("scope").begin_object();
  w.key("gpu").value(in.tb_plugin ? gpu_tc_scope(acc) : gpu_all_kernels_tc_scope(acc));
  w.key("kernel").value(kernel_tc_scope(acc));
  w.key("eligible_op_kernel").value(eligible_tc_scope(acc));
  w.end_object();
  w.end_object();

  w.key("recommendations").begin_array();
  OverviewInputs with_eligible = in;
  with_eligible.eligible = &eligible;
  for (const Recommendation& r : recommendations(with_eligible)) {
    w.begin_object();
    w.key("id").value(r.id);
    w.key("text").value(r.text);
    w.key("view").value(r.view);
    w.key("evidence").begin_object();
    w.key("view").value(r.evidence.view);
    const std::pair<const char*, const std::string*> optional_fields[] = {
        {"step", &r.evidence.step}, {"group", &r.evidence.group}, {"sort", &r.evidence.sort},
        {"q", &r.evidence.q}, {"row", &r.evidence.row}};
    for (const auto& [key, value] : optional_fields)
      if (!value->empty()) w.key(key).value(*value);
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

std::string gpu_summary_text(const TraceModel& m, const GpuMetricsResult& gpus, const StepFilter* step, bool tb_plugin,
                             std::string_view file_name) {
  const Accelerator acc = trace_accelerator(m);
  const std::vector<TcShare> tc = tc_shares(m, gpus, tb_plugin, step);
  std::string out(file_name);
  out += step ? ": step " + step->name + ", " : ": all steps, ";
  out += std::to_string(gpus.gpus.size()) + (gpus.gpus.size() == 1 ? " GPU" : " GPUs") + " with kernels\n";
  for (size_t i = 0; i < gpus.gpus.size(); ++i) {
    const GpuMetrics& g = gpus.gpus[i];
    out += "  GPU " + std::to_string(g.device) + ": utilization " + format_pct(g.utilization * 100);
    if (g.sm_efficiency) out += ", est. SM efficiency " + format_pct(*g.sm_efficiency * 100);
    if (g.occupancy_pct) out += ", est. achieved occupancy " + format_pct(*g.occupancy_pct);
    if (const std::optional<double> r = tc[i].ratio()) {
      out += ", " + std::string(matrix_units_term(acc)) + " " + format_pct(*r * 100);
      if (tc[i].unknown_ns > 0) out += " (+ " + format_pct(*tc[i].unknown_ratio() * 100) + " unknown)";
    }
    out += "\n";
  }
  return out;
}

StepsResult chosen_steps(const StepsResult& steps, const StepFilter& filter) {
  StepsResult out = steps;
  out.steps.clear();
  for (size_t i = 0; i < steps.steps.size(); ++i)
    if (i < filter.chosen.size() && filter.chosen[i]) out.steps.push_back(steps.steps[i]);
  return out;
}

std::string gpu_summary_json(const TraceModel& m, const GpuMetricsResult& gpus, const StepFilter* step, bool tb_plugin,
                             std::string_view file_name) {
  const Accelerator acc = trace_accelerator(m);
  const std::vector<TcShare> tc = tc_shares(m, gpus, tb_plugin, step);
  JsonWriter w;
  w.begin_object();
  w.key("file").value(file_name);
  w.key("step");
  if (step) w.value(step->name); else w.null();
  w.key("window_start_us").value(double(gpus.window_start_ns) / 1e3);
  w.key("window_end_us").value(double(gpus.window_end_ns) / 1e3);
  w.key("scope").begin_object();
  w.key("metrics").value(step ? "over step " + step->name + "'s time (from its start to the end of its GPU work)"
                              : std::string("over the steps' time (from the first step's start to the last one's end)"));
  w.key("tensor_cores").value(step ? gpu_all_kernels_tc_step_scope(acc, step->name) : gpu_all_kernels_tc_scope(acc));
  w.end_object();
  w.key("gpus").begin_array();
  for (size_t i = 0; i < gpus.gpus.size(); ++i) {
    const GpuMetrics& g = gpus.gpus[i];
    w.begin_object();
    write_gpu_metric_fields(w, g);
    w.key("tensor_core_pct");
    if (const std::optional<double> r = tc[i].ratio()) w.value(*r * 100); else w.null();
    w.key("tensor_core_unknown_pct");
    if (const std::optional<double> r = tc[i].unknown_ratio()) w.value(*r * 100); else w.null();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ks
