// Tensor Core shares on Hopper/FP8 and Matrix Core shares on AMD, on two hand-made traces named
// after what they hold (tests/data/README.md), with every share worked out by hand below, and the
// JSON the CLI and the page read them from. The fixtures' kernel names are real ones;
// tensor_core_rules_test.cpp says where each was found.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/session/views.h"
#include "core/analysis/accelerator.h"
#include "core/analysis/kernels.h"
#include "core/analysis/operators.h"
#include "core/analysis/overview.h"
#include "core/analysis/tensor_cores.h"
#include "test_util.h"

namespace {

using ks::TcState;
constexpr int64_t us = 1000;

struct Loaded {
  ks::TraceReader reader;
  explicit Loaded(const std::string& fixture, bool is_text = false) {
    kstest::feed_all(reader, is_text ? fixture : kstest::read_fixture(fixture), 7);
    REQUIRE(reader.error().empty());
  }
  const ks::TraceModel& m() const { return reader.model(); }
};

std::map<std::string, ks::KernelGroup> kernels_by_name(const ks::KernelTable& t, const ks::TraceModel& m) {
  std::map<std::string, ks::KernelGroup> out;
  for (const auto& g : t.rows) out[std::string(m.strings.get(g.name))] = g;
  return out;
}

std::map<std::string, TcState> eligibility(const ks::OperatorTable& t, const ks::TraceModel& m) {
  std::map<std::string, TcState> out;
  for (const auto& g : t.rows) out[std::string(m.strings.get(g.name))] = g.tc_eligible;
  return out;
}

}  // namespace

// h800-fp8-deepseek-kernels.json, one step, kernels back to back on stream 7 (µs):
//   DeepGEMM dpsk::gemm::fp8_gemm_kernel      200  yes  op deep_gemm::fp8_gemm_nt
//   cutlass::device_kernel<...GemmKernel>     300  yes  op aten::_scaled_grouped_mm
//   flash::compute_attn_ws (FA3)              100  yes  op aten::_flash_attention_forward
//   flash::FlashAttnFwdCombine                 10  no   same op
//   nvjet_sm90_tst_...                         50  yes  op aten::mm
//   sm90_xmma_gemm_bf16f32_...                 40  yes  op aten::mm (tb_plugin's only "yes": xmma_gemm)
//   DeepEP dispatch                           150  no   op deep_ep::dispatch
//   swiglu + FP8 cast                          30  no   op swiglu_fp8_cast
//   triton_tem_fused_bmm_7                     60  ?    op CompiledFunction (cuLaunchKernel)
//   at::native add                             20  no   op aten::add
//   ncclDevKernel_AllReduce                    40  no   no operator: ProfilerStep#1 launched it
// All kernels: 1000 µs, 690 on Tensor Cores, 60 unknown. Operator kernels: 960, 690, 60.
TEST_CASE("H800 FP8 step (DeepSeek-V3 kernels): Tensor Core shares by hand", "[tensor_cores]") {
  Loaded l("h800-fp8-deepseek-kernels.json");
  const ks::OpTree tree = ks::build_op_tree(l.m());
  const ks::TcShare all = ks::tc_kernel_share(l.m(), false);
  CHECK(all.total_ns == 1000 * us);
  CHECK(all.tc_ns == 690 * us);
  CHECK(all.unknown_ns == 60 * us);
  CHECK(ks::tc_kernel_share(l.m(), true).tc_ns == 40 * us);  // tb_plugin: 4.0% where 69.0% is true
  const auto gpu = ks::tc_share_by_gpu(tree, l.m(), {0});
  REQUIRE(gpu);
  CHECK((*gpu)[0].total_ns == 960 * us);
  CHECK(*(*gpu)[0].ratio() == Approx(690.0 / 960));    // 71.875%
  CHECK(*(*gpu)[0].unknown_ratio() == Approx(60.0 / 960));
  // Bottom eligible operators: _scaled_grouped_mm 300, _flash_attention_forward 110, the two
  // aten::mm 90, and the DeepGEMM op, eligible because its kernel used Tensor Cores: 200.
  const ks::EligibleKernels e = ks::tc_eligible_kernels(tree, l.m());
  CHECK(e.eligible_ns == 700 * us);
  CHECK(e.all_ns == 960 * us);
  CHECK(e.eligible_tc_ns == 690 * us - 0);  // every Tensor Core kernel came from one of them
  CHECK(e.eligible_unknown_ns == 0);
  CHECK(l.m().strings.get(e.top_op) == "aten::_scaled_grouped_mm");

  const auto ops = eligibility(ks::operator_table(tree, l.m(), ks::OpGroupBy::kName), l.m());
  CHECK(ops.at("aten::_scaled_grouped_mm") == TcState::kYes);
  CHECK(ops.at("aten::scaled_dot_product_attention") == TcState::kYes);
  CHECK(ops.at("deep_gemm::fp8_gemm_nt") == TcState::kYes);
  CHECK(ops.at("CompiledFunction") == TcState::kUnknown);
  CHECK(ops.at("aten::add") == TcState::kNo);
  const auto tb_ops = eligibility(ks::operator_table(ks::build_op_tree(l.m(), {true}), l.m(), ks::OpGroupBy::kName), l.m());
  CHECK(tb_ops.at("aten::_scaled_grouped_mm") == TcState::kNo);
  CHECK(tb_ops.at("CompiledFunction") == TcState::kNo);

  const auto k = kernels_by_name(ks::kernel_table(tree, l.m(), ks::KernelGroupBy::kName), l.m());
  REQUIRE(k.size() == 11);
  CHECK(k.at("triton_tem_fused_bmm_7").tensor_cores == TcState::kUnknown);
  CHECK(k.at("triton_tem_fused_bmm_7").tc_rule->id == "triton-template");
  CHECK(k.at("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT").tc_rule->id == "cublas-nvjet");

  // The overview says what each figure covers, and the shares.
  ks::StepOptions options;
  const ks::StepsResult steps = ks::find_steps(l.m(), options);
  const ks::StepBreakdown b = ks::step_breakdown(l.m(), steps, options);
  const ks::GpuMetricsResult g = ks::gpu_metrics(l.m(), steps);
  const std::string json = ks::answer_json(ks::overview_inputs_answer({l.m(), b, g, tree, false}, "f"));
  CHECK(json.find("\"accelerator\":\"nvidia\"") != std::string::npos);
  CHECK(json.find("\"compute_capability\":\"9.0\",\"vendor\":\"nvidia\",\"arch\":\"sm_90\"") != std::string::npos);
  // One definition by default: the GPU summary's share is over every kernel of the GPU, as the
  // Kernels pie (69 %, 6 % unknown); tb_plugin's reading keeps the operator kernels (71.875 %).
  CHECK(json.find("\"tensor_core_pct\":69,\"tensor_core_unknown_pct\":6}") != std::string::npos);
  CHECK(json.find("\"gpu_of\":\"all_kernels\"") != std::string::npos);
  const std::string tb_json = ks::answer_json(ks::overview_inputs_answer({l.m(), b, g, ks::build_op_tree(l.m(), {true}), true}, "f"));
  CHECK(tb_json.find("\"gpu_of\":\"operator_kernels\"") != std::string::npos);
  const auto tb_gpu = ks::tc_share_by_gpu(ks::build_op_tree(l.m(), {true}), l.m(), {0});
  REQUIRE(tb_gpu);
  CHECK(tb_json.find("\"tensor_core_pct\":" + ks::JsonWriter().value(*(*tb_gpu)[0].ratio() * 100).take()) != std::string::npos);
  const std::vector<ks::TcShare> by_gpu = ks::tc_kernel_share_by_gpu(l.m(), false, {0});
  CHECK(by_gpu[0].total_ns == 1000 * us);
  CHECK(by_gpu[0].tc_ns == 690 * us);
  CHECK(json.find("\"term\":\"Tensor Cores\",\"kernel_pct\":69,\"kernel_unknown_pct\":6,") != std::string::npos);
  CHECK(json.find("\"recommendations\":[]") != std::string::npos);  // Tensor Cores in use: no AMP advice
}

// rocm-mi250-matrix-cores.json (µs): Tensile MFMA GEMM 400 yes (aten::mm), Tensile VALU GEMM 100
// no (aten::mm), MIOpen xdlops conv 200 yes (aten::miopen_convolution), MIOpen batch norm 50 no,
// ATen add 50 no, Triton reduction 30 no and Triton template 40 unknown (CompiledFunction),
// RCCL 120 no (nccl:all_reduce), rocclr fill 10 no. 1000 µs, 600 on Matrix Cores, 40 unknown;
// tb_plugin's list knows none of them.
TEST_CASE("MI250 (ROCm) trace: Matrix Cores, gfx90a, RCCL", "[tensor_cores]") {
  Loaded l("rocm-mi250-matrix-cores.json");
  const ks::TraceModel& m = l.m();
  REQUIRE(m.devices.size() == 1);
  CHECK(m.roctracer);
  CHECK(ks::device_vendor(m.devices[0]) == ks::Vendor::kAmd);
  CHECK(ks::device_arch(m.devices[0]) == "gfx90a");
  CHECK(ks::compute_capability_text(m.devices[0]).empty());  // HIP's 9.0 is not a compute capability
  CHECK(ks::trace_accelerator(m) == ks::Accelerator::kAmd);
  const ks::TcShare all = ks::tc_kernel_share(m, false);
  CHECK(all.total_ns == 1000 * us);
  CHECK(all.tc_ns == 600 * us);
  CHECK(all.unknown_ns == 40 * us);
  CHECK(ks::tc_kernel_share(m, true).tc_ns == 0);
  const ks::OpTree tree = ks::build_op_tree(m);
  CHECK(ks::tc_eligible_kernel_ratio(tree, m) == Approx(0.7));  // aten::mm 500 + miopen_convolution 200

  const std::string summary = ks::answer_json(ks::summary_model_answer(m, "f", ""));
  CHECK(summary.find("\"compute_capability\":\"\",\"sms\":104,\"vendor\":\"amd\",\"arch\":\"gfx90a\"") != std::string::npos);
  CHECK(summary.find("\"accelerator\":\"amd\"") != std::string::npos);

  ks::StepOptions options;
  const ks::StepsResult steps = ks::find_steps(m, options);
  const ks::StepBreakdown b = ks::step_breakdown(m, steps, options);
  const ks::GpuMetricsResult g = ks::gpu_metrics(m, steps);
  const std::string json = ks::answer_json(ks::overview_inputs_answer({m, b, g, tree, false}, "f"));
  CHECK(json.find("\"compute_capability\":null,\"vendor\":\"amd\",\"arch\":\"gfx90a\"") != std::string::npos);
  CHECK(json.find("\"term\":\"Matrix Cores\",\"kernel_pct\":60,\"kernel_unknown_pct\":4,") != std::string::npos);
  CHECK(json.find("known to use Matrix Cores") != std::string::npos);
  // DDP over RCCL (backend "nccl"): no NCCL advice; 60 GiB of 64 GiB. aten::mm's Tensile VALU GEMM
  // (100 of the 1000 µs) ran off the Matrix Cores its MFMA GEMM used: the mixed-precision advice
  // by that share (issue 25; before, none once any kernel used them).
  const auto recs = ks::recommendations({m, b, g, tree, false});
  std::map<std::string, std::string> by_id;
  for (const auto& r : recs) by_id[r.id] = r.text;
  CHECK(by_id.count("nccl") == 0);
  REQUIRE(by_id.count("amp") == 1);
  CHECK(by_id["amp"].rfind("10% of the kernel time is launched by operators that could use Matrix Cores", 0) == 0);
  CHECK(by_id["amp"].find("ran without them") != std::string::npos);
  CHECK(by_id["amp"].find("TF32") == std::string::npos);
  REQUIRE(by_id.count("memory") == 1);
  CHECK(by_id["memory"].find("GPU 0 reaches 93.8% of its 64.0 GB") != std::string::npos);
  // --tb-plugin keeps tb_plugin's reading of the same trace: compute capability 9.0.
  const std::string tb_json = ks::answer_json(ks::overview_inputs_answer({m, b, g, ks::build_op_tree(m, {true}), true}, "f"));
  CHECK(tb_json.find("\"compute_capability\":\"9.0\"") != std::string::npos);
}

TEST_CASE("kernels JSON: three states with the rule, tb_plugin's booleans", "[tensor_cores]") {
  Loaded l("h800-fp8-deepseek-kernels.json");
  const std::string json =
      ks::answer_json(ks::kernel_table_answer(ks::kernel_table(ks::build_op_tree(l.m()), l.m(), ks::KernelGroupBy::kName), l.m()));
  CHECK(json.find("\"name\":\"triton_tem_fused_bmm_7\",\"operator\":null,\"grid\":null,\"block\":null,"
                  "\"registers_per_thread\":null,\"shared_memory\":null,\"calls\":1,\"tensor_cores\":null,"
                  "\"tensor_cores_rule\":\"triton_tem_*: Inductor's Triton matmul/conv templates") != std::string::npos);
  CHECK(json.find("\"tensor_cores\":{\"tc_us\":690,\"unknown_us\":60,\"total_us\":1000,\"term\":\"Tensor Cores\",\"scope\":")
        != std::string::npos);
  const std::string tb =
      ks::answer_json(ks::kernel_table_answer(ks::kernel_table(ks::build_op_tree(l.m(), {true}), l.m(), ks::KernelGroupBy::kName), l.m()));
  CHECK(tb.find("\"calls\":1,\"tensor_cores\":false,\"tensor_cores_rule\":null") != std::string::npos);
  CHECK(tb.find("\"tensor_cores\":null") == std::string::npos);
  CHECK(tb.find("\"tc_us\":40,\"unknown_us\":0,\"total_us\":1000") != std::string::npos);
  const std::string csv =
      ks::answer_csv(ks::kernel_table_answer(ks::kernel_table(ks::build_op_tree(l.m()), l.m(), ks::KernelGroupBy::kName), l.m()));
  CHECK(csv.find("triton_tem_fused_bmm_7,1,unknown,triton-template,60,") != std::string::npos);
}

