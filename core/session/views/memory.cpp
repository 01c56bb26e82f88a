// The Memory view's five answers (core/analysis/memory.h): the devices and their peaks, the
// statistics per operator, the allocation events, the curve and the allocations alive at a
// moment — each a column table of one time window, the view's small things (the time origin, a
// device's peaks, the allocator's count at a moment) in the metadata. `kinetoscope memory --json`
// is assembled from the first four (cli/memory_command.cpp); the page asks one device at a time.
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "core/analysis/memory.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

constexpr std::string_view kWindowFrom = "µs from the time origin (origin_us): the window's first moment, bounds inclusive as in tb_plugin; absent: open";
constexpr std::string_view kWindowTo = "µs from the time origin: the window's last moment; absent: open";
constexpr std::string_view kDevice = "a device's label (CPU, GPU0, ...); absent: every device, rows grouped by device in the devices' order";
constexpr std::string_view kDeviceEntryTs =
    "{ device: string; peak_allocated_bytes: number | null; peak_reserved_bytes: number | null; records: number; "
    "peak_us: number | null; allocated_from_bytes: boolean; has_addresses: boolean }";

}  // namespace

const ViewSchema kMemoryDevicesSchema = {
    "memory_devices",
    "MemoryDevices",
    "The devices of the trace's [memory] events with their records and peaks, of the whole trace or of a time window "
    "(`kinetoscope memory --json`'s \"devices\"). Rows: the devices sorted by label (tb_plugin's order).",
    {{"from_us", kWindowFrom}, {"to_us", kWindowTo}},
    {
        {"device", ColumnType::kString, "", "CPU, GPU0, ... as tb_plugin names them"},
        {"peak_allocated_bytes", ColumnType::kCount, "bytes",
         "largest allocated total in the window (null: none recorded); the running sum of Bytes when the trace records no totals"},
        {"peak_reserved_bytes", ColumnType::kCount, "bytes", "largest reserved total in the window (null: none recorded)"},
        {"records", ColumnType::kCount, "count", "memory events of the device in the window"},
        {"peak_us", ColumnType::kF64, "us", "when the allocated peak was first reached, from the time origin (null: no peak)"},
        {"allocated_from_bytes", ColumnType::kBool, "", "no totals recorded (PyTorch 1.9-era): allocated is the running sum of Bytes"},
        {"has_addresses", ColumnType::kBool, "", "the records carry Addr (PyTorch >= 1.10): events pair, the alive list can be built"},
    },
    {
        {"origin_us", "number", "tb_plugin's time origin (its first kept event), absolute µs: every other time counts from it"},
        {"default_device", "string | null", "the first GPU, else the CPU (null: no device)"},
    },
    {"device", "peak_allocated_bytes", "peak_reserved_bytes", "records", "peak_us", "allocated_from_bytes", "has_addresses"},
    "devices",
};

const ViewSchema kMemoryStatsSchema = {
    "memory_stats",
    "MemoryStats",
    "tb_plugin's memory statistics per operator (spec §13.3) in a time window (`kinetoscope memory --json`'s \"stats\", "
    "`--csv`). Rows: per device, sorted by operator name.",
    {{"device", kDevice}, {"from_us", kWindowFrom}, {"to_us", kWindowTo}},
    {
        {"device", ColumnType::kString, "", "the device of the row (absent when one device is asked)", false},
        {"name", ColumnType::kString, "", "the operator's name"},
        {"calls", ColumnType::kCount, "count", "calls of the operator in the window"},
        {"size_increase_bytes", ColumnType::kCount, "bytes", "bytes allocated minus released by it and the operators it called"},
        {"self_size_increase_bytes", ColumnType::kCount, "bytes", "bytes allocated minus released by it alone"},
        {"allocation_count", ColumnType::kCount, "count", "allocations by it and the operators it called"},
        {"self_allocation_count", ColumnType::kCount, "count", "allocations by it alone"},
        {"allocation_size_bytes", ColumnType::kCount, "bytes", "bytes allocated by it and the operators it called"},
        {"self_allocation_size_bytes", ColumnType::kCount, "bytes", "bytes allocated by it alone"},
    },
    {
        {"device", kDeviceEntryTs,
         "the asked device as memory_devices lists it, its records and peaks inside the window (null: every device asked)"},
    },
    {"device", "name", "calls", "size_increase_bytes", "self_size_increase_bytes", "allocation_count", "self_allocation_count",
     "allocation_size_bytes", "self_allocation_size_bytes"},
};

const ViewSchema kMemoryEventsSchema = {
    "memory_events",
    "MemoryEvents",
    "tb_plugin's memory events (spec §13.5) in a time window: each allocation paired with its release by address "
    "(`kinetoscope memory --json`'s \"events\", `--csv --events`). Rows: per device, the pairs in the order of their "
    "release, then the allocations never released, then the releases of allocations outside the window.",
    {{"device", kDevice}, {"from_us", kWindowFrom}, {"to_us", kWindowTo}},
    {
        {"device", ColumnType::kString, "", "the device of the row (absent when one device is asked)", false},
        {"operator", ColumnType::kString, "", "the allocating operator as tb_plugin names it (\"<parent> (aten::empty)\", \"<unknown>\")"},
        {"size_bytes", ColumnType::kCount, "bytes", "the allocation's size"},
        {"alloc_us", ColumnType::kF64, "us", "allocated at, from the time origin (null: outside the window)"},
        {"release_us", ColumnType::kF64, "us", "released at, from the time origin (null: outside the window or never)"},
        {"duration_us", ColumnType::kF64, "us", "release minus allocation (null: a side missing)"},
        {"call_stack", ColumnType::kString, "", "the allocating operator's call stack, innermost frame first, ';' between frames (\"\": none)", false},
        {"no_stack", ColumnType::kString, "", "why it has no call stack (\"\" when it has one)", false},
    },
    {},
    {"device", "operator", "size_bytes", "alloc_us", "release_us", "duration_us"},
};

const ViewSchema kMemoryCurveSchema = {
    "memory_curve",
    "MemoryCurve",
    "The memory curve (spec §13.4) in a time window: every point with a total (tb_plugin mode: its doubled step plot, "
    "LTTB-sampled to 10,240 points), or, given `columns`, per pixel column its first, last, lowest and highest points "
    "plus the levels entering and leaving the window (`kinetoscope memory --json`'s \"curve\"). Rows: per device, in "
    "time order.",
    {{"device", kDevice},
     {"from_us", kWindowFrom},
     {"to_us", kWindowTo},
     {"columns", "the pixel columns the curve is drawn over (at most ~5 points each); absent: every point"}},
    {
        {"device", ColumnType::kString, "", "the device of the row (absent when one device is asked)", false},
        {"t_us", ColumnType::kF64, "us", "the moment, from the time origin"},
        {"allocated_bytes", ColumnType::kCount, "bytes", "allocated after it"},
        {"reserved_bytes", ColumnType::kCount, "bytes", "reserved after it (null: not recorded)"},
    },
    {
        {"device", "string | null", "the asked device (null: every device asked)"},
        {"peak_allocated_bytes", "number | null", "the device's largest allocated total inside the window (null: none, or every device asked)"},
        {"peak_reserved_bytes", "number | null", "its largest reserved total inside the window"},
        {"peak_us", "number | null", "when the allocated peak was first reached inside the window"},
    },
    {"device", "t_us", "allocated_bytes", "reserved_bytes"},
};

const ViewSchema kMemoryAliveSchema = {
    "memory_alive",
    "MemoryAlive",
    "The allocations of a device alive at a moment (allocated at or before it, released after it or never), which "
    "tb_plugin never answered. Rows: largest first (ties: oldest first).",
    {{"device", "a device's label; absent: the default device"},
     {"at_us", "µs from the time origin; absent: the moment of the device's allocated peak"},
     {"limit", "at most this many rows (count says how many are alive); absent: all"}},
    {
        {"operator", ColumnType::kString, "", "the allocating operator as the events name it"},
        {"size_bytes", ColumnType::kCount, "bytes", "the allocation's size"},
        {"alloc_us", ColumnType::kF64, "us", "allocated at, from the time origin"},
        {"age_us", ColumnType::kF64, "us", "at_us minus alloc_us"},
        {"call_stack", ColumnType::kString, "", "the allocating operator's call stack, innermost frame first, ';' between frames (\"\": none)"},
        {"no_stack", ColumnType::kString, "", "why it has no call stack (\"\" when it has one)"},
    },
    {
        {"device", "string", "the device"},
        {"at_us", "number", "the moment, from the time origin"},
        {"allocated_bytes", "number | null", "the allocator's own count at that moment (its last record at or before it; null: none)"},
        {"alive_bytes", "number", "the bytes of the allocations alive then (below allocated_bytes: the rest was allocated before profiling)"},
        {"addresses", "boolean", "the device's records carry addresses (without them nothing pairs and no row is alive)"},
        {"count", "number", "allocations alive then (rows holds the `limit` largest)"},
    },
    {"operator", "size_bytes", "alloc_us", "age_us", "call_stack", "no_stack"},
};

namespace {

// A number parameter: absent or "" is NaN (an open side); anything but a whole number text fails.
bool number_param(QueryParamsRef p, std::string_view name, double& out, std::string& error) {
  out = NAN;
  const std::string_view text = param(p, name);
  if (text.empty()) return true;
  const std::string s(text);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || std::isnan(out)) {
    error = std::string(name) + " is not a number: " + s;
    return false;
  }
  return true;
}

bool window_params(const MemoryIndex& x, QueryParamsRef p, MemoryWindow& w, std::string& error) {
  double from = NAN, to = NAN;
  if (!number_param(p, "from_us", from, error) || !number_param(p, "to_us", to, error)) return false;
  if (from > to) {
    error = "from_us is after to_us";
    return false;
  }
  w = memory_window_us(x, from, to);
  return true;
}

std::string no_device(const MemoryIndex& x, std::string_view device) {
  if (x.devices.empty()) return "This trace has no memory events (record it with profile_memory=True).";
  std::string list;
  for (const MemoryDevice& d : x.devices) list += (list.empty() ? "" : ", ") + d.label;
  return "no device " + std::string(device) + " (the devices are " + list + ")";
}

// The `device` parameter: -1 (absent) for every device, else its index; false for a label the
// trace lacks.
bool device_param(const MemoryIndex& x, QueryParamsRef p, int& d, std::string& error) {
  d = -1;
  const std::string_view label = param(p, "device");
  if (label.empty()) return true;
  d = memory_device_index(x, label);
  if (d < 0) error = no_device(x, label);
  return d >= 0;
}

double count_or_null(int64_t v) { return v >= 0 ? double(v) : NAN; }

// The devices' rows (each with its records and peaks inside the window).
Answer devices_answer(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w, int only = -1) {
  std::vector<MemoryDevice> devs;
  for (size_t d = 0; d < x.devices.size(); ++d)
    if (only < 0 || size_t(only) == d) devs.push_back(memory_device_in(x, m, int(d), w));
  AnswerBuilder b(kMemoryDevicesSchema, devs.size());
  {
    JsonWriter jw;
    jw.value(memory_origin_us(x));
    b.meta("origin_us", jw.take());
  }
  {
    JsonWriter jw;
    if (x.default_device >= 0) jw.value(x.devices[size_t(x.default_device)].label);
    else jw.null();
    b.meta("default_device", jw.take());
  }
  b.rows_here();
  AnswerColumn& label = b.add("device");
  for (const MemoryDevice& d : devs) label.str.push_back(b.intern(d.label));
  AnswerColumn& peak_a = b.add("peak_allocated_bytes");
  for (const MemoryDevice& d : devs) peak_a.f64.push_back(count_or_null(d.peak_allocated));
  AnswerColumn& peak_r = b.add("peak_reserved_bytes");
  for (const MemoryDevice& d : devs) peak_r.f64.push_back(count_or_null(d.peak_reserved));
  AnswerColumn& records = b.add("records");
  for (const MemoryDevice& d : devs) records.f64.push_back(double(d.records));
  AnswerColumn& peak_us = b.add("peak_us");
  for (const MemoryDevice& d : devs) peak_us.f64.push_back(d.peak_allocated >= 0 ? memory_us_between(d.peak_ts_ns, x.origin_ns) : NAN);
  AnswerColumn& from_bytes = b.add("allocated_from_bytes");
  for (const MemoryDevice& d : devs) from_bytes.u8.push_back(d.allocated_from_bytes ? 1 : 0);
  AnswerColumn& addresses = b.add("has_addresses");
  for (const MemoryDevice& d : devs) addresses.u8.push_back(d.has_addresses ? 1 : 0);
  return b.take();
}

// The devices asked for: one, or every one.
std::vector<size_t> devices_of(const MemoryIndex& x, int device) {
  std::vector<size_t> out;
  for (size_t d = 0; d < x.devices.size(); ++d)
    if (device < 0 || size_t(device) == d) out.push_back(d);
  return out;
}

// Labels, call stacks and their notes of the operators naming memory rows, each made once.
class OperatorNames {
 public:
  OperatorNames(const OpTree& t, const TraceModel& m, AnswerBuilder& b) : t_(t), m_(m), b_(b) {}
  struct Ids {
    uint32_t label, stack, note;
  };
  const Ids& of(int32_t name_node) {
    auto it = ids_.find(name_node);
    if (it != ids_.end()) return it->second;
    Ids ids;
    ids.label = b_.intern(memory_operator_label(t_, m_, name_node));
    const StackKey cs = memory_call_stack(t_, m_, name_node);
    ids.stack = b_.intern(cs ? stack_text(t_.stacks, m_, cs) : std::string());
    ids.note = b_.intern(cs ? "" : no_stack_text(memory_no_stack_reason(t_, m_, name_node)));
    return ids_.emplace(name_node, ids).first->second;
  }

 private:
  const OpTree& t_;
  const TraceModel& m_;
  AnswerBuilder& b_;
  std::unordered_map<int32_t, Ids> ids_;
};

}  // namespace

Answer memory_devices_answer(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w) {
  return devices_answer(x, m, w);
}

Answer memory_stats_answer(const MemoryIndex& x, const OpTree& t, const TraceModel& m, const MemoryWindow& w, int device) {
  const auto stats = memory_stats(x, t, m, w);
  const std::vector<size_t> devs = devices_of(x, device);
  size_t n = 0;
  for (size_t d : devs) n += stats[d].size();
  AnswerBuilder b(kMemoryStatsSchema, n);
  b.meta("device", device < 0 ? "null" : answer_row_json(devices_answer(x, m, w, device), 0));
  b.rows_here();
  AnswerColumn& label = b.add("device", device < 0);
  for (size_t d : devs) {
    if (device >= 0) break;  // one device asked: the column is absent, no cell
    const uint32_t id = b.intern(x.devices[d].label);
    label.str.insert(label.str.end(), stats[d].size(), id);
  }
  AnswerColumn& name = b.add("name");
  for (size_t d : devs)
    for (const MemoryStatRow& r : stats[d]) name.str.push_back(b.intern(r.name));
  auto number = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (size_t d : devs)
      for (const MemoryStatRow& r : stats[d]) c.f64.push_back(double(value(r)));
  };
  number("calls", [](const MemoryStatRow& r) { return r.calls; });
  number("size_increase_bytes", [](const MemoryStatRow& r) { return r.size_increase; });
  number("self_size_increase_bytes", [](const MemoryStatRow& r) { return r.self_size_increase; });
  number("allocation_count", [](const MemoryStatRow& r) { return r.allocation_count; });
  number("self_allocation_count", [](const MemoryStatRow& r) { return r.self_allocation_count; });
  number("allocation_size_bytes", [](const MemoryStatRow& r) { return r.allocation_size; });
  number("self_allocation_size_bytes", [](const MemoryStatRow& r) { return r.self_allocation_size; });
  return b.take();
}

Answer memory_events_answer(const MemoryIndex& x, const OpTree& t, const TraceModel& m, const MemoryWindow& w, int device) {
  auto events = memory_events(x, m, w);
  const std::vector<size_t> devs = devices_of(x, device);
  size_t n = 0;
  for (size_t d : devs) n += events[d].size();
  AnswerBuilder b(kMemoryEventsSchema, n);
  AnswerColumn& label = b.add("device", device < 0);
  for (size_t d : devs) {
    if (device >= 0) break;  // one device asked: the column is absent, no cell
    const uint32_t id = b.intern(x.devices[d].label);
    label.str.insert(label.str.end(), events[d].size(), id);
  }
  OperatorNames names(t, m, b);
  AnswerColumn& op = b.add("operator");
  AnswerColumn& size = b.add("size_bytes");
  AnswerColumn& alloc = b.add("alloc_us");
  AnswerColumn& release = b.add("release_us");
  AnswerColumn& duration = b.add("duration_us");
  AnswerColumn& stack = b.add("call_stack");
  AnswerColumn& note = b.add("no_stack");
  for (size_t d : devs) {
    for (const MemoryEventRow& e : events[d]) {
      const OperatorNames::Ids& ids = names.of(e.name_node);
      op.str.push_back(ids.label);
      stack.str.push_back(ids.stack);
      note.str.push_back(ids.note);
      size.f64.push_back(double(e.bytes));
      alloc.f64.push_back(e.alloc_ns ? memory_us_between(*e.alloc_ns, x.origin_ns) : NAN);
      release.f64.push_back(e.release_ns ? memory_us_between(*e.release_ns, x.origin_ns) : NAN);
      duration.f64.push_back(e.alloc_ns && e.release_ns ? memory_us_between(*e.release_ns, *e.alloc_ns) : NAN);
    }
    std::vector<MemoryEventRow>().swap(events[d]);  // the device's rows are columns now
  }
  return b.take();
}

Answer memory_curve_answer(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w, int device, int columns) {
  const std::vector<size_t> devs = devices_of(x, device);
  std::vector<std::vector<CurvePoint>> curves;
  size_t n = 0;
  for (size_t d : devs) {
    curves.push_back(columns > 0 ? memory_curve_downsampled(x, m, int(d), w, columns) : memory_curve(x, m, int(d), w));
    n += curves.back().size();
  }
  AnswerBuilder b(kMemoryCurveSchema, n);
  {
    JsonWriter jw;
    if (device >= 0) jw.value(x.devices[size_t(device)].label);
    else jw.null();
    b.meta("device", jw.take());
  }
  // The peaks inside the window, beside the points (a down-sampled curve keeps them, but says
  // so only by its shape).
  const MemoryDevice peak = device >= 0 ? memory_device_in(x, m, device, w) : MemoryDevice{};
  auto number_or_null = [](double v) {
    JsonWriter jw;
    jw.value(v);
    return jw.take();
  };
  b.meta("peak_allocated_bytes", peak.peak_allocated >= 0 ? std::to_string(peak.peak_allocated) : "null");
  b.meta("peak_reserved_bytes", peak.peak_reserved >= 0 ? std::to_string(peak.peak_reserved) : "null");
  b.meta("peak_us", peak.peak_allocated >= 0 ? number_or_null(memory_us_between(peak.peak_ts_ns, x.origin_ns)) : "null");
  b.rows_here();
  AnswerColumn& label = b.add("device", device < 0);
  for (size_t k = 0; k < devs.size() && device < 0; ++k) {
    const uint32_t id = b.intern(x.devices[devs[k]].label);
    label.str.insert(label.str.end(), curves[k].size(), id);
  }
  AnswerColumn& t = b.add("t_us");
  AnswerColumn& allocated = b.add("allocated_bytes");
  AnswerColumn& reserved = b.add("reserved_bytes");
  for (const std::vector<CurvePoint>& c : curves) {
    for (const CurvePoint& p : c) {
      t.f64.push_back(memory_us_between(p.ts_ns, x.origin_ns));
      allocated.f64.push_back(double(p.allocated));
      reserved.f64.push_back(count_or_null(p.reserved));
    }
  }
  return b.take();
}

Answer memory_alive_answer(const MemoryIndex& x, const OpTree& t, const TraceModel& m, int device, int64_t at_ns, size_t limit) {
  const std::vector<AliveAllocation> alive = memory_alive(x, m, device, at_ns);
  const size_t n = std::min(limit, alive.size());
  AnswerBuilder b(kMemoryAliveSchema, n);
  int64_t sum = 0;
  for (const AliveAllocation& a : alive) sum = __builtin_add_overflow(sum, a.bytes, &sum) ? INT64_MAX : sum;
  {
    JsonWriter jw;
    jw.value(device >= 0 ? x.devices[size_t(device)].label : std::string());
    b.meta("device", jw.take());
  }
  {
    JsonWriter jw;
    jw.value(memory_us_between(at_ns, x.origin_ns));
    b.meta("at_us", jw.take());
  }
  const int64_t allocated = memory_allocated_at(x, m, device, at_ns);
  b.meta("allocated_bytes", allocated >= 0 ? std::to_string(allocated) : "null");
  b.meta("alive_bytes", std::to_string(sum));
  b.meta("addresses", device >= 0 && x.devices[size_t(device)].has_addresses ? "true" : "false");
  b.meta("count", std::to_string(alive.size()));
  b.rows_here();
  OperatorNames names(t, m, b);
  AnswerColumn& op = b.add("operator");
  AnswerColumn& size = b.add("size_bytes");
  AnswerColumn& alloc = b.add("alloc_us");
  AnswerColumn& age = b.add("age_us");
  AnswerColumn& stack = b.add("call_stack");
  AnswerColumn& note = b.add("no_stack");
  for (size_t i = 0; i < n; ++i) {
    const AliveAllocation& a = alive[i];
    const OperatorNames::Ids& ids = names.of(a.name_node);
    op.str.push_back(ids.label);
    stack.str.push_back(ids.stack);
    note.str.push_back(ids.note);
    size.f64.push_back(double(a.bytes));
    alloc.f64.push_back(memory_us_between(a.alloc_ns, x.origin_ns));
    age.f64.push_back(memory_us_between(at_ns, a.alloc_ns));
  }
  return b.take();
}

// --- the Session's answers: parameters read, the index of the Session's graph ------------------

Answer memory_devices_query(const Session& s, QueryParamsRef p) {
  const MemoryIndex& x = s.memory();
  MemoryWindow w;
  std::string error;
  if (!window_params(x, p, w, error)) return error_answer(kMemoryDevicesSchema, error);
  return memory_devices_answer(x, s.model(), w);
}

Answer memory_stats_query(const Session& s, QueryParamsRef p) {
  const MemoryIndex& x = s.memory();
  MemoryWindow w;
  int d = -1;
  std::string error;
  if (!device_param(x, p, d, error) || !window_params(x, p, w, error)) return error_answer(kMemoryStatsSchema, error);
  return memory_stats_answer(x, s.tree(), s.model(), w, d);
}

Answer memory_events_query(const Session& s, QueryParamsRef p) {
  const MemoryIndex& x = s.memory();
  MemoryWindow w;
  int d = -1;
  std::string error;
  if (!device_param(x, p, d, error) || !window_params(x, p, w, error)) return error_answer(kMemoryEventsSchema, error);
  return memory_events_answer(x, s.tree(), s.model(), w, d);
}

Answer memory_curve_query(const Session& s, QueryParamsRef p) {
  const MemoryIndex& x = s.memory();
  MemoryWindow w;
  int d = -1;
  double columns = NAN;
  std::string error;
  if (!device_param(x, p, d, error) || !window_params(x, p, w, error) || !number_param(p, "columns", columns, error))
    return error_answer(kMemoryCurveSchema, error);
  if (!std::isnan(columns) && !(columns >= 1 && columns <= 1e6)) return error_answer(kMemoryCurveSchema, "columns must be 1 to 1000000");
  return memory_curve_answer(x, s.model(), w, d, std::isnan(columns) ? 0 : int(columns));
}

Answer memory_alive_query(const Session& s, QueryParamsRef p) {
  const MemoryIndex& x = s.memory();
  int d = -1;
  double at = NAN, limit = NAN;
  std::string error;
  if (!device_param(x, p, d, error) || !number_param(p, "at_us", at, error) || !number_param(p, "limit", limit, error))
    return error_answer(kMemoryAliveSchema, error);
  if (d < 0) d = x.default_device;
  if (d < 0) return error_answer(kMemoryAliveSchema, no_device(x, ""));
  if (!std::isnan(limit) && !(limit >= 0)) return error_answer(kMemoryAliveSchema, "limit must be 0 or more");
  const int64_t at_ns = std::isnan(at) ? x.devices[size_t(d)].peak_ts_ns : memory_window_us(x, at, at).from_ns;
  return memory_alive_answer(x, s.tree(), s.model(), d, at_ns, std::isnan(limit) || limit >= 1e15 ? SIZE_MAX : size_t(limit));
}

}  // namespace ks
