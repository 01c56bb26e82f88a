#include "core/analysis/overview.h"

#include "core/analysis/accelerator.h"
#include "core/analysis/tensor_cores.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

const DeviceInfo* device_info(const TraceModel& m, int device) {
  for (const DeviceInfo& d : m.devices)
    if (d.id == device) return &d;
  return nullptr;
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
  const std::optional<std::vector<TcShare>> tc = tc_share_by_gpu(in.tree, m, ids);
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
  w.key("scope").begin_object();
  w.key("gpu").value(gpu_tc_scope(acc));
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

}  // namespace ks
