// GPU metrics on a hand-made trace; expected values worked out by hand (tb_plugin's numbers on
// real traces: tests/golden/gpu_metrics_test.mjs).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "core/analysis/gpu_metrics.h"
#include "core/analysis/overview.h"
#include "core/util/format_pct.h"
#include "core/analysis/kernels.h"
#include "core/session/session.h"
#include "test_util.h"

TEST_CASE("gpu-metrics-by-hand: utilization, est. SM efficiency, est. occupancy", "[gpu_metrics]") {
  ks::TraceReader r;
  kstest::feed_all(r, kstest::read_fixture("gpu-metrics-by-hand.json"), 11);
  const auto g = ks::gpu_metrics(r.model(), ks::find_steps(r.model()));
  CHECK(g.window_start_ns == 0);
  CHECK(g.window_end_ns == 100000);
  REQUIRE(g.gpus.size() == 2);
  const ks::GpuMetrics& g0 = g.gpus[0];
  CHECK(g0.device == 0);
  CHECK(g0.utilization == Approx(0.6));        // [10,70] busy of [0,100]
  CHECK(*g0.sm_efficiency == Approx(0.45));    // 20 x 0.5 + 20 x min(1.25, 1) + 20 x 0.75
  CHECK(*g0.occupancy_pct == Approx(30));      // (40 x 40 + 20 x 40) / 80
  CHECK(g0.blocks_per_sm_count == 2);
  const ks::GpuMetrics& g1 = g.gpus[1];
  CHECK(g1.device == 1);
  CHECK(g1.utilization == Approx(0.1));
  CHECK(*g1.sm_efficiency == Approx(0.1));     // 2 blocks per SM count as 1
  CHECK(*g1.occupancy_pct == Approx(50));
  // timeline: the 100 us trace in 1 us buckets (100 of them), then the closing zero
  REQUIRE(g0.timeline.size() == 101);
  CHECK(g0.timeline[5].second == Approx(0.0));
  CHECK(g0.timeline[40].second == Approx(1.0));
  CHECK(g0.timeline.back().second == 0.0);
}

// The Overview's GPU summary of a chosen step (issue 22 §6) on diff-baseline.json: ProfilerStep#1
// [0,100) µs runs a 30 µs kernel, #2 [100,200) a 28 µs one. Each step's utilization is over its
// own time, all steps' over both: 30 %, 28 %, 58 / 200 = 29 %. One formatter prints them.
TEST_CASE("gpu summary of one step: the step's window and the kernels it issued", "[gpu_metrics]") {
  kstest::LoadedFixture l("diff-baseline.json");
  ks::Session s;
  kstest::feed_all(s.reader(), kstest::read_fixture("diff-baseline.json"), 7);
  const ks::StepsResult steps = ks::find_steps(l.m());
  const ks::OpTree tree = ks::build_op_tree(l.m());
  const ks::StepAttribution a = ks::attribute_steps(tree, l.m(), steps);
  for (const auto& [name, pct] : {std::pair<const char*, const char*>{"1", "30"}, {"2", "28"}}) {
    INFO("step " << name);
    const std::optional<ks::StepFilter> f = ks::step_filter(a, steps, name);
    REQUIRE(f);
    const ks::GpuMetricsResult g = ks::gpu_metrics(l.m(), ks::chosen_steps(steps, *f));
    REQUIRE(g.gpus.size() == 1);
    CHECK(g.gpus[0].utilization * 100 == Approx(std::stod(pct)));
    // The gpu_summary view answers the same for that step (its --json names it).
    const ks::Answer ans = s.query("gpu_summary", {{"step", name}});
    REQUIRE(ans.error.empty());
    REQUIRE(ans.rows == 1);
    CHECK(ans.column("utilization_pct")->f64[0] == Approx(std::stod(pct)));
    CHECK(ks::answer_json(ans).find(std::string("\"step\":\"") + name + "\"") != std::string::npos);
  }
  const ks::GpuMetricsResult all = ks::gpu_metrics(l.m(), steps);
  const ks::Answer whole = s.query("gpu_summary", {});
  REQUIRE(whole.rows == 1);
  CHECK(whole.column("utilization_pct")->f64[0] == Approx(29));
  CHECK(ks::answer_json(whole).find("\"step\":null") != std::string::npos);
  CHECK(s.query("gpu_summary", {{"step", "9"}}).error.find("9") != std::string::npos);  // no such step
  CHECK(ks::format_pct(whole.column("utilization_pct")->f64[0]) == "29.00 %");  // as `gpus --step` prints it
  CHECK(ks::format_pct(12.125) == "12.13 %");  // an exact tie rounds as the page's toFixed(2)
  CHECK(ks::format_pct(44.48572652441825) == "44.49 %");
}

// Kineto writes "est. achieved occupancy %" 0 for a cluster launch (its calculator fails): that 0 is
// no value, and neither the GPU's mean nor the kernel's row counts it; a one-block kernel's 0 (less
// than a warp per SM) is real. --tb-plugin counts every 0, as tb_plugin does.
TEST_CASE("cluster-launch-zero-occupancy: a 0 the calculator wrote for a cluster launch is absent", "[gpu_metrics]") {
  ks::TraceReader r;
  kstest::feed_all(r, kstest::read_fixture("cluster-launch-zero-occupancy.json"), 13);
  const ks::TraceModel& m = r.model();
  const auto steps = ks::find_steps(m);
  REQUIRE(m.kernels.size() == 3);
  const auto g = ks::gpu_metrics(m, steps);
  REQUIRE(g.gpus.size() == 1);
  CHECK(*g.gpus[0].occupancy_pct == Approx(25));  // (50 x 10 + 0 x 10) / 20: the nvjet kernel left out
  CHECK(g.gpus[0].occupancy_count == 2);
  const auto tb = ks::gpu_metrics(m, steps, true);
  CHECK(*tb.gpus[0].occupancy_pct == Approx(10));  // (50 x 10) / 50

  auto occupancy_of = [&](bool tb_plugin) {
    const ks::OpTree tree = ks::build_op_tree(m, {tb_plugin});
    const ks::KernelTable t = ks::kernel_table(tree, m, ks::KernelGroupBy::kName, nullptr);
    std::map<std::string, double> out;
    for (const ks::KernelGroup& k : t.rows) out[std::string(m.strings.get(k.name))] = k.occupancy_pct();
    CHECK(t.has_occupancy);
    return out;
  };
  const auto ours = occupancy_of(false);
  CHECK(std::isnan(ours.at("nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_NNN")));
  CHECK(ours.at("ampere_sgemm_128x64_nn") == Approx(50));
  CHECK(ours.at("void at::native::vectorized_elementwise_kernel<4>") == 0);
  const auto theirs = occupancy_of(true);
  CHECK(theirs.at("nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_NNN") == 0);
  CHECK(theirs.at("ampere_sgemm_128x64_nn") == Approx(50));
}
