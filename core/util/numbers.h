// Number tokens as Kineto writes them: ts/dur in microseconds, integers or decimals with
// fractional nanoseconds ("1712195495406752.797"), sometimes quoted; ids beyond int64.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace ks {

// Strips surrounding whitespace and one pair of double quotes.
std::string_view trim_token(std::string_view tok);

// Microseconds (as text) to integer nanoseconds, exact for up to 3 decimals (rounded half away
// from zero beyond). Accepts exponents through double. nullopt when not a number or when the
// result does not fit int64.
std::optional<int64_t> parse_us_to_ns(std::string_view tok);

// An integer; decimals are truncated toward zero. nullopt when not a number or out of range.
std::optional<int64_t> parse_int(std::string_view tok);

// Any number; nullopt when not a number.
std::optional<double> parse_double(std::string_view tok);

}  // namespace ks
