#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

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

TEST_CASE("parse_double's plain-decimal shortcut returns strtod's double, bit for bit", "[numbers]") {
  std::mt19937_64 rng(12);
  auto check = [](const std::string& text) {
    INFO(text);
    const auto v = ks::parse_double(text);
    REQUIRE(v);
    const double want = std::strtod(text.c_str(), nullptr);
    REQUIRE(std::memcmp(&*v, &want, sizeof want) == 0);
  };
  for (const char* t : {"0", "-0", "0.0", "-0.000", "00.5", "1", "0.1", "0.3", "63.813", "1712195495519689.047",
                        "999999999999999", "0.000000000000000000001", "123456789012345.6",
                        "1234567890123456", "9007199254740993", "50.0000000000000000000001",
                        // beyond Clinger's shortcut: simdjson's parser (memcpys' bandwidth)
                        "0.18604651162790697", "0.7804878048780488", "-0.6666666666666666",
                        "12345678901234567890", "2.2250738585072011e-308", "1e-320", "4.9e-324",
                        "1.7976931348623157e308", "-1e-400", "00.12345678901234567890"})
    check(t);
  for (int i = 0; i < 200000; ++i) {
    const int int_digits = int(rng() % 12), frac_digits = int(rng() % 16);
    std::string t = rng() % 4 == 0 ? "-" : "";
    t += std::to_string(rng() % 10);
    for (int d = 0; d < int_digits; ++d) t += char('0' + rng() % 10);
    if (frac_digits) {
      t += '.';
      for (int d = 0; d < frac_digits; ++d) t += char('0' + rng() % 10);
    }
    check(t);
  }
  // The bandwidth shape: "0." and 16-19 digits, and exponents, all past the shortcut.
  for (int i = 0; i < 200000; ++i) {
    std::string t = rng() % 4 == 0 ? "-" : "";
    t += std::to_string(rng() % 100);
    t += '.';
    const int frac_digits = 16 + int(rng() % 4);
    for (int d = 0; d < frac_digits; ++d) t += char('0' + rng() % 10);
    if (rng() % 3 == 0) t += "e" + std::to_string(int(rng() % 600) - 300);
    check(t);
  }
  for (const char* t : {"1e400", "-1e999", "+1.00000000000000000001", "inf"}) {
    INFO(t);
    const double want = std::strtod(t, nullptr);
    CHECK(ks::parse_double(t).has_value() == std::isfinite(want));
  }
}
