// The Memory view (core/analysis/memory.h) on tests/data/memory-alive-at-peak.json, with every
// number worked out by hand. The trace (times in µs, origin 100 = ProfilerStep#1's start):
//
//   tid 1: ProfilerStep#1 [100, 600)
//            aten::linear [110, 300)  ─ aten::empty [120, 130)   (call stacks recorded)
//                                     ─ aten::matmul [150, 250)
//            aten::relu [310, 400)
//            aten::add [410, 500)
//   GPU0 (MiB = 1048576):
//     125 +4096   @1000 (aten::empty, parent aten::linear)   total 4096
//     160 +1 MiB  @2000 (aten::matmul)                        total 1 MiB + 4096
//     200 +512    @3000 (aten::matmul)                        total 1 MiB + 4608
//     220 -512    @3000 (aten::matmul)                        total 1 MiB + 4096
//     320 +2 MiB  @4000 (aten::relu)                          total 3 MiB + 4096  <- the peak
//     350 -4096   @1000 (aten::relu)                          total 3 MiB
//     420 -1 MiB  @2000 (aten::add)                           total 2 MiB
//     450 +8192   @5000 (aten::add)                           total 2 MiB + 8192  (never released)
//     700 -2 MiB  @4000 (after every operator: no operator)   total 8192
//   CPU:
//     128 +64 @9000 (aten::empty); 405 -64 @9000 (between relu and add: no operator)
#include <catch2/catch.hpp>

#include <array>
#include <map>

#include "core/analysis/memory.h"
#include "test_util.h"

namespace {

constexpr int64_t MiB = 1048576;

struct Fixture {
  ks::TraceReader reader;
  ks::OpTree tree;
  ks::MemoryIndex x;
  explicit Fixture(bool tb = false) {
    kstest::feed_all(reader, kstest::read_fixture("memory-alive-at-peak.json"), 11);
    REQUIRE(reader.error().empty());
    tree = ks::build_op_tree(m(), {tb});
    x = ks::build_memory_index(m(), tree, {tb});
  }
  const ks::TraceModel& m() const { return reader.model(); }
  int dev(const char* label) const {
    const int d = ks::memory_device_index(x, label);
    REQUIRE(d >= 0);
    return d;
  }
  std::map<std::string, ks::MemoryStatRow> stats(const char* device, const ks::MemoryWindow& w = {}) const {
    std::map<std::string, ks::MemoryStatRow> out;
    const auto all = ks::memory_stats(x, tree, m(), w);
    for (const auto& r : all[size_t(dev(device))]) out[r.name] = r;
    return out;
  }
  // {label, bytes, alloc µs, release µs} relative to the origin; -1 for a blank side.
  struct Ev {
    std::string op;
    int64_t bytes;
    double alloc, release;
    bool operator==(const Ev&) const = default;
  };
  std::vector<Ev> events(const char* device, const ks::MemoryWindow& w = {}) const {
    std::vector<Ev> out;
    const auto all = ks::memory_events(x, m(), w);
    for (const auto& e : all[size_t(dev(device))])
      out.push_back({ks::memory_operator_label(tree, m(), e.name_node), e.bytes,
                     e.alloc_ns ? double(*e.alloc_ns - x.origin_ns) / 1e3 : -1,
                     e.release_ns ? double(*e.release_ns - x.origin_ns) / 1e3 : -1});
    return out;
  }
};

void check_row(const ks::MemoryStatRow& r, uint64_t calls, std::array<int64_t, 6> v) {
  INFO(r.name);
  CHECK(r.calls == calls);
  CHECK(r.size_increase == v[0]);
  CHECK(r.self_size_increase == v[1]);
  CHECK(r.allocation_count == v[2]);
  CHECK(r.self_allocation_count == v[3]);
  CHECK(r.allocation_size == v[4]);
  CHECK(r.self_allocation_size == v[5]);
}

}  // namespace

TEST_CASE("memory: devices, origin and peaks", "[memory]") {
  Fixture f;
  REQUIRE(f.x.devices.size() == 2);
  CHECK(f.x.devices[0].label == "CPU");
  CHECK(f.x.devices[1].label == "GPU0");
  CHECK(f.x.devices[size_t(f.x.default_device)].label == "GPU0");  // the first GPU, as tb_plugin
  CHECK(f.x.origin_ns == 100'000);
  const ks::MemoryDevice& g = f.x.devices[size_t(f.dev("GPU0"))];
  CHECK(g.records == 9);
  CHECK(g.peak_allocated == 3 * MiB + 4096);
  CHECK(g.peak_ts_ns == 320'000);
  CHECK(g.peak_reserved == 4 * MiB);
  CHECK(g.has_addresses);
  CHECK_FALSE(g.allocated_from_bytes);
  CHECK(f.x.devices[size_t(f.dev("CPU"))].peak_allocated == 64);
}

TEST_CASE("memory: statistics per operator, whole trace", "[memory]") {
  Fixture f;
  auto gpu = f.stats("GPU0");
  REQUIRE(gpu.size() == 5);
  // aten::linear holds aten::empty and aten::matmul: totals only.
  check_row(gpu["aten::linear"], 1, {MiB + 4096, 0, 3, 0, MiB + 4096 + 512, 0});
  check_row(gpu["aten::empty"], 1, {4096, 4096, 1, 1, 4096, 4096});
  check_row(gpu["aten::matmul"], 1, {MiB, MiB, 2, 2, MiB + 512, MiB + 512});
  check_row(gpu["aten::relu"], 1, {2 * MiB - 4096, 2 * MiB - 4096, 1, 1, 2 * MiB, 2 * MiB});
  check_row(gpu["aten::add"], 1, {8192 - MiB, 8192 - MiB, 1, 1, 8192, 8192});
  // The release at 700 µs is after every operator: no row has it.
  auto cpu = f.stats("CPU");
  REQUIRE(cpu.size() == 2);
  check_row(cpu["aten::empty"], 1, {64, 64, 1, 1, 64, 64});
  check_row(cpu["aten::linear"], 1, {64, 0, 1, 0, 64, 0});
}

TEST_CASE("memory: statistics inside a window (inclusive, pruned nodes not called)", "[memory]") {
  Fixture f;
  const ks::MemoryWindow w = ks::memory_window_us(f.x, 100, 300);  // absolute [200, 400] µs
  auto gpu = f.stats("GPU0", w);
  REQUIRE(gpu.size() == 3);  // aten::empty ends before 200, aten::add starts after 400
  check_row(gpu["aten::linear"], 1, {0, 0, 1, 0, 512, 0});
  check_row(gpu["aten::matmul"], 1, {0, 0, 1, 1, 512, 512});
  check_row(gpu["aten::relu"], 1, {2 * MiB - 4096, 2 * MiB - 4096, 1, 1, 2 * MiB, 2 * MiB});
  CHECK(f.stats("CPU", w).empty());
}

TEST_CASE("memory: events paired by address, with tb_plugin's names and blanks", "[memory]") {
  Fixture f;
  using Ev = Fixture::Ev;
  const std::vector<Ev> gpu = f.events("GPU0");
  const std::vector<Ev> want = {
      {"aten::matmul", 512, 100, 120},
      {"aten::linear (aten::empty)", 4096, 25, 250},
      {"aten::matmul", MiB, 60, 320},
      {"aten::relu", 2 * MiB, 220, 600},
      {"aten::add", 8192, 350, -1},  // never released
  };
  CHECK(gpu == want);
  // The CPU release has no operator of its own: it takes its allocation's.
  CHECK(f.events("CPU") == std::vector<Ev>{{"aten::linear (aten::empty)", 64, 28, 305}});
  // A window keeps the side inside and blanks the other.
  const std::vector<Ev> in_window = f.events("GPU0", ks::memory_window_us(f.x, 100, 300));
  const std::vector<Ev> want_window = {
      {"aten::matmul", 512, 100, 120},
      {"aten::relu", 2 * MiB, 220, -1},
      {"aten::linear (aten::empty)", 4096, -1, 250},
  };
  CHECK(in_window == want_window);
}

TEST_CASE("memory: the allocations alive at the peak, largest first", "[memory]") {
  Fixture f;
  const int g = f.dev("GPU0");
  const auto alive = ks::memory_alive(f.x, f.m(), g, f.x.devices[size_t(g)].peak_ts_ns);
  REQUIRE(alive.size() == 3);
  CHECK(alive[0].bytes == 2 * MiB);
  CHECK(ks::memory_operator_label(f.tree, f.m(), alive[0].name_node) == "aten::relu");
  CHECK(alive[0].alloc_ns == 320'000);
  CHECK(alive[1].bytes == MiB);
  CHECK(ks::memory_operator_label(f.tree, f.m(), alive[1].name_node) == "aten::matmul");
  CHECK(alive[2].bytes == 4096);
  CHECK(ks::memory_operator_label(f.tree, f.m(), alive[2].name_node) == "aten::linear (aten::empty)");
  // Their sum is what the allocator counted at that moment.
  CHECK(alive[0].bytes + alive[1].bytes + alive[2].bytes == 3 * MiB + 4096);
  CHECK(ks::stack_text(f.tree.stacks, f.m(), ks::memory_call_stack(f.tree, f.m(), alive[2].name_node)).starts_with("model.py(10): forward"));
  // Just before the peak: aten::matmul's 1 MiB and aten::empty's 4096 bytes.
  CHECK(ks::memory_alive(f.x, f.m(), g, 319'000).size() == 2);
  // What the allocator counted then (the answer's allocated_bytes: session_test.cpp).
  CHECK(ks::memory_allocated_at(f.x, f.m(), g, 320'000) == 3 * MiB + 4096);
  CHECK(ks::memory_allocated_at(f.x, f.m(), g, 0) == -1);
}

TEST_CASE("memory: the curve, exact and as tb_plugin's step plot", "[memory]") {
  Fixture f;
  const int g = f.dev("GPU0");
  const auto exact = ks::memory_curve(f.x, f.m(), g, {});
  REQUIRE(exact.size() == 9);
  CHECK(exact[4].allocated == 3 * MiB + 4096);
  CHECK(exact[4].reserved == 4 * MiB);
  Fixture tb(true);
  const auto steps = ks::memory_curve(tb.x, tb.m(), g, {});
  REQUIRE(steps.size() == 17);  // 9 points, 8 steps between them
  CHECK(steps[1].ts_ns == 160'000);
  CHECK(steps[1].allocated == 4096);
}

TEST_CASE("memory: down-sampling keeps every peak and the level entering the window", "[memory]") {
  // 200,001 allocations and releases on one GPU with a single 1 GiB spike.
  ks::TraceModel m;
  int64_t total = 0;
  for (int i = 0; i <= 200000; ++i) {
    ks::MemoryRow r;
    r.ts_ns = 1'000'000 + int64_t(i) * 1000;
    r.device_type = 1;
    r.device_id = 0;
    r.addr = 1 + i / 2;
    r.bytes = i % 2 ? -4096 : 4096;
    if (i == 123457) r.bytes = 1 << 30, r.addr = 999'999'999;
    if (i == 123458) r.bytes = -(1 << 30), r.addr = 999'999'999;
    total += r.bytes;
    r.total_allocated = total + 8192;
    r.total_reserved = 2LL << 30;
    m.memory.push_back(r);
  }
  const ks::OpTree t = ks::build_op_tree(m);
  const ks::MemoryIndex x = ks::build_memory_index(m, t);
  const auto pts = ks::memory_curve_downsampled(x, m, 0, {}, 500);
  CHECK(pts.size() <= 500 * 5);
  int64_t peak = 0;
  for (const auto& p : pts) peak = std::max(peak, p.allocated);
  CHECK(peak == x.devices[0].peak_allocated);
  CHECK(peak >= (1 << 30));
  // A window starting mid-trace begins at the level the curve had there.
  const ks::MemoryWindow w = ks::memory_window_us(x, 50'000.5, 60'000);
  const auto in = ks::memory_curve_downsampled(x, m, 0, w, 100);
  REQUIRE(!in.empty());
  CHECK(in.front().ts_ns == w.from_ns);
  CHECK(in.back().ts_ns == w.to_ns);  // the last level holds to the window's end
}

TEST_CASE("memory: a trace without [memory] events has no device", "[memory]") {
  ks::TraceModel m;
  const ks::OpTree t = ks::build_op_tree(m);
  const ks::MemoryIndex x = ks::build_memory_index(m, t);
  CHECK(x.devices.empty());
  CHECK(x.default_device == -1);
  CHECK(ks::memory_device_index(x, "GPU0") == -1);
  CHECK(ks::memory_alive(x, m, -1, 0).empty());
}

TEST_CASE("memory: records of an unknown device type are left out, not fatal", "[memory]") {
  // tb_plugin's curve handler fails (HTTP 500) when such records sit beside CPU/GPU ones.
  ks::TraceModel m;
  for (int type : {0, 7, 1}) {
    ks::MemoryRow r;
    r.ts_ns = 1000 * (type + 1);
    r.device_type = type;
    r.device_id = 0;
    r.addr = 100 + type;
    r.bytes = 64;
    r.total_allocated = 64;
    r.total_reserved = 128;
    m.memory.push_back(r);
  }
  const ks::OpTree t = ks::build_op_tree(m);
  for (bool tb : {false, true}) {
    const ks::MemoryIndex x = ks::build_memory_index(m, t, {tb});
    REQUIRE(x.devices.size() == 2);
    CHECK(x.devices[0].label == "CPU");
    CHECK(x.devices[1].label == "GPU0");
    CHECK(x.devices[0].records + x.devices[1].records == 2);
    CHECK(ks::memory_curve(x, m, 1, {}).size() == 1);
    CHECK(ks::memory_events(x, m, {})[1].size() == 1);
  }
}

TEST_CASE("memory: a window far beyond the trace saturates instead of overflowing", "[memory]") {
  Fixture f;
  const ks::MemoryWindow w = ks::memory_window_us(f.x, -1e300, 1e300);
  CHECK(w.from_ns == INT64_MIN);
  CHECK(w.to_ns == INT64_MAX);
  CHECK(f.events("GPU0", w).size() == 5);
  const ks::MemoryWindow none = ks::memory_window_us(f.x, 1e300, 1e301);
  CHECK(f.events("GPU0", none).empty());
  CHECK(f.stats("GPU0", none).empty());
}
