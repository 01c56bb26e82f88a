// ChunkedTable, the model's column store: rows read back across blocks, and a small table holds
// about its rows, not a whole block of 16,384.
#include <catch2/catch.hpp>

#include <cstdint>

#include "core/util/chunked_table.h"

TEST_CASE("chunked tables keep rows in place across blocks", "[chunked_table]") {
  ks::ChunkedTable<int64_t, 4> t;
  for (int64_t i = 0; i < 11; ++i) t.push_back(i * 3);
  CHECK(t.size() == 11);
  CHECK(t[0] == 0);
  CHECK(t[4] == 12);
  CHECK(t[10] == 30);
  CHECK(t.bytes() == 3 * 4 * sizeof(int64_t));
  int64_t sum = 0;
  for (int64_t v : t) sum += v;
  CHECK(sum == 3 * 55);
}

TEST_CASE("chunked tables: a small table holds its rows, not a whole block", "[chunked_table]") {
  // The first block starts at 64 rows and doubles up to a full block, its rows moved each time.
  ks::ChunkedTable<int64_t> t;
  CHECK(t.bytes() == 0);
  for (int64_t i = 0; i < 100; ++i) t.push_back(i * 7);
  CHECK(t.bytes() == 128 * sizeof(int64_t));  // not 16,384 rows' worth
  for (int64_t i = 0; i < 100; ++i) REQUIRE(t[size_t(i)] == i * 7);
  for (int64_t i = 100; i < 16384 + 5; ++i) t.push_back(i * 7);
  CHECK(t.bytes() == 2 * 16384 * sizeof(int64_t));  // the first block full size, then whole blocks
  for (int64_t i = 0; i < 16384 + 5; ++i) REQUIRE(t[size_t(i)] == i * 7);
}
