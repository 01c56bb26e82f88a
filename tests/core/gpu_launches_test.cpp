// The GPU time view's launch statistics, communication overlap, queue length and memory bandwidth
// (core/analysis/gpu_launches.h, gpu_overlap.h, gpu_queue.h): the hand-made
// gpu-launch-without-kernel.json (tests/data/README.md has the arithmetic), a stream held at CUDA's
// queue limit (a trace written here: 1,030 launches before their kernels start), and the pixel
// columns a series is drawn from. HTA's own numbers on ../shared: tests/golden/gpu_counters_test.mjs.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/analysis/gpu_launches.h"
#include "core/analysis/gpu_overlap.h"
#include "core/analysis/gpu_queue.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "test_util.h"

namespace {

constexpr int64_t us = 1000;

struct Opened {
  ks::Session s;
  explicit Opened(const std::string& text) {
    kstest::feed_all(s.reader(), text, 7);
    REQUIRE(s.reader().error().empty());
  }
};

std::string fixture(const char* name) { return kstest::read_fixture(name); }

// 1,030 launches 1 µs apart from 1000 µs, their kernels 2 µs apart from 5000 µs.
std::string queue_limit_trace() {
  std::string t = "{\"traceEvents\":[\n";
  for (int i = 0; i < 1030; ++i) {
    t += "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(1000 + i) +
         ",\"dur\":0.5,\"args\":{\"correlation\":" + std::to_string(i + 1) + "}},\n";
    t += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(5000 + 2 * i) +
         ",\"dur\":1,\"args\":{\"correlation\":" + std::to_string(i + 1) + ",\"device\":0,\"stream\":7}}" + (i + 1 < 1030 ? ",\n" : "\n");
  }
  return t + "]}";
}

}  // namespace

TEST_CASE("gpu-launch-without-kernel: each launch's durations and delay, the call without a kernel counted apart", "[gpu_launches]") {
  Opened o(fixture("gpu-launch-without-kernel.json"));
  const ks::LaunchStatsResult r = ks::gpu_launch_stats(o.s.model(), &o.s.tree());
  REQUIRE(r.launches.size() == 5);
  CHECK(r.calls_without_gpu_event == 1);  // correlation 4: its kernel was not recorded
  // In order of the call's start: A, B, C (the memcpy), E (cuLaunchKernel), F.
  const int64_t corr[] = {1, 2, 3, 5, 6};
  const int64_t cpu[] = {10, 8, 60, 6, 10}, gpu[] = {20, 3, 10, 4, 2};
  // F's kernel starts 5 µs before its call returns: a delay of 0, as HTA's.
  const int64_t delay[] = {5, 7, 10, 148, 0};
  for (size_t i = 0; i < 5; ++i) {
    CHECK(r.launches[i].correlation == corr[i]);
    CHECK(r.launches[i].cpu_dur_ns == cpu[i] * us);
    CHECK(r.launches[i].gpu_dur_ns == gpu[i] * us);
    CHECK(r.launches[i].delay_ns == delay[i] * us);
  }
  // describe(): cpu 6, 8, 10, 10, 60; gpu 2, 3, 4, 10, 20; delay 0, 5, 7, 10, 148.
  CHECK(r.cpu.mean == Approx(18.8 * us));
  CHECK(r.cpu.p25 == 8 * us);
  CHECK(r.cpu.p50 == 10 * us);
  CHECK(r.cpu.max == 60 * us);
  CHECK(r.gpu.mean == Approx(7.8 * us));
  CHECK(r.gpu.p75 == 10 * us);
  CHECK(r.delay.mean == Approx(34 * us));
  CHECK(r.delay.p50 == 7 * us);
  CHECK(r.delay.min == 0);
  // Short: B, E, F (call ≤ 50 µs and longer than the GPU work); runtime outlier C (60 µs); delay
  // outlier E (148 µs).
  CHECK(r.short_kernels == 3);
  CHECK(r.runtime_outliers == 1);
  CHECK(r.delay_outliers == 1);
  REQUIRE(r.operators.size() == 3);
  CHECK(r.operators[0].name == "aten::add");
  CHECK(r.operators[0].launches == 2);
  CHECK(r.operators[0].short_kernels == 2);
  CHECK(r.operators[0].delay_ns == 148 * us);
  CHECK(r.operators[1].name == "aten::mm");
  CHECK(r.operators[1].delay_ns == 12 * us);
  CHECK(r.operators[2].name == "aten::copy_");

  SECTION("HTA's selection of calls leaves out the driver's cuLaunchKernel") {
    ks::LaunchStatsOptions hta;
    hta.hta_calls_only = true;
    const ks::LaunchStatsResult h = ks::gpu_launch_stats(o.s.model(), nullptr, hta);
    REQUIRE(h.launches.size() == 4);
    for (const ks::KernelLaunch& k : h.launches) CHECK(k.correlation != 5);
    CHECK(h.calls_without_gpu_event == 1);
  }
}

TEST_CASE("gpu-launch-without-kernel: no communication kernel, so no overlap share (null, not 0)", "[gpu_launches]") {
  Opened o(fixture("gpu-launch-without-kernel.json"));
  const ks::CommCompOverlap x = ks::comm_comp_overlap(o.s.model());
  CHECK_FALSE(x.has_communication());
  CHECK(x.computation_kernels == 4);
  const ks::Answer a = o.s.query("gpu-comm-overlap", {});
  REQUIRE(a.error.empty());
  CHECK(ks::answer_meta(a, "comm_comp_overlap_pct") == "null");
  CHECK(ks::answer_meta(a, "comm_comp_overlap_note") != "null");
}

TEST_CASE("gpu-launch-without-kernel: the queue of each stream and the copy's bandwidth", "[gpu_queue]") {
  Opened o(fixture("gpu-launch-without-kernel.json"));
  const ks::GpuQueueResult r = ks::gpu_queue(o.s.model());
  REQUIRE(r.streams.size() == 2);
  const ks::StreamQueue& s7 = r.streams[0];
  CHECK(s7.stream == 7);
  CHECK(s7.launches == 4);
  // +1 at 100, -1 at 115, +1 at 120, +1 at 130, -1 at 135, +1 at 196, -1 at 200, -1 at 350:
  // values 1 0 1 2 1 2 1 0.
  CHECK(s7.stats.count == 8);
  CHECK(s7.stats.mean == 1.0);
  CHECK(s7.stats.p25 == 0.75);
  CHECK(s7.stats.p75 == 1.25);
  CHECK(s7.stats.max == 2);
  CHECK(s7.time_at_limit_ns == 0);
  REQUIRE(s7.series.size() == 8);
  CHECK(s7.series[3].t_ns == 130 * us);
  CHECK(s7.series[3].value == 2);
  CHECK(r.streams[1].stream == 8);
  CHECK(r.streams[1].stats.mean == 0.5);
  REQUIRE(r.bandwidth.size() == 1);
  CHECK(r.bandwidth[0].kind == "Memcpy HtoD");
  CHECK(r.bandwidth[0].bytes == 1000000);
  CHECK(r.bandwidth[0].busy_ns == 10 * us);
  CHECK(r.bandwidth[0].stats.count == 1);
  CHECK(r.bandwidth[0].stats.mean == Approx(0.1));
}

TEST_CASE("gpu-time --json: the queue rows followed by gpu-queue's queue_limit and queue_note, as the page shows them", "[gpu_queue]") {
  // A kernel without its launch call (the trace lost it): GPU time to break down, but no queue.
  ks::Session s;
  kstest::feed_all(s.reader(),
                   R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"correlation":1,"stream":7}}]})", 16);
  const ks::Answer time = s.query("gpu-time", {});
  const ks::Answer queue = s.query("gpu-queue", {});
  REQUIRE(time.error.empty());
  REQUIRE(queue.rows == 0);
  const std::string json = ks::answer_json(time, {&queue});
  CHECK(json.find(R"("queue":[],"queue_limit":1024,"queue_note":"The trace has no launch call with a GPU event: no stream has a queue.")") !=
        std::string::npos);
  Opened o(fixture("gpu-launch-without-kernel.json"));
  const ks::Answer q = o.s.query("gpu-queue", {});
  REQUIRE(q.rows == 2);
  CHECK(ks::answer_json(o.s.query("gpu-time", {}), {&q}).find(R"(}],"queue_limit":1024,"queue_note":null)") != std::string::npos);
  // gpu-queue's own --json is as it was: its metadata once, before its rows.
  CHECK(ks::answer_json(q).starts_with(R"({"queue_limit":1024,"queue_note":null,"queue":[)"));
}

TEST_CASE("a stream at CUDA's queue limit: the time it spent there", "[gpu_queue]") {
  // 1,030 launches 1 µs apart from 1000 µs, their kernels 2 µs apart from 5000 µs: the queue
  // reaches 1024 at the 1,024th launch (2023 µs), 1030 at the last (2029 µs), and falls back to
  // 1023 when the 7th kernel starts (5012 µs): 2989 µs at the limit.
  Opened o(queue_limit_trace());
  const ks::GpuQueueResult r = ks::gpu_queue(o.s.model());
  REQUIRE(r.streams.size() == 1);
  CHECK(r.streams[0].launches == 1030);
  CHECK(r.streams[0].stats.max == 1030);
  CHECK(r.streams[0].time_at_limit_ns == 2989 * us);
  const ks::Answer a = o.s.query("gpu-queue", {});
  REQUIRE(a.error.empty());
  CHECK(a.column("time_at_limit_us")->f64[0] == 2989);

  SECTION("drawn over 4 columns: each column's least, greatest and last value") {
    const std::vector<ks::CounterColumn> c = ks::counter_columns(r.streams[0].series, 1000 * us, 7060 * us, 4);
    REQUIRE(c.size() == 4);
    // [1000, 2515): rises 1 → 1030; [2515, 4030): stays 1030; [4030, 5545): 1030 → 757 (273
    // kernels started, the last at 5544); [5545, 7060): down to 0.
    CHECK(c[0].min == 1);  // the first launch is at the window's start
    CHECK(c[0].max == 1030);
    CHECK(c[1].min == 1030);
    CHECK(c[1].max == 1030);
    CHECK(c[2].max == 1030);
    CHECK(c[2].last == 1030 - 273);
    CHECK(c[3].last == 0);
    // A window ending at the last change (the last kernel's start, 7058 µs) still shows the fall to 0.
    const std::vector<ks::CounterColumn> d = ks::counter_columns(r.streams[0].series, 1000 * us, 7058 * us, 4);
    CHECK(d[3].last == 0);
  }
}

// The GPU time view's answers share their computations through the Session (the events of HTA's
// scope once per rounding; each analysis kept for the recommendations, which read them again; the
// queue reads the launch statistics' launches once the operator trees are built, else finds them
// itself): whichever view asks first, each answer is the same.
TEST_CASE("the GPU time answers are the same whichever view asks their shared computations first", "[gpu_queue]") {
  const std::vector<std::string> views = {"gpu-recommendations", "gpu-time", "gpu-idle", "gpu-idle-intervals", "gpu-kernel-types",
                                          "gpu-top-kernels", "gpu-comm-overlap", "gpu-launch-stats", "gpu-launch-operators",
                                          "gpu-idle-gaps", "gpu-kernel-sequences", "gpu-critical-path", "gpu-memory-bandwidth", "gpu-queue"};
  for (const std::string& text : {fixture("gpu-launch-without-kernel.json"), queue_limit_trace()}) {
    // Last view first, without the operator trees: the queue finds its launches itself.
    Opened fresh(text);
    std::vector<std::string> first(views.size());
    for (size_t i = views.size(); i-- > 0;) {
      const ks::Answer a = fresh.s.query(views[i], {});
      REQUIRE(a.error.empty());
      first[i] = ks::answer_json(a);
      if (views[i] == "gpu-queue") CHECK(fresh.s.tree_if_built() == nullptr);
    }
    // The trees built first (as the page's Overview builds them), the recommendations first: they
    // compute the others' parts, the queue from the launch statistics.
    Opened warm(text);
    warm.s.tree();
    for (size_t i = 0; i < views.size(); ++i) CHECK(ks::answer_json(warm.s.query(views[i], {})) == first[i]);
    // And as the analyses compute them on their own.
    const ks::GpuQueueResult q = ks::gpu_queue(warm.s.model());
    const ks::Answer a = warm.s.query("gpu-queue", {});
    REQUIRE(a.rows == q.streams.size());
    for (size_t i = 0; i < q.streams.size(); ++i) {
      CHECK(a.column("stream")->f64[i] == double(q.streams[i].stream));
      CHECK(a.column("count")->f64[i] == double(q.streams[i].stats.count));
      CHECK(a.column("time_at_limit_us")->f64[i] == double(q.streams[i].time_at_limit_ns) / 1e3);
    }
  }
  // The queue trace's recommendation: its stream at the limit (so the comparison above held rows).
  Opened o(queue_limit_trace());
  CHECK(o.s.query("gpu-recommendations", {}).rows >= 1);
}
