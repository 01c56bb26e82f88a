#include "core/session/answer.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

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
    case ColumnType::kF64Pairs: return "f64pairs";
  }
  return "";
}

std::string_view column_type_array(ColumnType t) {
  switch (t) {
    case ColumnType::kF64:
    case ColumnType::kCount:
    case ColumnType::kF64Pairs: return "Float64Array";
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
    case ColumnType::kF64Pairs: c.ends.reserve(n); break;
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
    case ColumnType::kF64Pairs: {
      w.begin_array();
      for (size_t p = row ? c.ends[row - 1] : 0; p < c.ends[row]; ++p) w.begin_array().value(c.f64[2 * p]).value(c.f64[2 * p + 1]).end_array();
      w.end_array();
      break;
    }
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
    case ColumnType::kF64Pairs: out.field(uint64_t(c.ends[row] - (row ? c.ends[row - 1] : 0))); break;  // how many
  }
}

}  // namespace

std::string answer_json(const Answer& a) { return answer_json(a, {}); }

std::string answer_json(const Answer& a, std::span<const Answer* const> rows_before) {
  if (!a.error.empty()) return error_json(a.error);
  for (const Answer* b : rows_before)
    if (!b->error.empty()) return error_json(b->error);
  // The meta values are JSON texts already: the object is assembled around them.
  std::string out = "{";
  auto meta = [&](size_t i) {
    if (out.size() > 1) out += ',';
    append_json_escaped(out, a.meta[i].first);
    out += ':';
    out += a.meta[i].second;
  };
  for (size_t i = 0; i < a.rows_at && i < a.meta.size(); ++i) meta(i);
  for (const Answer* b : rows_before) {
    // A view without a rows key gives its metadata instead (a companion whose numbers are not rows:
    // gpu-time's comm_comp_overlap_pct, launches).
    if (b->schema->rows_key.empty()) {
      for (const auto& [key, value] : b->meta) {
        if (out.size() > 1) out += ',';
        append_json_escaped(out, key);
        out += ':';
        out += value;
      }
      continue;
    }
    if (out.size() > 1) out += ',';
    const bool whole = !b->schema->companion_key.empty();
    append_json_escaped(out, whole ? b->schema->companion_key : b->schema->rows_key);
    out += ':';
    out += whole ? answer_json(*b) : answer_rows_json(*b);
    if (!whole && b->schema->companion_meta)
      for (const auto& [key, value] : b->meta) {
        out += ',';
        append_json_escaped(out, key);
        out += ':';
        out += value;
      }
  }
  if (out.size() > 1) out += ',';
  append_json_escaped(out, a.schema->rows_key.empty() ? std::string_view("rows") : a.schema->rows_key);
  out += ':';
  out += answer_rows_json(a);
  for (size_t i = a.rows_at; i < a.meta.size(); ++i) meta(i);
  out += '}';
  return out;
}

std::string answer_rows_json(const Answer& a) {
  JsonWriter w;
  w.begin_array();
  std::vector<const AnswerColumn*> cols;
  for (const AnswerColumn& c : a.columns)
    if (c.spec->in_json) cols.push_back(&c);
  const AnswerColumn* parent =
      a.schema->tree_parent.empty() || a.schema->json_flat ? nullptr : a.column(a.schema->tree_parent);
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
  return w.take();
}

std::string_view answer_meta(const Answer& a, std::string_view key) {
  for (const auto& [k, v] : a.meta)
    if (k == key) return v;
  return "null";
}

std::string answer_meta_string(const Answer& a, std::string_view key) {
  const std::string_view v = answer_meta(a, key);
  std::string out;
  if (v.size() < 2 || v.front() != '"') return out;
  // The escapes append_json_escaped writes.
  for (size_t i = 1; i + 1 < v.size(); ++i) {
    if (v[i] != '\\' || i + 2 >= v.size()) {
      out += v[i];
      continue;
    }
    const char e = v[++i];
    if (e == 'n') out += '\n';
    else if (e == 'r') out += '\r';
    else if (e == 't') out += '\t';
    else if (e == 'u' && i + 4 < v.size()) {
      out += char(std::strtol(std::string(v.substr(i + 1, 4)).c_str(), nullptr, 16));
      i += 4;
    } else out += e;
  }
  return out;
}

double answer_meta_number(const Answer& a, std::string_view key, std::string_view field) {
  std::string_view v = answer_meta(a, key);
  if (!field.empty()) {
    std::string tag(1, '"');
    tag.append(field).append("\":");
    const size_t at = v.find(tag);
    if (at == std::string_view::npos) return std::nan("");
    v = v.substr(at + tag.size());
  }
  const std::string text(v.substr(0, 32));
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? std::nan("") : x;
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

std::string answer_cell_json(const Answer& a, const AnswerColumn& c, size_t row) {
  JsonWriter w;
  write_cell(w, a, c, row);
  return w.take();
}

std::string answer_csv(const Answer& a, bool header) { return answer_csv(a, 0, SIZE_MAX, header); }

std::string answer_csv(const Answer& a, size_t from, size_t to, bool header) {
  std::vector<const AnswerColumn*> cols;
  for (std::string_view name : a.schema->csv) {
    const AnswerColumn* c = a.column(name);
    if (c && c->present) cols.push_back(c);
  }
  CsvWriter out;
  if (header) {
    for (const AnswerColumn* c : cols) out.field(c->spec->csv_header.empty() ? c->spec->name : c->spec->csv_header);
    out.end_row();
  }
  for (size_t r = from; r < to && r < a.rows; ++r) {
    for (const AnswerColumn* c : cols) csv_cell(out, a, *c, r);
    out.end_row();
  }
  return out.take();
}

Answer error_answer(const ViewSchema& schema, std::string error) {
  Answer a;
  a.schema = &schema;
  a.error = std::move(error);
  return a;
}

std::string error_json(std::string_view message) {
  JsonWriter w;
  w.begin_object().key("error").value(message).end_object();
  return w.take();
}

// ---------------------------------------------------------------------------------------------
// The binary form: what crosses a worker or process boundary when the answer goes back into the
// core (a rank summary into the reduce). Little-endian throughout (wasm and the CLI's hosts are),
// every length before its bytes:
//   "KSA1" | str view | u64 rows | u32 columns × (str name, u8 type, u8 present, u64 n, n cells)
//   | u32 strings × str | u32 meta × (str key, str value) | u32 rows_at | str error
// where str is u32 length + UTF-8 bytes. A column's cells are its storage as it is (f64, i32,
// u32 or u8), so writing and reading are copies.

namespace {

constexpr char kAnswerMagic[4] = {'K', 'S', 'A', '1'};

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void put_str(std::string& out, std::string_view s) {
  put(out, uint32_t(s.size()));
  out.append(s);
}

template <class T>
void put_cells(std::string& out, const std::vector<T>& v) {
  put(out, uint64_t(v.size()));
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Reads what put wrote, refusing to run past the end.
class ByteReader {
 public:
  explicit ByteReader(std::string_view b) : b_(b) {}
  template <class T>
  bool get(T& v) {
    if (b_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool get_str(std::string& s) {
    uint32_t n = 0;
    if (!get(n) || b_.size() - at_ < n) return false;
    s.assign(b_.data() + at_, n);
    at_ += n;
    return true;
  }
  template <class T>
  bool get_cells(std::vector<T>& v, uint64_t expected) {
    uint64_t n = 0;
    if (!get(n) || n != expected || (b_.size() - at_) / sizeof(T) < n) return false;
    v.resize(size_t(n));
    std::memcpy(v.data(), b_.data() + at_, size_t(n) * sizeof(T));
    at_ += size_t(n) * sizeof(T);
    return true;
  }
  bool at_end() const { return at_ == b_.size(); }

 private:
  std::string_view b_;
  size_t at_ = 0;
};

}  // namespace

std::string answer_bytes(const Answer& a) {
  std::string out(kAnswerMagic, 4);
  put_str(out, a.schema ? a.schema->view : std::string_view());
  put(out, uint64_t(a.rows));
  put(out, uint32_t(a.columns.size()));
  for (const AnswerColumn& c : a.columns) {
    put_str(out, c.spec->name);
    put(out, uint8_t(c.spec->type));
    put(out, uint8_t(c.present ? 1 : 0));
    switch (c.spec->type) {
      case ColumnType::kF64:
      case ColumnType::kCount: put_cells(out, c.f64); break;
      case ColumnType::kI32:
      case ColumnType::kI32x3: put_cells(out, c.i32); break;
      case ColumnType::kString: put_cells(out, c.str); break;
      case ColumnType::kTri:
      case ColumnType::kBool: put_cells(out, c.u8); break;
      case ColumnType::kF64Pairs:
        put_cells(out, c.ends);
        put_cells(out, c.f64);
        break;
    }
  }
  put(out, uint32_t(a.strings.size()));
  for (const std::string& s : a.strings) put_str(out, s);
  put(out, uint32_t(a.meta.size()));
  for (const auto& [key, value] : a.meta) {
    put_str(out, key);
    put_str(out, value);
  }
  put(out, uint32_t(a.rows_at));
  put_str(out, a.error);
  return out;
}

bool answer_from_bytes(std::string_view bytes, const ViewSchema& schema, Answer& out, std::string& error) {
  out = Answer{};
  out.schema = &schema;
  ByteReader r(bytes);
  auto fail = [&](std::string sentence) {
    error = std::move(sentence);
    out = Answer{};
    out.schema = &schema;
    return false;
  };
  char magic[4] = {};
  for (char& ch : magic)
    if (!r.get(ch)) return fail("not a Kinetoscope answer (too short)");
  if (std::memcmp(magic, kAnswerMagic, 4) != 0) return fail("not a Kinetoscope answer");
  std::string view;
  if (!r.get_str(view)) return fail("a Kinetoscope answer cut short");
  if (view != schema.view) return fail("expected the " + std::string(schema.view) + " view's answer, got " + view + "'s");
  uint64_t rows = 0;
  uint32_t ncols = 0;
  if (!r.get(rows) || !r.get(ncols) || rows > bytes.size() * 8 || ncols > schema.columns.size())
    return fail("a " + view + " answer with a bad row or column count");
  out.rows = size_t(rows);
  for (uint32_t i = 0; i < ncols; ++i) {
    std::string name;
    uint8_t type = 0, present = 0;
    if (!r.get_str(name) || !r.get(type) || !r.get(present)) return fail("a " + view + " answer cut short");
    AnswerColumn c;
    c.spec = schema.column(name);
    if (!c.spec) return fail("a " + view + " answer with a column its schema lacks: " + name);
    if (uint8_t(c.spec->type) != type) return fail("a " + view + " answer whose column " + name + " has another type");
    c.present = present != 0;
    bool ok = false;
    switch (c.spec->type) {
      case ColumnType::kF64:
      case ColumnType::kCount: ok = r.get_cells(c.f64, rows); break;
      case ColumnType::kI32: ok = r.get_cells(c.i32, rows); break;
      case ColumnType::kI32x3: ok = r.get_cells(c.i32, 3 * rows); break;
      case ColumnType::kString: ok = r.get_cells(c.str, rows); break;
      case ColumnType::kTri:
      case ColumnType::kBool: ok = r.get_cells(c.u8, rows); break;
      case ColumnType::kF64Pairs: {
        // Each row's end, in pairs, never going back; then two numbers a pair.
        ok = r.get_cells(c.ends, rows);
        for (size_t k = 1; ok && k < c.ends.size(); ++k) ok = c.ends[k] >= c.ends[k - 1];
        ok = ok && r.get_cells(c.f64, 2 * uint64_t(c.ends.empty() ? 0 : c.ends.back()));
        break;
      }
    }
    if (!ok) return fail("a " + view + " answer whose column " + name + " does not hold one cell a row");
    out.columns.push_back(std::move(c));
  }
  uint32_t nstrings = 0;
  if (!r.get(nstrings) || nstrings > bytes.size() / 4) return fail("a " + view + " answer cut short");
  out.strings.resize(nstrings);
  for (std::string& s : out.strings)
    if (!r.get_str(s)) return fail("a " + view + " answer cut short");
  for (const AnswerColumn& c : out.columns)
    for (uint32_t id : c.str)
      if (id != kNullString && id >= nstrings) return fail("a " + view + " answer whose column " + std::string(c.spec->name) + " names a string it lacks");
  uint32_t nmeta = 0, rows_at = 0;
  if (!r.get(nmeta) || nmeta > bytes.size() / 8) return fail("a " + view + " answer cut short");
  out.meta.resize(nmeta);
  for (auto& [key, value] : out.meta)
    if (!r.get_str(key) || !r.get_str(value)) return fail("a " + view + " answer cut short");
  if (!r.get(rows_at) || rows_at > nmeta || !r.get_str(out.error)) return fail("a " + view + " answer cut short");
  if (!r.at_end()) return fail("a " + view + " answer with bytes after its end");
  out.rows_at = rows_at;
  return true;
}

}  // namespace ks
