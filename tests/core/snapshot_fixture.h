// A SnapshotSession loaded for a core test (the sibling of session_fixture.h): the pickle's bytes
// fed in `chunk`-byte pieces (7 by default: every split of the reader is crossed), and readers of
// a view's answer cell by column name.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>

#include "core/session/snapshot_session.h"

namespace kstest {

struct OpenedSnapshot {
  ks::SnapshotSession s;
  explicit OpenedSnapshot(const std::string& bytes, size_t chunk = 7) {
    s.set_file("x.pickle");
    s.reader().set_total_size(bytes.size());
    for (size_t i = 0; i < bytes.size(); i += chunk) s.reader().feed(bytes.data() + i, std::min(chunk, bytes.size() - i));
    s.reader().finish();
  }
};

inline double num(const ks::Answer& a, std::string_view col, size_t row) {
  const ks::AnswerColumn* c = a.column(col);
  REQUIRE(c);
  return c->f64[row];
}
inline std::string str(const ks::Answer& a, std::string_view col, size_t row) {
  const ks::AnswerColumn* c = a.column(col);
  REQUIRE(c);
  return c->str[row] == ks::kNullString ? std::string("<null>") : a.strings[c->str[row]];
}

inline const char* const kBefore = "<allocated before the history began>";

}  // namespace kstest
