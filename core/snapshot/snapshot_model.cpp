#include "core/snapshot/snapshot_model.h"

#include <cstring>
#include <unordered_map>
#include <utility>

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
  fStage = 1u << 21, fBadType = 1u << 31,
};

struct DictRec {
  uint32_t has = 0;
  SnapAction action = SnapAction::kOther;
  BlockState state = BlockState::kOther;
  int64_t addr = 0, size = 0, stream = 0, time_us = -1, device_free = 0, device = 0, total = 0, allocated = 0,
          active = 0, requested = 0, line = 0;
  uint64_t frames = 0, blocks = 0, segments = 0, traces = 0;  // container ids
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
};

int64_t as_int(const PickleValue& v, bool& ok) {
  if (v.is_int()) return v.i;
  if (v.kind == PickleKind::kBigInt || v.kind == PickleKind::kFloat) return int64_t(v.f);
  if (v.kind == PickleKind::kNone) return 0;
  ok = false;
  return 0;
}

}  // namespace

struct SnapshotReader::Impl final : PickleSink {
  SnapshotModel m;
  PickleReader reader{*this};
  std::unordered_map<uint64_t, DictRec> dicts;     // dicts being filled
  std::unordered_map<uint64_t, ListRec> lists;     // lists being filled
  std::unordered_map<uint64_t, uint32_t> frame_of;  // frame dicts already made frames
  std::unordered_map<uint64_t, uint32_t> stack_of;  // frame lists already made stacks
  std::unordered_map<std::string, uint32_t> stack_ids;
  uint64_t last_id = UINT64_MAX;
  DictRec* last = nullptr;
  bool rooted = false;
  std::string not_snapshot;

  DictRec& dict(uint64_t id) {
    if (id != last_id) {
      last = &dicts[id];
      last_id = id;
    }
    return *last;
  }
  void drop_dict(uint64_t id) {
    dicts.erase(id);
    if (id == last_id) last_id = UINT64_MAX, last = nullptr;
  }

  void on_item(const PickleReader& r, const PickleValue& c, const PickleValue* key, const PickleValue& v) override {
    if (c.kind == PickleKind::kDict) {
      if (key && key->kind == PickleKind::kStr) set_field(r, dict(c.id), r.text(*key), v);
    } else if (c.kind == PickleKind::kList) {
      list_item(c.id, v);
    }
  }

  void set_field(const PickleReader& r, DictRec& d, std::string_view k, const PickleValue& v) {
    bool ok = true;
    auto i64 = [&](int64_t& out, uint32_t bit) {
      out = as_int(v, ok);
      d.has |= ok ? bit : fBadType;
    };
    auto ref = [&](uint64_t& out, uint32_t bit) {
      if (v.kind == PickleKind::kList) out = v.id, d.has |= bit;
      else if (v.kind != PickleKind::kNone) d.has |= fBadType;
    };
    auto str = [&](StringId& out, uint32_t bit) {
      if (v.kind == PickleKind::kStr) out = m.strings.intern(r.text(v)), d.has |= bit;
      else d.has |= fBadType;
    };
    switch (k.size()) {
      case 4:
        if (k == "addr") return i64(d.addr, fAddr);
        if (k == "size") return i64(d.size, fSize);
        if (k == "line") return i64(d.line, fLine);
        if (k == "name") return str(d.name, fName);
        return;
      case 5:
        if (k == "state") {
          if (v.kind == PickleKind::kStr) d.state = state_of(r.text(v)), d.has |= fState;
          else d.has |= fBadType;
        } else if (k == "stage") {
          d.has |= fStage;
        }
        return;
      case 6:
        if (k == "action") {
          if (v.kind == PickleKind::kStr) d.action = action_of(r.text(v)), d.has |= fAction;
          else d.has |= fBadType;
        } else if (k == "stream") {
          i64(d.stream, fStream);
        } else if (k == "device") {
          i64(d.device, fDevice);
        } else if (k == "frames") {
          ref(d.frames, fFrames);
        } else if (k == "blocks") {
          ref(d.blocks, fBlocks);
        }
        return;
      case 7:
        if (k == "time_us") return i64(d.time_us, fTime);
        if (k == "address") {
          i64(d.addr, fAddress);
        }
        return;
      case 8:
        if (k == "filename") return str(d.filename, fFilename);
        if (k == "segments") return ref(d.segments, fSegments);
        return;
      case 10:
        if (k == "total_size") return i64(d.total, fTotal);
        return;
      case 11:
        if (k == "device_free") return i64(d.device_free, fDeviceFree);
        if (k == "active_size") return i64(d.active, fActive);
        return;
      case 12:
        if (k == "segment_type") {
          if (v.kind == PickleKind::kStr) d.seg_type = m.strings.intern(r.text(v)), d.has |= fSegType;
        }
        return;
      case 13:
        if (k == "device_traces") return ref(d.traces, fTraces);
        return;
      case 14:
        if (k == "allocated_size") return i64(d.allocated, fAllocated);
        if (k == "requested_size") return i64(d.requested, fRequested);
        return;
      default:
        return;
    }
  }

  uint32_t intern_frame(const DictRec& d) {
    m.frames.push_back({d.name, d.filename, d.line});
    return uint32_t(m.frames.size() - 1);
  }

  // The stack of a frames list (0 when it had none): interned once per list and per content.
  uint32_t stack_of_list(uint64_t id, bool has) {
    if (!has) return 0;
    auto it = lists.find(id);
    if (it == lists.end()) {
      auto s = stack_of.find(id);
      return s == stack_of.end() ? 0 : s->second;  // an empty list, or one that held no frame
    }
    uint32_t sid = 0;
    if (it->second.kind == ListKind::kFrames && !it->second.frames.empty()) {
      const std::vector<uint32_t>& f = it->second.frames;
      std::string key(reinterpret_cast<const char*>(f.data()), f.size() * sizeof(uint32_t));
      auto [pos, added] = stack_ids.try_emplace(std::move(key), uint32_t(m.stack_count()));
      if (added) {
        m.stack_frames.insert(m.stack_frames.end(), f.begin(), f.end());
        m.stack_offsets.push_back(uint32_t(m.stack_frames.size()));
      }
      sid = pos->second;
      stack_of.emplace(id, sid);
    } else if (it->second.kind != ListKind::kFrames) {
      m.count("frames that are not a list of frame dicts");
    }
    lists.erase(it);
    return sid;
  }

  bool want(ListRec& l, ListKind k) {
    if (l.kind == ListKind::kUnknown) l.kind = k;
    if (l.kind == k) return true;
    m.count("lists mixing kinds of items");
    return false;
  }

  void list_item(uint64_t list_id, const PickleValue& v) {
    if (v.kind == PickleKind::kList) {
      ListRec& l = lists[list_id];
      if (want(l, ListKind::kLists)) l.lists.push_back(v.id);
      return;
    }
    if (v.kind != PickleKind::kDict) return;  // lists of numbers or strings: not read
    auto it = dicts.find(v.id);
    if (it == dicts.end()) {
      // A dict put in a second time (a memo GET): frames are shared that way.
      auto f = frame_of.find(v.id);
      ListRec& l = lists[list_id];
      if (f != frame_of.end()) {
        if (want(l, ListKind::kFrames)) l.frames.push_back(f->second);
      } else {
        m.count("dicts put into a list twice or empty");
      }
      return;
    }
    DictRec d = it->second;
    drop_dict(v.id);
    ListRec& l = lists[list_id];
    if (d.has & fBadType) m.count("fields of the wrong type (read as 0)");
    if (d.has & fAction) {
      if (!want(l, ListKind::kEntries)) return;
      SnapTrace& t = l.entries;
      if (d.action == SnapAction::kOther) m.count("trace entries with an unknown action");
      if ((d.action == SnapAction::kAlloc || d.action == SnapAction::kFreeCompleted || d.action == SnapAction::kFree) &&
          !(d.has & fAddr)) {
        m.count("trace entries without addr (skipped)");
        stack_of_list(d.frames, d.has & fFrames);
        return;
      }
      if (t.action.size() >= UINT32_MAX) return;
      if (d.action == SnapAction::kOom) t.device_free.emplace_back(uint32_t(t.action.size()), d.device_free);
      t.action.push_back(d.action);
      t.addr.push_back(uint64_t(d.addr));
      t.size.push_back(d.size);
      t.stream.push_back(d.stream);
      t.time_us.push_back(d.has & fTime ? d.time_us : -1);
      t.stack.push_back(stack_of_list(d.frames, d.has & fFrames));
    } else if (d.has & fTotal) {
      if (!want(l, ListKind::kSegments)) return;
      SnapSegment s;
      s.device = d.device;
      s.address = uint64_t(d.addr);
      s.total_size = d.total;
      s.allocated_size = d.allocated;
      s.active_size = d.active;
      s.requested_size = d.requested;
      s.stream = d.stream;
      s.segment_type = d.seg_type;
      s.first_block = uint32_t(l.seg_blocks.size());
      if (d.has & fBlocks) {
        auto b = lists.find(d.blocks);
        if (b != lists.end()) {
          if (b->second.kind == ListKind::kBlocks) {
            // Blocks without an address follow each other from the segment's start.
            uint64_t next = s.address;
            for (SnapBlock& blk : b->second.blocks) {
              if (blk.address == UINT64_MAX) blk.address = next;
              next = blk.address + uint64_t(blk.size);
              l.seg_blocks.push_back(blk);
            }
          } else {
            m.count("segments whose blocks are not block dicts");
          }
          lists.erase(b);
        }
      }
      s.blocks = uint32_t(l.seg_blocks.size() - s.first_block);
      l.segments.push_back(s);
    } else if (d.has & fState) {
      if (!want(l, ListKind::kBlocks)) return;
      SnapBlock b;
      b.address = d.has & fAddress ? uint64_t(d.addr) : UINT64_MAX;
      b.size = d.size;
      b.requested_size = d.has & fRequested ? d.requested : d.size;
      b.state = d.state;
      b.stack = stack_of_list(d.frames, d.has & fFrames);
      l.blocks.push_back(b);
    } else if (d.has & fFilename) {
      const uint32_t f = intern_frame(d);
      frame_of.emplace(v.id, f);
      if (want(l, ListKind::kFrames)) l.frames.push_back(f);
    } else {
      // allocator_settings, external_annotations, a block's "history" records: not read.
      want(l, ListKind::kOther);
    }
  }

  void on_root(const PickleReader&, const PickleValue& v) override {
    if (rooted) return;
    rooted = true;
    if (v.kind == PickleKind::kList) {
      // The oldest form: torch.cuda.memory_snapshot(), a bare list of segments.
      take_segments(v.id);
      return;
    }
    if (v.kind != PickleKind::kDict) {
      not_snapshot = "the pickle holds no dict of segments and device_traces, so it is not a CUDA memory snapshot";
      return;
    }
    auto it = dicts.find(v.id);
    if (it == dicts.end() || !(it->second.has & (fSegments | fTraces))) {
      not_snapshot = "the pickle's dict has no \"segments\" or \"device_traces\", so it is not a CUDA memory snapshot";
      return;
    }
    const DictRec d = it->second;
    if (d.has & fSegments) take_segments(d.segments);
    if (d.has & fTraces) {
      m.has_history = true;
      auto t = lists.find(d.traces);
      if (t != lists.end()) {
        if (t->second.kind == ListKind::kLists) {
          for (uint64_t id : t->second.lists) {
            auto e = lists.find(id);
            if (e != lists.end() && e->second.kind == ListKind::kEntries) {
              m.devices.push_back(std::move(e->second.entries));
            } else {
              if (e != lists.end() && e->second.kind != ListKind::kUnknown) m.count("device_traces items that are not lists of entries");
              m.devices.emplace_back();
            }
          }
        } else {
          m.count("device_traces that is not a list of lists");
        }
      }
    }
  }

  void take_segments(uint64_t id) {
    auto it = lists.find(id);
    if (it == lists.end()) return;  // no segment at all
    if (it->second.kind != ListKind::kSegments) {
      if (it->second.kind != ListKind::kUnknown) not_snapshot = "the pickle's \"segments\" is not a list of segment dicts";
      return;
    }
    m.segments = std::move(it->second.segments);
    m.blocks = std::move(it->second.seg_blocks);
  }
};

SnapshotReader::SnapshotReader() : impl_(new Impl) {}
SnapshotReader::~SnapshotReader() = default;
void SnapshotReader::set_total_size(uint64_t bytes) { impl_->reader.set_total_size(bytes); }
void SnapshotReader::feed(const char* data, size_t n) { impl_->reader.feed(data, n); }
uint64_t SnapshotReader::bytes_read() const { return impl_->reader.bytes_read(); }
const SnapshotModel& SnapshotReader::model() const { return impl_->m; }
SnapshotModel& SnapshotReader::model() { return impl_->m; }

bool SnapshotReader::failed() const {
  return impl_->reader.refused() || !impl_->rooted || !impl_->not_snapshot.empty();
}

void SnapshotReader::finish() {
  PickleReader& r = impl_->reader;
  r.finish();
  if (r.refused()) {
    error_ = r.error();
  } else if (!impl_->not_snapshot.empty()) {
    error_ = impl_->not_snapshot + (r.failed() ? " (" + r.error() + ")" : std::string());
  } else if (!impl_->rooted) {
    error_ = r.failed() ? r.error() : "the pickle holds nothing";
  } else if (r.failed()) {
    error_ = r.error();
  }
  // Containers opened and never put anywhere are dropped with the reader's state.
  impl_->dicts.clear();
  impl_->lists.clear();
  impl_->frame_of.clear();
  impl_->stack_of.clear();
  impl_->stack_ids.clear();
}

}  // namespace ks
