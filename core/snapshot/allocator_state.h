// The CUDA caching allocator's state at a moment of a snapshot's history: its segments and, in
// each, the blocks allocated, allocated but awaiting free, and inactive (cached, free), as
// pytorch.org/memory_viz's segment view draws them (torch/utils/viz/MemoryViz.js, MemoryView's
// simulate_memory). Only the dump's segments are known; an earlier moment is reconstructed by
// undoing the device's history from its last entry back to the moment:
//  - alloc: the block did not exist yet (removed);
//  - free_requested: the block was not yet awaiting its free (a stream still used it);
//  - free_completed: the block was alive, awaiting free (put back); an older history's `free`:
//    alive (put back);
//  - segment_alloc / segment_free: the segment did not exist yet / existed (removed / put back);
//  - segment_map / segment_unmap (expandable segments): the mapped range is cut from / joined to
//    its segment, adjacent ranges of one stream merging, as memory_viz does.
// Inactive blocks are the gaps between the active blocks of a segment: the allocator merges
// neighbouring free blocks, so a gap is one inactive block (the dump's own inactive blocks
// agree with this at the last entry).
//
// Block sizes. A block of the dump has its true (rounded) size. A block the history puts back
// has only the size its entry recorded, the bytes asked for; its size is then the allocator's
// rounding of it (c10/cuda/CUDACachingAllocator.cpp round_size and should_split): up to a
// multiple of 512 bytes (512 at least); a large-pool block (over 1 MiB) keeps the rest of the
// free block it was cut from when 1 MiB or less would have been left, so when the gap after it to
// the next block (or the segment's end) is 1 MiB or less the block is taken to reach it.
// roundup_power2_divisions and expandable segments round differently and are not modelled: such
// blocks read as their 512-byte rounding (memory_viz draws every put-back block at its asked
// size, with no rounding at all).
//
// What cannot be replayed (an alloc of an address that is not alive, a free of one that is, a
// segment entry with no segment to cut) is counted by name in `inconsistencies` and skipped:
// memory_viz stops drawing on those.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot/snapshot_model.h"

namespace ks {

enum class StateBlockKind : uint8_t { kAllocated, kAwaitingFree, kInactive };
const char* state_block_kind_name(StateBlockKind k);  // "allocated", "awaiting_free", "inactive"

struct StateBlock {
  uint64_t address = 0;
  int64_t size = 0;            // the block's bytes (rounded; see above)
  int64_t requested_bytes = 0; // what was asked for (0 for inactive blocks)
  StateBlockKind kind = StateBlockKind::kInactive;
  uint32_t stack = 0;          // SnapshotModel stack of its allocation (0: none known)
  int64_t alloc_entry = -1;    // the history entry that allocated it; -1: before the history
  bool size_from_dump = false; // its size is the dump's, not a rounding
};

struct StateSegment {
  uint64_t address = 0;
  int64_t size = 0;
  int64_t stream = 0;
  uint32_t first_block = 0;  // AllocatorState::blocks[first_block .. first_block + blocks]
  uint32_t blocks = 0;
  int64_t active_bytes = 0;  // allocated + awaiting free blocks' sizes
  int64_t inactive_bytes = 0;
  int64_t largest_inactive_bytes = 0;
};

struct AllocatorState {
  int64_t device = 0;
  int64_t entry = -1;   // the state after this entry; -1: before the first one
  int64_t at_us = -1;   // that entry's time_us (-1 without)
  std::vector<StateSegment> segments;  // by address
  std::vector<StateBlock> blocks;      // by address, each segment's in a run
  int64_t reserved_bytes = 0;          // the segments' sizes
  int64_t allocated_bytes = 0;         // blocks allocated (not awaiting free)
  int64_t awaiting_free_bytes = 0;
  int64_t requested_bytes = 0;         // asked for by the active blocks
  int64_t inactive_bytes = 0;          // reserved - allocated - awaiting free
  int64_t largest_inactive_bytes = 0;  // the largest free block in cached segments
  uint64_t allocated_blocks = 0, awaiting_free_blocks = 0, inactive_blocks = 0;
  std::vector<std::pair<std::string, uint64_t>> inconsistencies;
};

// The state after each of `entries` (-1: before the first entry; the device's last entry: the
// dump), in one backward pass. Entries out of range are clamped to [-1, last]. Returned in the
// order asked.
std::vector<AllocatorState> allocator_states(const SnapshotModel& m, int64_t device, const std::vector<int64_t>& entries);
AllocatorState allocator_state(const SnapshotModel& m, int64_t device, int64_t entry);

// The size of a block the history puts back, asking `requested` bytes, with `room` bytes from its
// address to the next block or its segment's end (the rule above).
int64_t replayed_block_size(int64_t requested, int64_t room);

// The last entry of the device's history with time_us <= at_us (-1 when none).
int64_t snapshot_entry_at(const SnapshotModel& m, int64_t device, int64_t at_us);
// The number of entries of the device's history (0 when it has none).
int64_t snapshot_history_size(const SnapshotModel& m, int64_t device);

// The fragmentation at each oom entry of the device's history, in order: the allocator's state
// just then (the entries before it replayed), summed.
struct OomFragmentation {
  uint32_t entry = 0;
  uint64_t alive_blocks = 0;            // allocated + awaiting free
  int64_t alive_block_bytes = 0;        // their (rounded) sizes
  int64_t inactive_bytes = 0;           // reserved - alive: cached, free
  int64_t largest_inactive_bytes = 0;   // the largest free block in cached segments
};
std::vector<OomFragmentation> oom_fragmentation(const SnapshotModel& m, int64_t device);

}  // namespace ks
