// The Overview's recommendations checked against the evidence each cites (issue 9 §5): for every
// rule a small trace built here that should trigger it and one that should not, with the hardware
// (NVIDIA, AMD, CPU-only, MTIA), the declared backend and the numbers behind each threshold, and
// the evidence each one points to. --tb-plugin's sentences are the golden test's
// (tests/golden/operators_kernels_test.mjs); here only where tb_plugin's trigger differs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/analysis/recommendations.h"
#include "test_util.h"

namespace {

// A trace in Kineto's JSON, event by event.
struct Trace {
  std::vector<std::string> events;
  std::string top;  // members before traceEvents, each ending with ','

  Trace& x(const std::string& cat, const std::string& name, int pid, int tid, double ts, double dur,
           const std::string& args = "") {
    events.push_back("{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" + std::to_string(pid) +
                     ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) +
                     ",\"dur\":" + std::to_string(dur) + (args.empty() ? "" : ",\"args\":{" + args + "}") + "}");
    return *this;
  }
  // A host operator on thread 1 launching one kernel: the op [ts, ts+10], the launch at ts+2,
  // the kernel at kernel_ts on `device` (External id and correlation tie them).
  Trace& op_kernel(const std::string& op, double ts, const std::string& kernel, double kernel_ts, double kernel_dur,
                   int device = 0, const std::string& api = "cudaLaunchKernel") {
    const std::string ext = std::to_string(++ids), corr = std::to_string(1000 + ids);
    x("cpu_op", op, 1, 1, ts, 10, "\"External id\":" + ext);
    x("cuda_runtime", api, 1, 1, ts + 2, 2, "\"External id\":" + ext + ",\"correlation\":" + corr);
    x("kernel", kernel, device, 7, kernel_ts, kernel_dur,
      "\"External id\":" + ext + ",\"correlation\":" + corr + ",\"device\":" + std::to_string(device) + ",\"stream\":7");
    return *this;
  }
  Trace& step(double ts, double dur, int n = 1) { return x("cpu_op", "ProfilerStep#" + std::to_string(n), 1, 1, ts, dur); }
  Trace& memory(int type, int id, int64_t total_allocated, double ts) {
    events.push_back("{\"ph\":\"i\",\"cat\":\"[memory]\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" +
                     std::to_string(ts) + ",\"s\":\"t\",\"args\":{\"Device Type\":" + std::to_string(type) +
                     ",\"Device Id\":" + std::to_string(id) + ",\"Addr\":1,\"Bytes\":1,\"Total Allocated\":" +
                     std::to_string(total_allocated) + ",\"Total Reserved\":" + std::to_string(total_allocated) + "}}");
    return *this;
  }
  Trace& member(const std::string& key, const std::string& json) {
    top += "\"" + key + "\":" + json + ",";
    return *this;
  }
  std::string json() const {
    std::string out = "{" + top + "\"traceEvents\":[";
    for (size_t i = 0; i < events.size(); ++i) out += (i ? "," : "") + events[i];
    return out + "]}";
  }
  int ids = 0;
};

const std::string kA100 =
    "[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-40GB\",\"totalGlobalMem\":42298834944,\"computeMajor\":8,"
    "\"computeMinor\":0,\"warpSize\":32,\"numSms\":108}]";
const std::string kV100 =
    "[{\"id\":0,\"name\":\"Tesla V100-SXM2-32GB\",\"totalGlobalMem\":34089730048,\"computeMajor\":7,"
    "\"computeMinor\":0,\"warpSize\":32,\"numSms\":80}]";
const std::string kMI250 =
    "[{\"id\":0,\"name\":\"AMD Instinct MI250X / MI250\",\"totalGlobalMem\":68702699520,\"computeMajor\":9,"
    "\"computeMinor\":0,\"warpSize\":64,\"numSms\":104,\"maxSharedMemoryPerMultiProcessor\":65536}]";
const std::string kMI50 =  // gfx906: no Matrix Cores
    "[{\"id\":0,\"name\":\"AMD Instinct MI50\",\"totalGlobalMem\":34342961152,\"computeMajor\":9,"
    "\"computeMinor\":0,\"warpSize\":64,\"numSms\":60,\"maxSharedMemoryPerMultiProcessor\":65536}]";

struct Result {
  ks::TraceReader reader;
  std::vector<ks::Recommendation> recs;
  const ks::Recommendation* find(const std::string& id) const {
    for (const auto& r : recs)
      if (r.id == id) return &r;
    return nullptr;
  }
};

// What the Overview computes, in the default mode or tb_plugin's.
std::unique_ptr<Result> run(const Trace& t, bool tb = false) {
  auto r = std::make_unique<Result>();
  kstest::feed_all(r->reader, t.json(), 1 << 20);
  REQUIRE(r->reader.error().empty());
  const ks::TraceModel& m = r->reader.model();
  ks::StepOptions options;
  options.tb_plugin_gpu_annotations = tb;
  const ks::StepsResult steps = ks::find_steps(m, options);
  const ks::StepBreakdown b = ks::step_breakdown(m, steps, options);
  const ks::GpuMetricsResult g = ks::gpu_metrics(m, steps);
  const ks::OpTree tree = ks::build_op_tree(m, {tb});
  r->recs = ks::recommendations({m, b, g, tree, tb});
  return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A step [0, 100] µs whose GPU is busy 70 µs (no utilization advice) from an element-wise kernel.
Trace busy_step(const std::string& devices) {
  Trace t;
  t.member("deviceProperties", devices).step(0, 100);
  t.op_kernel("aten::add", 5, "void at::native::vectorized_elementwise_kernel<4>(int)", 20, 70);
  return t;
}

}  // namespace

TEST_CASE("recommendation dataloader: the DataLoader's share of the step, over 5%", "[recommendations]") {
  // Two steps of 100 µs; the DataLoader takes 4 + 12 = 16 µs of 200: 8.0%, most in step 2.
  auto traces = [](double first, double second, const std::string& devices) {
    Trace t;
    if (!devices.empty()) t.member("deviceProperties", devices);
    t.step(0, 100, 1).step(100, 100, 2);
    t.x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 1, first);
    t.x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 101, second);
    return t;
  };
  auto cpu = run(traces(4, 12, ""));
  const ks::Recommendation* r = cpu->find("dataloader");
  REQUIRE(r);
  CHECK(has(r->text, "8.00 % of the step time"));  // the Overview's digits (format_pct)
  CHECK_FALSE(has(r->text, "pin_memory"));  // CPU-only: nothing to pin for
  CHECK(r->evidence.view == "overview");
  CHECK(r->evidence.step == "2");
  auto gpu = run(traces(4, 12, kA100).op_kernel("aten::add", 150, "void at::native::vectorized_elementwise_kernel<4>(int)", 150, 40));
  REQUIRE(gpu->find("dataloader"));
  CHECK(has(gpu->find("dataloader")->text, "pin_memory=True"));
  // 4 + 5 = 9 µs of 200: 4.5%, under the threshold
  CHECK_FALSE(run(traces(4, 5, ""))->find("dataloader"));
}

TEST_CASE("recommendation data-parallel: DataParallel on more than one GPU", "[recommendations]") {
  auto with_devices = [](int second_device) {
    Trace t;
    t.member("deviceProperties", kA100).step(0, 100);
    t.x("user_annotation", "DataParallel.forward", 1, 1, 1, 90);
    t.op_kernel("aten::add", 5, "void at::native::vectorized_elementwise_kernel<4>(int)", 10, 40, 0);
    t.op_kernel("aten::add", 20, "void at::native::vectorized_elementwise_kernel<4>(int)", 10, 40, second_device);
    return t;
  };
  const auto two = run(with_devices(1));
  REQUIRE(two->find("data-parallel"));
  CHECK(two->find("data-parallel")->evidence.view == "overview");
  CHECK_FALSE(run(with_devices(0))->find("data-parallel"));  // one GPU: nothing to gain
}

TEST_CASE("recommendation nccl: the declared backend, on NVIDIA GPUs only", "[recommendations]") {
  // DDP and an A100, cut off before any collective: the evidence is distributedInfo.backend.
  auto ddp = [](const std::string& devices, const std::string& backend) {
    Trace t = busy_step(devices);
    if (!backend.empty()) t.member("distributedInfo", "{\"backend\":\"" + backend + "\",\"rank\":0,\"world_size\":2}");
    t.x("user_annotation", "DistributedDataParallel.forward", 1, 1, 1, 90);
    return t;
  };
  const auto gloo = run(ddp(kA100, "gloo"));
  const ks::Recommendation* r = gloo->find("nccl");
  REQUIRE(r);
  CHECK(has(r->text, "with the gloo backend on NVIDIA GPUs"));
  CHECK(r->evidence.view == "distributed");
  // The issue's case: a cut-off trace of an NCCL run. tb_plugin looks only for nccl:* ranges.
  CHECK_FALSE(run(ddp(kA100, "nccl"))->find("nccl"));
  CHECK(run(ddp(kA100, "nccl"), true)->find("nccl"));
  // Nothing declared, nothing seen: no evidence either way.
  CHECK_FALSE(run(ddp(kA100, ""))->find("nccl"));
  // Nothing declared, gloo collectives seen and no NCCL.
  Trace seen = ddp(kA100, "");
  seen.x("cpu_op", "gloo:all_reduce", 1, 1, 60, 5);
  REQUIRE(run(seen)->find("nccl"));
  // ROCm: RCCL is the nccl backend already; and a gloo run there is told about RCCL.
  CHECK_FALSE(run(ddp(kMI250, "nccl"))->find("nccl"));
  const auto rocm_gloo = run(ddp(kMI250, "gloo"));
  REQUIRE(rocm_gloo->find("nccl"));
  CHECK(has(rocm_gloo->find("nccl")->text, "RCCL"));
  CHECK_FALSE(has(rocm_gloo->find("nccl")->text, "NVIDIA"));
  // CPU-only: gloo is the right backend.
  Trace cpu;
  cpu.member("distributedInfo", "{\"backend\":\"gloo\",\"rank\":0,\"world_size\":2}").step(0, 100);
  cpu.x("user_annotation", "DistributedDataParallel.forward", 1, 1, 1, 90).x("cpu_op", "gloo:all_reduce", 1, 1, 60, 5);
  CHECK_FALSE(run(cpu)->find("nccl"));
}

TEST_CASE("recommendation communication: unoverlapped communication over 10% of the step", "[recommendations]") {
  // An nccl:all_reduce whose kernel (same External id) runs alone for `comm` µs of the 100 µs step.
  auto with_comm = [](double comm) {
    Trace t;
    t.member("deviceProperties", kA100).step(0, 100);
    t.op_kernel("aten::add", 5, "void at::native::vectorized_elementwise_kernel<4>(int)", 10, 50);
    t.op_kernel("nccl:all_reduce", 30, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 60,
                comm);
    return t;
  };
  const auto heavy = run(with_comm(20));
  const ks::Recommendation* r = heavy->find("communication");
  REQUIRE(r);
  CHECK(has(r->text, "20.00 % of the step time"));
  CHECK(r->evidence.view == "distributed");
  CHECK(r->evidence.step == "1");
  CHECK_FALSE(run(with_comm(8))->find("communication"));
}

TEST_CASE("recommendation gpu-utilization: a GPU busy less than half of the steps", "[recommendations]") {
  auto util = [](const std::string& devices, double busy) {
    Trace t;
    t.member("deviceProperties", devices).step(0, 100);
    t.op_kernel("aten::add", 5, "void at::native::vectorized_elementwise_kernel<4>(int)", 20, busy);
    return t;
  };
  const auto low = run(util(kA100, 30));
  const ks::Recommendation* r = low->find("gpu-utilization");
  REQUIRE(r);
  CHECK(has(r->text, "GPU 0 (30.00 %)"));
  CHECK(has(r->text, "CUDA graphs"));
  CHECK(r->evidence.view == "overview");
  const auto amd = run(util(kMI250, 30));
  REQUIRE(amd->find("gpu-utilization"));
  CHECK(has(amd->find("gpu-utilization")->text, "HIP graphs"));
  CHECK_FALSE(has(amd->find("gpu-utilization")->text, "CUDA graphs"));
  CHECK_FALSE(run(util(kA100, 60))->find("gpu-utilization"));
}

// A trace that already replays a CUDA graph (torch.compile "reduce-overhead": each step's kernels
// share one cudaGraphLaunch's correlation) is not told to use CUDA graphs, but how many of its
// kernels ran from one. The same GPU without the replay is told to.
TEST_CASE("recommendation gpu-utilization: a trace replaying a CUDA graph is not told to use them", "[recommendations]") {
  auto graph = [](bool replayed) {
    Trace t;
    t.member("deviceProperties", kA100).step(0, 100);
    t.x("cuda_runtime", replayed ? "cudaGraphLaunch" : "cudaLaunchKernel", 1, 1, 10, 5, "\"correlation\":77");
    for (int k = 0; k < 3; ++k)
      t.x("kernel", "triton_poi_fused_add_" + std::to_string(k), 0, 7, 20 + 10 * k, 8, "\"device\":0,\"stream\":7,\"correlation\":77");
    t.op_kernel("aten::add", 60, "void at::native::vectorized_elementwise_kernel<4>(int)", 80, 5);
    return t;
  };
  const auto replayed = run(graph(true));
  const ks::Recommendation* r = replayed->find("gpu-utilization");
  REQUIRE(r);
  CHECK(has(r->text, "GPU 0 (29.00 %)"));
  CHECK_FALSE(has(r->text, "or CUDA graphs"));
  CHECK(has(r->text, "already replays CUDA graphs (3 of its 4 kernels ran from one)"));
  const auto plain = run(graph(false));
  REQUIRE(plain->find("gpu-utilization"));
  CHECK(has(plain->find("gpu-utilization")->text, "or CUDA graphs"));
  CHECK_FALSE(has(plain->find("gpu-utilization")->text, "already replays"));
}

// The real torch.compile CUDA-graph trace (tests/data/h200_pt211): 40 of its 42 kernels replayed.
TEST_CASE("recommendation gpu-utilization: torch.compile reduce-overhead trace (H200)", "[recommendations]") {
  const std::string bytes = kstest::read_path(kstest::repo_path("tests/data/h200_pt211/compiled_cudagraph/compiled_rank0.1795735960170000080.pt.trace.json.gz"));
  if (bytes.size() > 2 && uint8_t(bytes[0]) == 0x1f) return;  // under wasm, not gunzipped
  ks::TraceReader reader;
  kstest::feed_all(reader, bytes, 1 << 20);
  const ks::TraceModel& m = reader.model();
  const ks::StepsResult steps = ks::find_steps(m);
  const ks::StepBreakdown b = ks::step_breakdown(m, steps);
  const ks::GpuMetricsResult g = ks::gpu_metrics(m, steps);
  const ks::OpTree tree = ks::build_op_tree(m, {false});
  const auto recs = ks::recommendations({m, b, g, tree, false});
  const auto it = std::find_if(recs.begin(), recs.end(), [](const ks::Recommendation& x) { return x.id == "gpu-utilization"; });
  REQUIRE(it != recs.end());
  CHECK(has(it->text, "GPU 0 (17.51 %)"));
  CHECK_FALSE(has(it->text, "or CUDA graphs"));
  CHECK(has(it->text, "already replays CUDA graphs (40 of its 42 kernels ran from one)"));
}

TEST_CASE("recommendation amp: eligible operators on hardware with matrix units, none used", "[recommendations]") {
  // aten::mm launching `kernel` for 60 µs, aten::add an element-wise kernel for 20 µs: the
  // eligible operator launched 60 of 80 µs, 75%.
  auto mm = [](const std::string& devices, const std::string& kernel, double mm_us = 60, double add_us = 20) {
    Trace t;
    t.member("deviceProperties", devices).step(0, 100);
    t.op_kernel("aten::mm", 5, kernel, 10, mm_us);
    t.op_kernel("aten::add", 20, "void at::native::vectorized_elementwise_kernel<4>(int)", 10 + mm_us, add_us);
    return t;
  };
  const std::string sgemm = "ampere_sgemm_128x64_nn";
  const auto a100 = run(mm(kA100, sgemm));
  const ks::Recommendation* r = a100->find("amp");
  REQUIRE(r);
  CHECK(has(r->text, "75% of the kernel time"));
  CHECK(has(r->text, "TF32"));  // Ampere has TF32
  CHECK(r->evidence.view == "operators");
  CHECK(r->evidence.sort == "device_self_us.desc");
  CHECK(r->evidence.row == "aten::mm");
  const auto v100 = run(mm(kV100, "volta_sgemm_128x64_nn"));
  REQUIRE(v100->find("amp"));
  CHECK_FALSE(has(v100->find("amp")->text, "TF32"));  // Volta has none
  const auto mi250 = run(mm(kMI250, "Cijk_Alik_Bljk_SB_MT32x64x32_AF0EM8_ASEM8_FL0_GRVW2_ISA90a_MDA2_PGR1_PLR1_SU32_TT2_2_VAW1_VW2_WG16_32_1_WGM8"));
  REQUIRE(mi250->find("amp"));
  CHECK(has(mi250->find("amp")->text, "Matrix Cores"));
  CHECK_FALSE(has(mi250->find("amp")->text, "TF32"));
  CHECK_FALSE(has(mi250->find("amp")->text, "Tensor Cores"));
  // Should not: MI50 has no Matrix Cores; a Tensor Core kernel ran; the eligible operator's
  // kernel is of unknown use (tb_plugin, knowing only its list, advises anyway); under 1%.
  CHECK_FALSE(run(mm(kMI50, "Cijk_Alik_Bljk_SB_MT32x64x32_AF0EM8_ASEM8_FL0_GRVW2_ISA90a_MDA2_PGR1_PLR1_SU32_TT2_2_VAW1_VW2_WG16_32_1_WGM8"))->find("amp"));
  CHECK_FALSE(run(mm(kA100, "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn"))->find("amp"));
  CHECK_FALSE(run(mm(kA100, "hgemm_bf16_32x64x128x5_SPK8_W2x2x1_BLDS1_TN_AS"))->find("amp"));
  CHECK(run(mm(kA100, "hgemm_bf16_32x64x128x5_SPK8_W2x2x1_BLDS1_TN_AS"), true)->find("amp"));
  CHECK_FALSE(run(mm(kA100, sgemm, 0.3, 99.7))->find("amp"));  // 0.3%
  const auto tb_tiny = run(mm(kA100, sgemm, 0.3, 99.7), true);
  REQUIRE(tb_tiny->find("amp"));
  CHECK(has(tb_tiny->find("amp")->text, "Kernels with 0% time"));  // tb_plugin's rounding
}

const std::string kH100 =
    "[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"totalGlobalMem\":85029158912,\"computeMajor\":9,"
    "\"computeMinor\":0,\"warpSize\":32,\"numSms\":132}]";

// A matmul recorded with its shapes (record_shapes=True): `aten::mm` of [m, k] @ [k, n] in
// `type` ("float", "c10::BFloat16"), its one kernel at kernel_ts for kernel_dur µs.
Trace& shaped_mm(Trace& t, double ts, int m, int k, int n, const std::string& type, const std::string& kernel, double kernel_ts,
                 double kernel_dur) {
  const std::string ext = std::to_string(++t.ids), corr = std::to_string(1000 + t.ids);
  t.x("cpu_op", "aten::mm", 1, 1, ts, 10,
      "\"External id\":" + ext + ",\"Input Dims\":[[" + std::to_string(m) + "," + std::to_string(k) + "],[" + std::to_string(k) +
          "," + std::to_string(n) + "]],\"Input type\":[\"" + type + "\",\"" + type + "\"]");
  t.x("cuda_runtime", "cudaLaunchKernel", 1, 1, ts + 2, 2, "\"External id\":" + ext + ",\"correlation\":" + corr);
  t.x("kernel", kernel, 0, 7, kernel_ts, kernel_dur, "\"External id\":" + ext + ",\"correlation\":" + corr + ",\"device\":0,\"stream\":7");
  return t;
}

// Issue 25: the mixed-precision advice by the share of the eligible operators' kernel time not on
// Tensor Cores, whatever the other kernels did (before: only when no kernel used them at all).
TEST_CASE("recommendation amp: the eligible time not on Tensor Cores, even beside Tensor Core kernels", "[recommendations]") {
  Trace t;
  t.member("deviceProperties", kA100).step(0, 100);
  t.op_kernel("aten::mm", 5, "ampere_sgemm_128x64_nn", 10, 60);  // strict FP32, 60 µs
  t.op_kernel("aten::mm", 20, "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn", 70, 10);  // BF16 Tensor Cores
  t.op_kernel("aten::add", 40, "void at::native::vectorized_elementwise_kernel<4>(int)", 80, 30);
  const auto r = run(t);
  const ks::Recommendation* amp = r->find("amp");
  REQUIRE(amp);
  CHECK(has(amp->text, "60% of the kernel time is launched by operators that could use Tensor Cores"));
  CHECK(has(amp->text, "ran without them (14.29 % of these operators' kernel time did use them)"));
  CHECK(has(amp->text, "bfloat16 or float16"));
  CHECK(has(amp->text, "TF32"));
  CHECK(amp->evidence.row == "aten::mm");
  // under 5% of the kernel time off the units: no sentence
  Trace small;
  small.member("deviceProperties", kA100).step(0, 100);
  small.op_kernel("aten::mm", 5, "ampere_sgemm_128x64_nn", 10, 4);
  small.op_kernel("aten::mm", 20, "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn", 20, 60);
  small.op_kernel("aten::add", 40, "void at::native::vectorized_elementwise_kernel<4>(int)", 80, 36);
  CHECK_FALSE(run(small)->find("amp"));
}

// Volta and Turing have FP16 Tensor Cores only: no bfloat16 advice for them (nor TF32).
TEST_CASE("recommendation amp: per architecture, no bfloat16 for a V100", "[recommendations]") {
  Trace t;
  t.member("deviceProperties", kV100).step(0, 100);
  t.op_kernel("aten::mm", 5, "volta_sgemm_128x64_nn", 10, 60);
  t.op_kernel("aten::add", 20, "void at::native::vectorized_elementwise_kernel<4>(int)", 70, 20);
  const auto r = run(t);
  REQUIRE(r->find("amp"));
  CHECK(has(r->find("amp")->text, "torch.autocast with float16: this GPU's Tensor Cores have no bfloat16"));
  CHECK_FALSE(has(r->find("amp")->text, "bfloat16 or float16"));
  CHECK_FALSE(has(r->find("amp")->text, "TF32"));
}

// FP32 matmuls counted from their shapes, on a GPU with TF32 and BF16 Tensor Cores: the advice
// names the dense peaks it would gain (the H100 SXM row), and the amp sentence is not repeated.
TEST_CASE("recommendation fp32-matmul: FP32 matmuls on a GPU with TF32/BF16 Tensor Cores", "[recommendations]") {
  auto trace = [](const std::string& devices) {
    Trace t;
    t.member("deviceProperties", devices).step(0, 500);
    shaped_mm(t, 5, 2048, 2048, 2048, "float",
              "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
              20, 400);
    t.op_kernel("aten::add", 40, "void at::native::vectorized_elementwise_kernel<4>(int)", 420, 20);
    return t;
  };
  const auto h100 = run(trace(kH100));
  const ks::Recommendation* r = h100->find("fp32-matmul");
  REQUIRE(r);
  // 2·2048³ FLOPs in 400 µs: 42.9 TFLOP/s; 400 of 420 µs of kernels
  CHECK(has(r->text, "95% of the kernel time is FP32 matrix multiplies, convolutions or attention (aten::mm the most)"));
  CHECK(has(r->text, "at 42.9 TFLOP/s"));
  CHECK(has(r->text, "The NVIDIA H100 SXM5 80GB's dense peaks: 494.5 TFLOP/s TF32 and 989.5 BF16 on Tensor Cores, against 67 FP32."));
  CHECK(has(r->text, "torch.set_float32_matmul_precision(\"high\")"));
  CHECK(r->evidence.group == "op+shape");
  CHECK(r->evidence.row == "aten::mm [[2048, 2048], [2048, 2048]]");
  CHECK_FALSE(h100->find("amp"));
  // a V100 has neither: the amp sentence (float16) instead
  const auto v100 = run(trace(kV100));
  CHECK_FALSE(v100->find("fp32-matmul"));
  REQUIRE(v100->find("amp"));
  // tb_plugin's mode has no such rule
  CHECK_FALSE(run(trace(kH100), true)->find("fp32-matmul"));
}

// Small matmuls far below their roof: a call that would take under 10 µs even at its roof,
// running at under a tenth of it.
TEST_CASE("recommendation small-matmuls: small shapes far below their roof", "[recommendations]") {
  Trace t;
  t.member("deviceProperties", kH100).step(0, 3000);
  // 64 calls of a bf16 [64, 64] @ [64, 64] (524,288 FLOPs, 24,576 bytes: 21.3 FLOP/byte, a
  // bandwidth roof of 71.5 TFLOP/s) at 4 µs each: 0.13 TFLOP/s, 0.18 % of the roof
  for (int i = 0; i < 64; ++i) shaped_mm(t, 5 + 12 * i, 64, 64, 64, "c10::BFloat16", "nvjet_hsh_64x8_64x16_2x1_v_bz_TNN", 800 + 5 * i, 4);
  // one big bf16 matmul near its roof: 2·8192³ FLOPs in 1500 µs, 733 TFLOP/s of 989.5
  shaped_mm(t, 780, 8192, 8192, 8192, "c10::BFloat16", "nvjet_hsh_256x128_64x4_2x1_v_bz_TNN", 1200, 1500);
  const auto r = run(t);
  const ks::Recommendation* s = r->find("small-matmuls");
  REQUIRE(s);
  CHECK(has(s->text, "15% of the kernel time is small matrix multiplies far below their roof: 1 shape at under 10% of it"));
  CHECK(has(s->text, "(aten::mm [[64, 64], [64, 64]] the most: 4.0 us a call where its roof allows 0.0073)"));
  CHECK(has(s->text, "CUDA graphs"));
  CHECK(s->evidence.row == "aten::mm [[64, 64], [64, 64]]");
  // without the small ones: nothing to say
  Trace big;
  big.member("deviceProperties", kH100).step(0, 2000);
  shaped_mm(big, 5, 8192, 8192, 8192, "c10::BFloat16", "nvjet_hsh_256x128_64x4_2x1_v_bz_TNN", 20, 1500);
  CHECK_FALSE(run(big)->find("small-matmuls"));
}

TEST_CASE("recommendation memory: a GPU's peak against its own capacity", "[recommendations]") {
  const std::string two_gpus =
      "[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"totalGlobalMem\":85899345920,\"computeMajor\":8,\"computeMinor\":0},"
      "{\"id\":1,\"name\":\"Tesla T4\",\"totalGlobalMem\":17179869184,\"computeMajor\":7,\"computeMinor\":5}]";
  constexpr int64_t GiB = int64_t(1) << 30;
  auto peak = [&](int type, int id, int64_t bytes) {
    Trace t = busy_step(two_gpus);
    t.memory(type, id, bytes, 50);
    return t;
  };
  // GPU 1 (16 GiB) at 15 GiB: 93.8%
  const auto gpu1 = run(peak(1, 1, 15 * GiB));
  const ks::Recommendation* r = gpu1->find("memory");
  REQUIRE(r);
  CHECK(has(r->text, "GPU 1 reaches 93.8% of its 16.0 GB"));
  CHECK(r->evidence.view == "memory");
  // 15 GiB on GPU 0 (80 GiB) is far from its limit, though over GPU 1's.
  CHECK_FALSE(run(peak(1, 0, 15 * GiB))->find("memory"));
  // The CPU's peak (type 0, id -1): tb_plugin compares it with the last GPU's memory.
  CHECK_FALSE(run(peak(0, -1, 15 * GiB))->find("memory"));
  CHECK(run(peak(0, -1, 15 * GiB), true)->find("memory"));
}

TEST_CASE("recommendations on MTIA and CPU-only traces: only those that apply", "[recommendations]") {
  // An MTIA run (its runtime category) with DDP over gloo, an eligible operator, a low-busy
  // device: no NCCL, no mixed-precision, no memory advice (none of them applies to MTIA).
  Trace mtia;
  mtia.member("distributedInfo", "{\"backend\":\"gloo\",\"rank\":0,\"world_size\":2}").step(0, 100);
  mtia.x("user_annotation", "DistributedDataParallel.forward", 1, 1, 1, 90);
  mtia.x("cpu_op", "aten::mm", 1, 1, 5, 10).x("mtia_runtime", "mtiaLaunchKernel", 1, 1, 7, 2).memory(1, 0, int64_t(1) << 40, 50);
  for (const auto& r : run(mtia)->recs) CHECK((r.id != "nccl" && r.id != "amp" && r.id != "memory"));
  Trace cpu;
  cpu.member("distributedInfo", "{\"backend\":\"gloo\",\"rank\":0,\"world_size\":2}").step(0, 100);
  cpu.x("user_annotation", "DistributedDataParallel.forward", 1, 1, 1, 90).x("cpu_op", "aten::mm", 1, 1, 5, 90);
  cpu.memory(0, -1, int64_t(1) << 40, 50);
  CHECK(run(cpu)->recs.empty());
}
