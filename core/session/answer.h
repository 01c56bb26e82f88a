// The one answer shape of every view (docs/contracts.md "Session and answers"): a typed column
// table plus a small metadata object. Numbers stay numbers from the analysis to the page (the
// wasm binding copies each column into one typed array, the worker transfers it); strings go
// through the answer's own string table, each text once. The CLI prints its --json, --csv and
// text from the same answer, so a view's columns are declared once (view_schema.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
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
  std::vector<double> f64;    // kF64 (NaN: null), kCount, kF64Pairs (x, y, x, y, ...)
  std::vector<uint32_t> ends; // kF64Pairs: where each row's pairs end, in pairs
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
// The same with other answers' rows before its own, each under its schema's rows_key: a detail
// whose lists are views of their own printed as one object.
std::string answer_json(const Answer& a, std::span<const Answer* const> rows_before);
inline std::string answer_json(const Answer& a, std::initializer_list<const Answer*> rows_before) {
  return answer_json(a, std::span<const Answer* const>(rows_before.begin(), rows_before.size()));
}
// Its rows alone, as the --json array of answer_json (for a command that prints several answers).
std::string answer_rows_json(const Answer& a);
// A metadata value (JSON text) by key; "null" when the answer has none.
std::string_view answer_meta(const Answer& a, std::string_view key);
// A metadata value read back, for the CLI's text: a string's text ("" for null), a number (NaN
// for null), or with `field` a number field of a flat object value (NaN when absent).
std::string answer_meta_string(const Answer& a, std::string_view key);
double answer_meta_number(const Answer& a, std::string_view key, std::string_view field = "");
// Rows [from, to) of the answer as a JSON array of {column: value} objects (or, as_arrays, of
// [value, ...] arrays), the --json columns only: for a CLI output that nests an answer's rows
// (`kinetoscope memory --json` groups each view's rows by device).
std::string answer_rows_json(const Answer& a, size_t from, size_t to, bool as_arrays = false);
// One row as its JSON object.
std::string answer_row_json(const Answer& a, size_t row);
// One cell as its JSON value, for a printer whose --json nests an answer's columns further than
// its rows (`kinetoscope diff --json`: each node's two sides as objects).
std::string answer_cell_json(const Answer& a, const AnswerColumn& c, size_t row);
// The answer's CSV: the schema's csv columns that are in the answer and present, header first
// (header false: the rows only, to follow another answer's CSV of the same view); rows [from, to)
// only when given.
std::string answer_csv(const Answer& a, bool header = true);
std::string answer_csv(const Answer& a, size_t from, size_t to, bool header = true);
// {"error": sentence}, what a failed query's JSON reads.
// An answer of `schema` with no rows and `error`'s sentence (an unknown parameter value or step).
Answer error_answer(const ViewSchema& schema, std::string error);
std::string error_json(std::string_view message);

// The answer in a compact binary form (its columns' cells as they are, its strings, its metadata),
// for an answer that goes back into the core: a rank summary from the worker that read the rank
// to the one that reduces the run. answer_from_bytes reads it as an answer of `schema`, or says
// in `error` why the bytes are not one (another view's answer, cut short, a column the schema
// lacks or of another type, a string index past the strings, bytes after the end).
std::string answer_bytes(const Answer& a);
bool answer_from_bytes(std::string_view bytes, const ViewSchema& schema, Answer& out, std::string& error);

}  // namespace ks
