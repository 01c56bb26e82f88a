#include "core/snapshot/snapshot_compare.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace ks {

SnapshotComparison compare_snapshots(const SnapshotModel& a, const SnapshotModel& b, int64_t device) {
  SnapshotComparison c;
  c.device = device;
  const size_t all = std::numeric_limits<size_t>::max();
  c.a = snapshot_device_stats(a, device, {}, all);
  c.b = snapshot_device_stats(b, device, {}, all);
  std::unordered_map<std::string, size_t> at;
  auto row = [&](const std::string& frame) -> CompareSite& {
    auto it = at.find(frame);
    if (it == at.end()) {
      it = at.emplace(frame, c.sites.size()).first;
      c.sites.push_back({});
      c.sites.back().frame = frame;
    }
    return c.sites[it->second];
  };
  for (const SnapSite& s : c.a.top_sites) {
    CompareSite& r = row(s.frame);
    r.a_bytes = s.bytes;
    r.a_allocations = s.allocations;
  }
  for (const SnapSite& s : c.b.top_sites) {
    CompareSite& r = row(s.frame);
    r.b_bytes = s.bytes;
    r.b_allocations = s.allocations;
  }
  std::sort(c.sites.begin(), c.sites.end(), [](const CompareSite& x, const CompareSite& y) {
    if (x.growth_bytes() != y.growth_bytes()) return x.growth_bytes() > y.growth_bytes();
    if (x.b_bytes != y.b_bytes) return x.b_bytes > y.b_bytes;
    return x.frame < y.frame;
  });
  if (c.a.top_sites.size() > 20) c.a.top_sites.resize(20);
  if (c.b.top_sites.size() > 20) c.b.top_sites.resize(20);
  c.a_categories = snapshot_categories(a, device, {c.a.peak_entry})[0];
  c.b_categories = snapshot_categories(b, device, {c.b.peak_entry})[0];
  return c;
}

}  // namespace ks
