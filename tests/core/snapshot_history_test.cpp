// The timeline of a snapshot's device as the core keeps it (snapshot_stats.h's SnapTimeline: the
// allocations as entry numbers, the level between checkpoints read from the entries) against a
// brute force on random hand-made histories: every state's allocated and reserved memory and time,
// every allocation, each range's most allocated state, and the per-pixel bands
// (snapshot_bands.h) of entry and time windows, each column checked against the states it covers
// and each band against the allocations alive there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/snapshot/snapshot_bands.h"
#include "core/snapshot/snapshot_stats.h"

namespace {

// A history of n entries: allocs (some at an address still alive), their frees (some with
// another size, some of addresses never allocated in the history: made before it), the
// free_requested before them, segments allocated and freed, ooms, and at the dump segments
// with blocks (some held by an alloc of the history, some not).
ks::SnapshotModel random_model(uint32_t seed, size_t n, bool times_in_order) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t k) { return uint64_t(rng() % k); };
  ks::SnapshotModel m;
  m.has_history = true;
  m.devices.resize(1);
  ks::SnapTrace& t = m.devices[0];
  std::vector<std::pair<uint64_t, int64_t>> alive;
  int64_t time = 1000;
  auto push = [&](ks::SnapAction a, uint64_t addr, int64_t size) {
    t.action.push_back(a);
    t.addr.push_back(addr);
    t.size.push_back(size);
    t.stream.push_back(0);
    time += int64_t(pick(3));  // equal times too
    t.time_us.push_back(times_in_order ? time : (pick(10) ? time : time - 5));
    t.stack.push_back(uint32_t(pick(5)));
  };
  const int64_t sizes[] = {512, 4096, 100000, 1 << 20, 3 << 20};
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = pick(100);
    if (r < 40 || alive.empty()) {
      const uint64_t addr = r < 3 && !alive.empty() ? alive[pick(alive.size())].first : 0x10000 + i * 0x1000;
      const int64_t size = sizes[pick(5)];
      push(ks::SnapAction::kAlloc, addr, size);
      alive.emplace_back(addr, size);
    } else if (r < 75) {
      const size_t k = pick(alive.size());
      const auto [addr, size] = alive[k];
      alive.erase(alive.begin() + std::ptrdiff_t(k));
      if (pick(2)) push(ks::SnapAction::kFreeRequested, addr, size);
      push(pick(8) ? ks::SnapAction::kFreeCompleted : ks::SnapAction::kFree, addr, pick(6) ? size : size + 7);
    } else if (r < 82) {
      push(ks::SnapAction::kFreeCompleted, 0x90000000 + i, sizes[pick(5)]);  // allocated before the history
    } else if (r < 88) {
      push(ks::SnapAction::kSegmentAlloc, 0xa0000000 + i, 2 << 20);
    } else if (r < 92) {
      push(ks::SnapAction::kSegmentFree, 0xa0000000 + i, 2 << 20);
    } else if (r < 94) {
      push(ks::SnapAction::kOom, 0, int64_t(1) << 33);
    } else {
      push(ks::SnapAction::kSegmentMap, 0xb0000000 + i, 1 << 20);
    }
  }
  ks::SnapSegment seg;
  seg.device = 0;
  seg.total_size = 64 << 20;
  seg.first_block = 0;
  for (size_t k = 0; k < alive.size() && k < 20; ++k)
    m.blocks.push_back({alive[k].first, alive[k].second, alive[k].second, ks::BlockState::kActiveAllocated, 0});
  for (uint64_t k = 0; k < 5; ++k)
    m.blocks.push_back({0xc0000000 + k * 0x1000, 1000 + int64_t(k), 900 + int64_t(k), k % 2 ? ks::BlockState::kInactive : ks::BlockState::kActiveAllocated, 3});
  seg.blocks = uint32_t(m.blocks.size());
  m.segments.push_back(seg);
  return m;
}

// The timeline computed plainly: per-entry arrays, as the core kept it before.
struct Brute {
  std::vector<ks::SnapElem> elems;
  std::vector<int64_t> level, reserved, time;
  explicit Brute(const ks::SnapshotModel& m) {
    const ks::SnapTrace& t = m.devices[0];
    const size_t n = t.size_rows();
    std::vector<int64_t> delta(n), rdelta(n);
    std::map<uint64_t, size_t> alive;
    int64_t start = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t size = t.size[i];
      switch (t.action[i]) {
        case ks::SnapAction::kAlloc:
          alive[t.addr[i]] = elems.size();
          elems.push_back({size, int64_t(i), INT64_MAX, t.stack[i], false, t.addr[i]});
          delta[i] = size;
          break;
        case ks::SnapAction::kFreeCompleted:
        case ks::SnapAction::kFree:
          if (alive.count(t.addr[i])) {
            elems[alive[t.addr[i]]].to = int64_t(i);
            delta[i] = -elems[alive[t.addr[i]]].size;
            alive.erase(t.addr[i]);
          } else {
            elems.push_back({size, -1, int64_t(i), t.stack[i], true, t.addr[i]});
            start += size;
            delta[i] = -size;
          }
          break;
        case ks::SnapAction::kSegmentAlloc:
        case ks::SnapAction::kSegmentMap: rdelta[i] = size; break;
        case ks::SnapAction::kSegmentFree:
        case ks::SnapAction::kSegmentUnmap: rdelta[i] = -size; break;
        default: break;
      }
    }
    int64_t reserved_end = 0;
    for (const ks::SnapSegment& s : m.segments) {
      reserved_end += s.total_size;
      for (uint32_t b = s.first_block; b < s.first_block + s.blocks; ++b)
        if (m.blocks[b].state == ks::BlockState::kActiveAllocated && !alive.count(m.blocks[b].address)) {
          elems.push_back({m.blocks[b].requested_size, -1, INT64_MAX, m.blocks[b].stack, true, m.blocks[b].address});
          start += m.blocks[b].requested_size;
        }
    }
    int64_t rsum = 0;
    for (int64_t d : rdelta) rsum += d;
    level = {start};
    reserved = {reserved_end - rsum};
    time = {n ? t.time_us[0] : -1};
    for (size_t i = 0; i < n; ++i) {
      level.push_back(level.back() + delta[i]);
      reserved.push_back(reserved.back() + rdelta[i]);
      time.push_back(t.time_us[i]);
    }
  }
  bool alive_at(const ks::SnapElem& e, int64_t state) const { return e.from + 1 <= state && state < (e.to == INT64_MAX ? int64_t(level.size()) : e.to + 1); }
  int64_t most_allocated(int64_t first, int64_t last) const {
    int64_t at = first;
    for (int64_t s = first + 1; s <= last; ++s)
      if (level[size_t(s)] > level[size_t(at)]) at = s;
    return at;
  }
};

void check_bands(const ks::SnapHistory& h, const Brute& b, const ks::SnapWindow& w) {
  const ks::SnapBands r = ks::snapshot_bands(h, w);
  REQUIRE(int(r.columns.size()) == w.width);
  int64_t y_max = 0;
  for (const ks::SnapColumn& c : r.columns) {
    REQUIRE(c.first <= c.last);
    CHECK(c.state == b.most_allocated(c.first, c.last));
    CHECK(c.allocated == b.level[size_t(c.state)]);
    CHECK(c.reserved == b.reserved[size_t(c.state)]);
    y_max = std::max({y_max, c.allocated, c.reserved});
  }
  CHECK(r.y_max == y_max);
  // The bands: every allocation alive at a column's state at least a pixel tall (max_bands is
  // above them all here), the others folded.
  std::set<uint32_t> want;
  uint64_t folded = 0;
  for (size_t k = 0; k < b.elems.size(); ++k) {
    bool alive = false;
    for (const ks::SnapColumn& c : r.columns) alive |= b.alive_at(b.elems[k], c.state);
    if (!alive) continue;
    if (b.elems[k].size < r.min_band_bytes) ++folded;
    else want.insert(uint32_t(k));
  }
  std::set<uint32_t> got;
  for (const ks::SnapBand& band : r.bands) got.insert(band.elem);
  CHECK(got == want);
  CHECK(r.folded == folded);
  // Each column: the bottom band and the bands alive there add up to the allocated memory, each
  // band's bottom the bands below it.
  for (size_t c = 0; c < r.columns.size(); ++c) {
    int64_t y = r.columns[c].others;
    for (const ks::SnapBand& band : r.bands) {
      const ks::SnapElem& e = b.elems[band.elem];
      const bool here = b.alive_at(e, r.columns[c].state);
      CHECK(here == (band.first_column <= int(c) && int(c) <= band.last_column));
      if (!here) continue;
      int64_t bottom = -1;
      for (const auto& [col, v] : band.bottom)
        if (col <= int(c)) bottom = v;
      CHECK(bottom == y);
      y += e.size;
    }
    CHECK(y == r.columns[c].allocated);
  }
}

}  // namespace

TEST_CASE("snapshot history: the kept timeline equals per-entry arrays on random histories", "[snapshot]") {
  for (uint32_t seed = 1; seed <= 6; ++seed)
    for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000)}) {
      INFO("seed " << seed << ", " << n << " entries");
      const bool in_order = seed % 3 != 0;
      const ks::SnapshotModel m = random_model(seed, n, in_order);
      const ks::SnapHistory h = ks::snapshot_history(m, 0);
      const Brute b(m);
      REQUIRE(h.states() == b.level.size());
      for (size_t s = 0; s < b.level.size(); ++s) {
        INFO("state " << s);
        CHECK(h.level_at(int64_t(s)) == b.level[s]);
        CHECK(h.reserved_at(int64_t(s)) == b.reserved[s]);
        CHECK(h.time_at(int64_t(s)) == b.time[s]);
      }
      CHECK(h.has_times() == (n > 0 && std::is_sorted(b.time.begin(), b.time.end())));
      if (n > 100) CHECK(h.has_times() == in_order);
      REQUIRE(h.elem_count() == b.elems.size());
      for (size_t k = 0; k < b.elems.size(); ++k) {
        INFO("allocation " << k);
        const ks::SnapElem e = h.elem(k), x = b.elems[k];
        CHECK(e.size == x.size);
        CHECK(h.elem_size(k) == x.size);
        CHECK(e.from == x.from);
        CHECK(e.to == x.to);
        CHECK(e.stack == x.stack);
        CHECK(e.before == x.before);
        CHECK(e.addr == x.addr);
        for (int64_t s : {x.from, x.from + 1, x.to, x.to == INT64_MAX ? int64_t(n) : x.to + 1})
          if (s >= 0 && s <= int64_t(n)) CHECK((h.alive_from(k) <= s && s < h.alive_to(k)) == b.alive_at(x, s));
      }
      // Every range of a few states, and ranges across checkpoints.
      std::mt19937 rng(seed);
      for (int k = 0; k < 300 && n > 0; ++k) {
        const int64_t first = int64_t(rng() % (n + 1)), last = std::min<int64_t>(int64_t(n), first + int64_t(rng() % (k % 2 ? 8 : 400)));
        CHECK(h.most_allocated(first, last) == b.most_allocated(first, last));
      }
      if (h.has_times())
        for (int64_t t = 990; t <= (n ? b.time.back() + 2 : 1000); ++t) {
          const int64_t want = int64_t(std::lower_bound(b.time.begin(), b.time.end(), t) - b.time.begin());
          CHECK(h.first_state_at_or_after(t) == want);
        }
      // The device's numbers from the kept timeline: the peak and the state at a time.
      const ks::SnapDeviceStats st = ks::snapshot_device_stats(m, 0, int64_t(1100));
      const int64_t peak = *std::max_element(b.level.begin(), b.level.end());
      CHECK(st.peak_allocated_bytes == peak);
      CHECK(b.level[size_t(st.peak_entry + 1)] == peak);
      CHECK(std::find(b.level.begin(), b.level.end(), peak) - b.level.begin() == st.peak_entry + 1);
      CHECK(st.peak_reserved_bytes == *std::max_element(b.reserved.begin(), b.reserved.end()));
      CHECK(st.alive_at_dump_bytes == b.level.back());
      REQUIRE(st.at);
      CHECK(st.at->allocated_bytes == b.level[size_t(st.at->entry + 1)]);
      CHECK(st.at->reserved_bytes == b.reserved[size_t(st.at->entry + 1)]);

      // The bands of windows by entry (whole, zoomed, one column, more columns than states)
      // and by time, at heights that fold some allocations.
      for (int width : {1, 7, 50, 1500})
        for (int height : {4, 100000}) {
          INFO("width " << width << ", height " << height);
          ks::SnapWindow w;
          w.width = width;
          w.height = height;
          w.max_bands = 1000000;
          check_bands(h, b, w);
          w.from = double(n) / 3;
          w.to = double(n) / 3 + 90.5;
          check_bands(h, b, w);
          if (h.has_times()) {
            w.by_time = true;
            w.from = w.to = -1;
            check_bands(h, b, w);
            w.from = double(b.time[b.time.size() / 2]) - 20;
            w.to = w.from + 45;
            check_bands(h, b, w);
          }
        }
    }
}
