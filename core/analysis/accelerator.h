// Which hardware a trace ran on: the vendor and architecture of each device in deviceProperties,
// and the trace's accelerator (NVIDIA, AMD, MTIA, none for a CPU-only trace). The views use it to
// say "Matrix Cores" and gfx90a on AMD where they say "Tensor Cores" and sm_90 on NVIDIA, and the
// recommendations to give only advice that applies to that hardware.
//
// Kineto writes the same deviceProperties keys on ROCm as on CUDA (hipDeviceProp's name,
// computeMajor/Minor, warpSize...), plus maxSharedMemoryPerMultiProcessor, and a top-level
// roctracer_version; its computeMajor/Minor there are HIP's (9.0 for gfx908 and gfx90a alike),
// not a CUDA compute capability, so the architecture is read from the product name.
#pragma once
#include <string>
#include <string_view>

#include "core/trace/trace_model.h"

namespace ks {

enum class Vendor : uint8_t { kUnknown, kNvidia, kAmd };
enum class Accelerator : uint8_t { kUnknown, kNone, kNvidia, kAmd, kMtia };

Vendor device_vendor(const DeviceInfo& d);
std::string_view vendor_name(Vendor v);  // "nvidia", "amd", ""

// "sm_90" (NVIDIA, from computeMajor/Minor), "gfx90a" (AMD, from gcnArchName or the product
// name), "" when not known.
std::string device_arch(const DeviceInfo& d);

// NVIDIA compute capability "9.0"; "" on AMD (HIP's major.minor is not one) or when not recorded.
std::string compute_capability_text(const DeviceInfo& d);

// The device has Tensor Cores (NVIDIA compute capability >= 7.0) or Matrix Cores (AMD CDNA
// gfx908/gfx90a/gfx94x/gfx95x MFMA, RDNA3/4 gfx11xx/gfx12xx WMMA).
bool has_matrix_units(const DeviceInfo& d);

// deviceProperties first, then roctracer_version, MTIA event categories, the runtime API names
// (hip* / cuda*); kUnknown when there is GPU work but nothing says whose, kNone without any.
Accelerator trace_accelerator(const TraceModel& m);
std::string_view accelerator_name(Accelerator a);  // "nvidia", "amd", "mtia", "none", "unknown"

// "Matrix Cores" on AMD, "Tensor Cores" otherwise.
std::string_view matrix_units_term(Accelerator a);

}  // namespace ks
