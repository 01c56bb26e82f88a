// The Overview's schema and answer: the steps view's rows (each step's breakdown), and as metadata
// their average, the GPU summary (device, utilization, SM efficiency, occupancy, the Tensor Core
// share per GPU), the trace-wide Tensor Core figures with what each covers, and the
// recommendations with where their evidence is (`kinetoscope overview --json`).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/accelerator.h"
#include "core/analysis/overview.h"
#include "core/analysis/recommendations.h"
#include "core/analysis/tensor_cores.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

ViewSchema make_overview_schema() {
  ViewSchema s;
  s.view = "overview";
  s.type_name = "Overview";
  s.description =
      "The Overview (`kinetoscope overview --json`): the steps with their breakdown (the steps view's rows), and as "
      "metadata their average, the GPU summary, the trace-wide Tensor Core figures and the recommendations. By default "
      "each GPU's tensor_core_pct is over every kernel that ran on it (gpu_of \"all_kernels\", the Kernels pie's); "
      "with tb_plugin over the kernels operators launched (\"operator_kernels\").";
  s.params = {{"file", "the name the answer gives the file (its `file`); absent: \"\""}};
  s.columns = step_columns();
  s.meta = {
      {"file", "string", "the file's name (the `file` parameter)"},
      {"average", "{ total_us: number } & Record<string, number>", "the steps' durations averaged (all 0 without steps)"},
      {"accelerator", "string", "what ran the GPU work: nvidia, amd, mtia, none or unknown"},
      {"gpus",
       "{ device: number; name: string | null; memory_bytes: number | null; compute_capability: string | null; vendor: string; "
       "arch: string; utilization_pct: number | null; sm_efficiency_pct: number | null; achieved_occupancy_pct: number | null; "
       "tensor_core_pct: number | null; tensor_core_unknown_pct: number | null }[]",
       "the GPU summary over the steps' window, per GPU with kernels (compute_capability null on AMD but in tb_plugin mode)"},
      {"tensor_cores",
       "{ term: string; kernel_pct: number | null; kernel_unknown_pct: number | null; eligible_op_kernel_pct: number; "
       "gpu_of: 'all_kernels' | 'operator_kernels'; scope: { gpu: string; kernel: string; eligible_op_kernel: string } }",
       "Tensor Core kernels' share of all kernel time (and of unknown use), the share of operator kernel time launched by "
       "Tensor Core eligible operators, and in words what each covers; term: Tensor Cores, or Matrix Cores on AMD"},
      {"recommendations",
       "{ id: string; text: string; view: string; evidence: { view: string; step?: string; group?: string; sort?: string; "
       "q?: string; row?: string } }[]",
       "the recommendations, each with the place of its evidence as a deep link names one"},
  };
  s.csv = {"name", "start_us", "end_us", "total_us", "kernel_us", "memcpy_us", "memset_us", "communication_us",
           "runtime_us", "dataloader_us", "cpu_exec_us", "other_us"};
  s.rows_key = "steps";
  return s;
}

const DeviceInfo* device_info(const TraceModel& m, int device) {
  for (const DeviceInfo& d : m.devices)
    if (d.id == device) return &d;
  return nullptr;
}

std::string gpus_json(const OverviewInputs& in) {
  const TraceModel& m = in.model;
  std::vector<int> ids;
  for (const GpuMetrics& g : in.gpus.gpus) ids.push_back(g.device);
  // One definition by default: every kernel of the GPU, as the Kernels pie (docs/compatibility.md).
  const std::optional<std::vector<TcShare>> tc =
      in.tb_plugin ? tc_share_by_gpu(in.tree, m, ids) : std::optional<std::vector<TcShare>>(tc_kernel_share_by_gpu(m, false, ids));
  JsonWriter w;
  w.begin_array();
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
  return w.take();
}

}  // namespace

const ViewSchema kOverviewSchema = make_overview_schema();

Answer overview_answer(const Session& s, QueryParamsRef params) {
  const OverviewInputs in = s.overview_inputs();
  s.report(overview_phase_name(OverviewPhase::kRecommendations), int(OverviewPhase::kRecommendations), kOverviewPhaseCount);
  return overview_inputs_answer(in, param(params, "file"));
}

Answer overview_inputs_answer(const OverviewInputs& in, std::string_view file) {
  const TraceModel& m = in.model;
  AnswerBuilder b(kOverviewSchema, in.steps.steps.size());
  {
    JsonWriter w;
    w.value(file);
    b.meta("file", w.take());
  }
  b.rows_here();
  b.meta("average", step_average_json(in.steps));
  const Accelerator acc = trace_accelerator(m);
  {
    JsonWriter w;
    w.value(accelerator_name(acc));
    b.meta("accelerator", w.take());
  }
  b.meta("gpus", gpus_json(in));
  // Trace-wide: Tensor Core kernels' share of all kernel time (and of unknown use), the share of
  // operator kernel time launched by Tensor Core eligible operators (what the mixed-precision
  // advice quotes), and in words what each figure covers.
  const EligibleKernels eligible = tc_eligible_kernels(in.tree, m);
  {
    const TcShare all = tc_kernel_share(m, in.tb_plugin);
    JsonWriter w;
    w.begin_object();
    w.key("term").value(matrix_units_term(acc));
    w.key("kernel_pct");
    if (const std::optional<double> r = all.ratio()) w.value(*r * 100); else w.null();
    w.key("kernel_unknown_pct");
    if (const std::optional<double> r = all.unknown_ratio()) w.value(*r * 100); else w.null();
    w.key("eligible_op_kernel_pct").value(eligible.ratio() * 100);
    w.key("gpu_of").value(in.tb_plugin ? "operator_kernels" : "all_kernels");
    w.key("scope").begin_object();
    w.key("gpu").value(in.tb_plugin ? gpu_tc_scope(acc) : gpu_all_kernels_tc_scope(acc));
    w.key("kernel").value(kernel_tc_scope(acc));
    w.key("eligible_op_kernel").value(eligible_tc_scope(acc));
    w.end_object();
    w.end_object();
    b.meta("tensor_cores", w.take());
  }
  {
    OverviewInputs with_eligible = in;
    with_eligible.eligible = &eligible;
    JsonWriter w;
    w.begin_array();
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
    b.meta("recommendations", w.take());
  }
  add_step_rows(b, in.steps);
  return b.take();
}

}  // namespace ks
