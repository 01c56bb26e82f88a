#include "core/util/intervals.h"

#include <algorithm>

#include "core/util/sort_runs.h"

namespace ks {

namespace {

// Merges v[from, to), whose starts do not decrease, into v[out, ...) (out <= from): a range
// extends the last one kept when it reaches past its end and starts at or before it; a range
// inside it is dropped; the first is kept even when empty. Returns the end of what it kept.
size_t sweep(Ranges& v, size_t from, size_t to, size_t out) {
  const size_t first = out;
  for (size_t i = from; i < to; ++i) {
    const Range r = v[i];
    if (out == first) {
      v[out++] = r;
    } else if (r.end > v[out - 1].end) {
      if (r.start <= v[out - 1].end) v[out - 1].end = r.end;
      else v[out++] = r;
    }
  }
  return out;
}

}  // namespace

Ranges merge_ranges(Ranges v) {
  // In place, over the front of v. The tables come in long runs of rising starts (a thread's
  // calls, a stream's kernels), so each run is merged first, without sorting; only what is left
  // of several runs is then put in order — each run's union is in order already, so the runs are
  // merged (sort_runs: a buffer of at most the shorter of two runs), not sorted — and swept
  // again. Merging is a union of closed intervals, so merging the runs' unions gives the union of
  // all; sorting all of a table's host ranges was ~10% of the step-time breakdown in wasm, where
  // nested operators made most of them vanish in the sweep anyway.
  size_t n = 0, runs = 0;
  for (size_t i = 0; i < v.size(); ++runs) {
    size_t j = i + 1;
    while (j < v.size() && v[j].start >= v[j - 1].start) ++j;
    n = sweep(v, i, j, n);
    i = j;
  }
  v.resize(n);
  if (runs > 1) {
    // Each run's union is itself in order: merged as runs, not sorted (sort_runs).
    sort_runs(v.data(), v.data() + v.size(), [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
    v.resize(sweep(v, 0, v.size(), 0));
  }
  if (v.capacity() / 2 > v.size()) v.shrink_to_fit();
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
