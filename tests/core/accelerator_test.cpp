// The hardware a trace ran on: each device's vendor and architecture (sm_90, gfx90a), whether it
// has matrix units, and the trace's accelerator as a whole, which names the Tensor Core figures
// ("Matrix Cores" on AMD).
#include <catch2/catch.hpp>

#include <string>

#include "core/analysis/accelerator.h"
#include "test_util.h"

namespace {

ks::DeviceInfo device(const std::string& name, int major, int minor, int warp = -1) {
  ks::DeviceInfo d;
  d.name = name;
  d.compute_major = major;
  d.compute_minor = minor;
  d.warp_size = warp;
  return d;
}

const ks::TraceModel& read(ks::TraceReader& reader, const std::string& text) {
  kstest::feed_all(reader, text, 7);
  REQUIRE(reader.error().empty());
  return reader.model();
}

}  // namespace

TEST_CASE("device vendor and architecture", "[accelerator]") {
  CHECK(ks::device_arch(device("NVIDIA H800", 9, 0, 32)) == "sm_90");
  CHECK(ks::device_arch(device("Tesla V100-SXM2-32GB", 7, 0)) == "sm_70");
  CHECK(ks::device_arch(device("NVIDIA B200", 10, 0, 32)) == "sm_100");
  CHECK(ks::compute_capability_text(device("NVIDIA H800", 9, 0, 32)) == "9.0");
  CHECK(ks::device_arch(device("AMD Instinct MI300X VF", 9, 4, 64)) == "gfx942");
  CHECK(ks::device_arch(device("AMD Instinct MI350X", 9, 5, 64)) == "gfx950");
  CHECK(ks::device_arch(device("AMD Instinct MI210", 9, 0, 64)) == "gfx90a");
  CHECK(ks::device_arch(device("AMD Instinct MI100", 9, 0, 64)) == "gfx908");
  CHECK(ks::device_arch(device("", 9, 4, 64)) == "gfx942");  // no name, HIP's 9.4
  CHECK(ks::device_arch(device("", 9, 0, 64)).empty());       // gfx900..gfx90a: cannot tell
  ks::DeviceInfo named = device("", 9, 0, 64);
  named.gcn_arch_name = "gfx90a:sramecc+:xnack-";
  CHECK(ks::device_arch(named) == "gfx90a");
  CHECK(ks::device_vendor(device("Test GPU", 7, 0)) == ks::Vendor::kUnknown);
  CHECK(ks::vendor_name(ks::Vendor::kUnknown).empty());
  // Matrix units: Volta on; CDNA from gfx908, RDNA3 on; not gfx906 (MI50)
  CHECK(ks::has_matrix_units(device("Tesla V100-SXM2-32GB", 7, 0)));
  CHECK_FALSE(ks::has_matrix_units(device("Tesla P100-PCIE-16GB", 6, 0)));
  CHECK(ks::has_matrix_units(device("AMD Instinct MI250X / MI250", 9, 0, 64)));
  CHECK_FALSE(ks::has_matrix_units(device("AMD Instinct MI50", 9, 0, 64)));
  CHECK(ks::has_matrix_units(device("AMD Radeon RX 7900 XTX", 11, 0, 32)));
}

TEST_CASE("the trace's accelerator", "[accelerator]") {
  auto accelerator = [](const std::string& json) {
    ks::TraceReader reader;
    return std::string(ks::accelerator_name(ks::trace_accelerator(read(reader, json))));
  };
  const std::string op = R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5})";
  CHECK(accelerator(R"({"traceEvents":[)" + op + "]}") == "none");  // CPU-only
  CHECK(accelerator(R"({"traceEvents":[)" + op +
                    R"(,{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1}]})") ==
        "amd");
  CHECK(accelerator(R"({"traceEvents":[)" + op +
                    R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1}]})") ==
        "nvidia");
  CHECK(accelerator(R"({"traceEvents":[)" + op +
                    R"(,{"ph":"X","cat":"mtia_runtime","name":"mtiaLaunch","pid":1,"tid":1,"ts":1,"dur":1}]})") ==
        "mtia");
  CHECK(accelerator(R"({"roctracer_version":4.1,"traceEvents":[)" + op + "]}") == "amd");
  CHECK(accelerator(R"({"traceEvents":[)" + op +
                    R"(,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"device":0}}]})") ==
        "unknown");
}
