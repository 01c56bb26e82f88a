// Reading one On-Demand value as the trace's writers meant it: numbers that may be written as
// strings, ids beyond int64, scalars of any type as text. Shared by the event decoder and the
// top-level member reader.
#pragma once
#include <string_view>
#include <utility>

#include "core/util/numbers.h"
#include "simdjson.h"

namespace ks::ondemand_values {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

// The text of a scalar: strings unescaped, numbers/bools as written, null as "".
inline error_code scalar_text(od::value& v, std::string_view& out) {
  od::json_type t;
  if (auto err = v.type().get(t)) return err;
  switch (t) {
    case od::json_type::string: return v.get_string().get(out);
    case od::json_type::null: out = {}; return SUCCESS;
    case od::json_type::number:
    case od::json_type::boolean: out = trim_token(v.raw_json_token()); return SUCCESS;
    default: out = {}; return SUCCESS;  // objects/arrays are skipped by the iterator
  }
}

// A number token (numbers, or numbers written as strings); empty when neither.
inline error_code number_token(od::value& v, std::string_view& out, bool& present) {
  od::json_type t;
  if (auto err = v.type().get(t)) return err;
  present = false;
  if (t == od::json_type::number) {
    out = v.raw_json_token();
    present = true;
  } else if (t == od::json_type::string) {
    if (auto err = v.get_string().get(out)) return err;
    present = true;
  }
  return SUCCESS;
}

inline error_code get_int(od::value& v, int64_t& out) {
  std::string_view tok;
  bool present = false;
  if (auto err = number_token(v, tok, present)) return err;
  if (present) {
    if (auto n = parse_int(tok)) out = *n;
  }
  return SUCCESS;
}

inline error_code get_double(od::value& v, double& out) {
  std::string_view tok;
  bool present = false;
  if (auto err = number_token(v, tok, present)) return err;
  if (present) {
    if (auto d = parse_double(tok)) out = *d;
  }
  return SUCCESS;
}

// Calls f(key as written, value) for each member of obj, stopping at the first error.
template <typename F>
inline error_code for_each_field(od::object obj, F&& f) {
  for (auto member : obj) {
    od::field field;
    if (auto err = std::move(member).get(field)) return err;
    if (auto err = f(field.escaped_key(), field.value())) return err;
  }
  return SUCCESS;
}

}  // namespace ks::ondemand_values
