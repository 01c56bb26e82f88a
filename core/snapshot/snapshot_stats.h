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
#include "core/util/chunked_table.h"

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
// (the history's allocs as they come, those made before it and freed in it at their free, then
// the blocks alive at the dump that no alloc holds), and the allocated and reserved memory at
// each state (state s: after entry s-1; state 0: before the first entry).
//
// Kept beside the model's columns, not copied from them (issue 26's heap aim: the page holds the
// history in ~24 bytes an entry, the pickle spends 75-100): an allocation is two entry numbers
// (8 bytes; its size, address and stack are its entry's), and the level is read from the
// entries' actions and sizes between checkpoints every kBlock states, each with the block's
// highest level, so a pixel column's most allocated state is found without reading every entry.
// A free's change is minus its size, except where the alloc it frees had another size (kept
// aside, exact). Every answer equals the per-entry arrays this replaced (snapshot_history_test).
class SnapTimeline {
 public:
  static constexpr size_t kBlock = 64;
  SnapTimeline() = default;
  SnapTimeline(const SnapshotModel& m, int64_t device);

  size_t entries() const { return n_; }
  size_t states() const { return n_ + 1; }
  int64_t start() const { return start_; }    // allocated before the first entry
  int64_t rstart() const { return rstart_; }  // reserved before the first entry
  // Allocated / reserved bytes changed by entry i.
  int64_t delta(size_t i) const;
  int64_t rdelta(size_t i) const;
  int64_t level_at(int64_t state) const;
  int64_t reserved_at(int64_t state) const;
  // The first state of [first, last] with the most allocated.
  int64_t most_allocated(int64_t first, int64_t last) const;
  int64_t most_reserved() const;  // of all states
  // The history's alloc and free (free_completed, an older history's free) entries, and its
  // oom entries.
  uint64_t allocations() const { return allocations_; }
  uint64_t frees() const { return frees_; }
  const std::vector<uint32_t>& ooms() const { return ooms_; }
  // Time: state s's is entry s-1's (state 0: entry 0's); -1 when unknown.
  int64_t time_at(int64_t state) const;
  bool has_times() const { return has_times_; }  // every entry has a time_us, in order
  // The first state whose time is >= t (states() when none): the times are in order.
  int64_t first_state_at_or_after(int64_t t) const;

  size_t elem_count() const { return elems_.size(); }
  SnapElem elem(size_t k) const;
  int64_t elem_size(size_t k) const;
  // The states [alive_from, alive_to) allocation k is alive in.
  int64_t alive_from(size_t k) const { return elems_[k].from >= kBlockElem ? 0 : int64_t(elems_[k].from) + 1; }
  int64_t alive_to(size_t k) const { return elems_[k].to == kNone || elems_[k].from == kBlockElem ? int64_t(states()) : int64_t(elems_[k].to) + 1; }

  const SnapshotModel& model() const { return *m_; }
  // Bytes held, by structure (the allocations, the checkpoints, the frees' other sizes).
  size_t elem_bytes() const { return elems_.bytes(); }
  size_t checkpoint_bytes() const { return blocks_.capacity() * sizeof(Block); }
  size_t other_bytes() const { return odd_.capacity() * sizeof(odd_[0]) + ooms_.capacity() * 4; }
  size_t bytes() const { return elem_bytes() + checkpoint_bytes() + other_bytes(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;            // from: before the history; to: alive at the dump
  static constexpr uint32_t kBlockElem = UINT32_MAX - 1;   // from: a block alive at the dump (to: its index)
  struct Packed {
    uint32_t from, to;
  };
  struct Block {
    int64_t level, reserved;  // at the block's first state
    int64_t max;              // its highest level
    int64_t rmax;             // its highest reserved
    uint32_t at;              // the first state of the highest level
  };
  const SnapshotModel* m_ = nullptr;
  const SnapTrace* t_ = nullptr;
  size_t n_ = 0;
  int64_t start_ = 0, rstart_ = 0;
  bool has_times_ = false;
  ChunkedTable<Packed> elems_;  // in blocks: no doubling's slack or copy
  std::vector<Block> blocks_;
  std::vector<std::pair<uint32_t, int64_t>> odd_;  // frees whose change is not minus their size
  uint64_t allocations_ = 0, frees_ = 0;
  std::vector<uint32_t> ooms_;
};
SnapTimeline snapshot_timeline(const SnapshotModel& m, int64_t device);

// The devices of the snapshot: those of device_traces and of the segments, ascending.
std::vector<int64_t> snapshot_devices(const SnapshotModel& m);

// at_us: also the state at that time (after the last entry with time_us <= at_us).
SnapDeviceStats snapshot_device_stats(const SnapshotModel& m, int64_t device, std::optional<int64_t> at_us = {},
                                      size_t top_sites = 20);
// The same from a timeline already built (the session's, which the timeline views keep).
SnapDeviceStats snapshot_device_stats(const SnapTimeline& tl, int64_t device, std::optional<int64_t> at_us = {}, size_t top_sites = 20);

// The site label of a stack: its innermost Python frame (a .py file), else its innermost frame.
std::string snapshot_site(const SnapshotModel& m, uint32_t stack);

}  // namespace ks
