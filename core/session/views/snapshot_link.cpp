// Two views of a memory snapshot asked by the page's other pages (issue 26): snapshot-compare-side,
// one side of `kinetoscope snapshot --compare` (the page asks each snapshot's own Session, whichever
// worker holds it, and lib/snapshot-compare.ts pairs the two sides as compare_snapshots does), and
// snapshot-window, what the allocator's history held in a time range of the trace's Memory view
// (the clocks' rule: docs/snapshots.md, "Linked to the trace").
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/session/snapshot_session.h"
#include "core/session/views.h"
#include "core/session/views/snapshot_text.h"
#include "core/snapshot/snapshot_categories.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

namespace {

std::string json_of(int64_t v) {
  JsonWriter w;
  w.value(v);
  return w.take();
}
std::string json_time(int64_t us) {
  JsonWriter w;
  if (us < 0) w.null();
  else w.value(us);
  return w.take();
}

// The one device asked (any number: a device the snapshot lacks has no entries, as in
// `snapshot --compare`), else the snapshot's first.
bool device_of(const SnapshotSession& s, QueryParamsRef params, int64_t& out, std::string& error) {
  if (s.failed()) {
    error = s.reader().error();
    return false;
  }
  const std::string_view d = param(params, "device");
  if (d.empty()) {
    if (s.devices().empty()) {
      error = "The snapshot has no device.";
      return false;
    }
    out = s.devices().front();
    return true;
  }
  const std::optional<int64_t> v = parse_int(d);
  if (!v || *v < 0) {
    error = "device takes a device number (0, 1, ...), not \"" + std::string(d) + "\".";
    return false;
  }
  out = *v;
  return true;
}

}  // namespace

// ---- snapshot-compare-side -----------------------------------------------------------------

const ViewSchema kSnapshotCompareSideSchema = {
    "snapshot-compare-side",
    "SnapshotCompareSide",
    "One side of a comparison of two snapshots (`kinetoscope snapshot --compare A B`, "
    "core/snapshot/snapshot_compare.h), asked of each snapshot: a device's peak, every allocation site alive at it "
    "(the innermost Python frame, as snapshot-sites, uncut) and the categories at it. The page pairs two sides "
    "(lib/snapshot-compare.ts) as compare_snapshots does. Rows: sites, most bytes first.",
    {{"device", "the device (0, 1, ...; one the snapshot lacks answers an empty side); default: the snapshot's first"}},
    {
        {"frame", ColumnType::kString, "", "filename:line:name of the innermost Python frame, or a <...> label"},
        {"bytes", ColumnType::kCount, "bytes", "bytes its allocations hold at the peak"},
        {"allocations", ColumnType::kCount, "count", "its allocations alive at the peak"},
    },
    {
        {"device", "number", "the device"},
        {"has_device", "boolean", "the snapshot has this device (false: every number is 0)"},
        {"trace_entries", "number", "entries of the device's history"},
        {"peak_allocated_bytes", "number", "the peak (the rows' bytes add up to it)"},
        {"peak_entry", "number", "the entry after which it was first reached (-1: before the first entry)"},
        {"peak_at_us", "number | null", "its time_us (null without times)"},
        {"peak_reserved_bytes", "number", "the most memory reserved at once"},
        {"ooms", "number", "out-of-memory entries"},
        {"categories", "{ category: string; bytes: number; allocations: number }[]",
         "the kinds of memory at the peak (docs/snapshots.md, Categories), in snapshot --compare's order"},
    },
    {"frame", "bytes", "allocations"},
};

Answer snapshot_compare_side_answer(const SnapshotSession& s, QueryParamsRef params) {
  int64_t d = 0;
  std::string error;
  if (!device_of(s, params, d, error)) return error_answer(kSnapshotCompareSideSchema, error);
  const SnapshotModel& m = s.model();
  // As compare_snapshots: every site, the categories at the peak entry.
  const SnapDeviceStats st = snapshot_device_stats(m, d, {}, std::numeric_limits<size_t>::max());
  const CategoryBytes cats = snapshot_categories(m, d, {st.peak_entry})[0];
  AnswerBuilder b(kSnapshotCompareSideSchema, st.top_sites.size());
  b.meta("device", json_of(d));
  b.meta("has_device", s.has_device(d) ? "true" : "false");
  b.meta("trace_entries", json_of(int64_t(st.trace_entries)));
  b.meta("peak_allocated_bytes", json_of(st.peak_allocated_bytes));
  b.meta("peak_entry", json_of(st.peak_entry));
  b.meta("peak_at_us", json_time(st.peak_at_us));
  b.meta("peak_reserved_bytes", json_of(st.peak_reserved_bytes));
  b.meta("ooms", json_of(int64_t(st.ooms.size())));
  {
    JsonWriter w;
    w.begin_array();
    for (size_t i = 0; i < kMemCategories; ++i)
      w.begin_object()
          .key("category").value(mem_category_name(MemCategory(i)))
          .key("bytes").value(cats.bytes[i])
          .key("allocations").value(uint64_t(cats.allocations[i]))
          .end_object();
    w.end_array();
    b.meta("categories", w.take());
  }
  b.rows_here();
  AnswerColumn &frame = b.add("frame"), &bytes = b.add("bytes"), &n = b.add("allocations");
  for (const SnapSite& x : st.top_sites) {
    frame.str.push_back(b.intern(x.frame));
    bytes.f64.push_back(double(x.bytes));
    n.f64.push_back(double(x.allocations));
  }
  return b.take();
}

// ---- snapshot-window -----------------------------------------------------------------------

const ViewSchema kSnapshotWindowSchema = {
    "snapshot-window",
    "SnapshotWindow",
    "What a device's allocator history held in a time range (the snapshot's time_us, Unix microseconds): the "
    "allocations alive at some moment of it (allocated at or before its end, freed after its start), by "
    "allocation site, with the stack of each site's largest. The trace's Memory view asks it for its selected "
    "range, in the snapshot's clock (docs/snapshots.md, \"Linked to the trace\"); given the trace's span, a "
    "history wholly outside it is refused. Rows: sites, most bytes first.",
    {
        {"device", "the device (0, 1, ...); default: the snapshot's first"},
        {"from_us", "the range's start (time_us)"},
        {"to_us", "its end (time_us, at or after from_us)"},
        {"span_from_us", "the trace's first time in the snapshot's clock: with span_to_us, a history outside the span is refused"},
        {"span_to_us", "the trace's last time"},
    },
    {
        {"site", ColumnType::kString, "", "filename:line:name of the innermost Python frame, or a <...> label"},
        {"bytes", ColumnType::kCount, "bytes", "bytes of its allocations alive at some moment of the range"},
        {"allocations", ColumnType::kCount, "count", "those allocations"},
        {"allocated_bytes", ColumnType::kCount, "bytes", "bytes of those allocated in the range"},
        {"allocated", ColumnType::kCount, "count", "its allocations made in the range"},
        {"freed", ColumnType::kCount, "count", "its allocations freed in the range"},
        {"largest_bytes", ColumnType::kCount, "bytes", "its largest allocation alive in the range"},
        {"stack", ColumnType::kString, "", "that allocation's stack, innermost frame first, a frame a line (null: none of its own)"},
    },
    {
        {"device", "number", "the device"},
        {"first_us", "number", "the history's first entry's time"},
        {"last_us", "number", "its last entry's time"},
        {"from_us", "number", "the range asked"},
        {"to_us", "number", "its end"},
        {"entries", "number", "history entries in the range"},
        {"first_entry", "number | null", "the first entry in the range (null: none)"},
        {"last_entry", "number | null", "the last"},
        {"level_at_from_bytes", "number", "allocated at the range's start (the timeline's level after the last entry before it)"},
        {"peak_bytes", "number", "the most allocated at once in the range"},
        {"peak_at_us", "number", "when first"},
    },
    {"site", "bytes", "allocations", "allocated_bytes", "allocated", "freed", "largest_bytes"},
};

Answer snapshot_window_answer(const SnapshotSession& s, QueryParamsRef params) {
  int64_t d = 0;
  std::string error;
  if (!device_of(s, params, d, error)) return error_answer(kSnapshotWindowSchema, error);
  if (!s.has_device(d)) return error_answer(kSnapshotWindowSchema, "The snapshot has no device " + std::to_string(d) + ".");
  auto time_param = [&](const char* name, int64_t& out, bool required) {
    const std::string_view v = param(params, name);
    if (v.empty()) {
      if (required) error = std::string(name) + " is needed: a time in microseconds (the snapshot's time_us).";
      return !required;
    }
    const std::optional<double> x = parse_double(v);
    if (!x || !std::isfinite(*x)) {
      error = std::string(name) + " takes a time in microseconds (the snapshot's time_us), not \"" + std::string(v) + "\".";
      return false;
    }
    out = int64_t(std::llround(*x));
    return true;
  };
  int64_t from = 0, to = 0, span_from = -1, span_to = -1;
  if (!time_param("from_us", from, true) || !time_param("to_us", to, true) || !time_param("span_from_us", span_from, false) ||
      !time_param("span_to_us", span_to, false))
    return error_answer(kSnapshotWindowSchema, error);
  if (to < from) return error_answer(kSnapshotWindowSchema, "to_us must be at or after from_us.");
  const SnapHistory& h = s.history(d);
  if (h.states() < 2) return error_answer(kSnapshotWindowSchema, "Device " + std::to_string(d) + " has no allocator history: nothing happened in any time range.");
  if (!h.has_times())
    return error_answer(kSnapshotWindowSchema, "The snapshot's history has no times (time_us), so it cannot be placed on a trace's clock.");
  const int64_t first = h.time_at(1), last = h.time_at(int64_t(h.states()) - 1);
  const bool span = !param(params, "span_from_us").empty() && !param(params, "span_to_us").empty();
  if (span && (last < span_from || first > span_to))
    return error_answer(kSnapshotWindowSchema,
                        "The snapshot's history (" + std::to_string(first) + " – " + std::to_string(last) +
                            " µs, Unix time) falls outside this trace's span (" + std::to_string(span_from) + " – " +
                            std::to_string(span_to) + " µs): their clocks cannot be matched, so it is not shown for this trace.");
  const int64_t entries = int64_t(h.states()) - 1;
  // Entry k's time is state k+1's; before the first entry, minus infinity; alive at the dump, plus.
  auto entry_time = [&](int64_t e) {
    return e < 0 ? std::numeric_limits<int64_t>::min() : e >= entries ? std::numeric_limits<int64_t>::max() : h.time_at(e + 1);
  };
  // States: s after entry s-1. In the range: entries with from <= t <= to.
  // (State 0 has entry 0's time too: the search starts at state 1.)
  const int64_t s0 = std::max<int64_t>(1, h.first_state_at_or_after(from));
  const int64_t s1 = std::max<int64_t>(1, to == std::numeric_limits<int64_t>::max() ? int64_t(h.states()) : h.first_state_at_or_after(to + 1));  // states [s0, s1) are after the range's entries
  const int64_t n_in = s1 - s0;
  // The level at the range's start: after the last entry before it (state s0 - 1).
  const int64_t level_from = h.level_at(s0 - 1);
  int64_t peak = level_from, peak_at = from;
  if (s1 > s0) {
    const int64_t st = h.most_allocated(s0, s1 - 1);
    if (h.level_at(st) > peak) peak = h.level_at(st), peak_at = h.time_at(st);
  }
  struct Site {
    int64_t bytes = 0, allocated_bytes = 0, largest = -1;
    uint64_t n = 0, allocated = 0, freed = 0;
    uint32_t largest_elem = 0;
  };
  const SnapshotModel& m = s.model();
  std::unordered_map<uint64_t, std::string> label_of;  // by stack and ownership
  std::map<std::string, Site> by;
  for (uint32_t k = 0; k < h.elem_count(); ++k) {
    const SnapElem e = h.elem(k);
    const int64_t born = entry_time(e.from), dies = e.to == INT64_MAX ? std::numeric_limits<int64_t>::max() : entry_time(e.to);
    if (!(born <= to && dies > from)) continue;
    // The label depends on the stack, and on whether it is the allocation's own (before, freed).
    const uint64_t key = (uint64_t(e.stack) << 2) | (e.before ? 2 : 0) | (e.to != INT64_MAX ? 1 : 0);
    auto it = label_of.find(key);
    if (it == label_of.end()) it = label_of.emplace(key, snapshot_elem_site(m, e)).first;
    Site& x = by[it->second];
    x.bytes += e.size;
    ++x.n;
    if (e.from >= 0 && born >= from) x.allocated_bytes += e.size, ++x.allocated;
    if (e.to != INT64_MAX && dies <= to) ++x.freed;
    if (e.size > x.largest) x.largest = e.size, x.largest_elem = k;
  }
  std::vector<std::pair<std::string, Site>> rows(by.begin(), by.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.bytes != b.second.bytes ? a.second.bytes > b.second.bytes : a.first < b.first; });
  AnswerBuilder b(kSnapshotWindowSchema, rows.size());
  b.meta("device", json_of(d));
  b.meta("first_us", json_of(first));
  b.meta("last_us", json_of(last));
  b.meta("from_us", json_of(from));
  b.meta("to_us", json_of(to));
  b.meta("entries", json_of(n_in));
  b.meta("first_entry", n_in ? json_of(s0 - 1) : "null");
  b.meta("last_entry", n_in ? json_of(s1 - 2) : "null");
  b.meta("level_at_from_bytes", json_of(level_from));
  b.meta("peak_bytes", json_of(peak));
  b.meta("peak_at_us", json_of(peak_at));
  b.rows_here();
  AnswerColumn &site = b.add("site"), &bytes = b.add("bytes"), &n = b.add("allocations"), &ab = b.add("allocated_bytes"),
               &an = b.add("allocated"), &fr = b.add("freed"), &largest = b.add("largest_bytes"), &stack = b.add("stack");
  for (const auto& [label, x] : rows) {
    site.str.push_back(b.intern(label));
    bytes.f64.push_back(double(x.bytes));
    n.f64.push_back(double(x.n));
    ab.f64.push_back(double(x.allocated_bytes));
    an.f64.push_back(double(x.allocated));
    fr.f64.push_back(double(x.freed));
    largest.f64.push_back(double(x.largest));
    const SnapElem e = h.elem(x.largest_elem);
    const std::string text = snapshot_elem_stack_text(m, e);
    stack.str.push_back(text.empty() ? kNullString : b.intern(text));
  }
  return b.take();
}

}  // namespace ks
