#include "core/snapshot/snapshot_stats.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

constexpr const char* kBeforeHistory = "<allocated before the history began>";
constexpr const char* kNoStack = "<no stack recorded>";

bool ends_with(std::string_view s, std::string_view t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

}  // namespace

SnapTimeline snapshot_timeline(const SnapshotModel& m, int64_t device) {
  SnapTimeline tl;
  static const SnapTrace kEmpty;
  const SnapTrace& t = device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
  const size_t n = t.size_rows();
  tl.delta.assign(n, 0);
  tl.rdelta.assign(n, 0);
  std::unordered_map<uint64_t, size_t> alive;
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = t.size[i];
    switch (t.action[i]) {
      case SnapAction::kAlloc:
        // An address allocated again without a free in between keeps the first one alive, as
        // memory_viz does (its free was lost to the history's ring buffer).
        alive[t.addr[i]] = tl.elems.size();
        tl.elems.push_back({size, int64_t(i), INT64_MAX, t.stack[i], false, t.addr[i]});
        tl.delta[i] += size;
        break;
      case SnapAction::kFreeCompleted:
      case SnapAction::kFree: {
        auto it = alive.find(t.addr[i]);
        if (it != alive.end()) {
          SnapElem& e = tl.elems[it->second];
          e.to = int64_t(i);
          tl.delta[i] -= e.size;
          alive.erase(it);
        } else {
          tl.elems.push_back({size, -1, int64_t(i), t.stack[i], true, t.addr[i]});
          tl.start += size;
          tl.delta[i] -= size;
        }
        break;
      }
      case SnapAction::kSegmentAlloc:
      case SnapAction::kSegmentMap: tl.rdelta[i] += size; break;
      case SnapAction::kSegmentFree:
      case SnapAction::kSegmentUnmap: tl.rdelta[i] -= size; break;
      default: break;
    }
  }
  int64_t reserved_end = 0;
  for (const SnapSegment& s : m.segments) {
    if (s.device != device) continue;
    reserved_end += s.total_size;
    for (uint32_t b = s.first_block; b < s.first_block + s.blocks && b < m.blocks.size(); ++b) {
      const SnapBlock& blk = m.blocks[b];
      if (blk.state == BlockState::kActiveAllocated && !alive.count(blk.address)) {
        tl.elems.push_back({blk.requested_size, -1, INT64_MAX, blk.stack, true, blk.address});
        tl.start += blk.requested_size;
      }
    }
  }
  int64_t rsum = 0;
  for (int64_t d : tl.rdelta) rsum += d;
  tl.rstart = reserved_end - rsum;
  return tl;
}

namespace {

std::vector<SnapSite> sites_at(const SnapshotModel& m, const SnapTimeline& tl, int64_t p, size_t top) {
  std::unordered_map<uint32_t, std::string> label_of;  // per stack
  std::unordered_map<std::string, SnapSite> by;
  for (const SnapElem& e : tl.elems) {
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
  const SnapTimeline tl = snapshot_timeline(m, device);
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
    level += tl.delta[i];
    reserved += tl.rdelta[i];
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
    for (int64_t i = 0; i <= p; ++i) mo.allocated_bytes += tl.delta[size_t(i)], mo.reserved_bytes += tl.rdelta[size_t(i)];
    mo.top_sites = sites_at(m, tl, p, top);
    st.at = std::move(mo);
  }
  return st;
}

}  // namespace ks
