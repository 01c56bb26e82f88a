#include "core/util/intervals.h"

#include <algorithm>

namespace ks {

Ranges merge_ranges(Ranges v) {
  // In place: sorted without a stable sort's buffer (ranges of equal start merge into the same
  // result in any order; the end decides the order only to keep it deterministic), merged over
  // the front, and the room given back when most of it is unused.
  std::sort(v.begin(), v.end(), [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
  size_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const Range r = v[i];
    if (n == 0) {
      v[n++] = r;
    } else if (r.end > v[n - 1].end) {
      if (r.start <= v[n - 1].end) v[n - 1].end = r.end;
      else v[n++] = r;
    }
  }
  v.resize(n);
  if (v.capacity() / 2 > n) v.shrink_to_fit();
  return v;
}

Ranges intersect_ranges(const Ranges& a, const Ranges& b) {
  Ranges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t s = std::max(a[i].start, b[j].start), e = std::min(a[i].end, b[j].end);
    if (s < e) out.push_back({s, e});
    if (a[i].end < b[j].end) ++i;
    else ++j;
  }
  return out;
}

int64_t overlap_sum(const Ranges& merged, int64_t start, int64_t end) {
  // Merged ranges are sorted and do not overlap, so their ends are sorted too.
  auto it = std::partition_point(merged.begin(), merged.end(), [&](const Range& r) { return r.end <= start; });
  int64_t sum = 0;
  for (; it != merged.end() && it->start < end; ++it) {
    const int64_t s = std::max(it->start, start), e = std::min(it->end, end);
    if (s < e) sum += e - s;
  }
  return sum;
}

Ranges subtract_ranges(const Ranges& a, const Ranges& b) {
  Ranges out;
  size_t j = 0;
  for (const Range& r : a) {
    int64_t cur = r.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < r.end) {
      if (b[k].start > cur) out.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
      if (b[k].end > r.end) break;
      ++k;
    }
    if (cur < r.end) out.push_back({cur, r.end});
  }
  return out;
}

int64_t ranges_sum(const Ranges& v) {
  int64_t s = 0;
  for (const Range& r : v) s += r.end - r.start;
  return s;
}

}  // namespace ks
