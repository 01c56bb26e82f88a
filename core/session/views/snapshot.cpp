// The memory snapshot's views (issue 26), answered by a SnapshotSession: the per-device numbers
// `kinetoscope snapshot` prints (snapshot-summary, snapshot-ooms, snapshot-sites; the CLI's --json
// is assembled from them), the active memory timeline drawn by the core per pixel column
// (snapshot-timeline and its columns, snapshot_bands.h), and what is alive at the peak
// (snapshot-peak grouped by allocation site, snapshot-peak-tree its stacks as a tree of bytes).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "core/session/snapshot_session.h"
#include "core/snapshot/allocator_state.h"
#include "core/session/views.h"
#include "core/session/views/snapshot_views.h"
#include "core/session/views/snapshot_text.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

namespace snapshot_views {

constexpr const char* kBeforeHistory = "<allocated before the history began>";
constexpr const char* kNoStack = "<no stack recorded>";

const ParamSpec kDeviceParam{"device", "the device (0, 1, ...); default: every device"};
const ParamSpec kOneDeviceParam{"device", "the device (0, 1, ...); default: the first device of the snapshot"};

double opt_time(int64_t t) { return t < 0 ? NAN : double(t); }
double opt_entry(int64_t e) { return e < 0 ? NAN : double(e); }

std::string json_string(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return w.take();
}
std::string json_number(double v) {
  JsonWriter w;
  if (std::isnan(v)) w.null();
  else w.value(v);
  return w.take();
}
std::string json_int(int64_t v) {
  JsonWriter w;
  w.value(v);
  return w.take();
}

bool ends_with(std::string_view s, std::string_view t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// The devices a query is about: the one asked (an error when the snapshot lacks it or it is no
// number), else every device (all) or the first (!all).
bool devices_of(const SnapshotSession& s, QueryParamsRef params, bool all, std::vector<int64_t>& out, std::string& error) {
  const std::string_view d = param(params, "device");
  if (d.empty()) {
    out = s.devices();
    if (!all && out.size() > 1) out.erase(out.begin() + 1, out.end());
    if (out.empty()) error = "The snapshot has no device.";
    return out.size() > 0;
  }
  const std::optional<int64_t> v = parse_int(d);
  if (!v || *v < 0) {
    error = "device takes a device number (0, 1, ...), not \"" + std::string(d) + "\".";
    return false;
  }
  if (!s.has_device(*v)) {
    error = "The snapshot has no device " + std::to_string(*v) + ".";
    return false;
  }
  out = {*v};
  return true;
}

// A failed read answers every view with the reader's sentence.
bool readable(const SnapshotSession& s, std::string& error) {
  if (!s.failed()) return true;
  error = s.reader().error();
  return false;
}

// A stack as text, innermost frame first, one "name (file:line)" a line.
std::string stack_text(const SnapshotModel& m, uint32_t stack) {
  if (stack == 0 || stack >= m.stack_count()) return {};
  std::string out;
  for (size_t k = 0; k < m.stack_size(stack); ++k) {
    const SnapFrame& f = m.stack_frame(stack, k);
    if (!out.empty()) out += '\n';
    out += std::string(m.strings.get(f.name)) + " (" + std::string(m.strings.get(f.filename)) + ":" + std::to_string(f.line) + ")";
  }
  return out;
}

std::string frame_label(const SnapshotModel& m, const SnapFrame& f) {
  return std::string(m.strings.get(f.filename)) + ":" + std::to_string(f.line) + ":" + std::string(m.strings.get(f.name));
}

// Whether an allocation's stack is its own: one allocated before the history and freed in it has
// its free's stack, not its allocation's (as snapshot_stats' sites).
bool own_stack(const SnapElem& e) { return !(e.before && (e.stack == 0 || e.to != INT64_MAX)); }

// An allocation's site to `depth` Python frames, innermost first (depth 1: snapshot_site's label);
// a stack without Python frames: its innermost frame.
std::string site_label(const SnapshotModel& m, const SnapElem& e, int depth) {
  if (!own_stack(e)) return kBeforeHistory;
  const uint32_t s = e.stack;
  if (s == 0 || s >= m.stack_count() || m.stack_size(s) == 0) return kNoStack;
  std::string out;
  int taken = 0;
  for (size_t k = 0; k < m.stack_size(s) && taken < depth; ++k) {
    const SnapFrame& f = m.stack_frame(s, k);
    if (!ends_with(m.strings.get(f.filename), ".py")) continue;
    if (taken++) out += " ← ";
    out += frame_label(m, f);
  }
  return taken ? out : frame_label(m, m.stack_frame(s, 0));
}

std::string address_text(uint64_t a) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)a);
  return b;
}

}  // namespace snapshot_views

using namespace snapshot_views;

std::string snapshot_elem_site(const SnapshotModel& m, const SnapElem& e) { return site_label(m, e, 1); }
std::string snapshot_elem_stack_text(const SnapshotModel& m, const SnapElem& e) { return own_stack(e) ? stack_text(m, e.stack) : std::string(); }

// ---- snapshot-summary ----------------------------------------------------------------------

const ViewSchema kSnapshotSummarySchema = {
    "snapshot-summary",
    "SnapshotSummary",
    "A CUDA allocator snapshot's numbers per device, as `kinetoscope snapshot --json` prints them: the history's "
    "entries, allocations and frees, the peak of the allocated memory (counting the blocks alive before the history "
    "began, as pytorch.org/memory_viz does), reserved memory and segments at the dump. Rows: devices, ascending.",
    {kDeviceParam, {"at_us", "also the state at this time (time_us): the at_* columns"}},
    {
        {"device", ColumnType::kCount, "", "the CUDA device"},
        {"trace_entries", ColumnType::kCount, "count", "entries of the allocator's history (device_traces)"},
        {"allocations", ColumnType::kCount, "count", "alloc entries"},
        {"frees", ColumnType::kCount, "count", "free_completed entries (and older histories' free)"},
        {"peak_allocated_bytes", ColumnType::kCount, "bytes", "the most memory allocated at once, blocks alive before the history included"},
        {"peak_at_us", ColumnType::kCount, "us", "the time of the peak's entry (the first entry's when the peak is before it; null without times)"},
        {"peak_entry", ColumnType::kCount, "", "the entry after which the peak was first reached (-1: before the first entry)"},
        {"peak_reserved_bytes", ColumnType::kCount, "bytes", "the most memory reserved (segments) at once"},
        {"before_history_bytes", ColumnType::kCount, "bytes", "allocated before the history's first entry"},
        {"allocated_at_dump_bytes", ColumnType::kCount, "bytes", "the segments' allocated_size at the dump (rounded blocks)"},
        {"reserved_at_dump_bytes", ColumnType::kCount, "bytes", "the segments' total_size at the dump"},
        {"alive_at_dump_bytes", ColumnType::kCount, "bytes", "the timeline's level after its last entry (requested sizes)"},
        {"segments", ColumnType::kCount, "count", "segments at the dump"},
        {"oom_count", ColumnType::kCount, "count", "out-of-memory entries (snapshot-ooms lists them)"},
        {"at_us", ColumnType::kCount, "us", "the time asked (at_us)", true, true},
        {"at_entry", ColumnType::kCount, "", "the last entry at or before it (-1: before the first)", true, true},
        {"at_allocated_bytes", ColumnType::kCount, "bytes", "allocated then", true, true},
        {"at_reserved_bytes", ColumnType::kCount, "bytes", "reserved then", true, true},
    },
    {
        {"file", "string", "the file's name"},
        {"ok", "boolean", "the file read as a snapshot (false: `error` says why, and there are no rows)"},
        {"error", "string | null", "one sentence: why nothing could be read, or what was lost (a truncated file); null when read whole"},
        {"bytes", "number", "bytes of the file read"},
        {"has_history", "boolean", "the snapshot holds the allocator's history (recorded with _record_memory_history)"},
        {"health", "{ what: string; count: number }[]", "what did not fit the snapshot's schema and was skipped, by name"},
        {"allocator_settings", "Record<string, string>", "the snapshot's allocator_settings, each value as Python writes it"},
        {"external_annotations", "{ stage: string; name: string; device: number; time_us: number | null }[]",
         "the snapshot's external_annotations: record_function ranges' START and END"},
    },
    {"device", "trace_entries", "allocations", "frees", "peak_allocated_bytes", "peak_at_us", "peak_entry",
     "peak_reserved_bytes", "before_history_bytes", "allocated_at_dump_bytes", "reserved_at_dump_bytes",
     "alive_at_dump_bytes", "segments", "oom_count"},
};

Answer snapshot_summary_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  std::optional<int64_t> at_us;
  if (const std::string_view a = param(params, "at_us"); !a.empty()) {
    at_us = parse_int(a);
    if (!at_us) return error_answer(kSnapshotSummarySchema, "at_us takes a time in microseconds (the snapshot's time_us), not \"" + std::string(a) + "\".");
  }
  const bool ok = !s.failed();
  if (ok && !devices_of(s, params, true, devices, error) && !param(params, "device").empty())
    return error_answer(kSnapshotSummarySchema, error);
  std::vector<SnapDeviceStats> at_stats;  // with at_us: computed for this answer
  at_stats.reserve(devices.size());
  std::vector<const SnapDeviceStats*> stats;
  for (int64_t d : devices) {
    if (at_us) at_stats.push_back(snapshot_device_stats(s.history(d), d, at_us));
    else stats.push_back(&s.stats(d));
  }
  for (const SnapDeviceStats& st : at_stats) stats.push_back(&st);
  AnswerBuilder b(kSnapshotSummarySchema, stats.size());
  b.meta("file", json_string(s.file()));
  b.meta("ok", ok ? "true" : "false");
  b.meta("error", s.reader().error().empty() ? "null" : json_string(s.reader().error()));
  b.meta("bytes", json_int(int64_t(s.reader().bytes_read())));
  b.meta("has_history", ok && s.model().has_history ? "true" : "false");
  {
    JsonWriter w;
    w.begin_array();
    if (ok)
      for (const auto& [what, n] : s.model().health) w.begin_object().key("what").value(what).key("count").value(uint64_t(n)).end_object();
    w.end_array();
    b.meta("health", w.take());
  }
  {
    JsonWriter w;
    w.begin_object();
    if (ok)
      for (const auto& [k, v] : s.model().allocator_settings) w.key(k).value(v);
    w.end_object();
    b.meta("allocator_settings", w.take());
    JsonWriter a;
    a.begin_array();
    if (ok)
      for (const SnapAnnotation& x : s.model().annotations) {
        a.begin_object().key("stage").value(x.start ? "START" : "END").key("name").value(s.model().strings.get(x.name));
        a.key("device").value(x.device).key("time_us");
        if (x.time_us >= 0) a.value(x.time_us);
        else a.null();
        a.end_object();
      }
    a.end_array();
    b.meta("external_annotations", a.take());
  }
  b.rows_here();
  auto col = [&](const char* name, auto get) {
    AnswerColumn& c = b.add(name);
    for (const SnapDeviceStats* st : stats) c.f64.push_back(get(*st));
  };
  col("device", [](const SnapDeviceStats& x) { return double(x.device); });
  col("trace_entries", [](const SnapDeviceStats& x) { return double(x.trace_entries); });
  col("allocations", [](const SnapDeviceStats& x) { return double(x.allocations); });
  col("frees", [](const SnapDeviceStats& x) { return double(x.frees); });
  col("peak_allocated_bytes", [](const SnapDeviceStats& x) { return double(x.peak_allocated_bytes); });
  col("peak_at_us", [](const SnapDeviceStats& x) { return opt_time(x.peak_at_us); });
  col("peak_entry", [](const SnapDeviceStats& x) { return double(x.peak_entry); });
  col("peak_reserved_bytes", [](const SnapDeviceStats& x) { return double(x.peak_reserved_bytes); });
  col("before_history_bytes", [](const SnapDeviceStats& x) { return double(x.before_history_bytes); });
  col("allocated_at_dump_bytes", [](const SnapDeviceStats& x) { return double(x.allocated_at_dump_bytes); });
  col("reserved_at_dump_bytes", [](const SnapDeviceStats& x) { return double(x.reserved_at_dump_bytes); });
  col("alive_at_dump_bytes", [](const SnapDeviceStats& x) { return double(x.alive_at_dump_bytes); });
  col("segments", [](const SnapDeviceStats& x) { return double(x.segments); });
  col("oom_count", [](const SnapDeviceStats& x) { return double(x.ooms.size()); });
  if (at_us) {
    col("at_us", [](const SnapDeviceStats& x) { return double(x.at->at_us); });
    col("at_entry", [](const SnapDeviceStats& x) { return double(x.at->entry); });
    col("at_allocated_bytes", [](const SnapDeviceStats& x) { return double(x.at->allocated_bytes); });
    col("at_reserved_bytes", [](const SnapDeviceStats& x) { return double(x.at->reserved_bytes); });
  }
  return b.take();
}

// ---- snapshot-ooms -------------------------------------------------------------------------

const ViewSchema kSnapshotOomsSchema = {
    "snapshot-ooms",
    "SnapshotOoms",
    "Each out-of-memory event of the allocator's history: the size asked for, the device's free memory the allocator "
    "saw, the memory allocated (the timeline's level) and reserved then, the fragmentation then (the allocator's "
    "segments replayed to that moment: core/snapshot/allocator_state.h), and the stack of the allocation that "
    "failed. Rows: by device, then in the history's order.",
    {kDeviceParam},
    {
        {"device", ColumnType::kCount, "", "the CUDA device"},
        {"entry", ColumnType::kCount, "", "the oom's entry in the device's history"},
        {"at_us", ColumnType::kCount, "us", "its time (null without times)"},
        {"requested_bytes", ColumnType::kCount, "bytes", "the size asked for"},
        {"device_free_bytes", ColumnType::kCount, "bytes", "the device's free memory the allocator saw (cudaMemGetInfo)"},
        {"allocated_bytes", ColumnType::kCount, "bytes", "allocated then (the timeline's level)"},
        {"reserved_bytes", ColumnType::kCount, "bytes", "reserved then (the segments held)"},
        {"alive_blocks", ColumnType::kCount, "", "blocks allocated or awaiting their free then"},
        {"alive_block_bytes", ColumnType::kCount, "bytes", "their (rounded) sizes"},
        {"inactive_bytes", ColumnType::kCount, "bytes", "reserved but free then: cached in the segments"},
        {"largest_inactive_bytes", ColumnType::kCount, "bytes", "the largest free block in the cached segments then"},
        {"site", ColumnType::kString, "", "the failing allocation's innermost Python frame (file:line:name)"},
        {"stack", ColumnType::kString, "", "its stack, innermost frame first, a frame a line (null: none recorded)"},
    },
    {},
    {"device", "entry", "at_us", "requested_bytes", "device_free_bytes", "allocated_bytes", "reserved_bytes", "alive_blocks",
     "alive_block_bytes", "inactive_bytes", "largest_inactive_bytes", "site", "stack"},
};

Answer snapshot_ooms_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!readable(s, error) || !devices_of(s, params, true, devices, error)) return error_answer(kSnapshotOomsSchema, error);
  const SnapshotModel& m = s.model();
  size_t n = 0;
  for (int64_t d : devices) n += s.stats(d).ooms.size();
  AnswerBuilder b(kSnapshotOomsSchema, n);
  b.rows_here();
  AnswerColumn &device = b.add("device"), &entry = b.add("entry"), &at = b.add("at_us"), &req = b.add("requested_bytes"),
               &free = b.add("device_free_bytes"), &alloc = b.add("allocated_bytes"), &res = b.add("reserved_bytes"),
               &blocks = b.add("alive_blocks"), &block_bytes = b.add("alive_block_bytes"), &inactive = b.add("inactive_bytes"),
               &largest = b.add("largest_inactive_bytes"), &site = b.add("site"), &stack = b.add("stack");
  for (int64_t d : devices) {
    const SnapTrace& t = m.devices[size_t(d)];
    const std::vector<SnapOom>& ooms = s.stats(d).ooms;
    const std::vector<OomFragmentation> frag = ooms.empty() ? std::vector<OomFragmentation>() : oom_fragmentation(m, d);
    for (size_t k = 0; k < ooms.size(); ++k) {
      const SnapOom& o = ooms[k];
      const OomFragmentation f = k < frag.size() ? frag[k] : OomFragmentation{};
      blocks.f64.push_back(double(f.alive_blocks));
      block_bytes.f64.push_back(double(f.alive_block_bytes));
      inactive.f64.push_back(double(f.inactive_bytes));
      largest.f64.push_back(double(f.largest_inactive_bytes));
      device.f64.push_back(double(d));
      entry.f64.push_back(double(o.entry));
      at.f64.push_back(opt_time(o.at_us));
      req.f64.push_back(double(o.requested_bytes));
      free.f64.push_back(double(o.device_free_bytes));
      alloc.f64.push_back(double(o.allocated_bytes));
      res.f64.push_back(double(o.reserved_bytes));
      const uint32_t st = t.stack[o.entry];
      site.str.push_back(b.intern(snapshot_site(m, st)));
      const std::string text = stack_text(m, st);
      stack.str.push_back(text.empty() ? kNullString : b.intern(text));
    }
  }
  return b.take();
}

// ---- snapshot-sites ------------------------------------------------------------------------

const ViewSchema kSnapshotSitesSchema = {
    "snapshot-sites",
    "SnapshotSites",
    "What held the memory at the peak (or, with at_us, at that time) by allocation site, the innermost Python frame "
    "of each allocation's stack, as `kinetoscope snapshot` lists them: the 20 largest per device. Rows: by device, "
    "most bytes first.",
    {kDeviceParam, {"at_us", "the sites at this time (time_us) instead of at the peak"}},
    {
        {"device", ColumnType::kCount, "", "the CUDA device"},
        {"frame", ColumnType::kString, "", "filename:line:name of the innermost Python frame, or a <...> label"},
        {"bytes_at_peak", ColumnType::kCount, "bytes", "bytes its allocations held then"},
        {"allocations", ColumnType::kCount, "count", "its allocations alive then"},
    },
    {},
    {"device", "frame", "bytes_at_peak", "allocations"},
};

Answer snapshot_sites_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!readable(s, error) || !devices_of(s, params, true, devices, error)) return error_answer(kSnapshotSitesSchema, error);
  std::optional<int64_t> at_us;
  if (const std::string_view a = param(params, "at_us"); !a.empty()) {
    at_us = parse_int(a);
    if (!at_us) return error_answer(kSnapshotSitesSchema, "at_us takes a time in microseconds (the snapshot's time_us), not \"" + std::string(a) + "\".");
  }
  std::vector<std::pair<int64_t, SnapSite>> rows;
  for (int64_t d : devices) {
    if (at_us) {
      const SnapDeviceStats st = snapshot_device_stats(s.model(), d, at_us);
      for (const SnapSite& x : st.at->top_sites) rows.emplace_back(d, x);
    } else {
      for (const SnapSite& x : s.stats(d).top_sites) rows.emplace_back(d, x);
    }
  }
  AnswerBuilder b(kSnapshotSitesSchema, rows.size());
  b.rows_here();
  AnswerColumn &device = b.add("device"), &frame = b.add("frame"), &bytes = b.add("bytes_at_peak"), &n = b.add("allocations");
  for (const auto& [d, x] : rows) {
    device.f64.push_back(double(d));
    frame.str.push_back(b.intern(x.frame));
    bytes.f64.push_back(double(x.bytes));
    n.f64.push_back(double(x.allocations));
  }
  return b.take();
}

// ---- snapshot-peak -------------------------------------------------------------------------

const ViewSchema kSnapshotPeakSchema = {
    "snapshot-peak",
    "SnapshotPeak",
    "What is alive at a device's peak, grouped by allocation site: the innermost `depth` Python frames of each "
    "allocation's stack (depth 1: the sites of snapshot-sites). Rows: every site, most bytes first.",
    {kOneDeviceParam, {"depth", "Python frames of the stack that name a site, innermost first (1 to 32; default 1)"}},
    {
        {"site", ColumnType::kString, "", "the frames, innermost first, joined by ← (filename:line:name each), or a <...> label"},
        {"bytes", ColumnType::kCount, "bytes", "bytes its allocations hold at the peak"},
        {"allocations", ColumnType::kCount, "count", "its allocations alive at the peak"},
        {"largest_bytes", ColumnType::kCount, "bytes", "its largest allocation alive at the peak"},
    },
    {
        {"device", "number", "the device"},
        {"depth", "number", "the depth used"},
        {"peak_allocated_bytes", "number", "the peak (the rows' bytes add up to it)"},
        {"peak_entry", "number", "the entry after which it was reached (-1: before the first entry)"},
        {"peak_at_us", "number | null", "its time"},
    },
    {"site", "bytes", "allocations", "largest_bytes"},
};

Answer snapshot_peak_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!readable(s, error) || !devices_of(s, params, false, devices, error)) return error_answer(kSnapshotPeakSchema, error);
  const std::optional<int64_t> depth = parse_int(param(params, "depth", "1"));
  if (!depth || *depth < 1 || *depth > 32) return error_answer(kSnapshotPeakSchema, "depth takes a number of frames from 1 to 32.");
  const int64_t d = devices.front();
  const SnapDeviceStats& st = s.stats(d);
  const SnapHistory& h = s.history(d);
  struct Site {
    int64_t bytes = 0, largest = 0;
    uint64_t n = 0;
  };
  std::unordered_map<uint64_t, std::string> label_of;  // by stack and ownership
  std::map<std::string, Site> by;
  const int64_t p = st.peak_entry;
  for (size_t k = 0; k < h.elem_count(); ++k) {
    if (!(h.alive_from(k) <= p + 1 && p + 1 < h.alive_to(k))) continue;  // alive after entry p
    const SnapElem e = h.elem(k);
    const uint64_t key = (uint64_t(e.stack) << 1) | (own_stack(e) ? 1 : 0);
    auto it = label_of.find(key);
    if (it == label_of.end()) it = label_of.emplace(key, site_label(s.model(), e, int(*depth))).first;
    Site& x = by[it->second];
    x.bytes += e.size;
    x.largest = std::max(x.largest, e.size);
    ++x.n;
  }
  std::vector<std::pair<std::string, Site>> rows(by.begin(), by.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.bytes != b.second.bytes ? a.second.bytes > b.second.bytes : a.first < b.first; });
  AnswerBuilder b(kSnapshotPeakSchema, rows.size());
  b.meta("device", json_int(d));
  b.meta("depth", json_int(*depth));
  b.meta("peak_allocated_bytes", json_int(st.peak_allocated_bytes));
  b.meta("peak_entry", json_int(st.peak_entry));
  b.meta("peak_at_us", json_number(opt_time(st.peak_at_us)));
  b.rows_here();
  AnswerColumn &site = b.add("site"), &bytes = b.add("bytes"), &n = b.add("allocations"), &largest = b.add("largest_bytes");
  for (const auto& [label, x] : rows) {
    site.str.push_back(b.intern(label));
    bytes.f64.push_back(double(x.bytes));
    n.f64.push_back(double(x.n));
    largest.f64.push_back(double(x.largest));
  }
  return b.take();
}

// ---- snapshot-peak-tree --------------------------------------------------------------------

const ViewSchema kSnapshotPeakTreeSchema = {
    "snapshot-peak-tree",
    "SnapshotPeakTree",
    "The bytes alive at a device's peak by stack, as a tree of frames from the outermost (a flame graph's boxes): "
    "each node the bytes of the allocations whose stack passes through it; allocations without a stack of their "
    "own under a <...> root. Rows: pre-order, children most bytes first.",
    {kOneDeviceParam},
    {
        {"name", ColumnType::kString, "", "the frame: name (filename:line), or a <...> label"},
        {"parent", ColumnType::kI32, "", "the parent node's row (-1: a root)"},
        {"start_bytes", ColumnType::kCount, "bytes", "where the node starts: the bytes of the siblings before it and of its parent's start"},
        {"bytes", ColumnType::kCount, "bytes", "bytes of the allocations under it"},
        {"self_bytes", ColumnType::kCount, "bytes", "bytes of the allocations whose innermost frame it is"},
        {"allocations", ColumnType::kCount, "count", "allocations under it"},
    },
    {
        {"device", "number", "the device"},
        {"peak_allocated_bytes", "number", "the peak: the roots' bytes add up to it"},
    },
    {"name", "parent", "start_bytes", "bytes", "self_bytes", "allocations"},
    "rows",
    "parent",
    true,
};

Answer snapshot_peak_tree_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!readable(s, error) || !devices_of(s, params, false, devices, error)) return error_answer(kSnapshotPeakTreeSchema, error);
  const int64_t d = devices.front();
  const SnapshotModel& m = s.model();
  const SnapDeviceStats& st = s.stats(d);
  const SnapHistory& h = s.history(d);
  struct Node {
    std::string name;
    int64_t bytes = 0, self = 0;
    uint64_t n = 0;
    std::map<std::string, size_t> kids;
  };
  std::vector<Node> nodes(1);  // 0: the root of roots
  auto child = [&](size_t at, const std::string& name) {
    auto it = nodes[at].kids.find(name);
    if (it != nodes[at].kids.end()) return it->second;
    nodes.push_back({name, 0, 0, 0, {}});
    nodes[at].kids.emplace(name, nodes.size() - 1);
    return nodes.size() - 1;
  };
  const int64_t p = st.peak_entry;
  for (size_t k = 0; k < h.elem_count(); ++k) {
    if (!(h.alive_from(k) <= p + 1 && p + 1 < h.alive_to(k))) continue;  // alive after entry p
    const SnapElem e = h.elem(k);
    std::vector<size_t> path;
    const uint32_t sk = e.stack;
    if (!own_stack(e)) {
      path.push_back(child(0, kBeforeHistory));
    } else if (sk == 0 || sk >= m.stack_count() || m.stack_size(sk) == 0) {
      path.push_back(child(0, kNoStack));
    } else {
      size_t at = 0;
      for (size_t k = m.stack_size(sk); k-- > 0;) {
        const SnapFrame& f = m.stack_frame(sk, k);
        at = child(at, std::string(m.strings.get(f.name)) + " (" + std::string(m.strings.get(f.filename)) + ":" + std::to_string(f.line) + ")");
        path.push_back(at);
      }
    }
    for (size_t k : path) nodes[k].bytes += e.size, ++nodes[k].n;
    nodes[path.back()].self += e.size;
  }
  // Pre-order, children most bytes first.
  struct Out {
    size_t node;
    int32_t parent;
    int64_t start;
  };
  std::vector<Out> order;
  std::vector<Out> todo;
  auto push_kids = [&](size_t at, int32_t parent_row, int64_t start) {
    std::vector<size_t> kids;
    for (const auto& [name, k] : nodes[at].kids) kids.push_back(k);
    std::stable_sort(kids.begin(), kids.end(), [&](size_t a, size_t b) { return nodes[a].bytes > nodes[b].bytes; });
    std::vector<Out> mine;
    for (size_t k : kids) {
      mine.push_back({k, parent_row, start});
      start += nodes[k].bytes;
    }
    for (auto it = mine.rbegin(); it != mine.rend(); ++it) todo.push_back(*it);
  };
  push_kids(0, -1, 0);
  while (!todo.empty()) {
    const Out o = todo.back();
    todo.pop_back();
    order.push_back(o);
    push_kids(o.node, int32_t(order.size() - 1), o.start);
  }
  AnswerBuilder b(kSnapshotPeakTreeSchema, order.size());
  b.meta("device", json_int(d));
  b.meta("peak_allocated_bytes", json_int(st.peak_allocated_bytes));
  b.rows_here();
  AnswerColumn &name = b.add("name"), &parent = b.add("parent"), &start = b.add("start_bytes"), &bytes = b.add("bytes"),
               &self = b.add("self_bytes"), &n = b.add("allocations");
  for (const Out& o : order) {
    const Node& x = nodes[o.node];
    name.str.push_back(b.intern(x.name));
    parent.i32.push_back(o.parent);
    start.f64.push_back(double(o.start));
    bytes.f64.push_back(double(x.bytes));
    self.f64.push_back(double(x.self));
    n.f64.push_back(double(x.n));
  }
  return b.take();
}

// ---- snapshot-timeline ---------------------------------------------------------------------

namespace {

const std::vector<ParamSpec> kTimelineParams = {
    kOneDeviceParam,
    {"axis", "entry (default): the x-axis is the history's entries, as memory_viz's; time: its time_us"},
    {"from", "the window's start: an entry position (0: before the first entry; k: after entry k-1) or a time_us; default: the history's start"},
    {"to", "the window's end (after from); default: the history's end"},
    {"width", "pixel columns (1 to 20,000; default 1000)"},
    {"height", "pixels of the y-axis: allocations under one pixel are drawn in the bottom band (default 400)"},
    {"max_bands", "at most this many bands, the largest (default 2000)"},
};

struct TimelineAsk {
  int64_t device = 0;
  SnapWindow window;
};

bool timeline_ask(const SnapshotSession& s, QueryParamsRef params, TimelineAsk& ask, std::string& error) {
  std::vector<int64_t> devices;
  if (!readable(s, error) || !devices_of(s, params, false, devices, error)) return false;
  ask.device = devices.front();
  const std::string_view axis = param(params, "axis", "entry");
  if (axis != "entry" && axis != "time") {
    error = "axis is entry or time, not \"" + std::string(axis) + "\".";
    return false;
  }
  ask.window.by_time = axis == "time";
  auto number = [&](const char* name, double& out) {
    const std::string_view v = param(params, name);
    if (v.empty()) return true;
    const std::optional<double> x = parse_double(v);
    if (!x || !std::isfinite(*x)) {
      error = std::string(name) + " takes a number, not \"" + std::string(v) + "\".";
      return false;
    }
    out = *x;
    return true;
  };
  double width = 1000, height = 400, max_bands = 2000;
  if (!number("from", ask.window.from) || !number("to", ask.window.to) || !number("width", width) || !number("height", height) ||
      !number("max_bands", max_bands))
    return false;
  if (param(params, "to").empty()) ask.window.to = -1, ask.window.from = param(params, "from").empty() ? 0 : ask.window.from;
  if (!param(params, "to").empty() && ask.window.to <= ask.window.from) {
    error = "to must be after from.";
    return false;
  }
  if (width < 1 || width > 20000 || height < 1 || height > 100000 || max_bands < 0 || max_bands > 1e6) {
    error = "width is 1 to 20,000 columns, height 1 to 100,000 pixels, max_bands 0 to 1,000,000.";
    return false;
  }
  ask.window.width = int(width);
  ask.window.height = int(height);
  ask.window.max_bands = size_t(max_bands);
  return true;
}

const SnapBands& bands_of(const SnapshotSession& s, const TimelineAsk& a) {
  char key[160];
  std::snprintf(key, sizeof key, "bands %lld %d %.17g %.17g %d %d %zu", (long long)a.device, int(a.window.by_time), a.window.from,
                a.window.to, a.window.width, a.window.height, a.window.max_bands);
  return s.shared<SnapBands>(key, [&] { return snapshot_bands(s.history(a.device), a.window); });
}

void timeline_meta(AnswerBuilder& b, const SnapshotSession& s, const TimelineAsk& a, const SnapBands& r) {
  const SnapHistory& h = s.history(a.device);
  b.meta("device", json_int(a.device));
  b.meta("axis", r.by_time ? "\"time\"" : "\"entry\"");
  b.meta("from", json_number(r.from));
  b.meta("to", json_number(r.to));
  b.meta("entries", json_int(int64_t(h.states()) - 1));
  b.meta("has_times", h.has_times() ? "true" : "false");
  b.meta("first_us", json_number(h.has_times() ? double(h.time_at(0)) : NAN));
  b.meta("last_us", json_number(h.has_times() ? double(h.time_at(int64_t(h.states()) - 1)) : NAN));
  b.meta("y_max", json_int(r.y_max));
  b.meta("min_band_bytes", json_int(r.min_band_bytes));
  b.meta("folded", json_int(int64_t(r.folded)));
}

const std::vector<MetaSpec> kTimelineMeta = {
    {"device", "number", "the device"},
    {"axis", "'entry' | 'time'", "the x-axis used (time asked of a history without times: entry)"},
    {"from", "number", "the window's start, clamped to the history"},
    {"to", "number", "its end"},
    {"entries", "number", "the device's history entries (entry positions 0 .. entries)"},
    {"has_times", "boolean", "every entry has a time_us, in order (the time axis can be used)"},
    {"first_us", "number | null", "the first entry's time"},
    {"last_us", "number | null", "the last entry's time"},
    {"y_max", "number", "the window's highest allocated or reserved memory (bytes)"},
    {"min_band_bytes", "number", "allocations smaller than this (one pixel) are in the bottom band"},
    {"folded", "number", "allocations alive in the window drawn in the bottom band (small, or past max_bands)"},
};

}  // namespace

const ViewSchema kSnapshotTimelineSchema = {
    "snapshot-timeline",
    "SnapshotTimeline",
    "The active memory timeline of a device in a window, as pytorch.org/memory_viz stacks it, picked by the core "
    "per pixel column (core/snapshot/snapshot_bands.h): the allocations at least a pixel tall drawn as bands, "
    "bottom to top (those allocated before the history first), each with its bottom at the columns where it "
    "changes. snapshot-timeline-columns gives the columns (the bottom band, the total and reserved memory). Rows: "
    "bands, bottom to top.",
    kTimelineParams,
    {
        {"size", ColumnType::kCount, "bytes", "the allocation's size (the bytes asked for)"},
        {"address", ColumnType::kString, "", "its address (hex)"},
        {"from_entry", ColumnType::kCount, "", "the entry that allocated it (null: before the history)"},
        {"to_entry", ColumnType::kCount, "", "the entry that freed it (null: alive at the dump)"},
        {"from_us", ColumnType::kCount, "us", "when it was allocated (null: before the history, or no times)"},
        {"to_us", ColumnType::kCount, "us", "when it was freed (null: alive at the dump, or no times)"},
        {"before", ColumnType::kBool, "", "allocated before the history began"},
        {"site", ColumnType::kString, "", "its innermost Python frame (file:line:name), or a <...> label"},
        {"stack", ColumnType::kString, "", "its stack, innermost frame first, a frame a line (null: none of its own)"},
        {"first_column", ColumnType::kI32, "", "the first pixel column it is drawn in"},
        {"last_column", ColumnType::kI32, "", "the last"},
        {"bottom", ColumnType::kF64Pairs, "bytes", "(column, bytes): its bottom from that column on"},
    },
    kTimelineMeta,
    {"size", "address", "from_entry", "to_entry", "from_us", "to_us", "before", "site", "first_column", "last_column"},
};

Answer snapshot_timeline_answer(const SnapshotSession& s, QueryParamsRef params) {
  TimelineAsk a;
  std::string error;
  if (!timeline_ask(s, params, a, error)) return error_answer(kSnapshotTimelineSchema, error);
  const SnapBands& r = bands_of(s, a);
  const SnapHistory& h = s.history(a.device);
  const SnapshotModel& m = s.model();
  AnswerBuilder b(kSnapshotTimelineSchema, r.bands.size());
  timeline_meta(b, s, a, r);
  b.rows_here();
  AnswerColumn &size = b.add("size"), &addr = b.add("address"), &from_e = b.add("from_entry"), &to_e = b.add("to_entry"),
               &from_us = b.add("from_us"), &to_us = b.add("to_us"), &before = b.add("before"), &site = b.add("site"),
               &stack = b.add("stack"), &c0 = b.add("first_column"), &c1 = b.add("last_column"), &bottom = b.add("bottom");
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> texts;  // by stack and ownership: site, stack
  const int64_t entries = int64_t(h.states()) - 1;
  auto time_of = [&](int64_t entry) { return entry < 0 || entry >= entries ? NAN : opt_time(h.time_at(entry + 1)); };
  for (const SnapBand& band : r.bands) {
    const SnapElem e = h.elem(band.elem);
    size.f64.push_back(double(e.size));
    addr.str.push_back(b.intern(address_text(e.addr)));
    from_e.f64.push_back(opt_entry(e.from));
    to_e.f64.push_back(e.to == INT64_MAX ? NAN : double(e.to));
    from_us.f64.push_back(time_of(e.from));
    to_us.f64.push_back(e.to == INT64_MAX ? NAN : time_of(e.to));
    before.u8.push_back(e.before ? 1 : 0);
    const uint64_t key = (uint64_t(e.stack) << 1) | (own_stack(e) ? 1 : 0);
    auto it = texts.find(key);
    if (it == texts.end()) {
      const std::string text = own_stack(e) ? stack_text(m, e.stack) : std::string();
      it = texts.emplace(key, std::make_pair(b.intern(site_label(m, e, 1)), text.empty() ? kNullString : b.intern(text))).first;
    }
    site.str.push_back(it->second.first);
    stack.str.push_back(it->second.second);
    c0.i32.push_back(band.first_column);
    c1.i32.push_back(band.last_column);
    for (const auto& [c, y] : band.bottom) bottom.f64.push_back(double(c)), bottom.f64.push_back(double(y));
    bottom.ends.push_back(uint32_t(bottom.f64.size() / 2));
  }
  return b.take();
}

const ViewSchema kSnapshotTimelineColumnsSchema = {
    "snapshot-timeline-columns",
    "SnapshotTimelineColumns",
    "The pixel columns of snapshot-timeline's window (the same parameters): the entries each covers, the state it "
    "is drawn at (the most allocated of them), the allocated and reserved memory then and the bottom band's height. "
    "Rows: columns, left to right.",
    kTimelineParams,
    {
        {"first_entry", ColumnType::kCount, "", "the first entry position it covers (0: before the first entry; k: after entry k-1)"},
        {"last_entry", ColumnType::kCount, "", "the last"},
        {"entry", ColumnType::kCount, "", "the position drawn: the one of most memory allocated"},
        {"time_us", ColumnType::kCount, "us", "its time (null without times)"},
        {"allocated_bytes", ColumnType::kCount, "bytes", "allocated then (the total line)"},
        {"reserved_bytes", ColumnType::kCount, "bytes", "reserved then (the segments)"},
        {"others_bytes", ColumnType::kCount, "bytes", "allocated by allocations not drawn as bands (the bottom band)"},
    },
    kTimelineMeta,
    {"first_entry", "last_entry", "entry", "time_us", "allocated_bytes", "reserved_bytes", "others_bytes"},
};

Answer snapshot_timeline_columns_answer(const SnapshotSession& s, QueryParamsRef params) {
  TimelineAsk a;
  std::string error;
  if (!timeline_ask(s, params, a, error)) return error_answer(kSnapshotTimelineColumnsSchema, error);
  const SnapBands& r = bands_of(s, a);
  const SnapHistory& h = s.history(a.device);
  AnswerBuilder b(kSnapshotTimelineColumnsSchema, r.columns.size());
  timeline_meta(b, s, a, r);
  b.rows_here();
  AnswerColumn &first = b.add("first_entry"), &last = b.add("last_entry"), &entry = b.add("entry"), &t = b.add("time_us"),
               &alloc = b.add("allocated_bytes"), &res = b.add("reserved_bytes"), &others = b.add("others_bytes");
  for (const SnapColumn& c : r.columns) {
    first.f64.push_back(double(c.first));
    last.f64.push_back(double(c.last));
    entry.f64.push_back(double(c.state));
    t.f64.push_back(h.has_times() ? double(h.time_at(c.state)) : NAN);
    alloc.f64.push_back(double(c.allocated));
    res.f64.push_back(double(c.reserved));
    others.f64.push_back(double(c.others));
  }
  return b.take();
}

}  // namespace ks
