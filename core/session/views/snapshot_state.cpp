// The memory snapshot's views of a moment (issue 26): the allocator's state then (its segments
// and their blocks, as pytorch.org/memory_viz's segment view; core/snapshot/allocator_state.h),
// as `kinetoscope snapshot --segments` prints it, and the kinds of memory alive (the rule of
// core/snapshot/snapshot_categories.h and docs/snapshots.md) at a moment and over the history,
// as `--categories` prints them; with the same run's export_memory_timeline paired
// (SnapshotSession::set_memory_timeline), PyTorch's own categories.
#include <cmath>

#include "core/session/snapshot_session.h"
#include "core/session/views.h"
#include "core/session/views/snapshot_views.h"
#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_categories.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

using namespace snapshot_views;

namespace {

std::vector<ParamSpec> moment_params(const char* entry) {
  return {
      kOneDeviceParam,
      {"entry", entry},
      {"at_us", "the moment: after the last entry at or before this time (time_us); entry wins when both are given"},
  };
}

// The moment asked of a device: entry, else at_us, else `fallback`; an entry the history lacks is
// an error sentence (the CLI's --entry says the same).
bool moment_of(const SnapshotSession& s, QueryParamsRef params, int64_t device, int64_t fallback, int64_t& entry, std::string& error) {
  const SnapshotModel& m = s.model();
  const int64_t n = snapshot_history_size(m, device);
  if (const std::string_view e = param(params, "entry"); !e.empty()) {
    const std::optional<int64_t> v = parse_int(e);
    if (!v) {
      error = "entry takes an entry number (-1: before the first), not \"" + std::string(e) + "\".";
      return false;
    }
    if (*v < -1 || *v >= n) {
      error = n == 0 ? "device " + std::to_string(device) + " has no history: only entry -1 (the dump) can be shown."
                     : "device " + std::to_string(device) + "'s history has " + std::to_string(n) + " entries (0 to " +
                           std::to_string(n - 1) + "; -1: before the first); entry " + std::to_string(*v) + " is not one.";
      return false;
    }
    entry = *v;
    return true;
  }
  if (const std::string_view a = param(params, "at_us"); !a.empty()) {
    const std::optional<int64_t> v = parse_int(a);
    if (!v) {
      error = "at_us takes a time in microseconds (the snapshot's time_us), not \"" + std::string(a) + "\".";
      return false;
    }
    entry = snapshot_entry_at(m, device, *v);
    return true;
  }
  entry = fallback;
  return true;
}

constexpr const char* kStateEntry = "the moment: after this entry of the device's history (-1: before the first); default: the dump (its last entry)";

struct StateAsk {
  int64_t device = 0;
  int64_t entry = -1;
};

bool state_ask(const SnapshotSession& s, QueryParamsRef params, StateAsk& a, std::string& error) {
  std::vector<int64_t> devices;
  if (!readable(s, error) || !devices_of(s, params, false, devices, error)) return false;
  a.device = devices.front();
  return moment_of(s, params, a.device, snapshot_history_size(s.model(), a.device) - 1, a.entry, error);
}

// Both views of a moment's state read one replay, kept for the next ask of the same moment.
const AllocatorState& state_of(const SnapshotSession& s, const StateAsk& a) {
  const std::string key = "state " + std::to_string(a.device) + " " + std::to_string(a.entry);
  return s.shared<AllocatorState>(key, [&] { return allocator_state(s.model(), a.device, a.entry); });
}

void state_meta(AnswerBuilder& b, const SnapshotSession& s, const AllocatorState& st) {
  const int64_t n = snapshot_history_size(s.model(), st.device);
  b.meta("device", json_int(st.device));
  b.meta("entry", json_int(st.entry));
  b.meta("at_us", json_number(opt_time(st.at_us)));
  b.meta("entries", json_int(n));
  b.meta("dump", st.entry == n - 1 ? "true" : "false");
  b.meta("segments", json_int(int64_t(st.segments.size())));
  b.meta("reserved_bytes", json_int(st.reserved_bytes));
  b.meta("allocated_bytes", json_int(st.allocated_bytes));
  b.meta("awaiting_free_bytes", json_int(st.awaiting_free_bytes));
  b.meta("requested_bytes", json_int(st.requested_bytes));
  b.meta("inactive_bytes", json_int(st.inactive_bytes));
  b.meta("largest_inactive_bytes", json_int(st.largest_inactive_bytes));
  b.meta("allocated_blocks", json_int(int64_t(st.allocated_blocks)));
  b.meta("awaiting_free_blocks", json_int(int64_t(st.awaiting_free_blocks)));
  b.meta("inactive_blocks", json_int(int64_t(st.inactive_blocks)));
  JsonWriter w;
  w.begin_array();
  for (const auto& [what, k] : st.inconsistencies) w.begin_object().key("what").value(what).key("count").value(uint64_t(k)).end_object();
  w.end_array();
  b.meta("inconsistencies", w.take());
}

const std::vector<MetaSpec> kStateMeta = {
    {"device", "number", "the device"},
    {"entry", "number", "the state after this entry of its history (-1: before the first)"},
    {"at_us", "number | null", "that entry's time (null: before the first entry, or no times)"},
    {"entries", "number", "the device's history entries"},
    {"dump", "boolean", "the moment is the dump (the history's last entry)"},
    {"segments", "number", "segments then"},
    {"reserved_bytes", "number", "the segments' sizes"},
    {"allocated_bytes", "number", "blocks allocated (not awaiting their free): their rounded sizes"},
    {"awaiting_free_bytes", "number", "blocks freed but awaiting a stream's use to end"},
    {"requested_bytes", "number", "the bytes the active blocks asked for"},
    {"inactive_bytes", "number", "reserved - allocated - awaiting free: cached, free"},
    {"largest_inactive_bytes", "number", "the largest free block in the cached segments: no larger request fits without a new segment"},
    {"allocated_blocks", "number", "blocks allocated"},
    {"awaiting_free_blocks", "number", "blocks awaiting free"},
    {"inactive_blocks", "number", "inactive (free) blocks"},
    {"inconsistencies", "{ what: string; count: number }[]", "history entries that could not be replayed, by name (skipped)"},
};

}  // namespace

// ---- snapshot-state ------------------------------------------------------------------------

const ViewSchema kSnapshotStateSchema = {
    "snapshot-state",
    "SnapshotState",
    "The CUDA caching allocator's blocks at a moment of a device's history (the dump unless entry or at_us is "
    "given), as pytorch.org/memory_viz's segment view draws them and `kinetoscope snapshot --segments` prints them: "
    "each segment's blocks allocated, awaiting their free, and inactive (cached, free), the history undone back to "
    "the moment (core/snapshot/allocator_state.h). snapshot-state-segments gives the segments. Rows: blocks, by "
    "address.",
    moment_params(kStateEntry),
    {
        {"segment", ColumnType::kCount, "", "its segment: the row of snapshot-state-segments"},
        {"address", ColumnType::kString, "", "its address (hex)"},
        {"offset_bytes", ColumnType::kCount, "bytes", "where it starts in its segment"},
        {"size", ColumnType::kCount, "bytes", "its bytes (the allocator's rounding of the request when the history put it back)"},
        {"state", ColumnType::kString, "", "allocated, awaiting_free or inactive"},
        {"requested_bytes", ColumnType::kCount, "bytes", "what was asked for (null: inactive)"},
        {"size_from_dump", ColumnType::kBool, "", "its size is the dump's, not a rounding of the request"},
        {"alloc_entry", ColumnType::kCount, "", "the entry that allocated it (null: before the history, or inactive)"},
        {"site", ColumnType::kString, "", "its allocation's innermost Python frame (file:line:name), or a <...> label (null: inactive)"},
        {"stack", ColumnType::kString, "", "its allocation's stack, innermost frame first, a frame a line (null: none)", false},
    },
    kStateMeta,
    {"segment", "address", "offset_bytes", "size", "state", "requested_bytes", "size_from_dump", "alloc_entry", "site"},
};

Answer snapshot_state_answer(const SnapshotSession& s, QueryParamsRef params) {
  StateAsk ask;
  std::string error;
  if (!state_ask(s, params, ask, error)) return error_answer(kSnapshotStateSchema, error);
  const AllocatorState& st = state_of(s, ask);
  const SnapshotModel& m = s.model();
  AnswerBuilder b(kSnapshotStateSchema, st.blocks.size());
  state_meta(b, s, st);
  b.rows_here();
  AnswerColumn &seg = b.add("segment"), &addr = b.add("address"), &off = b.add("offset_bytes"), &size = b.add("size"),
               &state = b.add("state"), &req = b.add("requested_bytes"), &dump = b.add("size_from_dump"),
               &entry = b.add("alloc_entry"), &site = b.add("site"), &stack = b.add("stack");
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> texts;  // by stack: site, stack
  const uint32_t before = b.intern("<allocated before the history began>");
  for (size_t k = 0; k < st.segments.size(); ++k) {
    const StateSegment& g = st.segments[k];
    for (uint32_t i = g.first_block; i < g.first_block + g.blocks; ++i) {
      const StateBlock& x = st.blocks[i];
      const bool active = x.kind != StateBlockKind::kInactive;
      seg.f64.push_back(double(k));
      addr.str.push_back(b.intern(address_text(x.address)));
      off.f64.push_back(double(x.address - g.address));
      size.f64.push_back(double(x.size));
      state.str.push_back(b.intern(state_block_kind_name(x.kind)));
      req.f64.push_back(active ? double(x.requested_bytes) : NAN);
      dump.u8.push_back(x.size_from_dump ? 1 : 0);
      entry.f64.push_back(active && x.alloc_entry >= 0 ? double(x.alloc_entry) : NAN);
      if (!active) {
        site.str.push_back(kNullString);
        stack.str.push_back(kNullString);
        continue;
      }
      auto it = texts.find(x.stack);
      if (it == texts.end()) {
        const std::string text = stack_text(m, x.stack);
        it = texts.emplace(x.stack, std::make_pair(b.intern(snapshot_site(m, x.stack)), text.empty() ? kNullString : b.intern(text))).first;
      }
      // As the CLI's --segments: a block from before the history without a stack is labelled so.
      site.str.push_back(x.alloc_entry < 0 && x.stack == 0 ? before : it->second.first);
      stack.str.push_back(it->second.second);
    }
  }
  return b.take();
}

const ViewSchema kSnapshotStateSegmentsSchema = {
    "snapshot-state-segments",
    "SnapshotStateSegments",
    "The segments of snapshot-state's moment (the same parameters): each one's size, stream, blocks (rows of "
    "snapshot-state) and the bytes active and inactive in it. Rows: segments, by address.",
    moment_params(kStateEntry),
    {
        {"address", ColumnType::kString, "", "its address (hex)"},
        {"size", ColumnType::kCount, "bytes", "its bytes (cudaMalloc'd, or mapped for an expandable segment)"},
        {"stream", ColumnType::kCount, "", "the stream it serves"},
        {"first_block", ColumnType::kCount, "", "its first block: a row of snapshot-state"},
        {"blocks", ColumnType::kCount, "count", "its blocks"},
        {"active_bytes", ColumnType::kCount, "bytes", "its blocks allocated or awaiting their free"},
        {"inactive_bytes", ColumnType::kCount, "bytes", "its free blocks"},
        {"largest_inactive_bytes", ColumnType::kCount, "bytes", "its largest free block"},
    },
    kStateMeta,
    {"address", "size", "stream", "first_block", "blocks", "active_bytes", "inactive_bytes", "largest_inactive_bytes"},
};

Answer snapshot_state_segments_answer(const SnapshotSession& s, QueryParamsRef params) {
  StateAsk ask;
  std::string error;
  if (!state_ask(s, params, ask, error)) return error_answer(kSnapshotStateSegmentsSchema, error);
  const AllocatorState& st = state_of(s, ask);
  AnswerBuilder b(kSnapshotStateSegmentsSchema, st.segments.size());
  state_meta(b, s, st);
  b.rows_here();
  AnswerColumn &addr = b.add("address"), &size = b.add("size"), &stream = b.add("stream"), &first = b.add("first_block"),
               &blocks = b.add("blocks"), &active = b.add("active_bytes"), &inactive = b.add("inactive_bytes"),
               &largest = b.add("largest_inactive_bytes");
  for (const StateSegment& g : st.segments) {
    addr.str.push_back(b.intern(address_text(g.address)));
    size.f64.push_back(double(g.size));
    stream.f64.push_back(double(g.stream));
    first.f64.push_back(double(g.first_block));
    blocks.f64.push_back(double(g.blocks));
    active.f64.push_back(double(g.active_bytes));
    inactive.f64.push_back(double(g.inactive_bytes));
    largest.f64.push_back(double(g.largest_inactive_bytes));
  }
  return b.take();
}

// ---- snapshot-categories -------------------------------------------------------------------

const ViewSchema kSnapshotCategoriesSchema = {
    "snapshot-categories",
    "SnapshotCategories",
    "The kinds of memory alive at a moment of a device's history (the peak unless entry or at_us is given), by the "
    "rule on the allocations' stacks and lifetimes of docs/snapshots.md (core/snapshot/snapshot_categories.h), as "
    "`kinetoscope snapshot --categories` prints them. Rows: parameters, optimizer_state, activations, gradients, "
    "temporaries, unknown.",
    moment_params("the moment: after this entry of the device's history (-1: before the first); default: the peak"),
    {
        {"category", ColumnType::kString, "", "the kind of memory"},
        {"bytes", ColumnType::kCount, "bytes", "bytes of its allocations alive then (requested sizes)"},
        {"allocations", ColumnType::kCount, "count", "its allocations alive then"},
    },
    {
        {"device", "number", "the device"},
        {"moment", "'peak' | 'asked'", "the peak, or the entry or time asked"},
        {"entry", "number", "after this entry (-1: before the first)"},
        {"at_us", "number | null", "its entry's time (null: before the first entry, or no times)"},
        {"total_bytes", "number", "the categories' bytes: the timeline's level then"},
    },
    {"category", "bytes", "allocations"},
};

Answer snapshot_categories_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!readable(s, error) || !devices_of(s, params, false, devices, error)) return error_answer(kSnapshotCategoriesSchema, error);
  const int64_t d = devices.front();
  const SnapDeviceStats& st = s.stats(d);
  int64_t entry = st.peak_entry;
  if (!moment_of(s, params, d, st.peak_entry, entry, error)) return error_answer(kSnapshotCategoriesSchema, error);
  const bool peak = param(params, "entry").empty() && param(params, "at_us").empty();
  const CategoryBytes c = snapshot_categories(s.model(), d, {entry}).front();
  int64_t total = 0;
  for (int64_t x : c.bytes) total += x;
  AnswerBuilder b(kSnapshotCategoriesSchema, kMemCategories);
  b.meta("device", json_int(d));
  b.meta("moment", peak ? "\"peak\"" : "\"asked\"");
  b.meta("entry", json_int(c.entry));
  b.meta("at_us", json_number(opt_time(c.at_us)));
  b.meta("total_bytes", json_int(total));
  b.rows_here();
  AnswerColumn &cat = b.add("category"), &bytes = b.add("bytes"), &n = b.add("allocations");
  for (size_t i = 0; i < kMemCategories; ++i) {
    cat.str.push_back(b.intern(mem_category_name(MemCategory(i))));
    bytes.f64.push_back(double(c.bytes[i]));
    n.f64.push_back(double(c.allocations[i]));
  }
  return b.take();
}

const ViewSchema kSnapshotCategoriesSeriesSchema = {
    "snapshot-categories-series",
    "SnapshotCategoriesSeries",
    "The kinds of memory alive over a device's whole history (snapshot-categories' rule), for a stacked chart: the "
    "entry positions cut into at most `points` runs of equal length, each given at its position of most memory "
    "alive (as the timeline's pixel columns). Rows: moments, in the history's order.",
    {kOneDeviceParam, {"points", "at most this many moments (1 to 20,000; default 1000)"}},
    {
        {"entry", ColumnType::kCount, "", "after this entry (-1: before the first)"},
        {"at_us", ColumnType::kCount, "us", "its time (null: before the first entry, or no times)"},
        {"parameters", ColumnType::kCount, "bytes", "parameters alive then"},
        {"optimizer_state", ColumnType::kCount, "bytes", "optimizer state alive then"},
        {"activations", ColumnType::kCount, "bytes", "activations alive then"},
        {"gradients", ColumnType::kCount, "bytes", "gradients alive then"},
        {"temporaries", ColumnType::kCount, "bytes", "temporaries alive then"},
        {"unknown", ColumnType::kCount, "bytes", "the rest"},
    },
    {
        {"device", "number", "the device"},
        {"entries", "number", "the device's history entries"},
        {"has_times", "boolean", "every moment has a time"},
    },
    {"entry", "at_us", "parameters", "optimizer_state", "activations", "gradients", "temporaries", "unknown"},
};

Answer snapshot_categories_series_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!readable(s, error) || !devices_of(s, params, false, devices, error)) return error_answer(kSnapshotCategoriesSeriesSchema, error);
  const int64_t d = devices.front();
  int64_t points = 1000;
  if (const std::string_view p = param(params, "points"); !p.empty()) {
    const std::optional<int64_t> v = parse_int(p);
    if (!v || *v < 1 || *v > 20000) return error_answer(kSnapshotCategoriesSeriesSchema, "points takes 1 to 20,000, not \"" + std::string(p) + "\".");
    points = *v;
  }
  const std::vector<CategoryBytes> series = snapshot_category_series(s.model(), d, size_t(points));
  bool times = true;
  for (const CategoryBytes& c : series) times &= c.entry < 0 || c.at_us >= 0;
  AnswerBuilder b(kSnapshotCategoriesSeriesSchema, series.size());
  b.meta("device", json_int(d));
  b.meta("entries", json_int(snapshot_history_size(s.model(), d)));
  b.meta("has_times", times ? "true" : "false");
  b.rows_here();
  AnswerColumn &entry = b.add("entry"), &at = b.add("at_us");
  std::vector<AnswerColumn*> cats;
  for (size_t i = 0; i < kMemCategories; ++i) cats.push_back(&b.add(mem_category_name(MemCategory(i))));
  for (const CategoryBytes& c : series) {
    entry.f64.push_back(double(c.entry));
    at.f64.push_back(opt_time(c.at_us));
    for (size_t i = 0; i < kMemCategories; ++i) cats[i]->f64.push_back(double(c.bytes[i]));
  }
  return b.take();
}


// ---- snapshot-memory-timeline --------------------------------------------------------------

namespace {

// The paired file; with `file` asked, it must be that one (the page names the file it paired).
bool paired(const SnapshotSession& s, QueryParamsRef params, std::string& error) {
  if (!readable(s, error)) return false;
  if (!s.memory_timeline()) {
    error = "No export_memory_timeline file is paired with this snapshot.";
    return false;
  }
  const std::string_view f = param(params, "file");
  if (f.empty() || f == s.memory_timeline_file()) return true;
  error = "The export_memory_timeline paired with this snapshot is " + s.memory_timeline_file() + ", not " + std::string(f) + ".";
  return false;
}

const ParamSpec kFileParam{"file", "the paired file's name: an error when another file is paired"};

void timeline_file_meta(AnswerBuilder& b, const SnapshotSession& s) {
  const MemoryTimeline& tl = *s.memory_timeline();
  b.meta("file", json_string(s.memory_timeline_file()));
  b.meta("samples", json_int(int64_t(tl.times_us.size())));
  b.meta("first_us", json_number(tl.times_us.empty() ? NAN : double(tl.times_us.front())));
  b.meta("last_us", json_number(tl.times_us.empty() ? NAN : double(tl.times_us.back())));
}

const std::vector<MetaSpec> kTimelineFileMeta = {
    {"file", "string", "the export_memory_timeline file's name"},
    {"samples", "number", "its samples"},
    {"first_us", "number | null", "its first sample's time"},
    {"last_us", "number | null", "its last sample's time"},
};

}  // namespace

const ViewSchema kSnapshotMemoryTimelineSchema = {
    "snapshot-memory-timeline",
    "SnapshotMemoryTimeline",
    "PyTorch's own categories of the memory (torch.profiler's export_memory_timeline, paired with the snapshot: "
    "SnapshotSession::set_memory_timeline) at a moment of the snapshot (the peak unless entry or at_us is given): "
    "its last sample at or before the moment's time, or, when the file does not cover it, the file's own peak, as "
    "`kinetoscope snapshot --categories --memory-timeline FILE` prints them. Rows: parameters, optimizer_state, "
    "inputs, temporaries, activations, gradients, autograd_detail, unknown.",
    {kOneDeviceParam,
     {"entry", "the moment: after this entry of the device's history (-1: before the first); default: the peak"},
     {"at_us", "the moment: the last sample at or before this time (time_us); entry wins when both are given"},
     kFileParam},
    {
        {"category", ColumnType::kString, "", "PyTorch's category"},
        {"bytes", ColumnType::kCount, "bytes", "its bytes in the sample"},
    },
    {
        {"device", "number", "the snapshot's device"},
        {"entry", "number", "the snapshot's moment: after this entry (-1: before the first)"},
        {"at_us", "number | null", "the moment's time looked up in the file (the peak's: the first entry's when the peak is before it)"},
        {"matched", "boolean", "the file covers the moment (false: the rows are its own peak, to compare)"},
        {"sample_us", "number | null", "the sample's time"},
        {"file", "string", "the export_memory_timeline file's name"},
        {"samples", "number", "its samples"},
        {"first_us", "number | null", "its first sample's time"},
        {"last_us", "number | null", "its last sample's time"},
    },
    {"category", "bytes"},
};

Answer snapshot_memory_timeline_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::vector<int64_t> devices;
  std::string error;
  if (!paired(s, params, error) || !devices_of(s, params, false, devices, error)) return error_answer(kSnapshotMemoryTimelineSchema, error);
  const int64_t d = devices.front();
  const SnapDeviceStats& st = s.stats(d);
  int64_t entry = st.peak_entry;
  if (!moment_of(s, params, d, st.peak_entry, entry, error)) return error_answer(kSnapshotMemoryTimelineSchema, error);
  // As the CLI: the peak's time, the time asked, or the entry's.
  int64_t at = st.peak_at_us;
  if (!param(params, "entry").empty()) at = entry >= 0 ? s.model().devices[size_t(d)].time_us[size_t(entry)] : -1;
  else if (const std::string_view a = param(params, "at_us"); !a.empty()) at = parse_int(a).value_or(-1);
  const TimelineCategories tc = memory_timeline_at(*s.memory_timeline(), at);
  AnswerBuilder b(kSnapshotMemoryTimelineSchema, kTimelineCategories);
  b.meta("device", json_int(d));
  b.meta("entry", json_int(entry));
  b.meta("at_us", json_number(opt_time(at)));
  b.meta("matched", tc.matched ? "true" : "false");
  b.meta("sample_us", json_number(opt_time(tc.sample_us)));
  timeline_file_meta(b, s);
  b.rows_here();
  AnswerColumn &cat = b.add("category"), &bytes = b.add("bytes");
  for (size_t i = 0; i < kTimelineCategories; ++i) {
    cat.str.push_back(b.intern(kTimelineCategoryNames[i]));
    bytes.f64.push_back(double(tc.bytes[i]));
  }
  return b.take();
}

const ViewSchema kSnapshotMemoryTimelineSeriesSchema = {
    "snapshot-memory-timeline-series",
    "SnapshotMemoryTimelineSeries",
    "The paired export_memory_timeline's samples for a stacked chart: cut into at most `points` runs of equal "
    "length, each given at its sample of most memory. Rows: samples, in time order.",
    {{"points", "at most this many samples (1 to 20,000; default 1000)"}, kFileParam},
    {
        {"time_us", ColumnType::kCount, "us", "the sample's time (the profiler's clock)"},
        {"parameters", ColumnType::kCount, "bytes", "parameters then (PyTorch's category)"},
        {"optimizer_state", ColumnType::kCount, "bytes", "optimizer state then (PyTorch's category)"},
        {"inputs", ColumnType::kCount, "bytes", "inputs then (PyTorch's category)"},
        {"temporaries", ColumnType::kCount, "bytes", "temporaries then (PyTorch's category)"},
        {"activations", ColumnType::kCount, "bytes", "activations then (PyTorch's category)"},
        {"gradients", ColumnType::kCount, "bytes", "gradients then (PyTorch's category)"},
        {"autograd_detail", ColumnType::kCount, "bytes", "autograd detail then (PyTorch's category)"},
        {"unknown", ColumnType::kCount, "bytes", "unknown then (PyTorch's category)"},
    },
    kTimelineFileMeta,
    {"time_us", "parameters", "optimizer_state", "inputs", "temporaries", "activations", "gradients", "autograd_detail", "unknown"},
};

Answer snapshot_memory_timeline_series_answer(const SnapshotSession& s, QueryParamsRef params) {
  std::string error;
  if (!paired(s, params, error)) return error_answer(kSnapshotMemoryTimelineSeriesSchema, error);
  int64_t points = 1000;
  if (const std::string_view p = param(params, "points"); !p.empty()) {
    const std::optional<int64_t> v = parse_int(p);
    if (!v || *v < 1 || *v > 20000) return error_answer(kSnapshotMemoryTimelineSeriesSchema, "points takes 1 to 20,000, not \"" + std::string(p) + "\".");
    points = *v;
  }
  const MemoryTimeline& tl = *s.memory_timeline();
  const size_t n = tl.times_us.size();
  std::vector<size_t> picked;  // per run, its sample of the largest total
  int64_t best = -1;
  for (size_t k = 0; k < n; ++k) {
    const size_t run = k * size_t(points) / n;
    int64_t total = 0;
    for (int64_t x : tl.sizes[k]) total += x;
    if (picked.size() <= run) picked.push_back(k), best = total;
    else if (total > best) picked.back() = k, best = total;
  }
  AnswerBuilder b(kSnapshotMemoryTimelineSeriesSchema, picked.size());
  timeline_file_meta(b, s);
  b.rows_here();
  AnswerColumn& t = b.add("time_us");
  std::vector<AnswerColumn*> cats;
  for (size_t i = 0; i < kTimelineCategories; ++i) cats.push_back(&b.add(kTimelineCategoryNames[i]));
  for (size_t k : picked) {
    t.f64.push_back(double(tl.times_us[k]));
    for (size_t i = 0; i < kTimelineCategories; ++i) cats[i]->f64.push_back(double(tl.sizes[k][i]));
  }
  return b.take();
}

}  // namespace ks
