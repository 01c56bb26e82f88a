// The one answer shape of every view (docs/contracts.md "Session and answers"): a typed column
// table plus a small metadata object. Numbers stay numbers from the analysis to the page (the
// wasm binding copies each column into one typed array, the worker transfers it); strings go
// through the answer's own string table, each text once. The CLI prints its --json, --csv and
// text from the same answer, so a view's columns are declared once (view_schema.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/session/view_schema.h"

namespace ks {

// The null of each storage (ColumnType in view_schema.h says which a column uses).
inline constexpr uint32_t kNullString = std::numeric_limits<uint32_t>::max();
inline constexpr int32_t kNullI32 = std::numeric_limits<int32_t>::min();
inline constexpr uint8_t kTriNo = 0, kTriYes = 1, kTriUnknown = 2;

struct AnswerColumn {
  const ColumnSpec* spec = nullptr;
  // false: the view has no value for this column in this answer (kernels' blocks per SM when no
  // kernel recorded it): its cells are null, the CSV leaves it out and the page hides it.
  bool present = true;
  std::vector<double> f64;    // kF64 (NaN: null), kCount
  std::vector<int32_t> i32;   // kI32 (kNullI32: null), kI32x3 (3 per row; first kNullI32: null)
  std::vector<uint32_t> str;  // kString: index into Answer::strings, kNullString: null
  std::vector<uint8_t> u8;    // kTri (kTriNo/kTriYes/kTriUnknown), kBool (0/1)
};

struct Answer {
  const ViewSchema* schema = nullptr;
  size_t rows = 0;
  std::vector<AnswerColumn> columns;  // in the schema's order; optional ones only when given
  std::vector<std::string> strings;
  // What the view needs besides the rows, as (key, JSON value) in the order of its --json
  // object; "rows" sits before meta[rows_at].
  std::vector<std::pair<std::string, std::string>> meta;
  size_t rows_at = 0;
  // Non-empty: the query could not be answered (an unknown step, a bad parameter); one sentence.
  std::string error;

  const AnswerColumn* column(std::string_view name) const;
};

// Fills an answer: add() opens a column of the schema (each at most once; the reference it
// returns stays valid until take()), cells are appended to it, intern() keeps each string once.
class AnswerBuilder {
 public:
  AnswerBuilder(const ViewSchema& schema, size_t rows);
  AnswerColumn& add(std::string_view name, bool present = true);
  uint32_t intern(std::string_view s);
  void meta(std::string key, std::string json_value) { a_.meta.emplace_back(std::move(key), std::move(json_value)); }
  void rows_here() { a_.rows_at = a_.meta.size(); }
  Answer take();

 private:
  Answer a_;
  std::unordered_map<std::string, uint32_t> ids_;
};

// The answer as its --json object (the keys of its meta around "rows": [{column: value}]).
std::string answer_json(const Answer& a);
// Rows [from, to) of the answer as a JSON array of {column: value} objects (or, as_arrays, of
// [value, ...] arrays), the --json columns only: for a CLI output that nests an answer's rows
// (`kinetoscope memory --json` groups each view's rows by device).
std::string answer_rows_json(const Answer& a, size_t from, size_t to, bool as_arrays = false);
// One row as its JSON object.
std::string answer_row_json(const Answer& a, size_t row);
// The answer's CSV: the schema's csv columns that are in the answer and present, header first;
// rows [from, to) only when given.
std::string answer_csv(const Answer& a, size_t from = 0, size_t to = SIZE_MAX);
// {"error": sentence}, what a failed query's JSON reads.
std::string error_json(std::string_view message);

}  // namespace ks
