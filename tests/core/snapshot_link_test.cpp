// The snapshot views the page's other pages ask (core/session/views/snapshot_link.cpp):
// snapshot-compare-side, one side of `snapshot --compare` (equal to compare_snapshots' numbers on
// the hand-made pair of tests/data/snapshots), and snapshot-window, the hand-made history in a time
// range worked out by hand (tests/data/README.md), with its refusals.
#include <catch2/catch.hpp>

#include <string>

#include "core/session/snapshot_session.h"
#include "core/session/views.h"
#include "core/snapshot/snapshot_compare.h"
#include "snapshot_fixture.h"
#include "test_util.h"

namespace {

using kstest::kBefore;
using kstest::num;
using kstest::str;

// A fixture of tests/data/snapshots, fed in 7-byte chunks.
struct LinkSnapshot : kstest::OpenedSnapshot {
  explicit LinkSnapshot(const std::string& fixture) : OpenedSnapshot(kstest::read_fixture(fixture)) {}
};

}  // namespace

TEST_CASE("snapshot-compare-side: the hand-made snapshot's peak, every site and the categories", "[snapshot][session][snapshot-link]") {
  LinkSnapshot o("snapshots/hand-made-protocol4.pickle");
  const ks::Answer a = o.s.query("snapshot-compare-side", {{"device", "0"}});
  INFO(a.error);
  REQUIRE(a.error.empty());
  CHECK(ks::answer_meta(a, "has_device") == "true");
  CHECK(ks::answer_meta(a, "trace_entries") == "12");
  CHECK(ks::answer_meta(a, "peak_allocated_bytes") == "4024288");
  CHECK(ks::answer_meta(a, "peak_entry") == "4");
  CHECK(ks::answer_meta(a, "peak_at_us") == "1004");
  CHECK(ks::answer_meta(a, "peak_reserved_bytes") == "6291456");
  CHECK(ks::answer_meta(a, "ooms") == "1");
  // At the peak (tests/data/README.md): model.py:7 3,000,000 in 2, model.py:3 524,288, before 500,000.
  REQUIRE(a.rows == 3);
  CHECK(str(a, "frame", 0) == "model.py:7:forward");
  CHECK(num(a, "bytes", 0) == 3000000);
  CHECK(num(a, "allocations", 0) == 2);
  CHECK(str(a, "frame", 1) == "model.py:3:__init__");
  CHECK(num(a, "bytes", 1) == 524288);
  CHECK(str(a, "frame", 2) == kBefore);
  CHECK(num(a, "bytes", 2) == 500000);
  // The categories are compare_snapshots' (A's side of the hand-made pair), adding up to the peak.
  const ks::SnapshotComparison c = ks::compare_snapshots(o.s.model(), o.s.model(), 0);
  std::string want = "[";
  int64_t sum = 0;
  for (size_t i = 0; i < ks::kMemCategories; ++i) {
    if (i) want += ",";
    want += "{\"category\":\"" + std::string(ks::mem_category_name(ks::MemCategory(i))) + "\",\"bytes\":" + std::to_string(c.a_categories.bytes[i]) +
            ",\"allocations\":" + std::to_string(c.a_categories.allocations[i]) + "}";
    sum += c.a_categories.bytes[i];
  }
  CHECK(ks::answer_meta(a, "categories") == want + "]");
  CHECK(sum == 4024288);

  SECTION("a device without history, one the snapshot lacks, and a bad one") {
    const ks::Answer d1 = o.s.query("snapshot-compare-side", {{"device", "1"}});
    REQUIRE(d1.error.empty());
    CHECK(ks::answer_meta(d1, "trace_entries") == "0");
    CHECK(ks::answer_meta(d1, "peak_allocated_bytes") == "2000000");
    CHECK(ks::answer_meta(d1, "peak_entry") == "-1");
    CHECK(ks::answer_meta(d1, "peak_at_us") == "null");
    const ks::Answer d7 = o.s.query("snapshot-compare-side", {{"device", "7"}});
    REQUIRE(d7.error.empty());
    CHECK(ks::answer_meta(d7, "has_device") == "false");
    CHECK(ks::answer_meta(d7, "peak_allocated_bytes") == "0");
    CHECK(d7.rows == 0);
    CHECK(o.s.query("snapshot-compare-side", {{"device", "x"}}).error == "device takes a device number (0, 1, ...), not \"x\".");
  }
}

TEST_CASE("snapshot-compare-side: the grown site of the hand-made pair, as compare_snapshots pairs them", "[snapshot][session][snapshot-link]") {
  LinkSnapshot a("snapshots/hand-made-protocol4.pickle"), b("snapshots/compare-site-grew.pickle");
  const ks::Answer sa = a.s.query("snapshot-compare-side", {}), sb = b.s.query("snapshot-compare-side", {});
  REQUIRE(sa.error.empty());
  REQUIRE(sb.error.empty());
  CHECK(ks::answer_meta(sb, "peak_allocated_bytes") == "7024288");
  const ks::SnapshotComparison c = ks::compare_snapshots(a.s.model(), b.s.model(), 0);
  // Each side's rows are the comparison's sites of that side (the page pairs them: lib/snapshot-compare.ts).
  for (const ks::CompareSite& site : c.sites) {
    bool in_a = false, in_b = false;
    for (size_t r = 0; r < sa.rows; ++r)
      if (str(sa, "frame", r) == site.frame) {
        in_a = true;
        CHECK(num(sa, "bytes", r) == site.a_bytes);
      }
    for (size_t r = 0; r < sb.rows; ++r)
      if (str(sb, "frame", r) == site.frame) {
        in_b = true;
        CHECK(num(sb, "bytes", r) == site.b_bytes);
      }
    CHECK(in_a == (site.a_bytes > 0));
    CHECK(in_b == (site.b_bytes > 0));
  }
  REQUIRE(c.sites.size() == 3);
  CHECK(c.sites[0].frame == "model.py:7:forward");
  CHECK(c.sites[0].growth_bytes() == 3000000);
}

TEST_CASE("snapshot-window: the hand-made history between 1003 and 1006 us, by hand", "[snapshot][session][snapshot-link]") {
  LinkSnapshot o("snapshots/hand-made-protocol5.pickle");
  const ks::Answer w = o.s.query("snapshot-window", {{"device", "0"}, {"from_us", "1003"}, {"to_us", "1006"}, {"span_from_us", "995"}, {"span_to_us", "1020"}});
  REQUIRE(w.error.empty());
  CHECK(ks::answer_meta(w, "first_us") == "1000");
  CHECK(ks::answer_meta(w, "last_us") == "1011");
  // Entries 3-6 (1003-1006); after entry 2: 2,324,288; the peak 4,024,288 after entry 4 (1004).
  CHECK(ks::answer_meta(w, "entries") == "4");
  CHECK(ks::answer_meta(w, "first_entry") == "3");
  CHECK(ks::answer_meta(w, "last_entry") == "6");
  CHECK(ks::answer_meta(w, "level_at_from_bytes") == "2324288");
  CHECK(ks::answer_meta(w, "peak_bytes") == "4024288");
  CHECK(ks::answer_meta(w, "peak_at_us") == "1004");
  // Alive in it: A's 1,000,000 (1001-1006, freed in it) and 2,000,000 (1004-, allocated in it),
  // B's 524,288 (1002-), the 500,000 from before the history. Not: the 300,000 freed at 1003 (gone
  // from the range's start), E (1007-1010).
  REQUIRE(w.rows == 3);
  CHECK(str(w, "site", 0) == "model.py:7:forward");
  CHECK(num(w, "bytes", 0) == 3000000);
  CHECK(num(w, "allocations", 0) == 2);
  CHECK(num(w, "allocated_bytes", 0) == 2000000);
  CHECK(num(w, "allocated", 0) == 1);
  CHECK(num(w, "freed", 0) == 1);
  CHECK(num(w, "largest_bytes", 0) == 2000000);
  CHECK(str(w, "stack", 0) == "at::empty (aten/src/ATen/Empty.cpp:42)\nforward (model.py:7)\ntrain_step (train.py:20)");
  CHECK(str(w, "site", 1) == "model.py:3:__init__");
  CHECK(num(w, "bytes", 1) == 524288);
  CHECK(num(w, "allocated", 1) == 0);
  CHECK(str(w, "site", 2) == kBefore);
  CHECK(num(w, "bytes", 2) == 500000);
  CHECK(str(w, "stack", 2) == "<null>");

  SECTION("a range before the history: the 800,000 alive before it, no entry") {
    const ks::Answer e = o.s.query("snapshot-window", {{"from_us", "990"}, {"to_us", "999"}});
    REQUIRE(e.error.empty());
    CHECK(ks::answer_meta(e, "entries") == "0");
    CHECK(ks::answer_meta(e, "first_entry") == "null");
    CHECK(ks::answer_meta(e, "level_at_from_bytes") == "800000");
    CHECK(ks::answer_meta(e, "peak_bytes") == "800000");
    REQUIRE(e.rows == 1);
    CHECK(str(e, "site", 0) == kBefore);
    CHECK(num(e, "bytes", 0) == 800000);
    CHECK(num(e, "allocations", 0) == 2);
  }
  SECTION("refusals, each one sentence") {
    CHECK(o.s.query("snapshot-window", {{"from_us", "1003"}, {"to_us", "1006"}, {"span_from_us", "2000"}, {"span_to_us", "3000"}}).error ==
          "The snapshot's history (1000 – 1011 µs, Unix time) falls outside this trace's span (2000 – 3000 µs): their clocks cannot be "
          "matched, so it is not shown for this trace.");
    CHECK(o.s.query("snapshot-window", {{"from_us", "1006"}, {"to_us", "1003"}}).error == "to_us must be at or after from_us.");
    CHECK(o.s.query("snapshot-window", {{"to_us", "1003"}}).error == "from_us is needed: a time in microseconds (the snapshot's time_us).");
    CHECK(o.s.query("snapshot-window", {{"from_us", "x"}, {"to_us", "1003"}}).error ==
          "from_us takes a time in microseconds (the snapshot's time_us), not \"x\".");
    CHECK(o.s.query("snapshot-window", {{"device", "1"}, {"from_us", "1"}, {"to_us", "2"}}).error ==
          "Device 1 has no allocator history: nothing happened in any time range.");
    CHECK(o.s.query("snapshot-window", {{"device", "4"}, {"from_us", "1"}, {"to_us", "2"}}).error == "The snapshot has no device 4.");
  }
}
