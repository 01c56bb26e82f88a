#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "core/util/intervals.h"
#include "core/util/sort_runs.h"
#include "test_util.h"

using ks::Range;
using ks::Ranges;

TEST_CASE("merge: touching ranges join, contained ones vanish, order by start", "[intervals]") {
  CHECK(ks::merge_ranges({{5, 7}, {0, 2}, {2, 3}, {1, 2}, {10, 12}, {11, 11}}) ==
        Ranges{{0, 3}, {5, 7}, {10, 12}});
  CHECK(ks::merge_ranges({{4, 4}, {6, 6}}) == Ranges{{4, 4}, {6, 6}});  // empty ranges kept
  CHECK(ks::merge_ranges({}).empty());
}

TEST_CASE("merge: runs of rising starts merged first give what one sort and sweep gives", "[intervals]") {
  // merge_ranges merges each run of rising starts before sorting what is left: its answer must
  // be the plain algorithm's (sort by start then end, sweep) on inputs made of runs, with equal
  // starts, empty ranges, touching and nested ones, negative times.
  auto reference = [](Ranges v) {
    std::sort(v.begin(), v.end(), [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
    Ranges out;
    for (const Range& r : v) {
      if (out.empty()) out.push_back(r);
      else if (r.end > out.back().end) {
        if (r.start <= out.back().end) out.back().end = r.end;
        else out.push_back(r);
      }
    }
    return out;
  };
  kstest::Random random{0x2545F4914F6CDD1Dull};
  auto rnd = [&](uint64_t n) { return random.below(n); };
  for (int round = 0; round < 2000; ++round) {
    Ranges v;
    const int runs = 1 + int(rnd(6));
    for (int k = 0; k < runs; ++k) {
      int64_t t = rnd(200) - 100;
      for (int64_t i = rnd(12); i >= 0; --i) {
        t += rnd(4);  // rising (or equal) starts within a run
        v.push_back({t, t + rnd(5) * (rnd(3) == 0 ? 0 : 1) + (rnd(4) == 0 ? rnd(40) : 0)});
      }
    }
    INFO("round " << round);
    CHECK(ks::merge_ranges(v) == reference(v));
  }
  // Hand-checked: two runs whose unions touch and nest.
  CHECK(ks::merge_ranges({{0, 2}, {1, 5}, {9, 9}, {3, 4}, {5, 6}, {9, 12}}) == Ranges{{0, 6}, {9, 12}});
  CHECK(ks::merge_ranges({{5, 5}, {0, 10}}) == Ranges{{0, 10}});
  CHECK(ks::merge_ranges({{3, 3}, {3, 3}}) == Ranges{{3, 3}});
}

TEST_CASE("intersect and subtract of merged lists", "[intervals]") {
  const Ranges a{{0, 10}, {20, 30}}, b{{5, 25}, {28, 40}};
  CHECK(ks::intersect_ranges(a, b) == Ranges{{5, 10}, {20, 25}, {28, 30}});
  CHECK(ks::subtract_ranges(a, b) == Ranges{{0, 5}, {25, 28}});
  CHECK(ks::subtract_ranges(a, {}) == a);
  CHECK(ks::subtract_ranges(a, {{-5, 50}}).empty());
  CHECK(ks::subtract_ranges({{0, 100}}, {{10, 20}, {30, 40}, {90, 120}}) == Ranges{{0, 10}, {20, 30}, {40, 90}});
  CHECK(ks::intersect_ranges({{0, 100}}, {{10, 20}, {30, 40}}) == Ranges{{10, 20}, {30, 40}});
  CHECK(ks::ranges_sum({{0, 5}, {7, 10}}) == 8);
}

TEST_CASE("overlap_sum: the intersection's length with one window, found by binary search", "[intervals]") {
  // Hand-checked: [0,10) [20,30) [40,50) against [5,45): 5 + 10 + 5 = 20.
  const Ranges m = ks::merge_ranges({{0, 10}, {20, 30}, {40, 50}});
  CHECK(ks::overlap_sum(m, 5, 45) == 20);
  CHECK(ks::overlap_sum(m, 10, 20) == 0);  // touching ends count nothing
  CHECK(ks::overlap_sum(m, 60, 70) == 0);
  CHECK(ks::overlap_sum(m, -5, 100) == 30);
  CHECK(ks::overlap_sum({}, 0, 10) == 0);
  // Equal to the walk it replaces, on many windows over a merged list with an empty first range.
  Ranges raw{{3, 3}};
  uint64_t x = 12345;
  auto next = [&] { x = x * 6364136223846793005ULL + 1442695040888963407ULL; return int64_t(x >> 40) % 1000; };
  for (int i = 0; i < 300; ++i) {
    const int64_t s = next();
    raw.push_back({s, s + next() % 20});
  }
  const Ranges merged = ks::merge_ranges(raw);
  for (int i = 0; i < 500; ++i) {
    const int64_t s = next() - 50, e = s + next() % 200;
    CHECK(ks::overlap_sum(merged, s, e) == ks::ranges_sum(ks::intersect_ranges({{s, e}}, merged)));
  }
}

// sort_runs (core/util/sort_runs.h) must leave std::sort's order: checked on a few long runs (it
// merges), many short ones (it sorts), already sorted, reversed, equal keys told apart by a
// second field, and tiny inputs.
TEST_CASE("sort_runs gives std::sort's order", "[intervals][sort_runs]") {
  struct Item {
    int64_t key;
    uint32_t row;
    bool operator==(const Item&) const = default;
  };
  const auto less = [](const Item& a, const Item& b) { return a.key != b.key ? a.key < b.key : a.row < b.row; };
  kstest::Random random{0x9E3779B97F4A7C15ull};
  auto rnd = [&](uint64_t n) { return random.below(n); };
  auto check = [&](std::vector<Item> v, const char* what) {
    std::vector<Item> want = v;
    std::sort(want.begin(), want.end(), less);
    ks::sort_runs(v.data(), v.data() + v.size(), less);
    INFO(what << ", " << v.size() << " items");
    CHECK(v == want);
  };
  for (size_t n : {0, 1, 2, 3, 100, 5000, 200000}) {
    std::vector<Item> v(n);
    for (size_t runs : {1, 2, 7, 64, 65, 300}) {
      // `runs` interleaved runs of rising keys (one per thread), with repeats inside.
      for (size_t i = 0; i < n; ++i) v[i] = {int64_t((i % runs) * 7 + (i / runs) * 3 + rnd(2)), uint32_t(i)};
      std::sort(v.begin(), v.end(), [&](const Item& a, const Item& b) { return a.row % runs != b.row % runs ? a.row % runs < b.row % runs : a.row < b.row; });
      check(v, "runs");
    }
    for (size_t i = 0; i < n; ++i) v[i] = {rnd(1000), uint32_t(i)};
    check(v, "random");
    for (size_t i = 0; i < n; ++i) v[i] = {int64_t(n - i), uint32_t(i)};
    check(v, "reversed");
    for (size_t i = 0; i < n; ++i) v[i] = {5, uint32_t(n - i)};
    check(v, "one key, rows falling");
  }
}
