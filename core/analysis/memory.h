// The Memory view (tb_plugin spec §13): the `[memory]` instant events of a trace (one per
// allocation or release, with the allocator's totals after it) attributed to the operators that
// made them, as tb_plugin's statistics table, events table and curve, plus what tb_plugin never
// answered: which allocations are alive at a moment (the peak, by default), largest first.
//
// Built once per trace (MemoryIndex: records in time order, per device, each attributed to the
// deepest operator running on its thread); every table is then a pass over one time window.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

struct MemoryOptions {
  // tb_plugin's curve: only records with an address and both totals, points doubled into a step
  // plot, then LTTB down-sampling to 10240 points (which can drop the peak). Off: every record
  // with a total (or, without totals, the running sum of Bytes), exact, no down-sampling.
  bool tb_plugin = false;
};

struct MemoryDevice {
  std::string label;  // "CPU", "GPU0", ... as tb_plugin names them
  uint64_t records = 0;
  // Largest "Total Allocated" / "Total Reserved" recorded (-1: none). Without totals (PyTorch
  // 1.9-era traces), default mode counts allocated as the running sum of Bytes from 0.
  int64_t peak_allocated = -1, peak_reserved = -1;
  int64_t peak_ts_ns = 0;             // when the allocated peak was first reached
  bool allocated_from_bytes = false;  // no totals recorded: allocated is the running sum of Bytes
  bool has_addresses = false;         // records carry "Addr" (PyTorch >= 1.10): events can pair
};

struct MemoryIndex {
  int64_t origin_ns = 0;                 // tb_plugin's profiler_start_ts (µs times count from here)
  std::vector<MemoryDevice> devices;     // sorted by label (tb_plugin's order)
  std::vector<uint32_t> order;           // record rows in time order (stable)
  std::vector<int16_t> device;           // per record row: index into devices, -1: unknown type
  std::vector<int32_t> node;             // per record row: the deepest operator node holding it, -1: none
  std::vector<int32_t> name_node;        // per record row: the node naming it (a release: its allocation's)
  std::vector<int64_t> allocated;        // per record row: allocated after it (totals, or running sum)
  std::vector<uint8_t> processed;        // per tree node: entered while attributing (spec §13.2)
  std::vector<uint32_t> node_records;    // record rows grouped per node (CSR with node_first)
  std::vector<uint32_t> node_first;      // size nodes + 1
  std::vector<std::vector<uint32_t>> by_device;  // record rows of each device, time order
  int default_device = -1;               // first GPU label, else CPU (-1: no device)
  bool tb_plugin = false;
};

MemoryIndex build_memory_index(const TraceModel& m, const OpTree& t, const MemoryOptions& options = {});
// Bytes the index holds (its vectors' capacity): the Memory view's cost beyond the model and trees.
size_t memory_index_bytes(const MemoryIndex& x);

// A closed time window in absolute ns (tb_plugin's inclusive [start_ts, end_ts]); none: all.
struct MemoryWindow {
  int64_t from_ns = INT64_MIN, to_ns = INT64_MAX;
  bool contains(int64_t ts) const { return ts >= from_ns && ts <= to_ns; }
  bool whole() const { return from_ns == INT64_MIN && to_ns == INT64_MAX; }
};

struct MemoryStatRow {
  std::string name;
  uint64_t calls = 0;
  int64_t size_increase = 0, self_size_increase = 0;
  int64_t allocation_count = 0, self_allocation_count = 0;
  int64_t allocation_size = 0, self_allocation_size = 0;
};
// Per device (index into devices): rows sorted by operator name (spec §13.3).
std::vector<std::vector<MemoryStatRow>> memory_stats(const MemoryIndex& x, const OpTree& t, const TraceModel& m,
                                                     const MemoryWindow& w);

struct MemoryEventRow {
  int32_t name_node = -1;  // allocating operator (-1: <unknown>)
  int64_t bytes = 0;       // positive
  std::optional<int64_t> alloc_ns, release_ns;  // absolute
  uint32_t record = 0;     // the allocation's record row (the release's when no allocation)
};
// Per device: tb_plugin's pairing by address (spec §13.5), inside the window.
std::vector<std::vector<MemoryEventRow>> memory_events(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w);

// tb_plugin's label of a record's operator: the name, "<parent> (<name>)" for aten::empty*,
// "<unknown>" without one.
std::string memory_operator_label(const OpTree& t, const TraceModel& m, int32_t name_node);
// The allocating operator's call stack (call_stacks.h; 0: none), and why it has none.
StackKey memory_call_stack(const OpTree& t, const TraceModel& m, int32_t name_node);
NoStackReason memory_no_stack_reason(const OpTree& t, const TraceModel& m, int32_t name_node);

struct CurvePoint {
  int64_t ts_ns;
  int64_t allocated;  // bytes
  int64_t reserved;   // bytes, -1: not recorded
};
// Every curve point of a device inside the window (default mode), or tb_plugin's doubled and
// LTTB-sampled curve (spec §13.4).
std::vector<CurvePoint> memory_curve(const MemoryIndex& x, const TraceModel& m, int device, const MemoryWindow& w);
// The curve for drawing `columns` pixel columns over the window: per column its first, last,
// lowest and highest points (so no peak is lost), plus the level entering the window and the
// level it leaves at (at the window's end). At most ~5 points a column whatever the number of
// records.
std::vector<CurvePoint> memory_curve_downsampled(const MemoryIndex& x, const TraceModel& m, int device,
                                                 const MemoryWindow& w, int columns);

// The allocations of a device alive at `at_ns` (allocated at or before it, released after it or
// never), largest first (ties: oldest first). Needs addresses.
struct AliveAllocation {
  uint32_t record = 0;
  int32_t name_node = -1;
  int64_t bytes = 0;
  int64_t alloc_ns = 0;
};
std::vector<AliveAllocation> memory_alive(const MemoryIndex& x, const TraceModel& m, int device, int64_t at_ns);

// The device index of a label, -1 if the trace has no such device.
int memory_device_index(const MemoryIndex& x, std::string_view label);

// A device's records and peaks inside the window (the whole trace: as the index holds them).
MemoryDevice memory_device_in(const MemoryIndex& x, const TraceModel& m, int device, const MemoryWindow& w);
// The allocator's own count on a device at a moment: its last record at or before it (-1: none).
int64_t memory_allocated_at(const MemoryIndex& x, const TraceModel& m, int device, int64_t at_ns);
// tb_plugin's time origin in absolute µs (every other time of the view counts from it).
double memory_origin_us(const MemoryIndex& x);

// a - b (ns) in µs, as every memory JSON prints times: exact where int64 holds the difference,
// else computed in doubles (hostile timestamps never overflow).
double memory_us_between(int64_t a, int64_t b);

// A window from µs relative to the origin (either side may be NaN: open).
MemoryWindow memory_window_us(const MemoryIndex& x, double from_us, double to_us);

}  // namespace ks
