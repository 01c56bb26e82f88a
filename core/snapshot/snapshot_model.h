// A CUDA caching allocator snapshot (torch.cuda.memory._dump_snapshot) as columns: the segments
// at the dump with their blocks, and per device the allocator's history (device_traces), each
// entry's stack interned once. Read from the pickle's events (core/snapshot/pickle_reader.h)
// without a tree: each dict becomes a row when it is put into its list.
//
// The snapshot's shape (PyTorch 2.x, torch/cuda/memory.py `_snapshot`):
//   {"segments": [{"device", "address", "total_size", "allocated_size", "active_size",
//                  "requested_size", "stream", "segment_type", "segment_pool_id",
//                  "blocks": [{"address", "size", "requested_size", "state", "frames"}]}],
//    "device_traces": [[{"action", "addr", "size", "stream", "time_us", "frames",
//                        "device_free" (oom only), "compile_context", "user_metadata"}]],
//    "allocator_settings": {...}, "external_annotations": [...]}
// frames: [{"name", "filename", "line"}] innermost first. Older snapshots: no time_us, blocks
// without requested_size or address (then each follows the one before it), C++ frames, or the
// whole snapshot a bare list of segments (no history).
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/chunked_table.h"
#include "core/util/string_pool.h"

namespace ks {

enum class SnapAction : uint8_t {
  kAlloc, kFreeRequested, kFreeCompleted, kSegmentAlloc, kSegmentFree, kSegmentMap, kSegmentUnmap, kSnapshot,
  kOom, kFree,  // kFree: an older history's one entry for free_requested + free_completed
  kOther,
};
const char* snap_action_name(SnapAction a);

enum class BlockState : uint8_t { kActiveAllocated, kActivePendingFree, kInactive, kOther };

struct SnapFrame {
  StringId name = 0;
  StringId filename = 0;
  int64_t line = 0;
};

// A column of int64 values stored in 4 bytes a row: each the offset from its block's base (the
// first value of its kBlockRows rows when kBased, else 0); a value the offset cannot hold (below
// the base, 4 G above it, or -1) is kept in a side table, looked up by binary search. Times of a
// history (microseconds, rising) and sizes (bytes, under 4 GiB) almost never need the table.
template <bool kBased>
class PackedInt64Column {
 public:
  static constexpr size_t kBlockRows = 16384;
  void push_back(int64_t v) {
    const size_t i = offsets_.size();
    if (kBased && i % kBlockRows == 0) bases_.push_back(v < 0 ? 0 : v);
    const int64_t base = kBased ? bases_.back() : 0;
    const uint64_t off = uint64_t(v) - uint64_t(base);
    if (v >= base && off < kEscape) {
      offsets_.push_back(uint32_t(off));
    } else {
      offsets_.push_back(kEscape);
      wide_.emplace_back(i, v);
    }
  }
  int64_t operator[](size_t i) const {
    const uint32_t off = offsets_[i];
    if (off != kEscape) [[likely]] return (kBased ? bases_[i / kBlockRows] : 0) + int64_t(off);
    const auto it = std::lower_bound(wide_.begin(), wide_.end(), i, [](const std::pair<size_t, int64_t>& w, size_t k) { return w.first < k; });
    return it != wide_.end() && it->first == i ? it->second : 0;
  }
  size_t size() const { return offsets_.size(); }
  size_t bytes() const { return offsets_.bytes() + bases_.capacity() * 8 + wide_.capacity() * sizeof(wide_[0]); }

 private:
  static constexpr uint32_t kEscape = UINT32_MAX;
  ChunkedTable<uint32_t, kBlockRows> offsets_;
  std::vector<int64_t> bases_;
  std::vector<std::pair<size_t, int64_t>> wide_;
};

// Addresses in 6 bytes: CUDA's device addresses are below 2^48 (those above, in a side table).
class AddrColumn {
 public:
  void push_back(uint64_t a) {
    const size_t i = lo_.size();
    lo_.push_back(uint32_t(a));
    if (a >> 48) {
      hi_.push_back(kEscape);
      wide_.emplace_back(i, a);
    } else {
      hi_.push_back(uint16_t(a >> 32));
    }
  }
  uint64_t operator[](size_t i) const {
    const uint16_t hi = hi_[i];
    if (hi != kEscape || wide_.empty()) [[likely]] return (uint64_t(hi) << 32) | lo_[i];
    const auto it = std::lower_bound(wide_.begin(), wide_.end(), i, [](const std::pair<size_t, uint64_t>& w, size_t k) { return w.first < k; });
    return it != wide_.end() && it->first == i ? it->second : (uint64_t(hi) << 32) | lo_[i];
  }
  size_t size() const { return lo_.size(); }
  size_t bytes() const { return lo_.bytes() + hi_.bytes() + wide_.capacity() * sizeof(wide_[0]); }

 private:
  static constexpr uint16_t kEscape = UINT16_MAX;  // 0xffff____ ____ is a valid 48-bit address: wide_ says which
  ChunkedTable<uint32_t> lo_;
  ChunkedTable<uint16_t> hi_;
  std::vector<std::pair<size_t, uint64_t>> wide_;
};

// Streams by their index in a table of the distinct values (a history holds a handful).
class StreamColumn {
 public:
  void push_back(int64_t s) {
    if (values_.empty() || values_[last_] != s) {
      const auto it = std::find(values_.begin(), values_.end(), s);
      if (it != values_.end()) {
        last_ = uint16_t(it - values_.begin());
      } else if (values_.size() < kMax) {
        values_.push_back(s);
        last_ = uint16_t(values_.size() - 1);
      } else {
        idx_.push_back(kMax);
        wide_.emplace_back(idx_.size() - 1, s);
        return;
      }
    }
    idx_.push_back(last_);
  }
  int64_t operator[](size_t i) const {
    const uint16_t k = idx_[i];
    if (k != kMax) [[likely]] return values_[k];
    const auto it = std::lower_bound(wide_.begin(), wide_.end(), i, [](const std::pair<size_t, int64_t>& w, size_t j) { return w.first < j; });
    return it != wide_.end() && it->first == i ? it->second : 0;
  }
  size_t size() const { return idx_.size(); }
  size_t bytes() const { return idx_.bytes() + values_.capacity() * 8 + wide_.capacity() * sizeof(wide_[0]); }

 private:
  static constexpr uint16_t kMax = 4096;  // distinct streams kept in the table; more go to wide_
  ChunkedTable<uint16_t> idx_;
  std::vector<int64_t> values_;
  uint16_t last_ = 0;
  std::vector<std::pair<size_t, int64_t>> wide_;
};

// One device's history, in the order recorded. Columns in blocks (core/util/chunked_table.h):
// 50 M entries grow without a doubling vector's slack and copy; 21 bytes an entry (the pickle
// spends 75-100): addresses in 6, sizes and times in 4 (PackedInt64Column), streams in 2.
// Read a row's value with column[i]; values are appended by the reader only.
struct SnapTrace {
  ChunkedTable<SnapAction> action;
  AddrColumn addr;
  PackedInt64Column<false> size;
  StreamColumn stream;
  PackedInt64Column<true> time_us;  // -1 when the snapshot has none
  ChunkedTable<uint32_t> stack;     // SnapshotModel::stacks index; 0: no frames
  // oom entries: their index and the device's free memory the allocator saw.
  std::vector<std::pair<uint32_t, int64_t>> device_free;
  size_t size_rows() const { return action.size(); }
  size_t bytes() const {
    return action.bytes() + addr.bytes() + size.bytes() + stream.bytes() + time_us.bytes() + stack.bytes() +
           device_free.capacity() * sizeof(device_free[0]);
  }
};

struct SnapBlock {
  uint64_t address = 0;
  int64_t size = 0;
  int64_t requested_size = 0;
  BlockState state = BlockState::kOther;
  uint32_t stack = 0;
};

struct SnapSegment {
  int64_t device = 0;
  uint64_t address = 0;
  int64_t total_size = 0;
  int64_t allocated_size = 0;
  int64_t active_size = 0;
  int64_t requested_size = 0;
  int64_t stream = 0;
  StringId segment_type = 0;
  uint32_t first_block = 0;
  uint32_t blocks = 0;
};

// One of external_annotations: a record_function range (e.g. "Optimizer.step#AdamW.step")
// starting or ending on a device, recorded with the history.
struct SnapAnnotation {
  bool start = false;  // stage START (else END)
  StringId name = 0;
  int64_t device = 0;
  int64_t time_us = -1;
};

struct SnapshotModel {
  StringPool strings;
  std::vector<SnapFrame> frames;
  // Stack s is frames[stack_frames[stack_offsets[s] .. stack_offsets[s+1]]], innermost first;
  // stack 0 is the empty one.
  std::vector<uint32_t> stack_offsets{0, 0};
  std::vector<uint32_t> stack_frames;
  std::vector<SnapSegment> segments;
  std::vector<SnapBlock> blocks;
  std::vector<SnapTrace> devices;  // device_traces[i]
  bool has_history = false;        // the snapshot had device_traces
  // allocator_settings as the snapshot wrote them (PYTORCH_CUDA_ALLOC_CONF, max_split_size,
  // expandable_segments...), each value as text (a dict in it as "{k: v, ...}").
  std::vector<std::pair<std::string, std::string>> allocator_settings;
  std::vector<SnapAnnotation> annotations;  // external_annotations, in the order written
  // What did not fit the schema, by name (skipped, never fatal).
  std::vector<std::pair<std::string, uint64_t>> health;

  size_t stack_count() const { return stack_offsets.size() - 1; }
  size_t stack_size(uint32_t s) const { return stack_offsets[s + 1] - stack_offsets[s]; }
  const SnapFrame& stack_frame(uint32_t s, size_t k) const { return frames[stack_frames[stack_offsets[s] + k]]; }
  void count(std::string_view what, uint64_t n = 1);
};

// Reads a snapshot pickle fed in chunks. error(): empty when it loaded whole; else one sentence
// (with failed() when nothing could be loaded: not a pickle, refused, not a snapshot).
class SnapshotReader {
 public:
  SnapshotReader();
  ~SnapshotReader();
  SnapshotReader(const SnapshotReader&) = delete;
  SnapshotReader& operator=(const SnapshotReader&) = delete;
  void set_total_size(uint64_t bytes);
  void feed(const char* data, size_t n);
  void finish();
  // While reading (failed() says nothing before finish): reading on can load nothing more (an
  // opcode refused, a corrupt pickle, not a snapshot), so a caller may stop feeding.
  bool stopped() const;
  bool failed() const;
  const std::string& error() const { return error_; }
  uint64_t bytes_read() const;
  const SnapshotModel& model() const;
  SnapshotModel& model();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
};

}  // namespace ks
