// CSV (RFC 4180) for the CLI's --csv: fields quoted when they hold a comma, quote or line break.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "core/util/json_writer.h"

namespace ks {

class CsvWriter {
 public:
  CsvWriter& field(std::string_view s) {
    sep();
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
      out_ += s;
      return *this;
    }
    out_ += '"';
    for (char c : s) {
      if (c == '"') out_ += '"';
      out_ += c;
    }
    out_ += '"';
    return *this;
  }
  CsvWriter& field(double v) {
    sep();
    append_shortest_double(out_, v);
    return *this;
  }
  CsvWriter& field(int64_t v) {
    sep();
    out_ += std::to_string(v);
    return *this;
  }
  CsvWriter& field(uint64_t v) { return field(int64_t(v)); }
  CsvWriter& empty() {
    sep();
    return *this;
  }
  CsvWriter& end_row() {
    out_ += '\n';
    first_ = true;
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  void sep() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
};

}  // namespace ks
