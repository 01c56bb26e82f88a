// The shortcuts that keep the Overview fast on big traces give what tb_plugin's walks give. link_launches finds a
// launch's device work by a table of correlation ids when every launch has an id of its own, and
// find_steps looks each runtime's step up when no runtime starts exactly at a step's end; both
// are compared with the walks they replace (LinkPath::kWalk, StepMatch::kWalk) on random traces
// built so that the shortcut must be taken, on every fixture, and on the traces in ../shared.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/analysis/steps.h"
#include "core/trace/trace_reader.h"
#include "test_util.h"

namespace {

using kstest::Random;

bool same_refs(std::span<const ks::DeviceRef> a, std::span<const ks::DeviceRef> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](ks::DeviceRef x, ks::DeviceRef y) { return x.kind == y.kind && x.row == y.row; });
}

void require_same_links(const ks::LaunchLinks& a, const ks::LaunchLinks& b) {
  REQUIRE(a.begin == b.begin);
  REQUIRE(same_refs(a.refs, b.refs));
  REQUIRE(same_refs(a.unlaunched, b.unlaunched));
}

void require_same_steps(const ks::StepsResult& a, const ks::StepsResult& b) {
  REQUIRE(a.from_profiler_steps == b.from_profiler_steps);
  REQUIRE(a.steps.size() == b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    INFO("step " << i);
    CHECK(a.steps[i].name == b.steps[i].name);
    CHECK(a.steps[i].start_ns == b.steps[i].start_ns);
    CHECK(a.steps[i].end_ns == b.steps[i].end_ns);
    CHECK(a.steps[i].host_start_ns == b.steps[i].host_start_ns);
    CHECK(a.steps[i].host_end_ns == b.steps[i].host_end_ns);
  }
}

// Every comparison of the two ways on one model; `table` says whether the table must apply.
void compare_all(const ks::TraceModel& m) {
  for (bool drivers : {false, true}) {
    INFO("drivers " << drivers);
    require_same_links(ks::link_launches(m, drivers), ks::link_launches(m, drivers, ks::LinkPath::kWalk));
  }
  for (bool tb : {false, true}) {
    INFO("tb_plugin " << tb);
    ks::StepOptions o;
    o.tb_plugin_gpu_annotations = tb;
    require_same_steps(ks::find_steps(m, o), ks::find_steps(m, o, ks::StepMatch::kWalk));
  }
}

std::string us(int64_t ns) {  // ns as a JSON number of microseconds, exact to the ns
  std::ostringstream s;
  s << ns / 1000 << '.' << std::to_string(1000 + ns % 1000).substr(1);
  return s.str();
}

struct Shape {
  bool duplicate_ids = false;   // two launches share a correlation id: no table
  bool clustered = false;       // ids in three stretches far apart (processes, gen-trace copies): a paged table
  bool starts_at_ends = false;  // runtimes start exactly where steps end: the walk
};

// A random trace: overlapping and nested ProfilerSteps on the host (even ns), runtime calls and
// cuLaunchKernel driver calls (odd starts unless starts_at_ends) with shuffled correlation ids,
// and kernels, memcpys and memsets with 0-3 pieces per launch (ties in time across kinds), some
// of an id no launch has.
std::string random_trace(uint64_t seed, Shape shape) {
  Random rnd{seed};
  std::ostringstream t;
  t << "{\"traceEvents\":[\n";
  bool first = true;
  auto ev = [&](const std::string& body) {
    t << (first ? "" : ",\n") << '{' << body << '}';
    first = false;
  };
  const int steps = 3 + int(rnd.below(6));
  std::vector<int64_t> step_end;
  int64_t at = 1'000'000;
  for (int i = 0; i < steps; ++i) {
    const int64_t ts = at + 2 * rnd.below(1500);
    const int64_t dur = 2 * (2000 + rnd.below(6000));
    ev("\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#" + std::to_string(i + 1) + "\",\"pid\":1,\"tid\":1,\"ts\":" +
       us(ts) + ",\"dur\":" + us(dur));
    step_end.push_back(ts + dur);
    at = ts + 2 * (3000 + rnd.below(3000));  // the next step may start before this one ends
  }
  const int64_t span = at + 20'000 - 1'000'000;
  const int launches = (shape.clustered ? 3000 : 40) + int(rnd.below(200));  // a page of ids is 16 KB: the table pays from a few thousand launches
  std::vector<int64_t> ids(size_t(launches) + 10);
  std::iota(ids.begin(), ids.end(), int64_t(700 + rnd.below(100)));
  for (size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[size_t(rnd.below(i))]);
  if (shape.duplicate_ids) ids[1] = ids[0];
  if (shape.clustered)
    for (size_t i = 0; i < ids.size(); ++i) ids[i] += int64_t(i % 3) * 1'000'003;
  for (int i = 0; i < launches; ++i) {
    int64_t ts = 1'000'000 - 3000 + 2 * rnd.below(uint64_t(span / 2)) + 1;
    if (shape.starts_at_ends && rnd.below(4) == 0) ts = step_end[size_t(rnd.below(step_end.size()))];
    const int64_t dur = rnd.below(4) == 0 ? 0 : rnd.below(3000);
    const bool driver = rnd.below(5) == 0;
    ev(std::string("\"ph\":\"X\",\"cat\":\"") + (driver ? "cuda_driver\",\"name\":\"cuLaunchKernel" : "cuda_runtime\",\"name\":\"cudaLaunchKernel") +
       "\",\"pid\":1,\"tid\":" + std::to_string(1 + rnd.below(2)) + ",\"ts\":" + us(ts) + ",\"dur\":" + us(dur) +
       ",\"args\":{\"correlation\":" + std::to_string(ids[size_t(i)]) + "}");
    const int pieces = int(rnd.below(4));
    int64_t dts = ts + 500 + rnd.below(5000);
    for (int p = 0; p < pieces; ++p) {
      static const char* kCats[] = {"kernel", "gpu_memcpy", "gpu_memset"};
      const char* cat = kCats[rnd.below(3)];
      ev(std::string("\"ph\":\"X\",\"cat\":\"") + cat + "\",\"name\":\"work\",\"pid\":0,\"tid\":7,\"ts\":" + us(dts) +
         ",\"dur\":" + us(100 + rnd.below(2000)) + ",\"args\":{\"correlation\":" + std::to_string(ids[size_t(i)]) +
         ",\"device\":0,\"stream\":7}");
      if (rnd.below(3)) dts += rnd.below(800);  // else the next piece starts at the same time
    }
  }
  for (size_t i = size_t(launches); i < ids.size(); ++i)  // device work no launch has
    ev("\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":" + us(1'000'000 + rnd.below(uint64_t(span))) +
       ",\"dur\":" + us(50) + ",\"args\":{\"correlation\":" + std::to_string(ids[i]) + ",\"device\":0,\"stream\":7}");
  t << "\n]}";
  return t.str();
}

std::unique_ptr<ks::TraceReader> load(const std::string& text) {
  auto r = std::make_unique<ks::TraceReader>();
  kstest::feed_all(*r, text, 1 << 20);
  return r;
}

}  // namespace

TEST_CASE("link_launches by a table of correlation ids gives the walk's links", "[steps]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    const auto r = load(random_trace(seed * 7919, {}));
    REQUIRE(r->error().empty());
    const ks::TraceModel& m = r->model();
    REQUIRE(m.runtimes.size() + m.drivers.size() > 0);
    for (bool drivers : {false, true}) {
      ks::LaunchLinks table;
      REQUIRE(ks::link_launches_by_table(m, drivers, table));  // unique ids: the table applies
      require_same_links(table, ks::link_launches(m, drivers, ks::LinkPath::kWalk));
    }
    // Some launch has several pieces, and some piece no launch: the order within a launch and the
    // unlaunched list are both checked above.
  }
}

TEST_CASE("link_launches: ids in stretches far apart get a paged table, with the walk's links", "[steps]") {
  Shape shape;
  shape.clustered = true;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    const auto r = load(random_trace(seed * 31337, shape));
    REQUIRE(r->error().empty());
    for (bool drivers : {false, true}) {
      ks::LaunchLinks table;
      REQUIRE(ks::link_launches_by_table(r->model(), drivers, table));  // a few pages of a 2-million-id range
      require_same_links(table, ks::link_launches(r->model(), drivers, ks::LinkPath::kWalk));
    }
  }
}

TEST_CASE("link_launches: a shared correlation id leaves the links to the walk", "[steps]") {
  Shape shape;
  shape.duplicate_ids = true;
  const auto r = load(random_trace(12345, shape));
  REQUIRE(r->error().empty());
  ks::LaunchLinks table;
  CHECK_FALSE(ks::link_launches_by_table(r->model(), true, table));
  require_same_links(ks::link_launches(r->model(), true), ks::link_launches(r->model(), true, ks::LinkPath::kWalk));
}

TEST_CASE("find_steps: each runtime's step looked up gives the walk's steps", "[steps]") {
  for (bool at_ends : {false, true}) {
    Shape shape;
    shape.starts_at_ends = at_ends;  // true: ties, so the walk runs either way
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      INFO("seed " << seed << " starts at step ends " << at_ends);
      const auto r = load(random_trace(seed * 104729, shape));
      REQUIRE(r->error().empty());
      const ks::StepsResult looked_up = ks::find_steps(r->model());
      REQUIRE(looked_up.from_profiler_steps);
      require_same_steps(looked_up, ks::find_steps(r->model(), {}, ks::StepMatch::kWalk));
    }
  }
}

TEST_CASE("the shortcuts agree with the walks on every fixture and on ../shared's traces", "[steps]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(kstest::repo_path("tests/data")))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  const fs::path shared = kstest::repo_path("../shared/traces");
  if (fs::exists(shared))
    for (const auto& e : fs::recursive_directory_iterator(shared))
      if (e.is_regular_file() && (e.path().string().ends_with(".json") || e.path().string().ends_with(".json.gz"))) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  size_t compared = 0, tabled = 0;
  for (const fs::path& f : files) {
    INFO(f.string());
    const std::string text = kstest::read_path(f);
    if (text.size() > 1 && uint8_t(text[0]) == 0x1f) continue;  // gzip under wasm (no zlib there)
    const auto r = load(text);
    if (!r->error().empty()) continue;  // not a trace (expected outputs beside the traces)
    compare_all(r->model());
    ++compared;
    ks::LaunchLinks table;
    tabled += ks::link_launches_by_table(r->model(), true, table);
  }
  CHECK(compared >= 20);
  CHECK(tabled >= 5);  // real traces' ids are dense enough for the table
}
