#include <catch2/catch.hpp>

#include <cmath>

#include "core/trace/model_columns.h"
#include "test_util.h"

namespace {
const ks::Column& col(const std::vector<ks::Column>& cols, const std::string& name) {
  for (const auto& c : cols)
    if (c.name == name) return c;
  FAIL("no column " << name);
  return cols.front();
}
}  // namespace

TEST_CASE("a kernel table as columns, values by hand from string-pid-and-tid.json", "[columns]") {
  ks::TraceReader r;
  kstest::feed_all(r, kstest::read_fixture("string-pid-and-tid.json"), 64);
  const ks::TraceModel& m = r.model();
  const auto cols = ks::table_columns(m, "kernel");
  CHECK(col(cols, "ts").f64 == std::vector<double>{5000});  // kernel at 100 us, trace starts at 95 us
  CHECK(col(cols, "dur").f64 == std::vector<double>{10000});
  CHECK(m.strings.get(col(cols, "name").u32[0]) == "k1");
  CHECK(m.strings.get(col(cols, "tid").u32[0]) == "stream 7");
  CHECK(col(cols, "correlation").f64[0] == 5);
  CHECK(std::isnan(col(cols, "external_id").f64[0]));
  CHECK(col(cols, "grid_y").i32[0] == 2);
  CHECK(col(cols, "block_x").i32[0] == 128);
  CHECK(col(cols, "occupancy_pct").f64[0] == Approx(12));
  const auto rt = ks::table_columns(m, "runtime");
  CHECK(col(rt, "ts").f64 == std::vector<double>{0});
  CHECK(col(rt, "external_id").f64[0] == 9);
  CHECK(ks::table_columns(m, "no-such-table").empty());
}
