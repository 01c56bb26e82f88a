// Interval algebra on [start, end) ranges in ns, with tb_plugin's semantics (spec §7.1): the
// step-time breakdown, GPU utilization and overlap views are built from these.
#pragma once
#include <cstdint>
#include <vector>

namespace ks {

struct Range {
  int64_t start = 0, end = 0;
  bool operator==(const Range&) const = default;
};
using Ranges = std::vector<Range>;

// Sort by start (in place); a range extends the current one when it reaches past its end and starts
// at or before it (touching ranges merge); ranges inside the current one are dropped. The first
// range is kept even when empty.
Ranges merge_ranges(Ranges v);
// Pieces of `a` inside / outside `b`; both sorted and non-overlapping (merged). No empty pieces.
Ranges intersect_ranges(const Ranges& a, const Ranges& b);
Ranges subtract_ranges(const Ranges& a, const Ranges& b);
int64_t ranges_sum(const Ranges& v);
// ranges_sum(intersect_ranges({{start, end}}, merged)) without walking `merged` from its start:
// a binary search to the window, so summing each of N steps costs O(log n + its ranges), not
// O(n) (a 10 GB trace has thousands of steps and tens of millions of ranges).
int64_t overlap_sum(const Ranges& merged, int64_t start, int64_t end);

}  // namespace ks
