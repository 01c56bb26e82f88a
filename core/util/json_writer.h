// A small streaming JSON writer: the CLI and the wasm binding print the same objects.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ks {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void comma();
  std::string out_;
  bool need_comma_ = false;
};

// Appends the shortest decimal text that reads back as v (finite v).
void append_shortest_double(std::string& out, double v);

// Appends s to out with JSON escaping (control characters as \u00XX).
void append_json_escaped(std::string& out, std::string_view s);

}  // namespace ks
