// A view's schema, declared once in its core/session/views/<view>.cpp: its columns (name, type,
// unit, description), its metadata fields and its parameters. kinetoscope_schema generates from
// these declarations the page's TypeScript types (web/src/generated/views.ts) and the column
// tables of docs/contracts.md; a test fails when either differs from them.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// How a column is stored and what its null is (answer.h):
//   kF64    a number (double; NaN: null)             → Float64Array
//   kCount  a whole number, signed, written without decimals (NaN: null) → Float64Array (exact to 2^53)
//   kI32    a whole number (int32; INT32_MIN: null)   → Int32Array
//   kI32x3  three whole numbers a row ([x, y, z]; a first INT32_MIN: null) → Int32Array of 3n
//   kString an index into the answer's strings (0xFFFFFFFF: null) → Uint32Array
//   kTri    yes / no / unknown (1 / 0 / 2; JSON true / false / null) → Uint8Array
//   kBool   yes / no (1 / 0)                          → Uint8Array
//   kF64Pairs a list of (x, y) numbers a row          → Float64Array of 2 per pair, and the
//           answer's `ends` of the column: where each row's pairs end (in pairs) → Uint32Array
enum class ColumnType : uint8_t { kF64, kCount, kI32, kI32x3, kString, kTri, kBool, kF64Pairs };
std::string_view column_type_word(ColumnType t);        // "f64", "count", ...
std::string_view column_type_array(ColumnType t);       // "Float64Array", ...

struct ColumnSpec {
  std::string_view name;
  ColumnType type = ColumnType::kF64;
  std::string_view unit;  // "us", "percent", "count", "bytes", "" (none)
  std::string_view description;
  bool in_json = true;    // false: the page's and the CSV's only (JSON keeps its shape)
  bool optional = false;  // only in some answers (a grouping's own column)
  std::string_view csv_header;  // the CSV's header for it when not its name
};

// A metadata field: its TypeScript type (as the generated types spell it) and what it holds.
struct MetaSpec {
  std::string_view name;
  std::string_view ts_type;
  std::string_view description;
};

struct ParamSpec {
  std::string_view name;
  std::string_view description;
};

struct ViewSchema {
  std::string_view view;      // the query's name: "operators"
  std::string_view type_name;  // its TypeScript name: "Operators"
  std::string_view description;
  std::vector<ParamSpec> params;
  std::vector<ColumnSpec> columns;
  std::vector<MetaSpec> meta;
  std::vector<std::string_view> csv;  // the CSV's columns in order (--csv)
  // The --json key of the rows. Empty: "rows", and as a companion of another view (cli/view_command.cpp)
  // its metadata is printed in the other's object instead of its rows.
  std::string_view rows_key = "rows";
  // Non-empty: the rows are a tree in pre-order, this i32 column each row's parent (-1: a root);
  // --json nests each row's children under its "children" (unless json_flat: the rows as a list,
  // the parent column among them).
  std::string_view tree_parent;
  bool json_flat = false;
  // Non-empty: printed with another view (answer_json's rows_before, `kinetoscope gpu-time --json`),
  // its whole --json object goes under this key instead of its rows under rows_key.
  std::string_view companion_key;
  // Printed with another view under rows_key: its metadata follows its rows in the other's object
  // (gpu-queue's queue_limit and queue_note, which the page shows beside the rows).
  bool companion_meta = false;
  const ColumnSpec* column(std::string_view name) const;
};

}  // namespace ks
