#include "core/snapshot/snapshot_bands.h"

#include <algorithm>
#include <cmath>

namespace ks {

SnapHistory snapshot_history(const SnapshotModel& m, int64_t device) { return SnapTimeline(m, device); }

SnapBands snapshot_bands(const SnapHistory& h, const SnapWindow& w) {
  SnapBands out;
  const int64_t states = int64_t(h.states());
  const int width = std::clamp(w.width, 1, 20000);
  const int height = std::clamp(w.height, 1, 100000);
  if (states == 0) return out;
  out.by_time = w.by_time && h.has_times();

  // The columns and the state each draws.
  out.columns.resize(size_t(width));
  auto fill = [&](SnapColumn& c, int64_t first, int64_t last) {
    c.first = first;
    c.last = last;
    c.state = h.most_allocated(first, last);
    c.allocated = h.level_at(c.state);
    c.reserved = h.reserved_at(c.state);
  };
  if (out.by_time) {
    const double t0 = double(h.time_at(0)), t1 = double(h.time_at(states - 1));
    double from = w.to > w.from ? w.from : t0, to = w.to > w.from ? w.to : t1;
    from = std::clamp(from, t0, t1);
    to = std::clamp(to, from, t1);
    if (to <= from) to = from + 1;
    out.from = from;
    out.to = to;
    const double dt = (to - from) / width;
    auto at_or_after = [&](double t) { return h.first_state_at_or_after(int64_t(std::ceil(t))); };
    for (int c = 0; c < width; ++c) {
      const double a = from + c * dt, b = c + 1 == width ? std::nextafter(to, INFINITY) : from + (c + 1) * dt;
      const int64_t first = at_or_after(a), end = at_or_after(b);
      // No entry in this column's time: the state before it goes on.
      if (end <= first) fill(out.columns[size_t(c)], std::max<int64_t>(first - 1, 0), std::max<int64_t>(first - 1, 0));
      else fill(out.columns[size_t(c)], first, end - 1);
    }
  } else {
    double from = w.to > w.from ? w.from : 0, to = w.to > w.from ? w.to : double(states);
    from = std::clamp(from, 0.0, double(states - 1));
    to = std::clamp(to, from + 1, double(states));
    out.from = from;
    out.to = to;
    const double per = (to - from) / width;
    for (int c = 0; c < width; ++c) {
      const int64_t first = std::min<int64_t>(int64_t(std::floor(from + c * per)), states - 1);
      const int64_t end = std::clamp<int64_t>(int64_t(std::floor(from + (c + 1) * per)), first + 1, states);
      fill(out.columns[size_t(c)], first, end - 1);
    }
  }
  for (const SnapColumn& c : out.columns) out.y_max = std::max({out.y_max, c.allocated, c.reserved});
  out.min_band_bytes = std::max<int64_t>(1, (out.y_max + height - 1) / height);

  // The allocations alive at a column's state, and the columns they span (the columns' states
  // never go down, so an allocation's columns follow each other).
  std::vector<int64_t> col_state(out.columns.size());
  for (size_t c = 0; c < out.columns.size(); ++c) col_state[c] = out.columns[c].state;
  struct Pick {
    uint32_t elem;
    int c0, c1;
    int64_t size;
  };
  std::vector<Pick> picks;
  const int64_t s0 = col_state.front(), s1 = col_state.back();
  const size_t ncol = col_state.size();
  // The first column whose state is >= v, every column before `at` being below it: galloping
  // from `at`, as the answer is near there (allocations come in the order they were made, most
  // short-lived), where a binary search of all columns per allocation took most of the time.
  auto seek = [&](size_t at, int64_t v) {
    size_t lo = at, hi = at, step = 1;
    while (hi < ncol && col_state[hi] < v) lo = hi + 1, hi += step, step *= 2;
    return size_t(std::lower_bound(col_state.begin() + std::ptrdiff_t(lo), col_state.begin() + std::ptrdiff_t(std::min(hi, ncol)), v) -
                  col_state.begin());
  };
  size_t cur = 0;  // the first column at or above cur_lo
  int64_t cur_lo = 0;
  for (size_t i = 0; i < h.elem_count(); ++i) {
    const int64_t lo = h.alive_from(i), hi = h.alive_to(i);
    // Alive at no column's state: before the first or after the last (most allocations, zoomed in).
    if (hi <= s0 || lo > s1) continue;
    size_t first;
    if (lo >= cur_lo) first = cur = seek(cur, lo), cur_lo = lo;
    else first = seek(0, lo);
    if (first == ncol || col_state[first] >= hi) continue;
    const int64_t size = h.elem_size(i);
    if (size < out.min_band_bytes) {
      ++out.folded;
      continue;
    }
    const size_t last = seek(first, hi);
    picks.push_back({uint32_t(i), int(first), int(last) - 1, size});
  }
  if (picks.size() > w.max_bands) {
    std::nth_element(picks.begin(), picks.begin() + std::ptrdiff_t(w.max_bands), picks.end(), [&](const Pick& a, const Pick& b) {
      const int64_t sa = a.size, sb = b.size;
      return sa != sb ? sa > sb : a.elem < b.elem;
    });
    out.folded += picks.size() - w.max_bands;
    picks.resize(w.max_bands);
  }
  // Bottom to top: those allocated before the history, then in the order they were allocated.
  std::sort(picks.begin(), picks.end(), [&](const Pick& a, const Pick& b) {
    const bool ba = h.alive_from(a.elem) == 0, bb = h.alive_from(b.elem) == 0;
    return ba != bb ? ba : a.elem < b.elem;
  });

  out.bands.resize(picks.size());
  for (size_t k = 0; k < picks.size(); ++k) {
    out.bands[k].elem = picks[k].elem;
    out.bands[k].first_column = picks[k].c0;
    out.bands[k].last_column = picks[k].c1;
  }
  // Column by column, the drawn bands alive there stacked on the bottom band. Bands enter and
  // leave the active list in their stacking order.
  std::vector<size_t> by_start(picks.size());
  for (size_t k = 0; k < by_start.size(); ++k) by_start[k] = k;
  std::stable_sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) { return picks[a].c0 < picks[b].c0; });
  std::vector<size_t> active;
  size_t next = 0;
  for (int c = 0; c < int(out.columns.size()); ++c) {
    // Those starting here join in stacking order (by_start is stable, so they come ascending):
    // one merge keeps the list sorted, where a sort per column cost 1,400 x 2,000 log 2,000.
    const size_t had = active.size();
    while (next < by_start.size() && picks[by_start[next]].c0 == c) active.push_back(by_start[next++]);
    if (had && active.size() > had) std::inplace_merge(active.begin(), active.begin() + std::ptrdiff_t(had), active.end());
    active.erase(std::remove_if(active.begin(), active.end(), [&](size_t k) { return picks[k].c1 < c; }), active.end());
    int64_t drawn = 0;
    for (size_t k : active) drawn += picks[k].size;
    SnapColumn& col = out.columns[size_t(c)];
    col.others = col.allocated - drawn;
    int64_t y = col.others;
    for (size_t k : active) {
      SnapBand& b = out.bands[k];
      if (b.bottom.empty() || b.bottom.back().second != y) b.bottom.emplace_back(c, y);
      y += picks[k].size;
    }
  }
  return out;
}

}  // namespace ks
