#include "core/session/answer.h"

#include <cmath>

#include "core/util/csv_writer.h"
#include "core/util/json_writer.h"

namespace ks {

std::string_view column_type_word(ColumnType t) {
  switch (t) {
    case ColumnType::kF64: return "f64";
    case ColumnType::kCount: return "count";
    case ColumnType::kI32: return "i32";
    case ColumnType::kI32x3: return "i32x3";
    case ColumnType::kString: return "string";
    case ColumnType::kTri: return "tri";
    case ColumnType::kBool: return "bool";
  }
  return "";
}

std::string_view column_type_array(ColumnType t) {
  switch (t) {
    case ColumnType::kF64:
    case ColumnType::kCount: return "Float64Array";
    case ColumnType::kI32:
    case ColumnType::kI32x3: return "Int32Array";
    case ColumnType::kString: return "Uint32Array";
    case ColumnType::kTri:
    case ColumnType::kBool: return "Uint8Array";
  }
  return "";
}

const ColumnSpec* ViewSchema::column(std::string_view name) const {
  for (const ColumnSpec& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

const AnswerColumn* Answer::column(std::string_view name) const {
  for (const AnswerColumn& c : columns)
    if (c.spec->name == name) return &c;
  return nullptr;
}

AnswerBuilder::AnswerBuilder(const ViewSchema& schema, size_t rows) {
  a_.schema = &schema;
  a_.rows = rows;
  // Room for every column of the schema: what add() returns stays valid while later columns are
  // added, so a view may fill several columns row by row.
  a_.columns.reserve(schema.columns.size());
}

AnswerColumn& AnswerBuilder::add(std::string_view name, bool present) {
  AnswerColumn c;
  c.spec = a_.schema->column(name);
  c.present = present;
  // A name the schema lacks is a programming error of the view file: the schema test catches it
  // (every view's answers hold only declared columns); here it must not crash.
  if (!c.spec) c.spec = &a_.schema->columns.front();
  const size_t n = a_.rows;
  switch (c.spec->type) {
    case ColumnType::kF64:
    case ColumnType::kCount: c.f64.reserve(n); break;
    case ColumnType::kI32: c.i32.reserve(n); break;
    case ColumnType::kI32x3: c.i32.reserve(3 * n); break;
    case ColumnType::kString: c.str.reserve(n); break;
    case ColumnType::kTri:
    case ColumnType::kBool: c.u8.reserve(n); break;
  }
  a_.columns.push_back(std::move(c));
  return a_.columns.back();
}

uint32_t AnswerBuilder::intern(std::string_view s) {
  const auto [it, fresh] = ids_.try_emplace(std::string(s), uint32_t(a_.strings.size()));
  if (fresh) a_.strings.emplace_back(s);
  return it->second;
}

Answer AnswerBuilder::take() {
  ids_.clear();
  return std::move(a_);
}

namespace {

// A count's value as the whole number it is; beyond int64 (a saturated sum) it saturates too.
int64_t count_value(double v) {
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return int64_t(v);
}

void write_cell(JsonWriter& w, const Answer& a, const AnswerColumn& c, size_t row) {
  switch (c.spec->type) {
    case ColumnType::kF64: w.value(c.f64[row]); break;
    case ColumnType::kCount:
      if (std::isnan(c.f64[row])) w.null();
      else w.value(count_value(c.f64[row]));
      break;
    case ColumnType::kI32:
      if (c.i32[row] == kNullI32) w.null();
      else w.value(int64_t(c.i32[row]));
      break;
    case ColumnType::kI32x3:
      if (c.i32[3 * row] == kNullI32) w.null();
      else w.begin_array().value(c.i32[3 * row]).value(c.i32[3 * row + 1]).value(c.i32[3 * row + 2]).end_array();
      break;
    case ColumnType::kString:
      if (c.str[row] == kNullString) w.null();
      else w.value(std::string_view(a.strings[c.str[row]]));
      break;
    case ColumnType::kTri:
      if (c.u8[row] == kTriUnknown) w.null();
      else w.value(c.u8[row] == kTriYes);
      break;
    case ColumnType::kBool: w.value(c.u8[row] != 0); break;
  }
}

void csv_cell(CsvWriter& out, const Answer& a, const AnswerColumn& c, size_t row) {
  switch (c.spec->type) {
    case ColumnType::kF64:
      if (std::isnan(c.f64[row])) out.empty();
      else out.field(c.f64[row]);
      break;
    case ColumnType::kCount:
      if (std::isnan(c.f64[row])) out.empty();
      else out.field(count_value(c.f64[row]));
      break;
    case ColumnType::kI32:
      if (c.i32[row] == kNullI32) out.empty();
      else out.field(int64_t(c.i32[row]));
      break;
    case ColumnType::kI32x3: {
      const int32_t* d = &c.i32[3 * row];
      if (d[0] == kNullI32) out.empty();
      else out.field("[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]");
      break;
    }
    case ColumnType::kString:
      if (c.str[row] == kNullString) out.empty();
      else out.field(std::string_view(a.strings[c.str[row]]));
      break;
    case ColumnType::kTri: out.field(c.u8[row] == kTriYes ? "yes" : c.u8[row] == kTriNo ? "no" : "unknown"); break;
    case ColumnType::kBool: out.field(c.u8[row] ? "yes" : "no"); break;
  }
}

}  // namespace

std::string answer_json(const Answer& a) {
  if (!a.error.empty()) return error_json(a.error);
  // The meta values are JSON texts already: the object is assembled around them.
  std::string out = "{";
  auto meta = [&](size_t i) {
    if (out.size() > 1) out += ',';
    append_json_escaped(out, a.meta[i].first);
    out += ':';
    out += a.meta[i].second;
  };
  for (size_t i = 0; i < a.rows_at && i < a.meta.size(); ++i) meta(i);
  if (out.size() > 1) out += ',';
  JsonWriter w;
  w.begin_array();
  std::vector<const AnswerColumn*> cols;
  for (const AnswerColumn& c : a.columns)
    if (c.spec->in_json) cols.push_back(&c);
  const AnswerColumn* parent = a.schema->tree_parent.empty() ? nullptr : a.column(a.schema->tree_parent);
  // A tree's rows are in pre-order: a row stays open (its "children" array too) until a row that
  // is not its descendant comes.
  std::vector<int32_t> open;
  auto close_to = [&](int32_t p) {
    while (!open.empty() && open.back() != p) {
      w.end_array().end_object();
      open.pop_back();
    }
  };
  for (size_t r = 0; r < a.rows; ++r) {
    if (parent) close_to(parent->i32[r]);
    w.begin_object();
    for (const AnswerColumn* c : cols) {
      w.key(c->spec->name);
      write_cell(w, a, *c, r);
    }
    if (parent) {
      w.key("children").begin_array();
      open.push_back(int32_t(r));
    } else {
      w.end_object();
    }
  }
  close_to(-1);
  w.end_array();
  append_json_escaped(out, a.schema->rows_key);
  out += ':';
  out += w.str();
  for (size_t i = a.rows_at; i < a.meta.size(); ++i) meta(i);
  out += '}';
  return out;
}

std::string answer_rows_json(const Answer& a, size_t from, size_t to, bool as_arrays) {
  std::vector<const AnswerColumn*> cols;
  for (const AnswerColumn& c : a.columns)
    if (c.spec->in_json) cols.push_back(&c);
  JsonWriter w;
  w.begin_array();
  for (size_t r = from; r < to && r < a.rows; ++r) {
    if (as_arrays) w.begin_array();
    else w.begin_object();
    for (const AnswerColumn* c : cols) {
      if (!as_arrays) w.key(c->spec->name);
      write_cell(w, a, *c, r);
    }
    if (as_arrays) w.end_array();
    else w.end_object();
  }
  w.end_array();
  return w.take();
}

std::string answer_row_json(const Answer& a, size_t row) {
  const std::string rows = answer_rows_json(a, row, row + 1);
  return rows.size() > 2 ? rows.substr(1, rows.size() - 2) : "null";
}

std::string answer_csv(const Answer& a, size_t from, size_t to) {
  std::vector<const AnswerColumn*> cols;
  for (std::string_view name : a.schema->csv) {
    const AnswerColumn* c = a.column(name);
    if (c && c->present) cols.push_back(c);
  }
  CsvWriter out;
  for (const AnswerColumn* c : cols) out.field(c->spec->csv_header.empty() ? c->spec->name : c->spec->csv_header);
  out.end_row();
  for (size_t r = from; r < to && r < a.rows; ++r) {
    for (const AnswerColumn* c : cols) csv_cell(out, a, *c, r);
    out.end_row();
  }
  return out.take();
}

std::string error_json(std::string_view message) {
  JsonWriter w;
  w.begin_object().key("error").value(message).end_object();
  return w.take();
}

}  // namespace ks
