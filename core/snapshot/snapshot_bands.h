// The active memory timeline of a snapshot's device, drawn as pytorch.org/memory_viz draws it
// (MemoryViz.js, process_alloc_data): every allocation is a band stacked on those allocated before
// it that are still alive, so a free lets the bands above it fall; the blocks alive before the
// history began lie at the bottom. Here the core picks what a window of `width` pixel columns
// shows, so that a history of millions of entries stays fluid and the page never holds it:
//
//  - Each column covers a run of the history's states (state s: after entry s-1; state 0: before
//    the first entry), by entry or by time. It is drawn as the state of its run with the most
//    memory allocated, so no peak falls between two columns (memory_viz draws every entry; a
//    column of a zoomed-out view is many entries, and a band alive within it only between two of
//    them is not at its highest state).
//  - A band is drawn when it is at least one pixel tall at the window's scale (the highest level
//    or reserved memory of its columns over `height` pixels) and alive at some column's state; at
//    most `max_bands`, the largest. The others alive at a column are one band at the bottom
//    (memory_viz's "summarized" band, which it makes of all but its largest 15,000 allocations).
//  - A band's bottom is given at its first column and wherever it changes (a band below it was
//    freed or joined): (column, bytes) pairs.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"

namespace ks {

// A device's history as the timeline reads it, built once: its allocations and the allocated and
// reserved memory at each state, read from the model's columns (snapshot_stats.h's SnapTimeline).
using SnapHistory = SnapTimeline;
SnapHistory snapshot_history(const SnapshotModel& m, int64_t device);

struct SnapWindow {
  bool by_time = false;  // from/to are time_us (else states: 0 .. entries)
  double from = 0, to = -1;  // to < from: the whole history
  int width = 1000;       // pixel columns, 1 .. 20,000
  int height = 400;       // pixels of the y-axis
  size_t max_bands = 2000;
};

struct SnapColumn {
  int64_t first = 0, last = 0;  // the states it covers (last inclusive)
  int64_t state = 0;            // the one drawn: the most allocated
  int64_t allocated = 0, reserved = 0;
  int64_t others = 0;           // the bottom band: allocated by allocations not drawn
};

struct SnapBand {
  uint32_t elem = 0;  // SnapHistory::elem's index
  int first_column = 0, last_column = 0;
  std::vector<std::pair<int, int64_t>> bottom;  // (column, bytes): from that column on
};

struct SnapBands {
  bool by_time = false;        // the axis used (time asked of a history without times: entries)
  double from = 0, to = 0;     // the window, clamped to the history
  std::vector<SnapColumn> columns;
  std::vector<SnapBand> bands;  // bottom to top
  int64_t y_max = 0;            // the window's highest level or reserved memory
  int64_t min_band_bytes = 0;   // smaller allocations are in the bottom band
  uint64_t folded = 0;          // allocations alive in the window drawn in the bottom band
};

SnapBands snapshot_bands(const SnapHistory& h, const SnapWindow& w);

}  // namespace ks
