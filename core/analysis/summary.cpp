#include "core/analysis/summary.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "core/analysis/accelerator.h"

namespace ks {

namespace {

// Counts keyed by interned string, sorted by text so outputs are stable (no id order).
std::vector<std::pair<std::string_view, uint64_t>> sorted_counts(const TraceModel& m,
                                                                 const std::vector<uint64_t>& c) {
  std::vector<std::pair<std::string_view, uint64_t>> out;
  for (size_t id = 0; id < c.size(); ++id)
    if (c[id]) out.emplace_back(m.strings.get(static_cast<StringId>(id)), c[id]);
  std::sort(out.begin(), out.end());
  return out;
}

std::string format_duration_us(double us) {
  char buf[64];
  if (us >= 1e6) std::snprintf(buf, sizeof buf, "%.3f s", us / 1e6);
  else if (us >= 1e3) std::snprintf(buf, sizeof buf, "%.3f ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f us", us);
  return buf;
}

}  // namespace

std::string summary_text(const TraceModel& m, std::string_view file_name, std::string_view error) {
  std::string out;
  char line[512];
  out += std::string(file_name) + "\n";
  if (!error.empty()) {
    out += "  error: " + std::string(error) + "\n";
    return out;
  }
  std::snprintf(line, sizeof line, "  schema version %s, %s category names%s%s\n",
                m.schema_version ? std::to_string(*m.schema_version).c_str() : "-",
                m.old_naming ? "PyTorch 1.8" : "PyTorch 2.x",
                m.trace_name.empty() ? "" : ", trace ", m.trace_name.c_str());
  out += line;
  std::snprintf(line, sizeof line, "  %llu events, %.1f MB of JSON, span %s\n",
                static_cast<unsigned long long>(m.event_count), double(m.bytes_read) / 1e6,
                m.has_span ? format_duration_us(double(m.end_ns - m.start_ns) / 1e3).c_str() : "-");
  out += line;
  if (m.distributed.present) {
    std::snprintf(line, sizeof line, "  distributed: rank %lld of %lld, backend %s\n",
                  static_cast<long long>(m.distributed.rank),
                  static_cast<long long>(m.distributed.world_size),
                  m.distributed.backend.empty() ? "-" : m.distributed.backend.c_str());
    out += line;
  }
  for (const DeviceInfo& d : m.devices) {
    const bool amd = device_vendor(d) == Vendor::kAmd;
    const std::string arch = device_arch(d);
    std::snprintf(line, sizeof line, "  device %lld: %s, %.1f GB, %s %s, %d %s\n",
                  static_cast<long long>(d.id), d.name.c_str(), double(d.memory_bytes) / (1 << 30),
                  amd ? "arch" : "compute", amd ? (arch.empty() ? "-" : arch.c_str()) : compute_capability_text(d).c_str(),
                  d.sms, amd ? "CUs" : "SMs");
    out += line;
  }
  out += "  categories:\n";
  for (const auto& [name, n] : sorted_counts(m, m.category_counts)) {
    std::snprintf(line, sizeof line, "    %-28s %12llu\n",
                  name.empty() ? "(none)" : std::string(name).c_str(), static_cast<unsigned long long>(n));
    out += line;
  }
  out += "  phases:";
  for (const auto& [name, n] : sorted_counts(m, m.phase_counts)) {
    std::snprintf(line, sizeof line, " %s=%llu", name.empty() ? "(none)" : std::string(name).c_str(),
                  static_cast<unsigned long long>(n));
    out += line;
  }
  out += "\n  health:";
  bool any = false;
  for (size_t r = 0; r < static_cast<size_t>(HealthReason::kCount); ++r) {
    const HealthEntry& e = m.health.get(static_cast<HealthReason>(r));
    if (!e.count) continue;
    const HealthReasonInfo& info = health_reason_info(static_cast<HealthReason>(r));
    std::snprintf(line, sizeof line, "\n    %-7s %-24s %8llu  (first at byte %llu) %s",
                  std::string(severity_name(info.severity)).c_str(), std::string(info.id).c_str(),
                  static_cast<unsigned long long>(e.count),
                  static_cast<unsigned long long>(e.sample_offset), std::string(info.message).c_str());
    out += line;
    any = true;
  }
  out += any ? "\n" : " no problems found\n";
  return out;
}

}  // namespace ks
