// GPU metrics on a hand-made trace; expected values worked out by hand (tb_plugin's numbers on
// real traces: tests/golden/gpu_metrics_test.mjs).
#include <catch2/catch.hpp>

#include "core/analysis/gpu_metrics.h"
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
