#include "core/snapshot/snapshot_model.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/snapshot/id_map.h"
#include "core/snapshot/pickle_reader.h"

namespace ks {

const char* snap_action_name(SnapAction a) {
  switch (a) {
    case SnapAction::kAlloc: return "alloc";
    case SnapAction::kFreeRequested: return "free_requested";
    case SnapAction::kFreeCompleted: return "free_completed";
    case SnapAction::kSegmentAlloc: return "segment_alloc";
    case SnapAction::kSegmentFree: return "segment_free";
    case SnapAction::kSegmentMap: return "segment_map";
    case SnapAction::kSegmentUnmap: return "segment_unmap";
    case SnapAction::kSnapshot: return "snapshot";
    case SnapAction::kOom: return "oom";
    case SnapAction::kFree: return "free";
    case SnapAction::kOther: return "other";
  }
  return "other";
}

void SnapshotModel::count(std::string_view what, uint64_t n) {
  for (auto& h : health)
    if (h.first == what) {
      h.second += n;
      return;
    }
  health.emplace_back(std::string(what), n);
}

namespace {

SnapAction action_of(std::string_view s) {
  if (s == "alloc") return SnapAction::kAlloc;
  if (s == "free_requested") return SnapAction::kFreeRequested;
  if (s == "free_completed") return SnapAction::kFreeCompleted;
  if (s == "segment_alloc") return SnapAction::kSegmentAlloc;
  if (s == "segment_free") return SnapAction::kSegmentFree;
  if (s == "segment_map") return SnapAction::kSegmentMap;
  if (s == "segment_unmap") return SnapAction::kSegmentUnmap;
  if (s == "snapshot") return SnapAction::kSnapshot;
  if (s == "oom") return SnapAction::kOom;
  if (s == "free") return SnapAction::kFree;
  return SnapAction::kOther;
}

BlockState state_of(std::string_view s) {
  if (s == "active_allocated") return BlockState::kActiveAllocated;
  if (s == "active_pending_free") return BlockState::kActivePendingFree;
  if (s == "inactive") return BlockState::kInactive;
  return BlockState::kOther;
}

// The fields of any dict of a snapshot, filled by key as its items arrive; which kind of dict
// it was is decided when it is put into a list (an entry has "action", a segment "total_size",
// a block "state", a frame "filename").
enum Field : uint32_t {
  fAction = 1u << 0, fAddr = 1u << 1, fSize = 1u << 2, fStream = 1u << 3, fTime = 1u << 4, fDeviceFree = 1u << 5,
  fFrames = 1u << 6, fDevice = 1u << 7, fAddress = 1u << 8, fTotal = 1u << 9, fAllocated = 1u << 10,
  fActive = 1u << 11, fRequested = 1u << 12, fSegType = 1u << 13, fBlocks = 1u << 14, fState = 1u << 15,
  fName = 1u << 16, fFilename = 1u << 17, fLine = 1u << 18, fSegments = 1u << 19, fTraces = 1u << 20,
  fStage = 1u << 21, fOutOfRange = 1u << 30, fBadType = 1u << 31,
};

struct DictRec {
  uint32_t has = 0;
  SnapAction action = SnapAction::kOther;
  BlockState state = BlockState::kOther;
  int64_t addr = 0, size = 0, stream = 0, time_us = -1, device_free = 0, device = 0, total = 0, allocated = 0,
          active = 0, requested = 0, line = 0;
  uint64_t frames = 0, blocks = 0, segments = 0, traces = 0;  // container ids
  uint32_t frames_tag = 0;  // the frames list's memo tag: its stack + 1 (0: not interned yet)
  StringId name = 0, filename = 0, seg_type = 0;
};

// What a list holds, known from its first dict item.
enum class ListKind : uint8_t { kUnknown, kFrames, kEntries, kBlocks, kSegments, kLists, kOther };

struct ListRec {
  ListKind kind = ListKind::kUnknown;
  std::vector<uint32_t> frames;
  SnapTrace entries;
  std::vector<SnapBlock> blocks;
  std::vector<SnapSegment> segments;  // first_block: index into seg_blocks
  std::vector<SnapBlock> seg_blocks;
  std::vector<uint64_t> lists;
  uint64_t scalars = 0;  // items that are no dict or list
};

int64_t as_int(const PickleValue& v, bool& ok) {
  if (v.is_int()) return v.i;
  if (v.kind == PickleKind::kBigInt || v.kind == PickleKind::kFloat) {
    // Saturated (a double beyond int64 has no int64 value; NaN reads as 0).
    if (!(v.f == v.f)) return 0;
    if (v.f >= 9.2e18) return INT64_MAX;
    if (v.f <= -9.2e18) return INT64_MIN;
    return int64_t(v.f);
  }
  if (v.kind == PickleKind::kNone) return 0;
  ok = false;
  return 0;
}

}  // namespace

struct SnapshotReader::Impl final : PickleSink {
  SnapshotModel m;
  PickleReader reader{*this};
  // Dicts and lists being filled, by container id, in slabs reused as they are put away (a
  // pickle of 50 M entries makes 50 M dicts, a few hundred pending at a time).
  std::vector<DictRec> dict_slab;
  std::vector<uint32_t> dict_free;
  IdMap dict_slot;
  std::vector<ListRec> list_slab;
  std::vector<uint32_t> list_free;
  IdMap list_slot;
  // What a frame dict or a frames list became (frame index, stack index), for the GETs made
  // before it was tagged in the memo (PickleReader::tag) or beyond the tag's reach.
  IdMap frame_of, stack_of;
  IdMap stack_by_hash;  // a stack's frames hashed → its index (collisions probed on)
  uint64_t last_dict = UINT64_MAX;
  uint32_t last_dict_slot = 0;
  uint64_t last_list = UINT64_MAX;
  uint32_t last_list_slot = 0;
  bool rooted = false;
  std::string not_snapshot;

  DictRec& dict(uint64_t id) {
    if (id != last_dict) {
      const uint32_t* s = dict_slot.find(id);
      uint32_t slot;
      if (s) {
        slot = *s;
      } else {
        if (!dict_free.empty()) {
          slot = dict_free.back();
          dict_free.pop_back();
          dict_slab[slot] = DictRec();
        } else {
          slot = uint32_t(dict_slab.size());
          dict_slab.emplace_back();
        }
        dict_slot.put(id, slot);
      }
      last_dict = id;
      last_dict_slot = slot;
    }
    return dict_slab[last_dict_slot];
  }
  // Takes a pending dict out (false when there is none: no items, or put away already).
  bool take_dict(uint64_t id, DictRec& out) {
    const uint32_t* s = dict_slot.find(id);
    if (!s) return false;
    const uint32_t slot = *s;
    out = dict_slab[slot];
    dict_slot.erase(id);
    dict_free.push_back(slot);
    if (id == last_dict) last_dict = UINT64_MAX;
    return true;
  }
  // The pending list of an id, made when asked for with `make`; -1 when there is none.
  int64_t list_index(uint64_t id, bool make) {
    if (id == UINT64_MAX) return -1;  // a field that held no list (found by fuzz_snapshot_reader)
    if (id == last_list) return last_list_slot;
    const uint32_t* s = list_slot.find(id);
    uint32_t slot;
    if (s) {
      slot = *s;
    } else {
      if (!make) return -1;
      if (!list_free.empty()) {
        slot = list_free.back();
        list_free.pop_back();
      } else {
        slot = uint32_t(list_slab.size());
        list_slab.emplace_back();
      }
      list_slot.put(id, slot);
    }
    last_list = id;
    last_list_slot = slot;
    return slot;
  }
  ListRec& list(uint64_t id) { return list_slab[size_t(list_index(id, true))]; }
  // Puts a list away: its vectors are emptied, their memory kept for the next.
  void release_list(uint64_t id, uint32_t slot) {
    ListRec& l = list_slab[slot];
    l.kind = ListKind::kUnknown;
    l.frames.clear();
    l.blocks.clear();
    l.lists.clear();
    l.scalars = 0;
    list_slot.erase(id);
    list_free.push_back(slot);
    if (id == last_list) last_list = UINT64_MAX;
  }

  void on_item(PickleReader& r, const PickleValue& c, const PickleValue* key, const PickleValue& v) override {
    if (c.kind == PickleKind::kDict) {
      if (key && key->kind == PickleKind::kStr) set_field(r, dict(c.id), r.text(*key), v);
    } else if (c.kind == PickleKind::kList) {
      list_item(r, c.id, v);
    }
  }

  void set_field(const PickleReader& r, DictRec& d, std::string_view k, const PickleValue& v) {
    bool ok = true;
    // A key present marks its field even when its value has the wrong type (read as 0, counted):
    // the key tells which kind of dict it is.
    auto i64 = [&](int64_t& out, uint32_t bit) {
      if (v.kind == PickleKind::kNone) return;  // None: as if absent (a time_us of None is no time)
      out = as_int(v, ok);
      d.has |= ok ? bit : bit | fBadType;
    };
    auto ref = [&](uint64_t& out, uint32_t& tag, uint32_t bit) {
      if (v.kind == PickleKind::kList) out = v.id, tag = v.len, d.has |= bit;
      else if (v.kind != PickleKind::kNone) out = UINT64_MAX, d.has |= bit | fBadType;  // no list has that id
    };
    // Byte counts: 0 to 2^48 (256 TiB), so that no sum of a history's sizes can overflow.
    auto bytes = [&](int64_t& out, uint32_t bit) {
      i64(out, bit);
      constexpr int64_t kMax = int64_t(1) << 48;
      if (out < 0 || out > kMax) out = out < 0 ? 0 : kMax, d.has |= fOutOfRange;
    };
    uint32_t no_tag = 0;
    auto str = [&](StringId& out, uint32_t bit) {
      if (v.kind == PickleKind::kStr) out = m.strings.intern(r.text(v)), d.has |= bit;
      else d.has |= bit | fBadType;
    };
    switch (k.size()) {
      case 4:
        if (k == "addr") return i64(d.addr, fAddr);
        if (k == "size") return bytes(d.size, fSize);
        if (k == "line") return i64(d.line, fLine);
        if (k == "name") return str(d.name, fName);
        return;
      case 5:
        if (k == "state") {
          if (v.kind == PickleKind::kStr) d.state = state_of(r.text(v)), d.has |= fState;
          else d.has |= fState | fBadType;
        } else if (k == "stage") {
          d.has |= fStage;
        }
        return;
      case 6:
        if (k == "action") {
          if (v.kind == PickleKind::kStr) d.action = action_of(r.text(v)), d.has |= fAction;
          else d.has |= fAction | fBadType;
        } else if (k == "stream") {
          i64(d.stream, fStream);
        } else if (k == "device") {
          i64(d.device, fDevice);
        } else if (k == "frames") {
          ref(d.frames, d.frames_tag, fFrames);
        } else if (k == "blocks") {
          ref(d.blocks, no_tag, fBlocks);
        }
        return;
      case 7:
        if (k == "time_us") return i64(d.time_us, fTime);
        if (k == "address") return i64(d.addr, fAddress);
        return;
      case 8:
        if (k == "filename") return str(d.filename, fFilename);
        if (k == "segments") return ref(d.segments, no_tag, fSegments);
        return;
      case 10:
        if (k == "total_size") return bytes(d.total, fTotal);
        return;
      case 11:
        if (k == "device_free") return bytes(d.device_free, fDeviceFree);
        if (k == "active_size") return bytes(d.active, fActive);
        return;
      case 12:
        if (k == "segment_type" && v.kind == PickleKind::kStr) d.seg_type = m.strings.intern(r.text(v)), d.has |= fSegType;
        return;
      case 13:
        if (k == "device_traces") return ref(d.traces, no_tag, fTraces);
        return;
      case 14:
        if (k == "allocated_size") return bytes(d.allocated, fAllocated);
        if (k == "requested_size") return bytes(d.requested, fRequested);
        return;
      default:
        return;
    }
  }

  uint32_t intern_stack(const std::vector<uint32_t>& f) {
    uint64_t h = 0xcbf29ce484222325ULL ^ f.size();
    for (uint32_t x : f) h = (h ^ x) * 0x100000001b3ULL;
    for (;; ++h) {
      if (h == UINT64_MAX) continue;
      const uint32_t* s = stack_by_hash.find(h);
      if (!s) {
        const uint32_t sid = uint32_t(m.stack_count());
        m.stack_frames.insert(m.stack_frames.end(), f.begin(), f.end());
        m.stack_offsets.push_back(uint32_t(m.stack_frames.size()));
        stack_by_hash.put(h, sid);
        return sid;
      }
      const size_t n = m.stack_size(*s);
      if (n == f.size() && std::equal(f.begin(), f.end(), m.stack_frames.begin() + m.stack_offsets[*s])) return *s;
    }
  }

  // The stack of a frames list (0 when it had none): interned when first put into its entry or
  // block; the memo's tag (or stack_of) answers the GETs of it after.
  uint32_t stack_of_list(PickleReader& r, uint64_t id, uint32_t tag, bool has) {
    if (!has) return 0;
    if (tag) return tag - 1;
    const int64_t slot = list_index(id, false);
    if (slot < 0) {
      const uint32_t* s = stack_of.find(id);
      return s ? *s : 0;  // an empty list, or one that held no frame
    }
    ListRec& l = list_slab[size_t(slot)];
    uint32_t sid = 0;
    if (l.kind == ListKind::kFrames && !l.frames.empty()) {
      sid = intern_stack(l.frames);
      // The memo's tag answers the GETs to come; a GET made before now holds an untagged copy
      // (the Pickler writes a whole batch of entries before putting them into their list), so
      // the map answers those.
      r.tag(id, sid + 1);
      stack_of.put(id, sid);
    } else if (l.kind != ListKind::kFrames) {
      m.count("frames that are not a list of frame dicts");
    }
    release_list(id, uint32_t(slot));
    return sid;
  }

  bool want(ListRec& l, ListKind k) {
    if (l.kind == ListKind::kUnknown) l.kind = k;
    if (l.kind == k) return true;
    m.count("lists mixing kinds of items");
    return false;
  }

  void list_item(PickleReader& r, uint64_t list_id, const PickleValue& v) {
    if (v.kind == PickleKind::kList) {
      ListRec& l = list(list_id);
      if (want(l, ListKind::kLists)) l.lists.push_back(v.id);
      return;
    }
    if (v.kind != PickleKind::kDict) {  // lists of numbers or strings: not read
      ++list(list_id).scalars;
      return;
    }
    if (v.len) {  // a frame dict again, tagged in the memo with its index
      ListRec& l = list(list_id);
      if (want(l, ListKind::kFrames)) l.frames.push_back(v.len - 1);
      return;
    }
    DictRec d;
    if (!take_dict(v.id, d)) {
      const uint32_t* f = frame_of.find(v.id);
      ListRec& l = list(list_id);
      if (f) {
        if (want(l, ListKind::kFrames)) l.frames.push_back(*f);
      } else {
        m.count("dicts without fields, or put into a list twice (skipped)");
      }
      return;
    }
    if (d.has & fBadType) m.count("fields of the wrong type (read as 0)");
    if (d.has & fOutOfRange) m.count("sizes below 0 or above 2^48 bytes (clamped)");
    if (d.has & fAction) {
      // Its stack first: taking the frames list out may reuse slab slots, not move them.
      const bool needs_addr =
          d.action == SnapAction::kAlloc || d.action == SnapAction::kFreeCompleted || d.action == SnapAction::kFree;
      const uint32_t stack = stack_of_list(r, d.frames, d.frames_tag, d.has & fFrames);
      ListRec& l = list(list_id);
      if (!want(l, ListKind::kEntries)) return;
      SnapTrace& t = l.entries;
      if (d.action == SnapAction::kOther) m.count("trace entries with an unknown action");
      if (needs_addr && !(d.has & fAddr)) {
        m.count("trace entries without addr (skipped)");
        return;
      }
      if (t.action.size() >= UINT32_MAX) return;
      if (d.action == SnapAction::kOom) t.device_free.emplace_back(uint32_t(t.action.size()), d.device_free);
      t.action.push_back(d.action);
      t.addr.push_back(uint64_t(d.addr));
      t.size.push_back(d.size);
      t.stream.push_back(d.stream);
      t.time_us.push_back(d.has & fTime ? d.time_us : -1);
      t.stack.push_back(stack);
    } else if (d.has & fTotal) {
      SnapSegment s;
      s.device = d.device;
      s.address = uint64_t(d.addr);
      s.total_size = d.total;
      s.allocated_size = d.allocated;
      s.active_size = d.active;
      s.requested_size = d.requested;
      s.stream = d.stream;
      s.segment_type = d.seg_type;
      std::vector<SnapBlock> blocks;
      if (d.has & fBlocks) {
        const int64_t b = list_index(d.blocks, false);
        if (b >= 0) {
          if (list_slab[size_t(b)].kind == ListKind::kBlocks) blocks.swap(list_slab[size_t(b)].blocks);
          else m.count("segments whose blocks are not block dicts");
          release_list(d.blocks, uint32_t(b));
        }
      }
      ListRec& l = list(list_id);
      if (!want(l, ListKind::kSegments)) return;
      s.first_block = uint32_t(l.seg_blocks.size());
      // Blocks without an address follow each other from the segment's start.
      uint64_t next = s.address;
      for (SnapBlock& blk : blocks) {
        if (blk.address == UINT64_MAX) blk.address = next;
        next = blk.address + uint64_t(blk.size);
        l.seg_blocks.push_back(blk);
      }
      s.blocks = uint32_t(l.seg_blocks.size() - s.first_block);
      l.segments.push_back(s);
    } else if (d.has & fState) {
      SnapBlock b;
      b.address = d.has & fAddress ? uint64_t(d.addr) : UINT64_MAX;
      b.size = d.size;
      b.requested_size = d.has & fRequested ? d.requested : d.size;
      b.state = d.state;
      b.stack = stack_of_list(r, d.frames, d.frames_tag, d.has & fFrames);
      ListRec& l = list(list_id);
      if (want(l, ListKind::kBlocks)) l.blocks.push_back(b);
    } else if (d.has & fFilename) {
      m.frames.push_back({d.name, d.filename, d.line});
      const uint32_t f = uint32_t(m.frames.size() - 1);
      r.tag(v.id, f + 1);
      frame_of.put(v.id, f);
      ListRec& l = list(list_id);
      if (want(l, ListKind::kFrames)) l.frames.push_back(f);
    } else {
      // allocator_settings, external_annotations, a block's "history" records: not read.
      want(list(list_id), ListKind::kOther);
    }
  }

  void on_root(PickleReader&, const PickleValue& v) override {
    if (rooted) return;
    rooted = true;
    if (v.kind == PickleKind::kList) {
      // The oldest form: torch.cuda.memory_snapshot(), a bare list of segments.
      const int64_t slot = list_index(v.id, false);
      if (slot >= 0 && list_slab[size_t(slot)].kind != ListKind::kSegments)
        not_snapshot = "The pickle holds a list that is not a list of segments, so it is not a CUDA memory snapshot.";
      else
        take_segments(v.id);
      return;
    }
    if (v.kind != PickleKind::kDict) {
      not_snapshot = "The pickle holds no dict of segments and device_traces, so it is not a CUDA memory snapshot.";
      return;
    }
    DictRec d;
    if (!take_dict(v.id, d) || !(d.has & (fSegments | fTraces))) {
      not_snapshot = "The pickle's dict has no \"segments\" or \"device_traces\", so it is not a CUDA memory snapshot.";
      return;
    }
    if (d.has & fBadType) m.count("fields of the wrong type (read as 0)");
    if (d.has & fSegments) take_segments(d.segments);
    if (d.has & fTraces) {
      m.has_history = true;
      const int64_t t = list_index(d.traces, false);
      if (t < 0 && d.traces == UINT64_MAX) m.count("device_traces that is not a list of lists");
      if (t >= 0) {
        if (list_slab[size_t(t)].kind == ListKind::kLists) {
          const std::vector<uint64_t> ids = list_slab[size_t(t)].lists;
          for (uint64_t id : ids) {
            const int64_t e = list_index(id, false);
            ListRec* l = e >= 0 ? &list_slab[size_t(e)] : nullptr;
            if (l && l->kind == ListKind::kEntries) {
              m.devices.push_back(std::move(l->entries));
              l->entries = SnapTrace();
            } else {
              if (l && (l->kind != ListKind::kUnknown || l->scalars)) m.count("device_traces items that are not lists of entries");
              m.devices.emplace_back();
            }
            if (l && l->scalars && l->kind == ListKind::kEntries) m.count("trace entries that are not dicts (skipped)", l->scalars);
          }
        } else {
          m.count("device_traces that is not a list of lists");
        }
      }
    }
  }

  void take_segments(uint64_t id) {
    const int64_t slot = list_index(id, false);
    if (slot < 0) return;  // no segment at all
    ListRec& l = list_slab[size_t(slot)];
    if (l.scalars) m.count("segments that are not dicts (skipped)", l.scalars);
    if (l.kind == ListKind::kUnknown) return;
    if (l.kind != ListKind::kSegments) {
      not_snapshot = "The pickle's \"segments\" is not a list of segment dicts, so it is not a CUDA memory snapshot.";
      return;
    }
    m.segments = std::move(l.segments);
    m.blocks = std::move(l.seg_blocks);
    l.segments.clear();
    l.seg_blocks.clear();
  }
};

SnapshotReader::SnapshotReader() : impl_(new Impl) {}
SnapshotReader::~SnapshotReader() = default;
void SnapshotReader::set_total_size(uint64_t bytes) { impl_->reader.set_total_size(bytes); }
void SnapshotReader::feed(const char* data, size_t n) { impl_->reader.feed(data, n); }
uint64_t SnapshotReader::bytes_read() const { return impl_->reader.bytes_read(); }
const SnapshotModel& SnapshotReader::model() const { return impl_->m; }
SnapshotModel& SnapshotReader::model() { return impl_->m; }

bool SnapshotReader::stopped() const { return impl_->reader.failed() || !impl_->not_snapshot.empty(); }

bool SnapshotReader::failed() const {
  return impl_->reader.refused() || !impl_->rooted || !impl_->not_snapshot.empty();
}

void SnapshotReader::finish() {
  PickleReader& r = impl_->reader;
  r.finish();
  if (r.refused()) {
    error_ = r.error();
  } else if (!impl_->not_snapshot.empty()) {
    // A corrupt pickle's own fault comes first: what was read before it is only a part.
    error_ = r.failed() ? r.error() : impl_->not_snapshot;
  } else if (!impl_->rooted) {
    error_ = r.failed() ? r.error() : "The pickle holds nothing.";
  } else if (r.failed()) {
    error_ = r.error();
  }
  // Containers opened and never put anywhere are dropped with the reader's state, and the
  // pickle's memo (16 bytes for each dict, list and string of the file) with them.
  r.release();
  std::vector<DictRec>().swap(impl_->dict_slab);
  std::vector<ListRec>().swap(impl_->list_slab);
  impl_->dict_slot.clear();
  impl_->list_slot.clear();
  impl_->frame_of.clear();
  impl_->stack_of.clear();
  impl_->stack_by_hash.clear();
}

}  // namespace ks
