#include "core/snapshot/snapshot_stats.h"

#include <algorithm>
#include <unordered_map>

#include "core/snapshot/id_map.h"

namespace ks {

namespace {

constexpr const char* kBeforeHistory = "<allocated before the history began>";
constexpr const char* kNoStack = "<no stack recorded>";

// One allocation of the timeline: alive after entry `from` (-1: from the start) until entry `to`
// frees it (INT64_MAX: alive at the dump).
struct Elem {
  int64_t size;
  int64_t from;
  int64_t to;
  uint32_t stack;
  bool before;  // allocated before the history began (its stack, if any, is not its site)
};


struct Timeline {
  ChunkedTable<Elem> elems;     // in blocks: no doubling vector's 2x while 50 M entries are read
  // The bytes an entry changed follow from its action and size (an alloc adds its size, a
  // free removes it, segment actions change the reserved bytes), except for a free whose
  // allocation had another size: those frees, by entry, with the bytes they removed. No array
  // of a value per entry: 50 M entries would add 400 MB to the 21 bytes each holds.
  std::vector<std::pair<size_t, int64_t>> odd_frees;
  int64_t allocated_delta(const SnapTrace& t, size_t i) const {
    switch (t.action[i]) {
      case SnapAction::kAlloc: return t.size[i];
      case SnapAction::kFreeCompleted:
      case SnapAction::kFree: {
        if (!odd_frees.empty()) {
          const auto it = std::lower_bound(odd_frees.begin(), odd_frees.end(), i,
                                           [](const std::pair<size_t, int64_t>& o, size_t k) { return o.first < k; });
          if (it != odd_frees.end() && it->first == i) return -it->second;
        }
        return -t.size[i];
      }
      default: return 0;
    }
  }
  int64_t reserved_delta(const SnapTrace& t, size_t i) const {
    switch (t.action[i]) {
      case SnapAction::kSegmentAlloc:
      case SnapAction::kSegmentMap: return t.size[i];
      case SnapAction::kSegmentFree:
      case SnapAction::kSegmentUnmap: return -t.size[i];
      default: return 0;
    }
  }
  int64_t start = 0;            // allocated before the first entry
  int64_t rstart = 0;           // reserved before the first entry
};

bool ends_with(std::string_view s, std::string_view t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

Timeline build(const SnapshotModel& m, int64_t device) {
  Timeline tl;
  static const SnapTrace kEmpty;
  const SnapTrace& t = device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
  const size_t n = t.size_rows();
  IdMap alive;  // address → its allocation in elems
  int64_t rsum = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = t.size[i];
    switch (t.action[i]) {
      case SnapAction::kAlloc:
        // An address allocated again without a free in between keeps the first one alive, as
        // memory_viz does (its free was lost to the history's ring buffer).
        alive.put(t.addr[i], uint32_t(tl.elems.size()));
        tl.elems.push_back({size, int64_t(i), INT64_MAX, t.stack[i], false});
        break;
      case SnapAction::kFreeCompleted:
      case SnapAction::kFree: {
        const uint64_t a = t.addr[i];
        if (const uint32_t* e = alive.find(a)) {
          Elem& el = tl.elems[*e];
          el.to = int64_t(i);
          if (el.size != size) tl.odd_frees.emplace_back(i, el.size);
          alive.erase(a);
        } else {
          tl.elems.push_back({size, -1, int64_t(i), t.stack[i], true});
          tl.start += size;
        }
        break;
      }
      case SnapAction::kSegmentAlloc:
      case SnapAction::kSegmentMap: rsum += size; break;
      case SnapAction::kSegmentFree:
      case SnapAction::kSegmentUnmap: rsum -= size; break;
      default: break;
    }
  }
  int64_t reserved_end = 0;
  for (const SnapSegment& s : m.segments) {
    if (s.device != device) continue;
    reserved_end += s.total_size;
    for (uint32_t b = s.first_block; b < s.first_block + s.blocks && b < m.blocks.size(); ++b) {
      const SnapBlock& blk = m.blocks[b];
      if (blk.state == BlockState::kActiveAllocated && !alive.find(blk.address)) {
        tl.elems.push_back({blk.requested_size, -1, INT64_MAX, blk.stack, true});
        tl.start += blk.requested_size;
      }
    }
  }
  tl.rstart = reserved_end - rsum;
  return tl;
}

std::vector<SnapSite> sites_at(const SnapshotModel& m, const Timeline& tl, int64_t p, size_t top) {
  std::unordered_map<uint32_t, std::string> label_of;  // per stack
  std::unordered_map<std::string, SnapSite> by;
  for (const Elem& e : tl.elems) {
    if (!(e.from <= p && p < e.to)) continue;
    std::string label;
    if (e.before && e.stack == 0) {
      label = kBeforeHistory;
    } else if (e.before && e.from == -1 && e.to != INT64_MAX) {
      label = kBeforeHistory;  // the stack we have is its free's
    } else {
      auto it = label_of.find(e.stack);
      if (it == label_of.end()) it = label_of.emplace(e.stack, snapshot_site(m, e.stack)).first;
      label = it->second;
    }
    SnapSite& s = by[label];
    s.frame = label;
    s.bytes += e.size;
    ++s.allocations;
  }
  std::vector<SnapSite> out;
  out.reserve(by.size());
  for (auto& [k, s] : by) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const SnapSite& a, const SnapSite& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.frame < b.frame;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace

std::string snapshot_site(const SnapshotModel& m, uint32_t stack) {
  if (stack == 0 || stack >= m.stack_count() || m.stack_size(stack) == 0) return kNoStack;
  size_t pick = 0;
  for (size_t k = 0; k < m.stack_size(stack); ++k)
    if (ends_with(m.strings.get(m.stack_frame(stack, k).filename), ".py")) {
      pick = k;
      break;
    }
  const SnapFrame& f = m.stack_frame(stack, pick);
  return std::string(m.strings.get(f.filename)) + ":" + std::to_string(f.line) + ":" + std::string(m.strings.get(f.name));
}

std::vector<int64_t> snapshot_devices(const SnapshotModel& m) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < m.devices.size(); ++i) out.push_back(int64_t(i));
  for (const SnapSegment& s : m.segments) out.push_back(s.device);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

SnapDeviceStats snapshot_device_stats(const SnapshotModel& m, int64_t device, std::optional<int64_t> at_us, size_t top) {
  SnapDeviceStats st;
  st.device = device;
  const Timeline tl = build(m, device);
  static const SnapTrace kEmpty;
  const SnapTrace& t = device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
  const size_t n = t.size_rows();
  st.trace_entries = n;
  for (size_t i = 0; i < n; ++i) {
    if (t.action[i] == SnapAction::kAlloc) ++st.allocations;
    if (t.action[i] == SnapAction::kFreeCompleted || t.action[i] == SnapAction::kFree) ++st.frees;
  }
  for (const SnapSegment& s : m.segments) {
    if (s.device != device) continue;
    ++st.segments;
    st.allocated_at_dump_bytes += s.allocated_size;
    st.reserved_at_dump_bytes += s.total_size;
  }
  st.before_history_bytes = tl.start;

  // One pass: the peak, the reserved peak, and each oom's levels.
  int64_t level = tl.start, reserved = tl.rstart;
  st.peak_allocated_bytes = level;
  st.peak_reserved_bytes = reserved;
  size_t oom = 0;
  for (size_t i = 0; i < n; ++i) {
    level += tl.allocated_delta(t, i);
    reserved += tl.reserved_delta(t, i);
    if (level > st.peak_allocated_bytes) st.peak_allocated_bytes = level, st.peak_entry = int64_t(i);
    st.peak_reserved_bytes = std::max(st.peak_reserved_bytes, reserved);
    if (t.action[i] == SnapAction::kOom) {
      SnapOom o;
      o.entry = uint32_t(i);
      o.at_us = t.time_us[i];
      o.requested_bytes = t.size[i];
      while (oom < t.device_free.size() && t.device_free[oom].first < i) ++oom;
      if (oom < t.device_free.size() && t.device_free[oom].first == i) o.device_free_bytes = t.device_free[oom].second;
      o.allocated_bytes = level;
      o.reserved_bytes = reserved;
      st.ooms.push_back(o);
    }
  }
  st.alive_at_dump_bytes = level;
  if (n > 0) st.peak_at_us = st.peak_entry >= 0 ? t.time_us[size_t(st.peak_entry)] : t.time_us[0];
  st.top_sites = sites_at(m, tl, st.peak_entry, top);

  if (at_us) {
    SnapMoment mo;
    // The last entry at or before the time (entries are recorded in time order).
    int64_t p = -1;
    for (size_t i = 0; i < n; ++i)
      if (t.time_us[i] >= 0 && t.time_us[i] <= *at_us) p = int64_t(i);
    mo.entry = p;
    mo.at_us = *at_us;
    mo.allocated_bytes = tl.start;
    mo.reserved_bytes = tl.rstart;
    for (int64_t i = 0; i <= p; ++i)
      mo.allocated_bytes += tl.allocated_delta(t, size_t(i)), mo.reserved_bytes += tl.reserved_delta(t, size_t(i));
    mo.top_sites = sites_at(m, tl, p, top);
    st.at = std::move(mo);
  }
  return st;
}

}  // namespace ks
