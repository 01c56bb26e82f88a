// The Ranges view's schema and answer: core/analysis/ranges.h's tree of the user's
// record_function ranges as columns. Its number columns are ranges.h's range_columns(), declared
// there once; this file adds the tree's identity columns around them.
#include <string>

#include "core/analysis/ranges.h"
#include "core/session/session.h"
#include "core/session/views.h"

namespace ks {

namespace {

ViewSchema make_ranges_schema() {
  ViewSchema s;
  s.view = "ranges";
  s.type_name = "Ranges";
  s.description =
      "The user's record_function ranges as a tree, ProfilerStep left out (`kinetoscope ranges --json`): per place in "
      "the tree its calls, host and device time, Tensor Core share and GPU-side copy; rows in pre-order, the whole trace.";
  s.columns = {
      {"name", ColumnType::kString, "", "the range's name"},
      {"key", ColumnType::kString, "", "unique: the path of names from the top, joined by \"/\" (\"~2\" if two paths read the same)",
       false, false, "path"},
      {"kind", ColumnType::kString, "", "range, lightning, optimizer, dataloader or communication"},
      {"depth", ColumnType::kI32, "", "0 at the top", false},
      {"parent", ColumnType::kI32, "", "the parent's row, -1 at the top", false},
  };
  for (const RangeColumn& c : range_columns())
    s.columns.push_back({c.name, std::string_view(c.unit) == "count" ? ColumnType::kCount : ColumnType::kF64, c.unit,
                         c.description});
  s.meta = {
      {"calls", "number", "user ranges in the trace (ProfilerStep excluded)"},
      {"show_gpu", "boolean", "the trace has device work: the device columns mean something"},
      {"gpu_copies", "boolean", "some range has a GPU-side copy (gpu_user_annotation)"},
  };
  s.csv = {"key", "name", "kind", "depth"};
  for (const RangeColumn& c : range_columns()) s.csv.push_back(c.name);
  s.rows_key = "ranges";
  s.tree_parent = "parent";
  return s;
}

}  // namespace

const ViewSchema kRangesSchema = make_ranges_schema();

Answer ranges_answer(const Session& s, QueryParamsRef) {
  const TraceModel& m = s.model();
  const RangeTable t = range_table(s.tree(), m);
  AnswerBuilder b(kRangesSchema, t.rows.size());
  b.meta("calls", std::to_string(t.calls));
  b.meta("show_gpu", t.has_gpu ? "true" : "false");
  b.meta("gpu_copies", t.has_gpu_copies ? "true" : "false");
  b.rows_here();
  AnswerColumn& name = b.add("name");
  for (const RangeRow& r : t.rows) name.str.push_back(b.intern(r.name));
  AnswerColumn& key = b.add("key");
  for (const RangeRow& r : t.rows) key.str.push_back(b.intern(r.key));
  AnswerColumn& kind = b.add("kind");
  for (const RangeRow& r : t.rows) kind.str.push_back(b.intern(range_kind_name(r.kind)));
  AnswerColumn& depth = b.add("depth");
  for (const RangeRow& r : t.rows) depth.i32.push_back(r.depth);
  AnswerColumn& parent = b.add("parent");
  for (const RangeRow& r : t.rows) parent.i32.push_back(r.parent);
  for (const RangeColumn& c : range_columns()) {
    AnswerColumn& col = b.add(c.name);
    for (const RangeRow& r : t.rows) col.f64.push_back(c.value(r, m.start_ns));
  }
  return b.take();
}

}  // namespace ks
