// The GPU time view's idle gaps, frequent kernel sequences, critical path and recommendations
// (core/analysis/gpu_idle_gaps.h, kernel_sequences.h, critical_path.h, gpu_recommendations.h and
// their views): the hand-made critical-path-bounds.json and kernel-sequences-nested-roots.json
// (tests/data/README.md works every number out), gpu-idle-overlapping-sync.json's gaps, and the
// recorded alexnet_critical_path trace's path (../shared, skipped when absent).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/analysis/critical_path.h"
#include "core/analysis/gpu_idle_gaps.h"
#include "core/analysis/kernel_sequences.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "session_fixture.h"
#include "test_util.h"

namespace {

constexpr int64_t us = 1000;

using Opened = kstest::OpenedSession;

size_t step_index(const ks::Session& s, const char* name) {
  for (size_t i = 0; i < s.steps().steps.size(); ++i)
    if (s.steps().steps[i].name == name) return i;
  FAIL("no step " << name);
  return 0;
}

int64_t bound(const ks::CriticalPathResult& r, ks::PathBound b) { return r.by_bound[size_t(b)]; }

std::string names(const ks::Session& s, const ks::CriticalPathResult& r) {
  std::string out;
  for (const ks::PathSegment& p : r.path)
    out += std::string(out.empty() ? "" : ", ") + std::string(s.model().strings.get(p.name)) + " " + ks::path_bound_name(p.bound) + " " +
           std::to_string(p.time_ns / us);
  return out;
}

std::string str(const ks::Answer& a, const char* col, size_t row) {
  const ks::AnswerColumn* c = a.column(col);
  REQUIRE(c);
  return c->str[row] == ks::kNullString ? "null" : a.strings[c->str[row]];
}
double num(const ks::Answer& a, const char* col, size_t row) {
  const ks::AnswerColumn* c = a.column(col);
  REQUIRE(c);
  return c->f64[row];
}

}  // namespace

TEST_CASE("critical-path-bounds: a CPU-bound step, its DataLoader time apart", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), o.s.steps(), step_index(o.s, "1"));
  REQUIRE(r.has_step);
  // The host's chain through the step; the kernel's way (launch 10 + 5) ends at 1035.
  CHECK(r.total_ns == 100 * us);
  CHECK(bound(r, ks::PathBound::kCpu) == 75 * us);
  CHECK(bound(r, ks::PathBound::kDataLoading) == 25 * us);
  CHECK(bound(r, ks::PathBound::kLaunchOverhead) == 0);
  CHECK(bound(r, ks::PathBound::kGpuCompute) == 0);
  CHECK(names(o.s, r) ==
        "ProfilerStep#1 cpu 10, aten::op_a cpu 10, cudaLaunchKernel cpu 5, aten::op_a cpu 35, ProfilerStep#1 cpu 10, "
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ data_loading 25, ProfilerStep#1 cpu 5");
  CHECK(r.gpu_events == 1);
}

TEST_CASE("critical-path-bounds: a launch-bound step, the host waiting in cudaDeviceSynchronize", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), o.s.steps(), step_index(o.s, "2"));
  // 10 of the step, 30 from the launch's start to the kernel's, 5 of kernel, the Context Sync to the
  // call's end (0), 4 of the step: 49; the host's own chain is 10 + 2 + 3 + 0 + 4 = 19.
  CHECK(r.total_ns == 49 * us);
  CHECK(bound(r, ks::PathBound::kCpu) == 14 * us);
  CHECK(bound(r, ks::PathBound::kLaunchOverhead) == 30 * us);
  CHECK(bound(r, ks::PathBound::kGpuCompute) == 5 * us);
  CHECK(names(o.s, r) == "ProfilerStep#2 cpu 10, k_late launch_overhead 30, k_late gpu_compute 5, cudaDeviceSynchronize sync 0, ProfilerStep#2 cpu 4");
  CHECK(r.sync_edges == 1);
}

TEST_CASE("critical-path-bounds: a GPU-bound step, the host waiting in cudaStreamSynchronize", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), o.s.steps(), step_index(o.s, "3"));
  // 5 + 3 of host, launch 4, gemm 68, the gap before relu_kernel 3 (launched while gemm ran: a
  // kernel-kernel edge), relu 5, the Stream Sync (0), 10 of the step: 98.
  CHECK(r.total_ns == 98 * us);
  CHECK(bound(r, ks::PathBound::kCpu) == 18 * us);
  CHECK(bound(r, ks::PathBound::kLaunchOverhead) == 4 * us);
  CHECK(bound(r, ks::PathBound::kGpuCompute) == 73 * us);
  CHECK(bound(r, ks::PathBound::kKernelKernel) == 3 * us);
  CHECK(names(o.s, r) ==
        "ProfilerStep#3 cpu 5, aten::mm cpu 3, gemm_big launch_overhead 4, gemm_big gpu_compute 68, relu_kernel kernel_kernel 3, "
        "relu_kernel gpu_compute 5, cudaStreamSynchronize sync 0, ProfilerStep#3 cpu 10");
  REQUIRE(r.path.size() == 8);
  CHECK(r.path[4].stream == 7);
  CHECK(r.path[4].start_ns == 1380 * us);
  CHECK(r.path[4].end_ns == 1383 * us);
}

TEST_CASE("critical-path-bounds: an event sync waits on the communication kernel", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), o.s.steps(), step_index(o.s, "4"));
  // The Event Sync completes at 1572: the NCCL kernel (ends 1570) is the event it waited for, not
  // elementwise (ends 1520). 5 + launch 5 + 60 + 0 + 28 = 98.
  CHECK(r.total_ns == 98 * us);
  CHECK(bound(r, ks::PathBound::kCpu) == 33 * us);
  CHECK(bound(r, ks::PathBound::kLaunchOverhead) == 5 * us);
  CHECK(bound(r, ks::PathBound::kGpuComm) == 60 * us);
  CHECK(bound(r, ks::PathBound::kGpuCompute) == 0);
}

TEST_CASE("critical-path-stream-wait-event: the consumer waits on the producer's recorded event, not on its launch", "[gpu_path]") {
  Opened o("critical-path-stream-wait-event.json");
  REQUIRE(o.s.model().sync_waits.size() == 2);
  CHECK(o.s.model().sync_waits[0].wait_on_stream == 20);
  CHECK(o.s.model().id_value(o.s.model().sync_waits[0].record_correlation) == 2);
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), o.s.steps(), step_index(o.s, "1"));
  // The step 10, the producer's launch 10 and its 80, the wait edge to the consumer (0), the
  // consumer 8, the Stream Sync (0), the step 8: 116. Without the wait edge the consumer's launch
  // edge (1017 -> 1102) would charge the producer's time to launch overhead: 17 + 85 + 8 + 8 = 118.
  CHECK(r.wait_edges == 1);
  CHECK(r.total_ns == 116 * us);
  CHECK(bound(r, ks::PathBound::kCpu) == 18 * us);
  CHECK(bound(r, ks::PathBound::kLaunchOverhead) == 10 * us);
  CHECK(bound(r, ks::PathBound::kGpuCompute) == 88 * us);
  CHECK(names(o.s, r) ==
        "ProfilerStep#1 cpu 10, producer launch_overhead 10, producer gpu_compute 80, consumer sync 0, consumer gpu_compute 8, "
        "cudaStreamSynchronize sync 0, ProfilerStep#1 cpu 8");
  REQUIRE(r.path.size() == 7);
  CHECK(r.path[3].stream == 20);  // the wait's part names the stream waited on
}

TEST_CASE("critical-path-stream-wait-event: an Event Sync that says its event waits on that event's kernel, not the last to end", "[gpu_path]") {
  Opened o("critical-path-stream-wait-event.json");
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), o.s.steps(), step_index(o.s, "2"));
  // cudaEventSynchronize waits on the event recorded on stream 20 after k_recorded (launched at
  // 1205, the record at 1208): the step 5, launch 5, k_recorded 40, the sync (0), the step 68 = 118.
  // k_other (stream 7) ended later (1251), still before the call returned (1252): the rule without
  // wait_on_* arguments would pick it (10 of host, launch 19, k_other 21, the step 68, also 118).
  CHECK(r.total_ns == 118 * us);
  CHECK(names(o.s, r) == "ProfilerStep#2 cpu 5, k_recorded launch_overhead 5, k_recorded gpu_compute 40, cudaEventSynchronize sync 0, ProfilerStep#2 cpu 68");
  CHECK(bound(r, ks::PathBound::kGpuCompute) == 40 * us);
  CHECK(r.wait_edges == 0);
  const ks::Answer a = o.s.query("gpu-critical-path", {{"step", "1"}});
  REQUIRE(a.error.empty());
  CHECK(ks::answer_meta(a, "wait_edges") == "1");
}

TEST_CASE("gpu-critical-path answer: the first step by default, a step by name, the whole trace without steps, null without host ranges", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  const ks::Answer a = o.s.query("gpu-critical-path", {});
  REQUIRE(a.error.empty());
  CHECK(ks::answer_meta(a, "step") == "\"1\"");
  CHECK(ks::answer_meta_number(a, "total_us") == 100);
  CHECK(ks::answer_meta_number(a, "by_bound", "data_loading_us") == 25);
  CHECK(a.rows == 7);
  CHECK(num(a, "pct", 3) == Approx(35));
  const ks::Answer b = o.s.query("gpu-critical-path", {{"step", "3"}});
  CHECK(ks::answer_meta_number(b, "total_us") == 98);
  CHECK(ks::answer_meta_number(b, "by_bound", "kernel_kernel_us") == 3);
  CHECK(str(b, "bound", 6) == "sync");
  CHECK(std::isnan(num(b, "stream", 0)));
  CHECK(num(b, "stream", 6) == 7);
  const ks::Answer bad = o.s.query("gpu-critical-path", {{"step", "9"}});
  CHECK(!bad.error.empty());
  // Without ProfilerStep ranges the path is the whole trace's (HTA's annotation ""); a step name
  // is then unknown.
  Opened whole("gpu-idle-overlapping-sync.json");
  const ks::Answer w = whole.s.query("gpu-critical-path", {});
  REQUIRE(w.error.empty());
  CHECK(ks::answer_meta(w, "step") == "null");
  CHECK(ks::answer_meta_string(w, "note").find("whole trace") != std::string::npos);
  CHECK(ks::answer_meta_number(w, "total_us") > 0);
  CHECK(!whole.s.query("gpu-critical-path", {{"step", "1"}}).error.empty());
  // No host range at all: no path, null and why.
  ks::Session bare;
  kstest::feed_all(bare.reader(),
                   R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"correlation":1,"stream":7,"device":0}}]})",
                   7);
  const ks::Answer n = bare.query("gpu-critical-path", {});
  REQUIRE(n.error.empty());
  CHECK(n.rows == 0);
  CHECK(ks::answer_meta(n, "total_us") == "null");
  CHECK(ks::answer_meta(n, "by_bound") == "null");
  CHECK(ks::answer_meta_string(n, "note").find("no host range") != std::string::npos);
}

TEST_CASE("gpu-idle-gaps: the longest gaps of a stream, the call and operator that launched what came after", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  // HTA's scope leaves out step 4: stream 7 has k_step1, k_late, gemm_big, relu_kernel.
  const ks::Answer a = o.s.query("gpu-idle-gaps", {});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 3);
  CHECK(num(a, "gap_us", 0) == 205);  // 1240 - 1035, launched at 1210: host wait
  CHECK(str(a, "category", 0) == "host_wait");
  CHECK(str(a, "event", 0) == "k_late");
  CHECK(str(a, "launch", 0) == "cudaLaunchKernel");
  CHECK(str(a, "operator", 0) == "ProfilerStep#2");
  CHECK(num(a, "start_us", 0) == 35);   // 1035 from the trace's start (1000)
  CHECK(num(a, "launch_us", 0) == 210);
  CHECK(num(a, "gap_us", 1) == 67);     // 1312 - 1245
  CHECK(str(a, "operator", 1) == "aten::mm");
  CHECK(num(a, "gap_us", 2) == 3);      // 1383 - 1380, launched at 1317 while gemm ran
  CHECK(str(a, "category", 2) == "kernel_wait");
  CHECK(str(a, "operator", 2) == "aten::relu");
  const ks::Answer two = o.s.query("gpu-idle-gaps", {{"gaps", "2"}});
  CHECK(two.rows == 2);
  CHECK(!o.s.query("gpu-idle-gaps", {{"gaps", "0"}}).error.empty());
}

TEST_CASE("gpu-idle-gaps: gpu-idle-overlapping-sync's gaps as gpu-idle classifies them", "[gpu_path]") {
  Opened o("gpu-idle-overlapping-sync.json");
  const ks::Answer a = o.s.query("gpu-idle-gaps", {});
  REQUIRE(a.rows == 5);  // stream 7's five gaps; streams 20 and 21 have one event each
  CHECK(num(a, "gap_us", 0) == 50);
  CHECK(str(a, "category", 0) == "host_wait");
  CHECK(str(a, "event", 0) == "relu");
  CHECK(num(a, "gap_us", 1) == 40);
  CHECK(str(a, "category", 1) == "other");
  CHECK(num(a, "gap_us", 2) == 30);
  CHECK(str(a, "event", 2) == "add");
  CHECK(str(a, "launch", 2) == "null");  // its correlation (99) has no runtime call
  CHECK(std::isnan(num(a, "launch_us", 2)));
  CHECK(num(a, "gap_us", 3) == 2);
  CHECK(num(a, "gap_us", 4) == 0);
  CHECK(str(a, "operator", 0) == "null");  // no operator around the calls
  // They add up to gpu-idle's numbers: 50 + 40 + 30 + 2 + 0 = 122.
  const ks::Answer idle = o.s.query("gpu-idle", {});
  CHECK(num(idle, "idle_us", 0) == 122);
}

TEST_CASE("kernel-sequences-nested-roots: the outermost matching calls, counted by pattern", "[gpu_path]") {
  Opened o("kernel-sequences-nested-roots.json");
  const ks::KernelSequencesResult r = ks::kernel_sequences(o.s.tree(), o.s.model());
  // Roots: the three aten::layer_norm (not aten::native_layer_norm, under one) and aten::gelu.
  CHECK(r.roots == 4);
  CHECK(r.counted == 2);
  REQUIRE(r.sequences.size() == 1);
  const ks::KernelSequence& k = r.sequences[0];
  CHECK(o.s.model().strings.get(k.op) == "aten::layer_norm");
  CHECK(k.kernels.size() == 3);
  CHECK(k.count == 2);
  CHECK(k.gpu_ns == 12 * us);
  CHECK(k.cpu_ns == 40 * us);
  CHECK(k.first_start_ns == 10 * us);
  const ks::Answer a = o.s.query("gpu-kernel-sequences", {});
  REQUIRE(a.rows == 1);
  CHECK(str(a, "kernels", 0) == "ln_stats | ln_apply | ln_cast");
  CHECK(str(a, "stack", 0) == "## block ##");
  CHECK(num(a, "mean_event_us", 0) == 2);
  const ks::Answer all = o.s.query("gpu-kernel-sequences", {{"min_kernels", "1"}});
  REQUIRE(all.rows == 3);
  CHECK(num(all, "count", 0) == 2);
  CHECK(str(all, "operator", 1) == "aten::gelu");  // count 1, "aten::gelu|…" before "aten::layer_norm|…"
  CHECK(str(all, "kernels", 2) == "ln_stats | ln_apply");
  CHECK(str(all, "stack", 2) == "null");
  const ks::Answer none = o.s.query("gpu-kernel-sequences", {{"operator", "aten::conv"}});
  CHECK(none.rows == 0);
  CHECK(ks::answer_meta_string(none, "note").find("aten::conv") != std::string::npos);
}

TEST_CASE("gpu-recommendations: each rule from its evidence", "[gpu_path]") {
  Opened o("critical-path-bounds.json");
  const ks::Answer a = o.s.query("gpu-recommendations", {});
  REQUIRE(a.error.empty());
  // Stream 7's idle time is 275 (205 + 67 + 3), 272 of it host wait, the GPU's span 358 (1030-1388).
  REQUIRE(a.rows == 2);
  CHECK(str(a, "kind", 0) == "host_bound_stream");
  CHECK(str(a, "subject", 0) == "stream 7");
  CHECK(str(a, "evidence", 0) == "gpu-idle");
  CHECK(num(a, "value", 0) == Approx(272.0 / 275.0));
  CHECK(str(a, "kind", 1) == "launch_bound_step");
  CHECK(str(a, "evidence", 1) == "gpu-critical-path");
  CHECK(num(a, "value", 1) == 1.0);
  // Step 3 is the GPU's: no launch-bound row.
  const ks::Answer gpu = o.s.query("gpu-recommendations", {{"step", "3"}});
  CHECK(gpu.rows == 1);
  Opened k("kernel-sequences-nested-roots.json");
  const ks::Answer f = k.s.query("gpu-recommendations", {});
  bool fusion = false;
  for (size_t i = 0; i < f.rows; ++i)
    if (str(f, "kind", i) == "fusion_candidate") {
      fusion = true;
      CHECK(str(f, "subject", i) == "aten::layer_norm");
      CHECK(str(f, "evidence", i) == "gpu-kernel-sequences");
      CHECK(num(f, "value", i) == 2);
    }
  CHECK(fusion);
}

namespace {

// queue-at-the-limit (generated here, tests/data/README.md): 1,030 launches onto stream 7 from
// 1000 µs, one every 0.01 µs, whose kernels run back to back from 2000 µs, 1 µs each.
std::string queue_at_the_limit_trace() {
  std::string t = "{\"traceEvents\":[";
  char b[256];
  for (int i = 0; i < 1030; ++i) {
    std::snprintf(b, sizeof b,
                  "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d.%03d,\"dur\":0.005,\"args\":{\"correlation\":%d}},"
                  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                  i ? "," : "", 1000 + i / 100, (i % 100) * 10, i + 1, 2000 + i, i + 1);
    t += b;
  }
  return t + "]}";
}

}  // namespace

TEST_CASE("queue-at-the-limit: a stream at CUDA's 1024 queued launches for half its queue's span is recommended, linked to gpu-queue", "[gpu_path]") {
  ks::Session s;
  kstest::feed_all(s.reader(), queue_at_the_limit_trace(), 4096);
  REQUIRE(s.reader().error().empty());
  const ks::Answer q = s.query("gpu-queue", {});
  REQUIRE(q.rows == 1);
  // The 1,024th launch (i = 1023) at 1010.23 µs; the queue falls below 1024 at the 7th kernel's
  // start (1030 - 7 = 1023), 2006 µs: 995.77 µs at the limit, of the queue's 2029 µs (1000 to the
  // last kernel's start, 3029): 49.1 %.
  CHECK(num(q, "time_at_limit_us", 0) == Approx(995.77));
  CHECK(num(q, "max", 0) == 1030);
  const ks::Answer a = s.query("gpu-recommendations", {});
  REQUIRE(a.error.empty());
  size_t found = 0;
  for (size_t i = 0; i < a.rows; ++i)
    if (str(a, "kind", i) == "queue_limit_stream") {
      ++found;
      CHECK(str(a, "subject", i) == "stream 7");
      CHECK(str(a, "evidence", i) == "gpu-queue");
      CHECK(num(a, "value", i) == Approx(995.77 / 2029.0));
      CHECK(str(a, "text", i).find("995.8 µs (49 %") != std::string::npos);
    }
  CHECK(found == 1);
  // critical-path-bounds' streams never reach the limit: no such row.
  Opened o("critical-path-bounds.json");
  const ks::Answer none = o.s.query("gpu-recommendations", {});
  for (size_t i = 0; i < none.rows; ++i) CHECK(str(none, "kind", i) != "queue_limit_stream");
}

TEST_CASE("gpu-counter-track: every change of each stream's queue with the track's pid, reduced past points", "[gpu_path]") {
  Opened o("critical-path-stream-wait-event.json");
  const ks::Answer a = o.s.query("gpu-counter-track", {});
  REQUIRE(a.error.empty());
  // HTA's scope (gpu-queue's): the work launched before the last step, so step 1's. Stream 7: +1
  // at 1017 (consumer's launch), -1 at 1102; stream 20: +1 at 1010, -1 at 1020. The window is
  // 1010..1102: each series' value at 1010, then its changes after it.
  std::string rows;
  for (size_t i = 0; i < a.rows; ++i)
    rows += str(a, "series", i) + "@" + str(a, "pid", i) + ":" + std::to_string(int(num(a, "ts", i))) + "=" + std::to_string(int(num(a, "value", i))) + " ";
  CHECK(rows == "7@0:1010=0 7@0:1017=1 7@0:1102=0 20@0:1010=1 20@0:1020=0 ");
  CHECK(ks::answer_meta(a, "reduced") == "0");
  // Two points a series: stream 7's three samples become its greatest value in one column and its
  // value at the window's end; stream 20's two are kept as they are.
  const ks::Answer r = o.s.query("gpu-counter-track", {{"points", "2"}});
  REQUIRE(r.error.empty());
  CHECK(ks::answer_meta(r, "reduced") == "1");
  REQUIRE(r.rows == 4);
  CHECK(num(r, "ts", 0) == 1010);
  CHECK(num(r, "value", 0) == 1);
  CHECK(num(r, "ts", 1) == 1102);
  CHECK(num(r, "value", 1) == 0);
  CHECK(str(r, "series", 2) == "20");
  CHECK(num(r, "ts", 3) == 1020);
  // A window: 1015..1050 µs (from the trace's start, 1000): stream 7's value at 1015 (0), its
  // launch at 1017; stream 20's value at 1015 (1), its kernel's start at 1020.
  const ks::Answer w = o.s.query("gpu-counter-track", {{"from_us", "15"}, {"to_us", "50"}});
  REQUIRE(w.rows == 4);
  CHECK(num(w, "ts", 0) == 1015);
  CHECK(num(w, "ts", 1) == 1017);
  CHECK(num(w, "value", 2) == 1);
  CHECK(num(w, "ts", 3) == 1020);
  CHECK(o.s.query("gpu-counter-track", {{"points", "1"}}).error == "points is not a count from 2 to 100000: 1");
  CHECK(o.s.query("gpu-counter-track", {{"counter", "flops"}}).error == "unknown counter: flops (queue or bandwidth)");
  // The bandwidth counter: the fixture has no copies.
  CHECK(o.s.query("gpu-counter-track", {{"counter", "bandwidth"}}).rows == 0);
}

TEST_CASE("alexnet_critical_path: the whole trace's path (it has no ProfilerStep) within the trace, its bounds adding up", "[gpu_path][shared]") {
  const std::filesystem::path file = kstest::repo_path("../shared/traces/alexnet_critical_path.json.gz");
  if (!std::filesystem::exists(file)) return;  // ../shared absent
#ifdef __EMSCRIPTEN__
  return;  // a .gz, and no zlib under wasm (test_util.h read_path)
#endif
  Opened o(file);
  const ks::StepsResult& steps = o.s.steps();
  CHECK(!steps.from_profiler_steps);
  const ks::CriticalPathResult r = ks::critical_path(o.s.model(), steps, 0);
  REQUIRE(r.has_step);
  CHECK(r.whole_trace);
  CHECK(r.total_ns > 0);
  CHECK(r.total_ns <= r.window_end_ns - r.window_start_ns);
  int64_t sum = 0;
  for (int64_t b : r.by_bound) {
    CHECK(b >= 0);
    sum += b;
  }
  CHECK(sum == r.total_ns);
  int64_t parts = 0;
  for (const ks::PathSegment& p : r.path) {
    CHECK(p.time_ns >= 0);
    CHECK(p.end_ns >= p.start_ns);
    parts += p.time_ns;
  }
  CHECK(parts == r.total_ns);
  CHECK(r.sync_edges > 0);  // recorded with CUDA sync events: the path can come back from the GPU
  // Its 20 Stream Wait Events say what they wait on (wait_on_stream, wait_on_cuda_event_record_corr_id).
  CHECK(o.s.model().sync_waits.size() == 20);
  CHECK(r.wait_edges > 0);
  CHECK(r.gpu_events > 0);
  CHECK(r.negative_edges == 0);
  // Its 16 cudaStreamSynchronize calls wait on the GPU: the path goes through the GPU.
  CHECK(r.by_bound[size_t(ks::PathBound::kGpuCompute)] + r.by_bound[size_t(ks::PathBound::kLaunchOverhead)] > 0);
}
