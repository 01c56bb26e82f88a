// Two snapshots side by side (two runs, or two ranks of one): per device, their peaks, the
// allocation sites holding memory at each peak with the growth from A to B, and the categories
// (core/snapshot/snapshot_categories.h) at each peak.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot/snapshot_categories.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"

namespace ks {

struct CompareSite {
  std::string frame;  // snapshot_site's label
  int64_t a_bytes = 0, b_bytes = 0;  // at each one's peak
  uint64_t a_allocations = 0, b_allocations = 0;
  int64_t growth_bytes() const { return b_bytes - a_bytes; }
};

struct SnapshotComparison {
  int64_t device = 0;
  SnapDeviceStats a, b;  // top_sites cut to 20 each
  // Every site alive at either peak, most grown first (then the largest in B, then by name):
  // the sites that shrank come last.
  std::vector<CompareSite> sites;
  CategoryBytes a_categories, b_categories;  // at each peak
};

SnapshotComparison compare_snapshots(const SnapshotModel& a, const SnapshotModel& b, int64_t device);

}  // namespace ks
