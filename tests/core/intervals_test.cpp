#include <catch2/catch.hpp>

#include "core/util/intervals.h"

using ks::Range;
using ks::Ranges;

TEST_CASE("merge: touching ranges join, contained ones vanish, order by start", "[intervals]") {
  CHECK(ks::merge_ranges({{5, 7}, {0, 2}, {2, 3}, {1, 2}, {10, 12}, {11, 11}}) ==
        Ranges{{0, 3}, {5, 7}, {10, 12}});
  CHECK(ks::merge_ranges({{4, 4}, {6, 6}}) == Ranges{{4, 4}, {6, 6}});  // empty ranges kept
  CHECK(ks::merge_ranges({}).empty());
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
