// HTA's idle time breakdown (core/analysis/gpu_idle.h, core/session/views/gpu_idle.cpp) on the
// hand-made gpu-idle-overlapping-sync.json and gpu-time-sub-us-memset.json (tests/data/README.md
// has the arithmetic). HTA's own numbers on ../shared: tests/golden/gpu_time_test.mjs.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/analysis/gpu_idle.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "session_fixture.h"
#include "test_util.h"

namespace {

constexpr int64_t us = 1000;

using Opened = kstest::OpenedSession;

ks::GpuIdleResult idle(const ks::Session& s, ks::GpuTimeRounding r = ks::GpuTimeRounding::kExact, int64_t wait_ns = 30 * us) {
  ks::GpuIdleOptions o;
  o.rounding = r;
  o.kernel_wait_ns = wait_ns;
  return ks::gpu_idle(s.model(), o);
}

constexpr size_t kHost = 0, kKernel = 1, kOther = 2;

}  // namespace

TEST_CASE("gpu-idle-overlapping-sync: host wait, kernel wait and other per stream, exact", "[gpu_idle]") {
  Opened o("gpu-idle-overlapping-sync.json");
  const ks::GpuIdleResult r = idle(o.s);
  // Streams by their first event: 7 (100), 20 (140), 21 (200).
  REQUIRE(r.streams.size() == 3);
  const ks::StreamIdle& s7 = r.streams[0];
  CHECK(s7.stream == 7);
  // The Stream Sync is the host's wait, not GPU work: gemm, gemm2, three relus and add.
  CHECK(s7.events == 6);
  // gemm2 [120,140) starts under gemm [100,150): no gap (0, kernel wait); relu#1 launched at 165,
  // after the furthest end 150: host wait 50; relu#2 launched at 170 before 210: a 40 µs gap is
  // other; relu#3 2 µs later: kernel wait; add, which no runtime call launched, 30 µs later: other
  // (not under 30).
  CHECK(s7.idle_ns[kHost] == 50 * us);
  CHECK(s7.idle_ns[kKernel] == 2 * us);
  CHECK(s7.idle_ns[kOther] == 70 * us);
  CHECK(s7.total_ns() == 122 * us);
  const ks::IdleIntervalStats& k = s7.intervals[kKernel];
  CHECK(k.count == 2);
  CHECK(k.mean == Approx(1 * us));
  CHECK(k.std == Approx(std::sqrt(2.0) * us));
  CHECK(k.min == 0);
  CHECK(k.p25 == Approx(0.5 * us));
  CHECK(k.p50 == Approx(1 * us));
  CHECK(k.p75 == Approx(1.5 * us));
  CHECK(k.max == 2 * us);
  const ks::IdleIntervalStats& other = s7.intervals[kOther];
  CHECK(other.count == 2);
  CHECK(other.mean == Approx(35 * us));
  CHECK(other.p25 == Approx(32.5 * us));
  CHECK(other.max == 40 * us);
  CHECK(s7.intervals[kHost].count == 1);
  CHECK(std::isnan(s7.intervals[kHost].std));  // one gap: no deviation (pandas' NaN)
  // One event a stream: no gap at all.
  CHECK(r.streams[1].stream == 20);
  CHECK(r.streams[1].events == 1);
  CHECK(r.streams[1].total_ns() == 0);
  CHECK(r.streams[2].stream == 21);
}

TEST_CASE("gpu-idle-overlapping-sync: HTA's reading keeps the negative gap, the threshold moves a gap", "[gpu_idle]") {
  Opened o("gpu-idle-overlapping-sync.json");
  // HTA measures from the previous event's end in start order: gemm2's gap is 120 - 150 = -30
  // (kernel wait), relu#1's 200 - 140 = 60 (host wait): its kernel wait comes out -28 µs.
  const ks::GpuIdleResult h = idle(o.s, ks::GpuTimeRounding::kHta);
  CHECK(h.streams[0].idle_ns[kKernel] == -28 * us);
  CHECK(h.streams[0].idle_ns[kHost] == 60 * us);
  CHECK(h.streams[0].idle_ns[kOther] == 70 * us);
  CHECK(h.streams[0].intervals[kKernel].min == -30 * us);
  // A threshold of 45 µs makes the 40 and 30 µs gaps kernel wait; one of 1 µs the 2 µs gap other.
  const ks::GpuIdleResult wide = idle(o.s, ks::GpuTimeRounding::kExact, 45 * us);
  CHECK(wide.streams[0].idle_ns[kKernel] == 72 * us);
  CHECK(wide.streams[0].idle_ns[kOther] == 0);
  const ks::GpuIdleResult narrow = idle(o.s, ks::GpuTimeRounding::kExact, 1 * us);
  CHECK(narrow.streams[0].idle_ns[kKernel] == 0);
  CHECK(narrow.streams[0].idle_ns[kOther] == 72 * us);
}

TEST_CASE("gpu-time-sub-us-memset: idle gaps in HTA's scope, the sub-µs memset exact", "[gpu_idle]") {
  Opened o("gpu-time-sub-us-memset.json");
  const ks::GpuIdleResult r = idle(o.s);
  REQUIRE(r.streams.size() == 2);
  // Stream 7: gemm [1040,1060), memset [1080.2,1080.7) launched at 1030 (kernel wait 20.2),
  // elementwise [1130,1150) launched at 1110, after the memset's end (host wait 49.3). Step 3's
  // gemm and copy are out of HTA's scope.
  CHECK(r.streams[0].stream == 7);
  CHECK(r.streams[0].events == 3);
  CHECK(r.streams[0].idle_ns[kKernel] == 20200);
  CHECK(r.streams[0].idle_ns[kHost] == 49300);
  // Stream 8: the NCCL kernel [1045,1055), the copy [1135,1140) launched at 1120: host wait 80.
  CHECK(r.streams[1].stream == 8);
  CHECK(r.streams[1].idle_ns[kHost] == 80 * us);
  // HTA's µs: the memset is [1081,1080], so the gaps are 21 and 50.
  const ks::GpuIdleResult h = idle(o.s, ks::GpuTimeRounding::kHta);
  CHECK(h.streams[0].idle_ns[kKernel] == 21 * us);
  CHECK(h.streams[0].idle_ns[kHost] == 50 * us);
}

TEST_CASE("Session answers gpu-idle and gpu-idle-intervals", "[gpu_idle][session]") {
  Opened o("gpu-idle-overlapping-sync.json");
  const ks::Answer a = o.s.query("gpu-idle", {});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 3);
  CHECK(a.column("stream")->f64[0] == 7);
  CHECK(a.column("idle_us")->f64[0] == Approx(122));
  CHECK(a.column("host_wait_us")->f64[0] == Approx(50));
  CHECK(a.column("kernel_wait_us")->f64[0] == Approx(2));
  CHECK(a.column("other_us")->f64[0] == Approx(70));
  CHECK(a.column("host_wait_ratio")->f64[0] == Approx(50.0 / 122));
  CHECK(a.column("other_ratio")->f64[0] == Approx(70.0 / 122));
  CHECK(std::isnan(a.column("host_wait_ratio")->f64[1]));  // no idle time: no share
  const std::string json = ks::answer_json(a);
  CHECK(json.find("\"rounding\":\"ns\",\"kernel_wait_us\":30,\"note\":null,\"idle\":[{\"stream\":7,\"events\":6,") != std::string::npos);
  const ks::Answer i = o.s.query("gpu-idle-intervals", {{"kernel_wait_us", "1"}});
  REQUIRE(i.error.empty());
  REQUIRE(i.rows == 9);
  CHECK(i.strings[i.column("category")->str[2]] == "other");
  CHECK(i.column("count")->f64[2] == 3);
  CHECK(i.column("total_us")->f64[2] == Approx(72));
  CHECK(i.column("p50_us")->f64[2] == Approx(30));
  // Under 1 µs only gemm2's gap (0) is kernel wait: one gap, no deviation.
  CHECK(i.column("count")->f64[1] == 1);
  CHECK(i.column("mean_us")->f64[1] == 0);
  CHECK(std::isnan(i.column("std_us")->f64[1]));
  // Stream 20 has one event: no gap in any category, its statistics null.
  CHECK(i.column("count")->f64[3] == 0);
  CHECK(std::isnan(i.column("mean_us")->f64[3]));
  CHECK(o.s.query("gpu-idle", {{"kernel_wait_us", "-1"}}).error == "kernel_wait_us is not a number of µs of 0 or more: -1");
  CHECK(o.s.query("gpu-idle", {{"rounding", "ms"}}).error == "unknown rounding: ms (ns or hta)");
}

TEST_CASE("a trace without GPU work has no idle breakdown and says why", "[gpu_idle][session]") {
  auto owned = std::make_unique<ks::Session>();
  ks::Session& s = *owned;
  kstest::feed_all(s.reader(), R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":10,"dur":5}]})", 9);
  const ks::Answer a = s.query("gpu-idle", {});
  REQUIRE(a.error.empty());
  CHECK(a.rows == 0);
  CHECK(ks::answer_json(a).find("\"note\":\"The trace has no GPU work") != std::string::npos);
}
