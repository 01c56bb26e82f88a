// The step-time breakdown on hand-made traces; expected values worked out by hand (the
// tb_plugin comparison on real traces is tests/golden/step_breakdown_test.mjs).
#include <catch2/catch.hpp>

#include "core/analysis/step_breakdown.h"
#include "test_util.h"

using ks::Role;

namespace {
ks::StepBreakdown breakdown_of(const char* fixture, ks::StepOptions options = {}) {
  ks::TraceReader r;
  kstest::feed_all(r, kstest::read_fixture(fixture), 7);
  REQUIRE(r.error().empty());
  return ks::step_breakdown(r.model(), ks::find_steps(r.model(), options), options);
}
int64_t us(const ks::StepCosts& c, Role r) { return c.ns[size_t(r)] / 1000; }
}  // namespace

TEST_CASE("priority-breakdown: each moment goes to the first busy role", "[step_breakdown]") {
  const auto b = breakdown_of("priority-breakdown.json");
  REQUIRE(b.steps.size() == 1);
  const auto& s = b.steps[0];
  CHECK(s.step.name == "7");
  CHECK(s.total_ns == 100000);
  CHECK(us(s, Role::kKernel) == 25);       // [15,40]
  CHECK(us(s, Role::kMemcpy) == 10);       // [35,50] less the kernel
  CHECK(us(s, Role::kMemset) == 0);
  CHECK(us(s, Role::kRuntime) == 5);       // [10,20] less the kernel; [30,32] lies under it
  CHECK(us(s, Role::kDataLoader) == 10);   // [60,70]
  CHECK(us(s, Role::kCpuExec) == 25);      // [5,80] less all of the above
  CHECK(us(s, Role::kOther) == 25);        // [0,5] and [80,100]
  CHECK(b.average_ns[size_t(Role::kCpuExec)] == Approx(25000));
  CHECK(b.roles[size_t(Role::kRuntime)].merged == 2);
}

TEST_CASE("ns-precision-breakdown: nanoseconds stay exact at 1.7e15 us", "[step_breakdown]") {
  const auto b = breakdown_of("ns-precision-breakdown.json");
  REQUIRE(b.steps.size() == 1);
  CHECK(b.steps[0].total_ns == 10000);
  CHECK(b.steps[0].ns[size_t(Role::kKernel)] == 100);   // doubles in us would say 0 or 250
  CHECK(b.steps[0].ns[size_t(Role::kRuntime)] == 200);
  CHECK(b.steps[0].ns[size_t(Role::kOther)] == 9700);
}

TEST_CASE("gpu-annotation-profiler-step: GPU-stream annotations are not host work", "[step_breakdown]") {
  const auto right = breakdown_of("gpu-annotation-profiler-step.json");
  REQUIRE(right.steps.size() == 1);
  CHECK(right.steps[0].step.start_ns == 100000);
  CHECK(right.steps[0].step.end_ns == 200000);
  CHECK(us(right.steps[0], Role::kCpuExec) == 20);
  CHECK(us(right.steps[0], Role::kCommunication) == 0);
  CHECK(us(right.steps[0], Role::kOther) == 80);

  ks::StepOptions tb;
  tb.tb_plugin_gpu_annotations = true;  // tb_plugin: a second step "1", and the GPU-stream
  const auto quirk = breakdown_of("gpu-annotation-profiler-step.json", tb);  // all_reduce is host communication
  REQUIRE(quirk.steps.size() == 2);
  CHECK(quirk.steps[0].step.name == "1");
  CHECK(quirk.steps[1].step.name == "1");
  CHECK(us(quirk.steps[0], Role::kCommunication) == 10);
}

TEST_CASE("no ProfilerStep: one step over the host ops, extended by their GPU work", "[step_breakdown]") {
  // tb_unit test_self_time's trace, as written out in ../shared (cpu ops 100-200, kernels to 226)
  const std::string text = R"({"traceEvents":[
{"ph":"X","cat":"Operator","name":"aten::mat_mul","pid":13721,"tid":"456","ts":100,"dur":100,"args":{"External id":2}},
{"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":"stream 7","ts":210,"dur":16,"args":{"correlation":335,"external id":2}},
{"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":13721,"tid":"456","ts":170,"dur":25,"args":{"correlation":335,"external id":2}}]})";
  ks::TraceReader r;
  kstest::feed_all(r, text, 9);
  const auto steps = ks::find_steps(r.model());
  REQUIRE(steps.steps.size() == 1);
  CHECK_FALSE(steps.from_profiler_steps);
  CHECK(steps.steps[0].name == "0");
  CHECK(steps.steps[0].start_ns == 100000);
  CHECK(steps.steps[0].end_ns == 226000);
}

TEST_CASE("nccl-kernels-by-name: PyTorch 2.x collective kernels are Communication by default", "[step_breakdown]") {
  // PyTorch 2.x: the kernel's External id holds its correlation, so it links to no nccl:* op.
  // Step [0,100]; host nccl:all_reduce [10,20]; kernels ncclDevKernel [30,60], gemm [55,80].
  const std::string text = R"JSON({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"nccl:all_reduce","pid":1,"tid":1,"ts":10,"dur":10,"args":{"External id":5}},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":7,"ts":30,"dur":30,"args":{"External id":41,"correlation":41,"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":55,"dur":25,"args":{"External id":42,"correlation":42,"device":0,"stream":7}}]})JSON";
  ks::TraceReader r;
  kstest::feed_all(r, text, 11);
  REQUIRE(r.error().empty());
  for (bool tb : {false, true}) {
    ks::StepOptions options;
    options.tb_plugin_gpu_annotations = tb;
    const auto b = ks::step_breakdown(r.model(), ks::find_steps(r.model(), options), options);
    REQUIRE(b.steps.size() == 1);
    const auto& s = b.steps[0];
    if (!tb) {
      CHECK(us(s, Role::kKernel) == 25);         // gemm [55,80]: Kernel comes first in the priority
      CHECK(us(s, Role::kCommunication) == 35);  // nccl:all_reduce [10,20] + ncclDevKernel [30,55]
    } else {
      CHECK(us(s, Role::kKernel) == 50);         // tb_plugin: both kernels [30,80]
      CHECK(us(s, Role::kCommunication) == 10);  // only the host call
    }
    CHECK(us(s, Role::kCpuExec) == 0);           // the step range is no work; nothing else is host
    CHECK(us(s, Role::kOther) == 100 - us(s, Role::kKernel) - us(s, Role::kCommunication));
  }
}
