#include "core/analysis/accelerator.h"

#include <algorithm>
#include <array>
#include <utility>

namespace ks {

namespace {

bool has(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }

// AMD product names as hipDeviceProp_t.name gives them ("AMD Instinct MI250X / MI250",
// "AMD Instinct MI300X VF") to their gfx target; longer names first ("MI250" before "MI25").
constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kAmdProducts = {{
    {"MI355", "gfx950"}, {"MI350", "gfx950"},
    {"MI325", "gfx942"}, {"MI308", "gfx942"}, {"MI300", "gfx942"},
    {"MI250", "gfx90a"}, {"MI210", "gfx90a"},
    {"MI100", "gfx908"},
    {"MI60", "gfx906"}, {"MI50", "gfx906"}, {"Radeon VII", "gfx906"},
    {"MI25", "gfx900"},
    {"RX 9070", "gfx1201"}, {"RX 9060", "gfx1200"},
    {"W7900", "gfx1100"}, {"W7800", "gfx1100"}, {"RX 7900", "gfx1100"},
    {"RX 7800", "gfx1101"}, {"RX 7700", "gfx1101"}, {"RX 7600", "gfx1102"},
}};

}  // namespace

Vendor device_vendor(const DeviceInfo& d) {
  if (has(d.name, "AMD") || has(d.name, "Radeon") || has(d.name, "Instinct") || d.gcn_arch_name.starts_with("gfx") ||
      d.hip_only_fields)
    return Vendor::kAmd;
  if (has(d.name, "NVIDIA") || has(d.name, "Tesla") || has(d.name, "GeForce") || has(d.name, "Quadro") ||
      has(d.name, "TITAN"))
    return Vendor::kNvidia;
  // HIP reports 64-lane wavefronts on CDNA; CUDA warps are 32 (RDNA's wave32 stays ambiguous).
  if (d.warp_size == 64) return Vendor::kAmd;
  if (d.warp_size == 32 && d.compute_major >= 0) return Vendor::kNvidia;
  return Vendor::kUnknown;
}

std::string_view vendor_name(Vendor v) {
  return v == Vendor::kNvidia ? "nvidia" : v == Vendor::kAmd ? "amd" : "";
}

std::string device_arch(const DeviceInfo& d) {
  switch (device_vendor(d)) {
    case Vendor::kNvidia:
      if (d.compute_major < 0) return "";
      return "sm_" + std::to_string(d.compute_major) + std::to_string(std::max(d.compute_minor, 0));
    case Vendor::kAmd: {
      if (d.gcn_arch_name.starts_with("gfx")) return d.gcn_arch_name.substr(0, d.gcn_arch_name.find(':'));
      for (const auto& [product, arch] : kAmdProducts)
        if (has(d.name, product)) return std::string(arch);
      // HIP's 9.4 and 9.5 are only gfx94x and gfx950; 9.0 is gfx900, gfx906, gfx908 or gfx90a.
      if (d.compute_major == 9 && d.compute_minor == 4) return "gfx942";
      if (d.compute_major == 9 && d.compute_minor == 5) return "gfx950";
      return "";
    }
    case Vendor::kUnknown:
      return "";
  }
  return "";
}

std::string compute_capability_text(const DeviceInfo& d) {
  if (d.compute_major < 0 || device_vendor(d) == Vendor::kAmd) return "";
  return std::to_string(d.compute_major) + "." + std::to_string(std::max(d.compute_minor, 0));
}

bool has_matrix_units(const DeviceInfo& d) {
  switch (device_vendor(d)) {
    case Vendor::kAmd: {
      const std::string arch = device_arch(d);
      return arch == "gfx908" || arch == "gfx90a" || arch.starts_with("gfx94") || arch.starts_with("gfx95") ||
             (arch.size() == 7 && (arch.starts_with("gfx11") || arch.starts_with("gfx12")));
    }
    case Vendor::kNvidia:
    case Vendor::kUnknown:
      return d.compute_major >= 7;  // tb_plugin's test, on whatever the trace says
  }
  return false;
}

Accelerator trace_accelerator(const TraceModel& m) {
  bool nvidia = false, amd = false;
  for (const DeviceInfo& d : m.devices) {
    const Vendor v = device_vendor(d);
    nvidia |= v == Vendor::kNvidia;
    amd |= v == Vendor::kAmd;
  }
  if (amd || m.roctracer) return Accelerator::kAmd;
  if (nvidia) return Accelerator::kNvidia;
  for (size_t id = 0; id < m.category_counts.size(); ++id)
    if (m.category_counts[id] && m.strings.get(StringId(id)).starts_with("mtia_")) return Accelerator::kMtia;
  // The runtime API names its vendor: hipLaunchKernel, cudaLaunchKernel, cuLaunchKernel.
  for (const SliceRow& r : m.runtimes) {
    const std::string_view n = m.strings.get(r.name);
    if (n.starts_with("hip")) return Accelerator::kAmd;
    if (n.starts_with("cuda") || n.starts_with("cu")) return Accelerator::kNvidia;
  }
  for (const SliceRow& r : m.drivers)
    if (m.strings.get(r.name).starts_with("cu")) return Accelerator::kNvidia;
  const bool gpu_work = m.kernels.size() || m.memcpys.size() || m.memsets.size() || m.gpu_annotations.size();
  return gpu_work || !m.devices.empty() ? Accelerator::kUnknown : Accelerator::kNone;
}

std::string_view accelerator_name(Accelerator a) {
  switch (a) {
    case Accelerator::kNvidia: return "nvidia";
    case Accelerator::kAmd: return "amd";
    case Accelerator::kMtia: return "mtia";
    case Accelerator::kNone: return "none";
    case Accelerator::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string_view matrix_units_term(Accelerator a) { return a == Accelerator::kAmd ? "Matrix Cores" : "Tensor Cores"; }

}  // namespace ks
