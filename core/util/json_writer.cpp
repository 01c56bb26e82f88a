#include "core/util/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ks {

void append_json_escaped(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void JsonWriter::comma() {
  if (need_comma_) out_.push_back(',');
  need_comma_ = true;
}

JsonWriter& JsonWriter::begin_object() { comma(); out_.push_back('{'); need_comma_ = false; return *this; }
JsonWriter& JsonWriter::end_object() { out_.push_back('}'); need_comma_ = true; return *this; }
JsonWriter& JsonWriter::begin_array() { comma(); out_.push_back('['); need_comma_ = false; return *this; }
JsonWriter& JsonWriter::end_array() { out_.push_back(']'); need_comma_ = true; return *this; }

JsonWriter& JsonWriter::key(std::string_view k) {
  comma();
  append_json_escaped(out_, k);
  out_.push_back(':');
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) { comma(); append_json_escaped(out_, s); return *this; }
JsonWriter& JsonWriter::value(int64_t v) { comma(); out_ += std::to_string(v); return *this; }
JsonWriter& JsonWriter::value(uint64_t v) { comma(); out_ += std::to_string(v); return *this; }
JsonWriter& JsonWriter::value(bool v) { comma(); out_ += v ? "true" : "false"; return *this; }
JsonWriter& JsonWriter::null() { comma(); out_ += "null"; return *this; }

void append_shortest_double(std::string& out, double v) {
  char buf[32];
  // %.17g round-trips; trim to the shortest of a few precisions that still round-trips.
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  out += buf;
}

JsonWriter& JsonWriter::value(double v) {
  comma();
  if (!std::isfinite(v)) { out_ += "null"; return *this; }
  append_shortest_double(out_, v);
  return *this;
}

}  // namespace ks
