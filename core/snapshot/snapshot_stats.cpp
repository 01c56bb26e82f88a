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

namespace {

const SnapTrace& trace_of(const SnapshotModel& m, int64_t device) {
  static const SnapTrace kEmpty;
  return device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
}

}  // namespace

SnapTimeline::SnapTimeline(const SnapshotModel& m, int64_t device) : m_(&m), t_(&trace_of(m, device)) {
  const SnapTrace& t = *t_;
  n_ = t.size_rows();
  // The allocations, and each free's change where it is not minus its own size.
  std::unordered_map<uint64_t, uint32_t> alive;
  for (size_t i = 0; i < n_; ++i) {
    switch (t.action[i]) {
      case SnapAction::kAlloc:
        ++allocations_;
        // An address allocated again without a free in between keeps the first one alive, as
        // memory_viz does (its free was lost to the history's ring buffer).
        alive[t.addr[i]] = uint32_t(elems_.size());
        elems_.push_back({uint32_t(i), kNone});
        break;
      case SnapAction::kFreeCompleted:
      case SnapAction::kFree: {
        ++frees_;
        auto it = alive.find(t.addr[i]);
        if (it != alive.end()) {
          Packed& e = elems_[it->second];
          e.to = uint32_t(i);
          const int64_t size = t.size[e.from];
          if (size != t.size[i]) odd_.emplace_back(uint32_t(i), -size);
          alive.erase(it);
        } else {
          elems_.push_back({kNone, uint32_t(i)});
          start_ += t.size[i];
        }
        break;
      }
      case SnapAction::kOom: ooms_.push_back(uint32_t(i)); break;
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
        elems_.push_back({kBlockElem, b});
        start_ += blk.requested_size;
      }
    }
  }
  // The checkpoints (one pass: the reserved memory at the start is the dump's less every change).
  blocks_.resize(n_ / kBlock + 1);
  int64_t level = start_, rsum = 0, prev = INT64_MIN;
  has_times_ = n_ > 0;
  for (size_t s = 0; s <= n_; ++s) {
    Block& b = blocks_[s / kBlock];
    if (s % kBlock == 0) {
      b = {level, rsum, level, rsum, uint32_t(s)};
    } else {
      if (level > b.max) b.max = level, b.at = uint32_t(s);
      b.rmax = std::max(b.rmax, rsum);
    }
    if (s == n_) break;
    level += delta(s);
    rsum += rdelta(s);
    // Time as an axis needs every entry's time, in order (the allocator records them so).
    const int64_t ti = t.time_us[s];
    if (ti < 0 || ti < prev) has_times_ = false;
    prev = std::max(prev, ti);
  }
  rstart_ = reserved_end - rsum;
  for (Block& b : blocks_) b.reserved += rstart_, b.rmax += rstart_;
}

int64_t SnapTimeline::most_reserved() const {
  int64_t v = INT64_MIN;
  for (const Block& b : blocks_) v = std::max(v, b.rmax);
  return v;
}

int64_t SnapTimeline::delta(size_t i) const {
  const SnapTrace& t = *t_;
  switch (t.action[i]) {
    case SnapAction::kAlloc: return t.size[i];
    case SnapAction::kFreeCompleted:
    case SnapAction::kFree:
      if (!odd_.empty()) {
        const auto it = std::lower_bound(odd_.begin(), odd_.end(), uint32_t(i), [](const std::pair<uint32_t, int64_t>& o, uint32_t k) { return o.first < k; });
        if (it != odd_.end() && it->first == i) return it->second;
      }
      return -t.size[i];
    default: return 0;
  }
}

int64_t SnapTimeline::rdelta(size_t i) const {
  switch (t_->action[i]) {
    case SnapAction::kSegmentAlloc:
    case SnapAction::kSegmentMap: return t_->size[i];
    case SnapAction::kSegmentFree:
    case SnapAction::kSegmentUnmap: return -t_->size[i];
    default: return 0;
  }
}

int64_t SnapTimeline::level_at(int64_t state) const {
  const size_t s = size_t(state), b = s / kBlock;
  int64_t v = blocks_[b].level;
  for (size_t i = b * kBlock; i < s; ++i) v += delta(i);
  return v;
}

int64_t SnapTimeline::reserved_at(int64_t state) const {
  const size_t s = size_t(state), b = s / kBlock;
  int64_t v = blocks_[b].reserved;
  for (size_t i = b * kBlock; i < s; ++i) v += rdelta(i);
  return v;
}

int64_t SnapTimeline::most_allocated(int64_t first, int64_t last) const {
  size_t s = size_t(first);
  int64_t level = level_at(first), best = level;
  int64_t at = first;
  while (s < size_t(last)) {
    if (s % kBlock == 0 && s + kBlock - 1 <= size_t(last)) {
      // A whole block inside: its highest level (its first state's is `level`, already seen).
      const Block& b = blocks_[s / kBlock];
      if (b.max > best) best = b.max, at = int64_t(b.at);
      s += kBlock;
      if (s > size_t(last)) break;
      level = blocks_[s / kBlock].level;
      if (level > best) best = level, at = int64_t(s);
      continue;
    }
    level += delta(s++);
    if (level > best) best = level, at = int64_t(s);
  }
  return at;
}

int64_t SnapTimeline::time_at(int64_t state) const {
  if (n_ == 0) return -1;
  return t_->time_us[state == 0 ? 0 : size_t(state - 1)];
}

int64_t SnapTimeline::first_state_at_or_after(int64_t t) const {
  int64_t lo = 0, hi = int64_t(states());
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (time_at(mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

SnapElem SnapTimeline::elem(size_t k) const {
  const Packed e = elems_[k];
  const SnapTrace& t = *t_;
  if (e.from == kBlockElem) {
    const SnapBlock& b = m_->blocks[e.to];
    return {b.requested_size, -1, INT64_MAX, b.stack, true, b.address};
  }
  const size_t i = e.from == kNone ? e.to : e.from;
  return {t.size[i], e.from == kNone ? -1 : int64_t(e.from), e.to == kNone ? INT64_MAX : int64_t(e.to), t.stack[i], e.from == kNone, t.addr[i]};
}

int64_t SnapTimeline::elem_size(size_t k) const {
  const Packed e = elems_[k];
  if (e.from == kBlockElem) return m_->blocks[e.to].requested_size;
  return t_->size[e.from == kNone ? e.to : e.from];
}

SnapTimeline snapshot_timeline(const SnapshotModel& m, int64_t device) { return SnapTimeline(m, device); }

namespace {

std::vector<SnapSite> sites_at(const SnapshotModel& m, const SnapTimeline& tl, int64_t p, size_t top) {
  std::unordered_map<uint32_t, std::string> label_of;  // per stack
  std::unordered_map<std::string, SnapSite> by;
  for (size_t k = 0; k < tl.elem_count(); ++k) {
    // Alive after entry p: in state p + 1.
    if (!(tl.alive_from(k) <= p + 1 && p + 1 < tl.alive_to(k))) continue;
    const SnapElem e = tl.elem(k);
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
  return snapshot_device_stats(SnapTimeline(m, device), device, at_us, top);
}

SnapDeviceStats snapshot_device_stats(const SnapTimeline& tl, int64_t device, std::optional<int64_t> at_us, size_t top) {
  SnapDeviceStats st;
  st.device = device;
  const SnapshotModel& m = tl.model();
  const SnapTrace& t = trace_of(m, device);
  const size_t n = t.size_rows();
  st.trace_entries = n;
  for (const SnapSegment& s : m.segments) {
    if (s.device != device) continue;
    ++st.segments;
    st.allocated_at_dump_bytes += s.allocated_size;
    st.reserved_at_dump_bytes += s.total_size;
  }
  st.before_history_bytes = tl.start();

  // From the timeline's checkpoints: the peak (its first state), the reserved peak, each oom's
  // levels, without reading every entry again.
  st.allocations = tl.allocations();
  st.frees = tl.frees();
  const int64_t peak_state = tl.most_allocated(0, int64_t(n));
  st.peak_allocated_bytes = tl.level_at(peak_state);
  st.peak_entry = peak_state - 1;
  st.peak_reserved_bytes = tl.most_reserved();
  size_t oom = 0;
  for (const uint32_t i : tl.ooms()) {
    SnapOom o;
    o.entry = i;
    o.at_us = t.time_us[i];
    o.requested_bytes = t.size[i];
    while (oom < t.device_free.size() && t.device_free[oom].first < i) ++oom;
    if (oom < t.device_free.size() && t.device_free[oom].first == i) o.device_free_bytes = t.device_free[oom].second;
    o.allocated_bytes = tl.level_at(int64_t(i) + 1);
    o.reserved_bytes = tl.reserved_at(int64_t(i) + 1);
    st.ooms.push_back(o);
  }
  st.alive_at_dump_bytes = tl.level_at(int64_t(n));
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
    mo.allocated_bytes = tl.level_at(p + 1);
    mo.reserved_bytes = tl.reserved_at(p + 1);
    mo.top_sites = sites_at(m, tl, p, top);
    st.at = std::move(mo);
  }
  return st;
}

}  // namespace ks
