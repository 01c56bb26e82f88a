#include "core/snapshot/snapshot_bands.h"

#include <algorithm>
#include <cmath>

namespace ks {

SnapHistory snapshot_history(const SnapshotModel& m, int64_t device) {
  SnapHistory h;
  SnapTimeline tl = snapshot_timeline(m, device);
  static const SnapTrace kEmpty;
  const SnapTrace& t = device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
  const size_t n = t.size_rows();
  h.level.resize(n + 1);
  h.reserved.resize(n + 1);
  h.time_us.resize(n + 1);
  h.level[0] = tl.start;
  h.reserved[0] = tl.rstart;
  h.has_times = n > 0;
  int64_t prev = INT64_MIN;
  for (size_t i = 0; i < n; ++i) {
    h.level[i + 1] = h.level[i] + tl.delta[i];
    h.reserved[i + 1] = h.reserved[i] + tl.rdelta[i];
    const int64_t ti = t.time_us[i];
    h.time_us[i + 1] = ti;
    // Time as an axis needs every entry's time, in order (the allocator records them so).
    if (ti < 0 || ti < prev) h.has_times = false;
    prev = std::max(prev, ti);
  }
  h.time_us[0] = n ? t.time_us[0] : -1;
  h.elems = std::move(tl.elems);
  return h;
}

namespace {

// The states [lo, hi) an allocation is alive in.
int64_t alive_from(const SnapElem& e) { return e.from + 1; }
int64_t alive_to(const SnapElem& e, int64_t states) { return e.to == INT64_MAX ? states : e.to + 1; }

}  // namespace

SnapBands snapshot_bands(const SnapHistory& h, const SnapWindow& w) {
  SnapBands out;
  const int64_t states = int64_t(h.states());
  const int width = std::clamp(w.width, 1, 20000);
  const int height = std::clamp(w.height, 1, 100000);
  if (states == 0) return out;
  out.by_time = w.by_time && h.has_times;

  // The columns and the state each draws.
  out.columns.resize(size_t(width));
  auto fill = [&](SnapColumn& c, int64_t first, int64_t last) {
    c.first = first;
    c.last = last;
    c.state = first;
    for (int64_t s = first + 1; s <= last; ++s)
      if (h.level[size_t(s)] > h.level[size_t(c.state)]) c.state = s;
    c.allocated = h.level[size_t(c.state)];
    c.reserved = h.reserved[size_t(c.state)];
  };
  if (out.by_time) {
    const double t0 = double(h.time_us.front()), t1 = double(h.time_us.back());
    double from = w.to > w.from ? w.from : t0, to = w.to > w.from ? w.to : t1;
    from = std::clamp(from, t0, t1);
    to = std::clamp(to, from, t1);
    if (to <= from) to = from + 1;
    out.from = from;
    out.to = to;
    const double dt = (to - from) / width;
    auto at_or_after = [&](double t) {
      return int64_t(std::lower_bound(h.time_us.begin(), h.time_us.end(), int64_t(std::ceil(t))) - h.time_us.begin());
    };
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
  };
  std::vector<Pick> picks;
  for (size_t i = 0; i < h.elems.size(); ++i) {
    const SnapElem& e = h.elems[i];
    const int64_t lo = alive_from(e), hi = alive_to(e, states);
    const auto first = std::lower_bound(col_state.begin(), col_state.end(), lo);
    if (first == col_state.end() || *first >= hi) continue;
    if (e.size < out.min_band_bytes) {
      ++out.folded;
      continue;
    }
    const auto last = std::lower_bound(first, col_state.end(), hi);
    picks.push_back({uint32_t(i), int(first - col_state.begin()), int(last - col_state.begin()) - 1});
  }
  if (picks.size() > w.max_bands) {
    std::nth_element(picks.begin(), picks.begin() + std::ptrdiff_t(w.max_bands), picks.end(), [&](const Pick& a, const Pick& b) {
      const int64_t sa = h.elems[a.elem].size, sb = h.elems[b.elem].size;
      return sa != sb ? sa > sb : a.elem < b.elem;
    });
    out.folded += picks.size() - w.max_bands;
    picks.resize(w.max_bands);
  }
  // Bottom to top: those allocated before the history, then in the order they were allocated.
  std::sort(picks.begin(), picks.end(), [&](const Pick& a, const Pick& b) {
    const bool ba = h.elems[a.elem].before, bb = h.elems[b.elem].before;
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
    for (size_t k : active) drawn += h.elems[picks[k].elem].size;
    SnapColumn& col = out.columns[size_t(c)];
    col.others = col.allocated - drawn;
    int64_t y = col.others;
    for (size_t k : active) {
      SnapBand& b = out.bands[k];
      if (b.bottom.empty() || b.bottom.back().second != y) b.bottom.emplace_back(c, y);
      y += h.elems[b.elem].size;
    }
  }
  return out;
}

}  // namespace ks
