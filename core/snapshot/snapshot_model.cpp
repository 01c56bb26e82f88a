#include "core/snapshot/snapshot_model.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// The keys a snapshot's dicts hold that the model reads.
enum Key : uint8_t {
  kOtherKey, kAddr, kSize, kLine, kName, kState, kStage, kAction, kStream, kDevice, kFrames, kBlocks, kTimeUs,
  kAddress, kFilename, kSegments, kTotalSize, kDeviceFree, kActiveSize, kSegmentType, kDeviceTraces,
  kAllocatedSize, kRequestedSize, kAllocatorSettings, kExternalAnnotations,
};

Key key_of(std::string_view k) {
  switch (k.size()) {
    case 4:
      if (k == "addr") return kAddr;
      if (k == "size") return kSize;
      if (k == "line") return kLine;
      if (k == "name") return kName;
      return kOtherKey;
    case 5: return k == "state" ? kState : k == "stage" ? kStage : kOtherKey;
    case 6:
      if (k == "action") return kAction;
      if (k == "stream") return kStream;
      if (k == "device") return kDevice;
      if (k == "frames") return kFrames;
      if (k == "blocks") return kBlocks;
      return kOtherKey;
    case 7: return k == "time_us" ? kTimeUs : k == "address" ? kAddress : kOtherKey;
    case 8: return k == "filename" ? kFilename : k == "segments" ? kSegments : kOtherKey;
    case 10: return k == "total_size" ? kTotalSize : kOtherKey;
    case 11: return k == "device_free" ? kDeviceFree : k == "active_size" ? kActiveSize : kOtherKey;
    case 12: return k == "segment_type" ? kSegmentType : kOtherKey;
    case 13: return k == "device_traces" ? kDeviceTraces : kOtherKey;
    case 14: return k == "allocated_size" ? kAllocatedSize : k == "requested_size" ? kRequestedSize : kOtherKey;
    case 18: return k == "allocator_settings" ? kAllocatorSettings : kOtherKey;
    case 20: return k == "external_annotations" ? kExternalAnnotations : kOtherKey;
    default: return kOtherKey;
  }
}

// The fields of any dict of a snapshot, filled by key as its items arrive; which kind of dict
// it was is decided when it is put into a list (an entry has "action", a segment "total_size",
// a block "state", a frame "filename").
enum Field : uint32_t {
  fAction = 1u << 0, fAddr = 1u << 1, fSize = 1u << 2, fStream = 1u << 3, fTime = 1u << 4, fDeviceFree = 1u << 5,
  fFrames = 1u << 6, fDevice = 1u << 7, fAddress = 1u << 8, fTotal = 1u << 9, fAllocated = 1u << 10,
  fActive = 1u << 11, fRequested = 1u << 12, fSegType = 1u << 13, fBlocks = 1u << 14, fState = 1u << 15,
  fName = 1u << 16, fFilename = 1u << 17, fLine = 1u << 18, fSegments = 1u << 19, fTraces = 1u << 20,
  fStage = 1u << 21, fSettings = 1u << 22, fAnnotations = 1u << 23, fOutOfRange = 1u << 30, fBadType = 1u << 31,
};

struct DictRec {
  uint32_t has = 0;
  SnapAction action = SnapAction::kOther;
  BlockState state = BlockState::kOther;
  int64_t addr = 0, size = 0, stream = 0, time_us = -1, device_free = 0, device = 0, total = 0, allocated = 0,
          active = 0, requested = 0, line = 0;
  uint64_t blocks = 0, segments = 0, traces = 0, settings = 0, annotations = 0;  // container ids
  bool start = false;  // an external annotation's stage: START (else END)
  uint32_t stack = 0;  // the frames list's stack (interned when the dict got it)
  StringId name = 0, filename = 0, seg_type = 0;
};

// What a list holds, known from its first dict item.
enum class ListKind : uint8_t { kUnknown, kFrames, kEntries, kBlocks, kSegments, kLists, kAnnotations, kOther };

struct ListRec {
  ListKind kind = ListKind::kUnknown;
  std::vector<uint32_t> frames;
  SnapTrace entries;
  std::vector<SnapBlock> blocks;
  std::vector<SnapSegment> segments;  // first_block: index into seg_blocks
  std::vector<SnapBlock> seg_blocks;
  std::vector<uint64_t> lists;
  std::vector<SnapAnnotation> annotations;
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
  // What a frame dict became (its index), for a GET of it made before it was tagged in the
  // memo (PickleReader::tag): a frame repeated within one stack.
  IdMap frame_of;
  // What the last frames lists became (id → stack), for a copy of one taken before it was
  // tagged and put into a dict after it (a dict nested in the one holding it). Lossy: a
  // direct-mapped cache, not a map of every list (the Pickler's order never needs it).
  static constexpr size_t kRecentStacks = 4096;
  std::vector<std::pair<uint64_t, uint32_t>> recent_stacks =
      std::vector<std::pair<uint64_t, uint32_t>>(kRecentStacks, {UINT64_MAX, 0});
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
      if (key && key->kind == PickleKind::kStr) set_field(r, dict(c.id), c.id, *key, v);
    } else if (c.kind == PickleKind::kList) {
      list_item(r, c.id, v);
    }
  }

  // A key's field, and an action's value, cached by the string's place in the reader's arena: a
  // pickle memoizes its keys and actions, so each is one string read again by every GET, and a
  // lookup here replaces the compares of each of the 30+ keys and values of every entry.
  struct CodeCache {
    uint64_t off = UINT64_MAX;
    uint32_t len = 0;
    uint8_t code = 0;
  };
  static constexpr size_t kCodeCache = 64;
  CodeCache key_cache[kCodeCache];
  CodeCache action_cache[kCodeCache];
  uint8_t key_code(const PickleReader& r, const PickleValue& k) {
    CodeCache& c = key_cache[k.off % kCodeCache];
    if (c.off != k.off || c.len != k.len) c = {k.off, k.len, uint8_t(key_of(r.text(k)))};
    return c.code;
  }
  SnapAction action_code(const PickleReader& r, const PickleValue& v) {
    CodeCache& c = action_cache[v.off % kCodeCache];
    if (c.off != v.off || c.len != v.len) c = {v.off, v.len, uint8_t(action_of(r.text(v)))};
    return SnapAction(c.code);
  }

  // allocator_settings' items (and those of the dicts in it) by dict id, until the root takes them.
  IdMap settings_of;
  std::vector<std::vector<std::pair<std::string, std::string>>> settings_items;
  static constexpr size_t kMaxSettings = 256;
  std::string setting_text(const PickleReader& r, const PickleValue& v) {
    char b[64];
    switch (v.kind) {
      case PickleKind::kNone: return "None";
      case PickleKind::kBool: return v.i ? "True" : "False";
      case PickleKind::kInt: return std::to_string(v.i);
      case PickleKind::kFloat:
      case PickleKind::kBigInt: {
        // As Python's repr: the shortest text that reads back the same, with ".0" when integral.
        for (int prec = 1; prec <= 17; ++prec) {
          std::snprintf(b, sizeof b, "%.*g", prec, v.f);
          if (std::strtod(b, nullptr) == v.f) break;
        }
        std::string t = b;
        if (v.kind == PickleKind::kFloat && t.find_first_of(".eni") == std::string::npos) t += ".0";
        return t;
      }
      case PickleKind::kStr: return std::string(r.text(v).substr(0, 1024));
      case PickleKind::kDict: {
        const uint32_t* k = settings_of.find(v.id);
        std::string out = "{";
        if (k)
          for (const auto& [key, val] : settings_items[*k]) out += (out.size() > 1 ? ", " : "") + key + ": " + val;
        return out + "}";
      }
      case PickleKind::kList: return "[...]";
      default: return "";
    }
  }
  void keep_setting(const PickleReader& r, uint64_t dict_id, const PickleValue& k, const PickleValue& v) {
    const uint32_t* at = settings_of.find(dict_id);
    uint32_t i;
    if (at) {
      i = *at;
    } else {
      if (settings_items.size() >= kMaxSettings) return;
      i = uint32_t(settings_items.size());
      settings_items.emplace_back();
      settings_of.put(dict_id, i);
    }
    if (settings_items[i].size() < kMaxSettings) settings_items[i].emplace_back(std::string(r.text(k).substr(0, 256)), setting_text(r, v));
  }

  void set_field(PickleReader& r, DictRec& d, uint64_t d_id, const PickleValue& k_value, const PickleValue& v) {
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
    switch (key_code(r, k_value)) {
      case kAddr: return i64(d.addr, fAddr);
      case kSize: return bytes(d.size, fSize);
      case kLine: return i64(d.line, fLine);
      case kName: return str(d.name, fName);
      case kState:
        if (v.kind == PickleKind::kStr) d.state = state_of(r.text(v)), d.has |= fState;
        else d.has |= fState | fBadType;
        return;
      case kStage:
        d.has |= fStage;
        d.start = v.kind == PickleKind::kStr && r.text(v) == "START";
        return;
      case kAllocatorSettings:
        if (v.kind == PickleKind::kDict) d.settings = v.id, d.has |= fSettings;
        return;
      case kExternalAnnotations: return ref(d.annotations, no_tag, fAnnotations);
      case kAction:
        if (v.kind == PickleKind::kStr) d.action = action_code(r, v), d.has |= fAction;
        else d.has |= fAction | fBadType;
        return;
      case kStream: return i64(d.stream, fStream);
      case kDevice: return i64(d.device, fDevice);
      case kFrames:
        if (v.kind == PickleKind::kList) d.stack = stack_of_list(r, v), d.has |= fFrames;
        else if (v.kind != PickleKind::kNone) d.has |= fFrames | fBadType;
        return;
      case kBlocks: return ref(d.blocks, no_tag, fBlocks);
      case kTimeUs: return i64(d.time_us, fTime);
      case kAddress: return i64(d.addr, fAddress);
      case kFilename: return str(d.filename, fFilename);
      case kSegments: return ref(d.segments, no_tag, fSegments);
      case kTotalSize: return bytes(d.total, fTotal);
      case kDeviceFree: return bytes(d.device_free, fDeviceFree);
      case kActiveSize: return bytes(d.active, fActive);
      case kSegmentType:
        if (v.kind == PickleKind::kStr) d.seg_type = m.strings.intern(r.text(v)), d.has |= fSegType;
        return;
      case kDeviceTraces: return ref(d.traces, no_tag, fTraces);
      case kAllocatedSize: return bytes(d.allocated, fAllocated);
      case kRequestedSize: return bytes(d.requested, fRequested);
      default:
        // The items of a dict no known key has marked (allocator_settings and the dicts in it),
        // kept as text: a handful per snapshot, so entries and frames never pay for it.
        if (d.has == 0) keep_setting(r, d_id, k_value, v);
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

  // The stack of a frames list (0 when it had none), when a dict gets it: the list is complete
  // then (the Pickler fills a container before putting it anywhere). Interned once; its memo
  // slot is tagged so that the GETs to come (free_requested and free_completed entries reuse
  // the alloc's list) hand the stack back without a lookup.
  uint32_t stack_of_list(PickleReader& r, const PickleValue& v) {
    if (v.len) return v.len - 1;
    auto& recent = recent_stacks[v.id % kRecentStacks];
    const int64_t slot = list_index(v.id, false);
    if (slot < 0) return recent.first == v.id ? recent.second : 0;  // an empty list, or one seen before
    ListRec& l = list_slab[size_t(slot)];
    uint32_t sid = 0;
    if (l.kind == ListKind::kFrames && !l.frames.empty()) {
      sid = intern_stack(l.frames);
      r.tag(v, sid + 1);
      recent = {v.id, sid};
    } else if (l.kind != ListKind::kFrames) {
      m.count("frames that are not a list of frame dicts");
    }
    release_list(v.id, uint32_t(slot));
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
      const bool needs_addr =
          d.action == SnapAction::kAlloc || d.action == SnapAction::kFreeCompleted || d.action == SnapAction::kFree;
      const uint32_t stack = d.stack;
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
      b.stack = d.stack;
      ListRec& l = list(list_id);
      if (want(l, ListKind::kBlocks)) l.blocks.push_back(b);
    } else if (d.has & fFilename) {
      m.frames.push_back({d.name, d.filename, d.line});
      const uint32_t f = uint32_t(m.frames.size() - 1);
      r.tag(v, f + 1);
      frame_of.put(v.id, f);
      ListRec& l = list(list_id);
      if (want(l, ListKind::kFrames)) l.frames.push_back(f);
    } else if (d.has & fStage) {
      // external_annotations: a record_function range's START or END on a device, at time_us.
      ListRec& l = list(list_id);
      if (want(l, ListKind::kAnnotations)) l.annotations.push_back({d.start, d.name, d.device, d.has & fTime ? d.time_us : -1});
    } else {
      // a block's "history" records of older snapshots: not read.
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
    if (d.has & fSettings) {
      if (const uint32_t* i = settings_of.find(d.settings)) m.allocator_settings = std::move(settings_items[*i]);
    }
    if (d.has & fAnnotations) {
      const int64_t a = list_index(d.annotations, false);
      if (a >= 0 && list_slab[size_t(a)].kind == ListKind::kAnnotations) m.annotations = std::move(list_slab[size_t(a)].annotations);
    }
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
  impl_->settings_of.clear();
  std::vector<std::vector<std::pair<std::string, std::string>>>().swap(impl_->settings_items);
  impl_->recent_stacks = {};
  impl_->stack_by_hash.clear();
}

}  // namespace ks
