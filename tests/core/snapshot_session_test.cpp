// A memory snapshot on the answer path (core/session/snapshot_session.h, views/snapshot.cpp): the
// hand-made snapshot of tests/data/snapshots (its numbers in tests/data/README.md) answered by
// each snapshot view, the timeline's bands and columns worked out by hand, the real samples' peak
// views adding up to their peak, and what a trace's Session and a failed read answer.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/session/snapshot_session.h"
#include "core/session/views.h"
#include "snapshot_fixture.h"
#include "test_util.h"

namespace {

using kstest::kBefore;
using kstest::num;
using kstest::OpenedSnapshot;
using kstest::str;

}  // namespace

TEST_CASE("snapshot views: the hand-made snapshot's numbers per device, oom and sites", "[snapshot][session]") {
  OpenedSnapshot o(kstest::read_fixture("snapshots/hand-made-protocol5.pickle"));
  const ks::Answer sum = o.s.query("snapshot-summary", {});
  REQUIRE(sum.error.empty());
  REQUIRE(sum.rows == 2);
  CHECK(ks::answer_meta(sum, "ok") == "true");
  CHECK(ks::answer_meta(sum, "error") == "null");
  CHECK(ks::answer_meta(sum, "file") == "\"x.pickle\"");
  CHECK(num(sum, "device", 0) == 0);
  CHECK(num(sum, "trace_entries", 0) == 12);
  CHECK(num(sum, "allocations", 0) == 4);
  CHECK(num(sum, "frees", 0) == 3);
  CHECK(num(sum, "peak_allocated_bytes", 0) == 4024288);
  CHECK(num(sum, "peak_at_us", 0) == 1004);
  CHECK(num(sum, "peak_entry", 0) == 4);
  CHECK(num(sum, "peak_reserved_bytes", 0) == 6291456);
  CHECK(num(sum, "before_history_bytes", 0) == 800000);
  CHECK(num(sum, "allocated_at_dump_bytes", 0) == 1048576);
  CHECK(num(sum, "reserved_at_dump_bytes", 0) == 2097152);
  CHECK(num(sum, "alive_at_dump_bytes", 0) == 3024288);
  CHECK(num(sum, "segments", 0) == 1);
  CHECK(num(sum, "oom_count", 0) == 1);
  CHECK(num(sum, "device", 1) == 1);
  CHECK(num(sum, "trace_entries", 1) == 0);
  CHECK(num(sum, "peak_allocated_bytes", 1) == 2000000);
  CHECK(std::isnan(num(sum, "peak_at_us", 1)));  // no entries, no time

  const ks::Answer ooms = o.s.query("snapshot-ooms", {});
  REQUIRE(ooms.rows == 1);
  CHECK(num(ooms, "device", 0) == 0);
  CHECK(num(ooms, "entry", 0) == 9);
  CHECK(num(ooms, "at_us", 0) == 1009);
  CHECK(num(ooms, "requested_bytes", 0) == 8000000);
  CHECK(num(ooms, "device_free_bytes", 0) == 123456);
  CHECK(num(ooms, "allocated_bytes", 0) == 3724288);
  CHECK(num(ooms, "reserved_bytes", 0) == 6291456);
  CHECK(str(ooms, "site", 0) == "model.py:7:forward");
  CHECK(str(ooms, "stack", 0) == "at::empty (aten/src/ATen/Empty.cpp:42)\nforward (model.py:7)\ntrain_step (train.py:20)");

  const ks::Answer at = o.s.query("snapshot-summary", {{"device", "0"}, {"at_us", "1007"}});
  REQUIRE(at.rows == 1);
  CHECK(num(at, "at_entry", 0) == 7);
  CHECK(num(at, "at_allocated_bytes", 0) == 3724288);
  CHECK(num(at, "at_reserved_bytes", 0) == 6291456);

  const ks::Answer sites = o.s.query("snapshot-sites", {{"device", "0"}});
  REQUIRE(sites.rows == 3);
  CHECK(str(sites, "frame", 0) == "model.py:7:forward");
  CHECK(num(sites, "bytes_at_peak", 0) == 3000000);
  CHECK(num(sites, "allocations", 0) == 2);
  CHECK(str(sites, "frame", 1) == "model.py:3:__init__");
  CHECK(str(sites, "frame", 2) == kBefore);

  CHECK(o.s.query("snapshot-summary", {{"device", "7"}}).error == "The snapshot has no device 7.");
  CHECK(o.s.query("snapshot-ooms", {{"device", "x"}}).error == "device takes a device number (0, 1, ...), not \"x\".");
  CHECK(o.s.query("operators", {}).error == "the operators view is of a trace, not of a memory snapshot");
  ks::Session trace;
  CHECK(trace.query("snapshot-summary", {}).error == "the snapshot-summary view is of a memory snapshot, not of a trace");
}

TEST_CASE("snapshot views: the peak by site at a depth, and as a tree of frames", "[snapshot][session]") {
  OpenedSnapshot o(kstest::read_fixture("snapshots/hand-made-protocol3.pickle"));
  const ks::Answer peak = o.s.query("snapshot-peak", {});
  REQUIRE(peak.error.empty());
  CHECK(ks::answer_meta(peak, "device") == "0");
  CHECK(ks::answer_meta(peak, "peak_allocated_bytes") == "4024288");
  REQUIRE(peak.rows == 3);
  CHECK(str(peak, "site", 0) == "model.py:7:forward");
  CHECK(num(peak, "bytes", 0) == 3000000);
  CHECK(num(peak, "allocations", 0) == 2);
  CHECK(num(peak, "largest_bytes", 0) == 2000000);
  // Two Python frames: the site goes on to the caller.
  const ks::Answer deep = o.s.query("snapshot-peak", {{"depth", "2"}});
  REQUIRE(deep.rows == 3);
  CHECK(str(deep, "site", 0) == "model.py:7:forward ← train.py:20:train_step");
  CHECK(str(deep, "site", 1) == "model.py:3:__init__ ← train.py:20:train_step");
  CHECK(str(deep, "site", 2) == kBefore);
  CHECK(o.s.query("snapshot-peak", {{"depth", "0"}}).error == "depth takes a number of frames from 1 to 32.");

  // train_step (3,524,288: A twice and B) over forward (A: 3,000,000, over at::empty) and
  // __init__ (B); the block alive before the history is a root of its own.
  const ks::Answer tree = o.s.query("snapshot-peak-tree", {});
  REQUIRE(tree.error.empty());
  REQUIRE(tree.rows == 5);
  const ks::AnswerColumn* parent = tree.column("parent");
  CHECK(str(tree, "name", 0) == "train_step (train.py:20)");
  CHECK(parent->i32[0] == -1);
  CHECK(num(tree, "bytes", 0) == 3524288);
  CHECK(num(tree, "start_bytes", 0) == 0);
  CHECK(str(tree, "name", 1) == "forward (model.py:7)");
  CHECK(parent->i32[1] == 0);
  CHECK(num(tree, "bytes", 1) == 3000000);
  CHECK(str(tree, "name", 2) == "at::empty (aten/src/ATen/Empty.cpp:42)");
  CHECK(parent->i32[2] == 1);
  CHECK(num(tree, "self_bytes", 2) == 3000000);
  CHECK(num(tree, "allocations", 2) == 2);
  CHECK(str(tree, "name", 3) == "__init__ (model.py:3)");
  CHECK(num(tree, "start_bytes", 3) == 3000000);
  CHECK(num(tree, "bytes", 3) == 524288);
  CHECK(str(tree, "name", 4) == kBefore);
  CHECK(parent->i32[4] == -1);
  CHECK(num(tree, "start_bytes", 4) == 3524288);
  CHECK(num(tree, "bytes", 4) == 500000);
}

TEST_CASE("snapshot views: the timeline's columns and bands of the hand-made history", "[snapshot][session]") {
  OpenedSnapshot o(kstest::read_fixture("snapshots/hand-made-protocol4.pickle"));
  // One column per entry position (0: before the first entry, k: after entry k-1), tall enough
  // for every allocation to be a band.
  const ks::QueryParams p = {{"width", "13"}, {"height", "100000"}};
  const ks::Answer cols = o.s.query("snapshot-timeline-columns", p);
  REQUIRE(cols.error.empty());
  REQUIRE(cols.rows == 13);
  const std::vector<double> level = {800000,  800000,  1800000, 2324288, 2024288, 4024288, 4024288,
                                     3024288, 3724288, 3724288, 3724288, 3024288, 3024288};
  const std::vector<double> reserved = {2097152, 6291456, 6291456, 6291456, 6291456, 6291456, 6291456,
                                        6291456, 6291456, 6291456, 6291456, 6291456, 2097152};
  for (size_t c = 0; c < 13; ++c) {
    INFO("column " << c);
    CHECK(num(cols, "entry", c) == double(c));
    CHECK(num(cols, "allocated_bytes", c) == level[c]);
    CHECK(num(cols, "reserved_bytes", c) == reserved[c]);
    CHECK(num(cols, "others_bytes", c) == 0);
  }
  CHECK(num(cols, "time_us", 0) == 1000);
  CHECK(num(cols, "time_us", 5) == 1004);
  CHECK(ks::answer_meta(cols, "entries") == "12");
  CHECK(ks::answer_meta(cols, "y_max") == "6291456");

  const ks::Answer bands = o.s.query("snapshot-timeline", p);
  REQUIRE(bands.error.empty());
  // Bottom to top: the two allocated before the history (the 300,000 its entry 3 frees, then the
  // block alive at the dump), then A, B, A again, E in the order of their allocs.
  REQUIRE(bands.rows == 6);
  const std::vector<double> sizes = {300000, 500000, 1000000, 524288, 2000000, 700000};
  for (size_t r = 0; r < 6; ++r) CHECK(num(bands, "size", r) == sizes[r]);
  CHECK(bands.column("before")->u8[0] == 1);
  CHECK(bands.column("before")->u8[2] == 0);
  CHECK(str(bands, "address", 2) == "0x400000");
  CHECK(num(bands, "from_entry", 2) == 1);
  CHECK(num(bands, "to_entry", 2) == 6);
  CHECK(num(bands, "from_us", 2) == 1001);
  CHECK(num(bands, "to_us", 2) == 1006);
  CHECK(std::isnan(num(bands, "from_entry", 1)));
  CHECK(std::isnan(num(bands, "to_entry", 1)));  // alive at the dump
  CHECK(std::isnan(num(bands, "to_entry", 4)));  // free_requested, never completed
  CHECK(str(bands, "site", 0) == kBefore);
  CHECK(str(bands, "stack", 0) == "<null>");
  CHECK(str(bands, "site", 3) == "model.py:3:__init__");
  // The 300,000 lives in columns 0-3; B from column 3 on, falling as the bands below it go:
  // on 300,000 + 500,000 + A (1,800,000), then 500,000 + A, then 500,000 alone.
  CHECK(bands.column("first_column")->i32[0] == 0);
  CHECK(bands.column("last_column")->i32[0] == 3);
  CHECK(bands.column("first_column")->i32[3] == 3);
  CHECK(bands.column("last_column")->i32[3] == 12);
  const ks::AnswerColumn* bottom = bands.column("bottom");
  const uint32_t from = bottom->ends[2], to = bottom->ends[3];
  REQUIRE(to - from == 3);
  const std::vector<double> b_points = {3, 1800000, 4, 1500000, 7, 500000};
  for (size_t k = 0; k < 6; ++k) CHECK(bottom->f64[2 * from + k] == b_points[k]);
  // A again (2,000,000) lies on 500,000 + A + B at the peak, column 5.
  CHECK(bottom->f64[2 * to] == 5);
  CHECK(bottom->f64[2 * to + 1] == 2024288);

  // Four pixels of 6,291,456 bytes: one pixel is 1,572,864 bytes, so only the 2,000,000 is a
  // band; the rest is the bottom band of each column.
  const ks::Answer thin = o.s.query("snapshot-timeline", {{"width", "13"}, {"height", "4"}});
  REQUIRE(thin.rows == 1);
  CHECK(num(thin, "size", 0) == 2000000);
  CHECK(ks::answer_meta(thin, "min_band_bytes") == "1572864");
  CHECK(ks::answer_meta(thin, "folded") == "5");
  const ks::Answer thin_cols = o.s.query("snapshot-timeline-columns", {{"width", "13"}, {"height", "4"}});
  CHECK(num(thin_cols, "others_bytes", 5) == 2024288);

  // Three columns over the 13 positions (4, 4, 5 of them): each drawn at its most allocated.
  const ks::Answer three = o.s.query("snapshot-timeline-columns", {{"width", "3"}});
  REQUIRE(three.rows == 3);
  CHECK(num(three, "first_entry", 0) == 0);
  CHECK(num(three, "last_entry", 0) == 3);
  CHECK(num(three, "entry", 0) == 3);
  CHECK(num(three, "allocated_bytes", 0) == 2324288);
  CHECK(num(three, "entry", 1) == 5);
  CHECK(num(three, "allocated_bytes", 1) == 4024288);
  CHECK(num(three, "allocated_bytes", 2) == 3724288);

  // By time: a column per microsecond from 1000 µs. Entry k is at 1000 + k µs and position 0
  // (before the first entry) at the first entry's time, so column 0 holds positions 0 and 1,
  // column 4 position 5 (after entry 4, the peak).
  const ks::Answer by_time = o.s.query("snapshot-timeline-columns", {{"axis", "time"}, {"from", "1000"}, {"to", "1012"}, {"width", "12"}});
  REQUIRE(by_time.error.empty());
  CHECK(ks::answer_meta(by_time, "axis") == "\"time\"");
  CHECK(num(by_time, "first_entry", 0) == 0);
  CHECK(num(by_time, "last_entry", 0) == 1);
  CHECK(num(by_time, "entry", 4) == 5);
  CHECK(num(by_time, "allocated_bytes", 4) == 4024288);
  // A window of entries: positions 4 to 8 in 4 columns.
  const ks::Answer window = o.s.query("snapshot-timeline-columns", {{"from", "4"}, {"to", "8"}, {"width", "4"}});
  REQUIRE(window.rows == 4);
  CHECK(num(window, "entry", 0) == 4);
  CHECK(num(window, "entry", 3) == 7);
  CHECK(ks::answer_meta(window, "from") == "4");
  CHECK(o.s.query("snapshot-timeline", {{"axis", "pixels"}}).error == "axis is entry or time, not \"pixels\".");
  CHECK(o.s.query("snapshot-timeline", {{"from", "5"}, {"to", "2"}}).error == "to must be after from.");
}

TEST_CASE("snapshot views: the GPT sample's peak views add up to its peak; bands stay under max_bands", "[snapshot][session][golden]") {
  OpenedSnapshot o(kstest::read_path(kstest::repo_path("tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle")), 1 << 20);
  const ks::Answer sum = o.s.query("snapshot-summary", {});
  REQUIRE(sum.rows == 1);
  CHECK(num(sum, "peak_allocated_bytes", 0) == 156648456);  // expected_numbers.py
  const ks::Answer peak = o.s.query("snapshot-peak", {});
  double total = 0;
  for (size_t r = 0; r < peak.rows; ++r) total += num(peak, "bytes", r);
  CHECK(total == 156648456);
  const ks::Answer tree = o.s.query("snapshot-peak-tree", {});
  double roots = 0;
  for (size_t r = 0; r < tree.rows; ++r)
    if (tree.column("parent")->i32[r] == -1) roots += num(tree, "bytes", r);
  CHECK(roots == 156648456);
  // The whole history in as many columns as positions: the highest column is the peak.
  const ks::Answer cols = o.s.query("snapshot-timeline-columns", {{"width", "776"}});
  double high = 0;
  for (size_t r = 0; r < cols.rows; ++r) high = std::max(high, num(cols, "allocated_bytes", r));
  CHECK(high == 156648456);
  // Fewer columns than positions keep the peak too (each column drawn at its highest).
  const ks::Answer few = o.s.query("snapshot-timeline-columns", {{"width", "50"}});
  high = 0;
  for (size_t r = 0; r < few.rows; ++r) high = std::max(high, num(few, "allocated_bytes", r));
  CHECK(high == 156648456);
  const ks::Answer capped = o.s.query("snapshot-timeline", {{"width", "200"}, {"height", "100000"}, {"max_bands", "10"}});
  CHECK(capped.rows == 10);
  CHECK(std::stod(std::string(ks::answer_meta(capped, "folded"))) > 0);
}

TEST_CASE("snapshot reader: stopped() while reading only once nothing more can load (a feeder's test)", "[snapshot][session]") {
  // failed() is true until the pickle's root is read, so a feeder that stopped on it read one
  // chunk only (the page's 4 MB: every snapshot larger than that was cut).
  const std::string good = kstest::read_fixture("snapshots/hand-made-protocol5.pickle");
  ks::SnapshotReader r;
  for (size_t i = 0; i < good.size(); i += 7) {
    r.feed(good.data() + i, std::min<size_t>(7, good.size() - i));
    if (i + 7 < good.size()) REQUIRE_FALSE(r.stopped());
  }
  r.finish();
  CHECK_FALSE(r.failed());
  const std::string bad = kstest::read_fixture("hostile-snapshots/refused-global-os-system.pickle");
  ks::SnapshotReader h;
  h.feed(bad.data(), bad.size());
  CHECK(h.stopped());
}

TEST_CASE("snapshot views: a refused pickle answers its sentence in the summary, and an error elsewhere", "[snapshot][session][hostile]") {
  OpenedSnapshot o(kstest::read_fixture("hostile-snapshots/refused-global-os-system.pickle"));
  REQUIRE(o.s.failed());
  const ks::Answer sum = o.s.query("snapshot-summary", {});
  CHECK(sum.error.empty());
  CHECK(sum.rows == 0);
  CHECK(ks::answer_meta(sum, "ok") == "false");
  CHECK(ks::answer_meta(sum, "error") != "null");
  CHECK(o.s.query("snapshot-timeline", {}).error == o.s.reader().error());
}
