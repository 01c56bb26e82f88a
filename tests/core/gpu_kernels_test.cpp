// HTA's kernel breakdown (core/analysis/gpu_kernels.h, core/session/views/gpu_kernels.cpp) on the
// hand-made gpu-idle-overlapping-sync.json (tests/data/README.md has the arithmetic). HTA's own
// numbers on ../shared: tests/golden/gpu_time_test.mjs.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/analysis/gpu_kernels.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "session_fixture.h"
#include "test_util.h"

namespace {

constexpr int64_t us = 1000;

using Opened = kstest::OpenedSession;

}  // namespace

TEST_CASE("kernel type sets are named as HTA names them", "[gpu_kernels]") {
  CHECK(ks::kernel_type_set_name(1) == "COMPUTATION");
  CHECK(ks::kernel_type_set_name(3) == "COMPUTATION overlapping COMMUNICATION");
  CHECK(ks::kernel_type_set_name(6) == "COMMUNICATION overlapping MEMORY");
  CHECK(ks::kernel_type_set_name(7) == "COMPUTATION overlapping COMMUNICATION overlapping MEMORY");
}

TEST_CASE("gpu-idle-overlapping-sync: time by kernel type and their overlaps", "[gpu_kernels]") {
  Opened o("gpu-idle-overlapping-sync.json");
  const ks::GpuKernelsResult r = ks::gpu_kernels(o.s.model());
  // Computation [100,150) [200,210) [250,260) [262,270) [300,310) (the Stream Sync is no kernel),
  // communication [140,205), memory [200,255).
  REQUIRE(r.types.size() == 6);
  auto at = [&](size_t i) { return std::make_pair(ks::kernel_type_set_name(r.types[i].set), r.types[i].ns); };
  CHECK(at(0) == std::make_pair(std::string("COMPUTATION"), 63 * us));
  CHECK(at(1) == std::make_pair(std::string("COMMUNICATION"), 50 * us));
  CHECK(at(2) == std::make_pair(std::string("MEMORY"), 40 * us));
  CHECK(at(3) == std::make_pair(std::string("COMPUTATION overlapping COMMUNICATION"), 10 * us));
  CHECK(at(4) == std::make_pair(std::string("COMPUTATION overlapping MEMORY"), 10 * us));
  CHECK(at(5) == std::make_pair(std::string("COMPUTATION overlapping COMMUNICATION overlapping MEMORY"), 5 * us));
  CHECK(r.busy_ns == 178 * us);
}

TEST_CASE("gpu-idle-overlapping-sync: top kernels per type with their calls' statistics", "[gpu_kernels]") {
  Opened o("gpu-idle-overlapping-sync.json");
  const ks::GpuKernelsResult r = ks::gpu_kernels(o.s.model());
  REQUIRE(r.top.size() == 6);
  CHECK(r.top[0].name == "gemm");
  const ks::TopKernel& relu = r.top[1];
  CHECK(relu.name == "relu");
  CHECK(relu.calls == 3);
  CHECK(relu.sum_ns == 28 * us);
  CHECK(relu.max_ns == 10 * us);
  CHECK(relu.min_ns == 8 * us);
  CHECK(relu.mean_ns == Approx(28.0 / 3 * us));
  CHECK(relu.stddev_ns == Approx(std::sqrt(4.0 / 3) * us));
  CHECK(r.top[2].name == "gemm2");
  CHECK(r.top[3].name == "add");
  CHECK(r.top[3].stddev_ns == 0);  // one call
  CHECK(r.top[4].type == ks::KernelType::kCommunication);
  CHECK(r.top[4].sum_ns == 65 * us);
  CHECK(r.top[5].type == ks::KernelType::kMemory);
  CHECK(r.top[5].name == "Memcpy HtoD (Pageable -> Device)");
}

TEST_CASE("top kernels: HTA's cut names a few, the rest are others with their calls' statistics", "[gpu_kernels]") {
  Opened o("gpu-idle-overlapping-sync.json");
  ks::GpuKernelsOptions opt;
  opt.num_kernels = 2;
  const ks::GpuKernelsResult r = ks::gpu_kernels(o.s.model(), opt);
  // Running sums 50, 78, 98, 108; their 0.8 quantile 102; at most 2 names: gemm and relu.
  REQUIRE(r.top.size() == 5);
  CHECK(r.top[0].name == "gemm");
  CHECK(r.top[1].name == "relu");
  const ks::TopKernel& others = r.top[2];
  CHECK(others.others);
  CHECK(others.name == "others");
  CHECK(others.kernels == 2);
  CHECK(others.calls == 2);
  CHECK(others.sum_ns == 30 * us);
  CHECK(others.max_ns == 20 * us);
  CHECK(others.min_ns == 10 * us);
  CHECK(others.mean_ns == Approx(15 * us));
  CHECK(others.stddev_ns == Approx(std::sqrt(50.0) * us));
  // A ratio of 0.5 (quantile 88): only gemm and relu, whose running sums are 50 and 78.
  opt.num_kernels = 3;
  opt.duration_ratio = 0.5;
  const ks::GpuKernelsResult half = ks::gpu_kernels(o.s.model(), opt);
  CHECK(half.top[2].name == "others");
  CHECK(half.top[2].kernels == 2);
}

TEST_CASE("Session answers gpu-kernel-types and gpu-top-kernels", "[gpu_kernels][session]") {
  Opened o("gpu-idle-overlapping-sync.json");
  const ks::Answer t = o.s.query("gpu-kernel-types", {});
  REQUIRE(t.error.empty());
  REQUIRE(t.rows == 6);
  CHECK(t.strings[t.column("type")->str[0]] == "COMPUTATION");
  CHECK(t.column("us")->f64[0] == Approx(63));
  CHECK(t.column("pct")->f64[0] == Approx(100.0 * 63 / 178));
  CHECK(ks::answer_json(t).find("\"busy_us\":178") != std::string::npos);
  const ks::Answer k = o.s.query("gpu-top-kernels", {{"num_kernels", "2"}});
  REQUIRE(k.error.empty());
  REQUIRE(k.rows == 5);
  CHECK(k.strings[k.column("name")->str[2]] == "others");
  CHECK(k.column("calls")->f64[2] == 2);
  CHECK(k.column("stddev_us")->f64[2] == Approx(std::sqrt(50.0)));
  CHECK(o.s.query("gpu-top-kernels", {{"num_kernels", "0"}}).error == "num_kernels is not a whole number of 1 or more: 0");
  CHECK(o.s.query("gpu-top-kernels", {{"duration_ratio", "2"}}).error == "duration_ratio is not a number from 0 to 1: 2");
}
