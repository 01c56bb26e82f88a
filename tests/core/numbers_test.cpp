#include <catch2/catch.hpp>

#include "core/util/numbers.h"

using ks::parse_int;
using ks::parse_us_to_ns;

TEST_CASE("microsecond tokens become exact nanoseconds", "[numbers]") {
  CHECK(*parse_us_to_ns("100") == 100000);
  CHECK(*parse_us_to_ns("1712195495406752.797") == 1712195495406752797LL);
  CHECK(*parse_us_to_ns("0.0015") == 2);      // 1.5 ns rounds half away from zero
  CHECK(*parse_us_to_ns("2.5") == 2500);
  CHECK(*parse_us_to_ns("-3.25") == -3250);
  CHECK(*parse_us_to_ns("\"42\"") == 42000);  // quoted
  CHECK(*parse_us_to_ns(" 7 ") == 7000);
  CHECK(*parse_us_to_ns("1.5e3") == 1500000);
  CHECK_FALSE(parse_us_to_ns("abc"));
  CHECK_FALSE(parse_us_to_ns(""));
  CHECK_FALSE(parse_us_to_ns("99999999999999999999"));  // beyond int64 ns
  CHECK_FALSE(parse_us_to_ns("12x"));
}

TEST_CASE("integers, including ones beyond int64", "[numbers]") {
  CHECK(*parse_int("123") == 123);
  CHECK(*parse_int("-5") == -5);
  CHECK(*parse_int("7.9") == 7);
  CHECK(*parse_int("\"18\"") == 18);
  CHECK_FALSE(parse_int("123456789012345678901234567890"));
  CHECK_FALSE(parse_int("N/A"));
}
