#include "core/snapshot/allocator_state.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ks {

namespace {

constexpr int64_t kMinBlockSize = 512;      // CUDACachingAllocator's kMinBlockSize
constexpr int64_t kSmallSize = 1 << 20;     // kSmallSize: the small pool's largest block

const SnapTrace& trace_of(const SnapshotModel& m, int64_t device) {
  static const SnapTrace kEmpty;
  return device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
}

struct Seg {
  int64_t size = 0;
  int64_t stream = 0;
};

// A block alive while the history is undone. `record`: where its allocation entry goes once the
// backward pass reaches it (-1: no captured state holds the block yet).
struct Live {
  int64_t size = 0;
  int64_t requested = 0;
  bool pending = false;    // awaiting free
  bool from_dump = false;  // its size is the dump's
  uint32_t stack = 0;
  int32_t record = -1;
};

struct Origin {
  int64_t alloc_entry = -1;
  uint32_t stack = 0;
  bool found = false;
};

class Replay {
 public:
  Replay(const SnapshotModel& m, int64_t device) : t_(trace_of(m, device)), device_(device) {
    for (const SnapSegment& s : m.segments) {
      if (s.device != device) continue;
      segs_[s.address] = {s.total_size, s.stream};
      for (uint32_t b = s.first_block; b < s.first_block + s.blocks && b < m.blocks.size(); ++b) {
        const SnapBlock& blk = m.blocks[b];
        if (blk.state != BlockState::kActiveAllocated && blk.state != BlockState::kActivePendingFree) continue;
        blocks_[blk.address] = {blk.size, blk.requested_size, blk.state == BlockState::kActivePendingFree, true, blk.stack, -1};
      }
    }
  }

  std::vector<AllocatorState> run(const std::vector<int64_t>& asked) {
    const int64_t n = int64_t(t_.size_rows());
    std::vector<int64_t> targets;
    for (int64_t e : asked) targets.push_back(std::clamp<int64_t>(e, -1, n - 1));
    std::vector<int64_t> order = targets;
    std::sort(order.begin(), order.end(), std::greater<>());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    std::map<int64_t, AllocatorState> states;
    size_t next = 0;
    for (int64_t i = n - 1; i >= -1; --i) {
      while (next < order.size() && order[next] == i) states[i] = capture(i), ++next;
      // Past the last moment asked, the pass goes on only while a captured block still waits
      // for its alloc entry (its stack and age).
      if (i < 0 || (next == order.size() && unresolved_ == 0)) break;
      undo(size_t(i));
    }
    // The allocation entries the backward pass found for the captured blocks (none found: the
    // block was allocated before the history began, its stack the dump's if any).
    for (const Pending& p : pending_) {
      const Origin& o = origins_[size_t(p.record)];
      if (!o.found) continue;
      StateBlock& b = states[p.entry].blocks[p.block];
      b.alloc_entry = o.alloc_entry;
      b.stack = o.stack;
    }
    std::vector<AllocatorState> out;
    for (int64_t e : targets) out.push_back(states[e]);
    return out;
  }

 private:
  void count(const char* what) {
    for (auto& [k, v] : incons_)
      if (k == what) {
        ++v;
        return;
      }
    incons_.emplace_back(what, 1);
  }

  void undo(size_t i) {
    const uint64_t addr = t_.addr[i];
    const int64_t size = t_.size[i];
    switch (t_.action[i]) {
      case SnapAction::kAlloc: {
        auto it = blocks_.find(addr);
        if (it == blocks_.end()) {
          count("alloc of an address not alive after it");
          break;
        }
        if (it->second.record >= 0) {
          origins_[size_t(it->second.record)] = {int64_t(i), t_.stack[i], true};
          --unresolved_;
        }
        blocks_.erase(it);
        break;
      }
      case SnapAction::kFreeRequested: {
        auto it = blocks_.find(addr);
        if (it == blocks_.end()) count("free_requested of an address not alive after it");
        else it->second.pending = false;
        break;
      }
      case SnapAction::kFreeCompleted:
      case SnapAction::kFree: {
        if (blocks_.count(addr)) count("free of an address alive after it");
        blocks_[addr] = {size, size, t_.action[i] == SnapAction::kFreeCompleted, false, 0, -1};
        break;
      }
      case SnapAction::kSegmentFree: map_segment(false, addr, size, t_.stream[i]); break;
      case SnapAction::kSegmentUnmap: map_segment(true, addr, size, t_.stream[i]); break;
      case SnapAction::kSegmentAlloc: unmap_segment(false, addr, size); break;
      case SnapAction::kSegmentMap: unmap_segment(true, addr, size); break;
      default: break;
    }
  }

  // Undoing a segment_free (merge false) or a segment_unmap (merge true): the range was held.
  void map_segment(bool merge, uint64_t addr, int64_t size, int64_t stream) {
    if (size <= 0) {
      count("segment entry without a size");
      return;
    }
    if (segs_.count(addr)) count("segment freed at an address still held after it");
    auto it = segs_.insert_or_assign(addr, Seg{size, stream}).first;
    if (!merge) return;
    auto nx = std::next(it);
    if (nx != segs_.end() && addr + uint64_t(it->second.size) == nx->first && nx->second.stream == stream) {
      it->second.size += nx->second.size;
      segs_.erase(nx);
    }
    if (it != segs_.begin()) {
      auto pv = std::prev(it);
      if (pv->first + uint64_t(pv->second.size) == addr && pv->second.stream == stream) {
        pv->second.size += it->second.size;
        segs_.erase(it);
      }
    }
  }

  // Undoing a segment_alloc (merge false) or a segment_map (merge true): the range was not held.
  void unmap_segment(bool merge, uint64_t addr, int64_t size) {
    if (!merge) {
      if (!segs_.erase(addr)) count("segment_alloc of a segment not held after it");
      return;
    }
    const uint64_t end = addr + uint64_t(std::max<int64_t>(size, 0));
    auto it = segs_.upper_bound(addr);
    if (it == segs_.begin()) {
      count("segment_map of a range not held after it");
      return;
    }
    --it;
    const uint64_t s = it->first, s_end = s + uint64_t(it->second.size);
    if (end > s_end || size <= 0) {
      count("segment_map of a range not held after it");
      return;
    }
    const Seg seg = it->second;
    if (s == addr) {
      segs_.erase(it);
      if (end < s_end) segs_[end] = {int64_t(s_end - end), seg.stream};
    } else if (end == s_end) {
      it->second.size -= size;
    } else {
      it->second.size = int64_t(addr - s);
      segs_[end] = {int64_t(s_end - end), seg.stream};
    }
  }

  AllocatorState capture(int64_t entry) {
    AllocatorState st;
    st.device = device_;
    st.entry = entry;
    st.at_us = entry >= 0 ? t_.time_us[size_t(entry)] : -1;
    std::vector<std::pair<uint64_t, Live*>> live;
    live.reserve(blocks_.size());
    for (auto& [a, b] : blocks_) live.emplace_back(a, &b);
    std::sort(live.begin(), live.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    size_t k = 0;
    uint64_t outside = 0;
    uint64_t unusable = 0, cut = 0;
    for (const auto& [saddr, seg] : segs_) {
      const uint64_t send = saddr + uint64_t(seg.size);
      if (seg.size <= 0 || send < saddr) {  // a hostile dump's: no room for any block
        ++unusable;
        continue;
      }
      StateSegment ss;
      ss.address = saddr;
      ss.size = seg.size;
      ss.stream = seg.stream;
      ss.first_block = uint32_t(st.blocks.size());
      for (; k < live.size() && live[k].first < saddr; ++k) ++outside;
      uint64_t cursor = saddr;
      for (; k < live.size() && live[k].first < send; ++k) {
        Live& b = *live[k].second;
        const uint64_t a = live[k].first;
        const uint64_t limit = k + 1 < live.size() && live[k + 1].first < send ? live[k + 1].first : send;
        const int64_t room = int64_t(limit - a);
        int64_t size = b.size;
        if (!b.from_dump) {
          size = replayed_block_size(b.requested, room);
        } else if (size < 0 || size > room) {
          // A dump whose blocks overlap, or pass their segment's end: cut to fit.
          size = std::clamp<int64_t>(size, 0, room);
          ++cut;
        }
        if (a > cursor) add_gap(st, ss, cursor, a);
        StateBlock sb;
        sb.address = a;
        sb.size = size;
        sb.requested_bytes = b.requested;
        sb.kind = b.pending ? StateBlockKind::kAwaitingFree : StateBlockKind::kAllocated;
        sb.stack = b.stack;
        sb.size_from_dump = b.from_dump;
        if (b.record < 0) {
          b.record = int32_t(origins_.size());
          origins_.push_back({});
          ++unresolved_;
        }
        pending_.push_back({entry, uint32_t(st.blocks.size()), b.record});
        st.blocks.push_back(sb);
        ss.active_bytes += size;
        if (b.pending) st.awaiting_free_bytes += size, ++st.awaiting_free_blocks;
        else st.allocated_bytes += size, ++st.allocated_blocks;
        st.requested_bytes += b.requested;
        cursor = std::max(cursor, a + uint64_t(size));
      }
      if (cursor < send) add_gap(st, ss, cursor, send);
      ss.blocks = uint32_t(st.blocks.size()) - ss.first_block;
      st.reserved_bytes += seg.size;
      st.segments.push_back(ss);
    }
    outside += live.size() - k;
    st.inconsistencies = incons_;
    if (outside) st.inconsistencies.emplace_back("active blocks outside every segment (left out)", outside);
    if (unusable) st.inconsistencies.emplace_back("segments without a size, or past the address space (left out)", unusable);
    if (cut) st.inconsistencies.emplace_back("blocks of the dump overlapping the next or their segment's end (cut to fit)", cut);
    return st;
  }

  static void add_gap(AllocatorState& st, StateSegment& ss, uint64_t from, uint64_t to) {
    StateBlock g;
    g.address = from;
    g.size = int64_t(to - from);
    g.kind = StateBlockKind::kInactive;
    st.blocks.push_back(g);
    ss.inactive_bytes += g.size;
    ss.largest_inactive_bytes = std::max(ss.largest_inactive_bytes, g.size);
    st.inactive_bytes += g.size;
    st.largest_inactive_bytes = std::max(st.largest_inactive_bytes, g.size);
    ++st.inactive_blocks;
  }

  const SnapTrace& t_;
  int64_t device_;
  std::map<uint64_t, Seg> segs_;
  std::unordered_map<uint64_t, Live> blocks_;
  std::vector<std::pair<std::string, uint64_t>> incons_;
  std::vector<Origin> origins_;
  size_t unresolved_ = 0;  // records whose alloc entry is not found yet
  struct Pending {
    int64_t entry;
    uint32_t block;
    int32_t record;
  };
  std::vector<Pending> pending_;
};

}  // namespace

int64_t replayed_block_size(int64_t requested, int64_t room) {
  int64_t size = std::max(kMinBlockSize, (std::max<int64_t>(requested, 0) + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize);
  if (size > room || (size > kSmallSize && room - size <= kSmallSize)) size = room;
  return size;
}

const char* state_block_kind_name(StateBlockKind k) {
  switch (k) {
    case StateBlockKind::kAllocated: return "allocated";
    case StateBlockKind::kAwaitingFree: return "awaiting_free";
    case StateBlockKind::kInactive: return "inactive";
  }
  return "inactive";
}

std::vector<AllocatorState> allocator_states(const SnapshotModel& m, int64_t device, const std::vector<int64_t>& entries) {
  return Replay(m, device).run(entries);
}

AllocatorState allocator_state(const SnapshotModel& m, int64_t device, int64_t entry) {
  return std::move(allocator_states(m, device, {entry})[0]);
}

int64_t snapshot_history_size(const SnapshotModel& m, int64_t device) { return int64_t(trace_of(m, device).size_rows()); }

int64_t snapshot_entry_at(const SnapshotModel& m, int64_t device, int64_t at_us) {
  // The last entry at or before the time, as snapshot_device_stats's --at-us (entries are
  // recorded in time order; entries without a time are passed over).
  const SnapTrace& t = trace_of(m, device);
  int64_t p = -1;
  for (size_t i = 0; i < t.size_rows(); ++i)
    if (t.time_us[i] >= 0 && t.time_us[i] <= at_us) p = int64_t(i);
  return p;
}

std::vector<OomFragmentation> oom_fragmentation(const SnapshotModel& m, int64_t device) {
  const SnapTrace& t = trace_of(m, device);
  std::vector<int64_t> ooms;
  for (size_t i = 0; i < t.size_rows(); ++i)
    if (t.action[i] == SnapAction::kOom) ooms.push_back(int64_t(i));
  std::vector<OomFragmentation> out;
  if (ooms.empty()) return out;
  const std::vector<AllocatorState> states = allocator_states(m, device, ooms);
  for (size_t k = 0; k < ooms.size(); ++k) {
    const AllocatorState& s = states[k];
    OomFragmentation f;
    f.entry = uint32_t(ooms[k]);
    f.alive_blocks = s.allocated_blocks + s.awaiting_free_blocks;
    f.alive_block_bytes = s.allocated_bytes + s.awaiting_free_bytes;
    f.inactive_bytes = s.inactive_bytes;
    f.largest_inactive_bytes = s.largest_inactive_bytes;
    out.push_back(f);
  }
  return out;
}

}  // namespace ks
