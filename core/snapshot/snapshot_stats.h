// The numbers of a memory snapshot per device: its history's counts, the peak of the memory
// allocated (as pytorch.org/memory_viz's "Active Memory Timeline" draws it), what held the
// memory at the peak by allocation site, each out-of-memory event with the allocated and reserved
// memory at that moment, and the state at the dump.
//
// The timeline follows memory_viz (torch/utils/viz/MemoryViz.js, process_alloc_data):
//  - an allocation lives from its `alloc` entry to the `free_completed` (or an older history's
//    `free`) of its address; `free_requested` alone frees nothing (the block waits on a stream);
//  - a free of an address with no alloc before it in the history is an allocation made before
//    the history began: alive from the start (its size the free's), as is every block
//    `active_allocated` at the dump that no alloc of the history still holds (its
//    requested_size);
//  - sizes are the entries' (the bytes asked for), so the level is memory_viz's, a little
//    below torch.cuda.memory_allocated() (which counts the rounded blocks).
// Unlike memory_viz, whose y-axis maximum is taken after each entry only, the peak also
// counts the level before the first entry (docs/compatibility.md).
// Reserved memory is replayed backwards from the dump's segments: each segment_alloc/map
// before the dump added its size, each segment_free/unmap removed it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot/snapshot_model.h"

namespace ks {

struct SnapSite {
  std::string frame;  // "filename:line:name" of the innermost Python frame, or a <...> label
  int64_t bytes = 0;
  uint64_t allocations = 0;
};

struct SnapOom {
  uint32_t entry = 0;
  int64_t at_us = -1;
  int64_t requested_bytes = 0;
  int64_t device_free_bytes = 0;
  int64_t allocated_bytes = 0;  // the timeline's level then
  int64_t reserved_bytes = 0;   // the segments held then
};

// The state after history entry `entry` (-1: before the first one).
struct SnapMoment {
  int64_t entry = -1;
  int64_t at_us = -1;
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = 0;
  std::vector<SnapSite> top_sites;
};

struct SnapDeviceStats {
  int64_t device = 0;
  uint64_t trace_entries = 0;
  uint64_t allocations = 0;  // alloc entries
  uint64_t frees = 0;        // free_completed (and older histories' free) entries
  int64_t peak_allocated_bytes = 0;
  int64_t peak_entry = -1;   // the entry after which the peak was first reached; -1: before the history
  int64_t peak_at_us = -1;   // its time_us (the first entry's when -1 above); -1 without times
  int64_t peak_reserved_bytes = 0;
  int64_t before_history_bytes = 0;  // alive before the first entry
  int64_t allocated_at_dump_bytes = 0;  // the segments' allocated_size (rounded blocks)
  int64_t reserved_at_dump_bytes = 0;   // the segments' total_size
  int64_t alive_at_dump_bytes = 0;      // the timeline's last level (requested sizes)
  uint64_t segments = 0;
  std::vector<SnapOom> ooms;
  std::vector<SnapSite> top_sites;  // at the peak, most bytes first
  std::optional<SnapMoment> at;     // at a time asked for
};

// One allocation of the timeline: alive after entry `from` (-1: from the start) until entry `to`
// frees it (INT64_MAX: alive at the dump).
struct SnapElem {
  int64_t size;
  int64_t from;
  int64_t to;
  uint32_t stack;
  bool before;  // allocated before the history began (its stack, if any, is not its site)
  uint64_t addr;
};

// A device's timeline by the rules above: its allocations in the order they join the stack
// (the history's allocs as they come, then those made before it), and what each entry changed.
struct SnapTimeline {
  std::vector<SnapElem> elems;
  std::vector<int64_t> delta;   // allocated bytes changed by each entry
  std::vector<int64_t> rdelta;  // reserved bytes changed by each entry
  int64_t start = 0;            // allocated before the first entry
  int64_t rstart = 0;           // reserved before the first entry
};
SnapTimeline snapshot_timeline(const SnapshotModel& m, int64_t device);

// The devices of the snapshot: those of device_traces and of the segments, ascending.
std::vector<int64_t> snapshot_devices(const SnapshotModel& m);

// at_us: also the state at that time (after the last entry with time_us <= at_us).
SnapDeviceStats snapshot_device_stats(const SnapshotModel& m, int64_t device, std::optional<int64_t> at_us = {},
                                      size_t top_sites = 20);

// The site label of a stack: its innermost Python frame (a .py file), else its innermost frame.
std::string snapshot_site(const SnapshotModel& m, uint32_t stack);

}  // namespace ks
