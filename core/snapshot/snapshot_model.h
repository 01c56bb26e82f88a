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

// One device's history, in the order recorded. Columns in blocks (core/util/chunked_table.h):
// 50 M entries grow without a doubling vector's slack and copy.
struct SnapTrace {
  ChunkedTable<SnapAction> action;
  ChunkedTable<uint64_t> addr;
  ChunkedTable<int64_t> size;
  ChunkedTable<int64_t> stream;
  ChunkedTable<int64_t> time_us;  // -1 when the snapshot has none
  ChunkedTable<uint32_t> stack;   // SnapshotModel::stacks index; 0: no frames
  // oom entries: their index and the device's free memory the allocator saw.
  std::vector<std::pair<uint32_t, int64_t>> device_free;
  size_t size_rows() const { return action.size(); }
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
