// The dense peak table (device_peaks.h) and the match of a trace's deviceProperties to a row.
// Every number is a vendor datasheet's; "sparse / 2" marks a dense figure read as half of the
// datasheet's with-sparsity one (the datasheet gives only that one, with its footnote).
#include "core/analysis/device_peaks.h"

#include <cctype>
#include <cmath>
#include <limits>

namespace ks {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kGiB = int64_t(1) << 30;

constexpr std::string_view kV100 =
    "NVIDIA V100 datasheet (volta-v100-datasheet-update-us-1165301-r5): FP32 and Tensor Performance (FP16); no TF32, "
    "BF16, FP8 units; INT8 on CUDA cores only (DP4A), not a Tensor Core peak";
constexpr std::string_view kA100 =
    "NVIDIA A100 datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4): dense figures (the sparse ones are starred); "
    "bandwidth per memory size and form factor";
constexpr std::string_view kH100 =
    "NVIDIA H100 datasheet (nvidia-tensor-core-gpu-datasheet, H100 SXM / PCIe / NVL columns): Tensor Core figures "
    "are with sparsity, sparse / 2";
constexpr std::string_view kH800 =
    "NVIDIA H800 datasheet (nvidia.cn H800 SXM / PCIe): Tensor Core figures with sparsity, sparse / 2";
constexpr std::string_view kH200 =
    "NVIDIA H200 datasheet (hpc-datasheet-sc23-h200, H200 SXM / NVL columns): Tensor Core figures with sparsity, "
    "sparse / 2";
constexpr std::string_view kH20 = "NVIDIA HGX H20 product brief (2023): dense Tensor Core figures";
constexpr std::string_view kL4 = "NVIDIA L4 datasheet (l4-gpu-datasheet): Tensor Core figures with sparsity, sparse / 2";
constexpr std::string_view kL40S =
    "NVIDIA L40S datasheet (l40s-datasheet-28413): dense figures (the sparse ones are starred)";
constexpr std::string_view kB200 =
    "NVIDIA HGX B200 specifications (8 GPUs, per GPU = / 8): Tensor Core figures with sparsity, sparse / 2";
constexpr std::string_view kGB200 =
    "NVIDIA GB200 NVL72 specifications (72 GPUs, per GPU = / 72): Tensor Core figures with sparsity, sparse / 2";
constexpr std::string_view kMI250X =
    "AMD Instinct MI250X data sheet: one GCD of two (PyTorch sees each GCD as a device: 110 CUs, 64 GB), so half "
    "the package's figures; FP32 vector; no TF32 or FP8";
constexpr std::string_view kMI300X =
    "AMD Instinct MI300X data sheet: dense figures (the sparse ones are listed apart); FP32 vector";
constexpr std::string_view kMI325X =
    "AMD Instinct MI325X data sheet: dense figures (the sparse ones are listed apart); FP32 vector";

// id, name, fp32, tf32, bf16, fp16, fp8, int8, GB/s, source
const DevicePeak kPeaks[] = {
    {"v100-sxm2", "NVIDIA V100 SXM2", 15.7, kNone, kNone, 125, kNone, kNone, 900, kV100},
    {"v100-pcie", "NVIDIA V100 PCIe", 14, kNone, kNone, 112, kNone, kNone, 900, kV100},
    {"v100s-pcie", "NVIDIA V100S PCIe", 16.4, kNone, kNone, 130, kNone, kNone, 1134, kV100},
    {"a100-sxm-40gb", "NVIDIA A100 SXM4 40GB", 19.5, 156, 312, 312, kNone, 624, 1555, kA100},
    {"a100-sxm-80gb", "NVIDIA A100 SXM4 80GB", 19.5, 156, 312, 312, kNone, 624, 2039, kA100},
    {"a100-pcie-40gb", "NVIDIA A100 PCIe 40GB", 19.5, 156, 312, 312, kNone, 624, 1555, kA100},
    {"a100-pcie-80gb", "NVIDIA A100 PCIe 80GB", 19.5, 156, 312, 312, kNone, 624, 1935, kA100},
    {"h100-sxm", "NVIDIA H100 SXM5 80GB", 67, 494.5, 989.5, 989.5, 1979, 1979, 3350, kH100},
    {"h100-pcie", "NVIDIA H100 PCIe 80GB", 51, 378, 756.5, 756.5, 1513, 1513, 2000, kH100},
    {"h100-nvl", "NVIDIA H100 NVL 94GB", 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3900, kH100},
    {"h800-sxm", "NVIDIA H800 SXM5 80GB", 67, 494.5, 989.5, 989.5, 1979, 1979, 3350, kH800},
    {"h800-pcie", "NVIDIA H800 PCIe 80GB", 51, 378, 756.5, 756.5, 1513, 1513, 2000, kH800},
    {"h200-sxm", "NVIDIA H200 SXM 141GB", 67, 494.5, 989.5, 989.5, 1979, 1979, 4800, kH200},
    {"h200-nvl", "NVIDIA H200 NVL 141GB", 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 4800, kH200},
    {"h20", "NVIDIA H20 96GB", 44, 74, 148, 148, 296, 296, 4000, kH20},
    {"l4", "NVIDIA L4 24GB", 30.3, 60, 121, 121, 242.5, 242.5, 300, kL4},
    {"l40s", "NVIDIA L40S 48GB", 91.6, 183, 362.05, 362.05, 733, 733, 864, kL40S},
    {"b200", "NVIDIA B200 (HGX)", 75, 1125, 2250, 2250, 4500, 4500, 8000, kB200},
    {"gb200", "NVIDIA GB200 (NVL72)", 80, 1250, 2500, 2500, 5000, 5000, 8000, kGB200},
    {"mi250x-gcd", "AMD Instinct MI250X (one GCD)", 23.95, kNone, 191.5, 191.5, kNone, 191.5, 1638.4, kMI250X},
    {"mi300x", "AMD Instinct MI300X", 81.7, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5300, kMI300X},
    {"mi325x", "AMD Instinct MI325X", 81.7, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 6000, kMI325X},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `word` in `text` as a whole token (letters and digits around it do not continue it): "h20" in
// "nvidia h20" but not in "nvidia h200".
bool has_token(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    const size_t end = at + word.size();
    const bool right = end >= text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (left && right) return true;
  }
  return false;
}
bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

std::span<const DevicePeak> device_peaks() { return kPeaks; }

const DevicePeak* device_peak(std::string_view id) {
  for (const DevicePeak& p : kPeaks)
    if (p.id == id) return &p;
  return nullptr;
}

bool chosen_peak(const TraceModel& m, std::string_view id, const DevicePeak*& out, std::string& why, std::string& error) {
  out = nullptr;
  if (!id.empty()) {
    out = device_peak(id);
    if (!out) {
      std::string ids;
      for (const DevicePeak& p : device_peaks()) ids += (ids.empty() ? "" : ", ") + std::string(p.id);
      error = "no peak row " + std::string(id) + " (the rows are " + ids + ")";
      return false;
    }
    why = "chosen (the peak parameter, --peak)";
  } else if (!m.devices.empty()) {
    out = match_device_peak(m.devices.front(), why);
  }
  return true;
}

double peak_tflops(const DevicePeak& p, FlopDtype dtype) {
  switch (dtype) {
    case FlopDtype::kFp32: return p.fp32;
    case FlopDtype::kTf32: return p.tf32;
    case FlopDtype::kBf16: return p.bf16;
    case FlopDtype::kFp16: return p.fp16;
    case FlopDtype::kFp8E4m3:
    case FlopDtype::kFp8E5m2: return p.fp8;
    case FlopDtype::kInt8: return p.int8;
    default: return kNone;
  }
}

const DevicePeak* match_device_peak(const DeviceInfo& d, std::string& why) {
  const std::string n = lower(d.name);
  const std::string arch = lower(d.gcn_arch_name);
  const double gib = d.memory_bytes > 0 ? double(d.memory_bytes) / double(kGiB) : -1;
  const std::string props = "name \"" + d.name + "\", " + std::to_string(d.sms) + " SMs, " +
                            (gib > 0 ? std::to_string(int64_t(std::lround(gib))) + " GiB" : std::string("memory not recorded"));
  auto pick = [&](std::string_view id, std::string_view how) {
    why = std::string(how) + " (" + props + ")";
    return device_peak(id);
  };
  const bool pcie = has(n, "pcie");
  const bool nvl = has_token(n, "nvl");
  if (has(n, "v100")) {
    if (has(n, "v100s")) return pick("v100s-pcie", "a V100S by its name");
    return pcie ? pick("v100-pcie", "a V100 PCIe by its name") : pick("v100-sxm2", "a V100 not named PCIe: SXM2");
  }
  if (has(n, "a100")) {
    const bool big = gib > 60;
    if (pcie) return pick(big ? "a100-pcie-80gb" : "a100-pcie-40gb", big ? "an A100 PCIe by its name, 80GB by its memory" : "an A100 PCIe by its name, 40GB by its memory");
    return pick(big ? "a100-sxm-80gb" : "a100-sxm-40gb", big ? "an A100 not named PCIe: SXM4, 80GB by its memory" : "an A100 not named PCIe: SXM4, 40GB by its memory");
  }
  if (has(n, "gb200")) return pick("gb200", "a GB200 by its name");
  if (has_token(n, "b200")) return pick("b200", "a B200 by its name");
  if (has(n, "h200")) return nvl ? pick("h200-nvl", "an H200 NVL by its name") : pick("h200-sxm", "an H200 not named NVL: SXM");
  if (has_token(n, "h20")) return pick("h20", "an H20 by its name");
  if (has(n, "h800")) {
    if (pcie || d.sms == 114) return pick("h800-pcie", "an H800 PCIe by its name or its 114 SMs");
    return pick("h800-sxm", "an H800 with 132 SMs or not named PCIe: SXM");
  }
  if (has(n, "h100")) {
    if (nvl) return pick("h100-nvl", "an H100 NVL by its name");
    if (pcie || d.sms == 114) return pick("h100-pcie", "an H100 PCIe by its name or its 114 SMs");
    return pick("h100-sxm", "an H100 with 132 SMs or not named PCIe: SXM5");
  }
  if (has(n, "l40s")) return pick("l40s", "an L40S by its name");
  if (has_token(n, "l4")) return pick("l4", "an L4 by its name");
  if (has(n, "mi325")) return pick("mi325x", "an MI325X by its name");
  if (has(n, "mi300x")) return pick("mi300x", "an MI300X by its name");
  // ROCm names both MI250X and MI250 "AMD Instinct MI250X / MI250": their CUs per GCD tell them
  // apart (110 and 104).
  if ((has(n, "mi250") || has(arch, "gfx90a")) && d.sms == 110)
    return pick("mi250x-gcd", "an MI250X GCD by its 110 CUs");
  if (has(arch, "gfx942") && d.sms == 304)
    return gib > 224 ? pick("mi325x", "gfx942 with 304 CUs and 256 GB: an MI325X")
                     : pick("mi300x", "gfx942 with 304 CUs and 192 GB: an MI300X");
  why = "no peak known for " + props + " (docs/flops.md lists the devices known)";
  return nullptr;
}

}  // namespace ks
