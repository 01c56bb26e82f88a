#include "core/util/numbers.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "simdjson.h"

namespace ks {

namespace {
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

std::string_view trim_token(std::string_view tok) {
  while (!tok.empty() && (tok.front() == ' ' || tok.front() == '\t' || tok.front() == '\n' || tok.front() == '\r'))
    tok.remove_prefix(1);
  while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\t' || tok.back() == '\n' || tok.back() == '\r'))
    tok.remove_suffix(1);
  if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"') tok = tok.substr(1, tok.size() - 2);
  return tok;
}

// Clinger's fast path: a plain decimal ("-12.625") with at most 15 significant digits is an
// exact integer times 10^-k with k <= 22, both exactly representable, so one IEEE division is
// correctly rounded — the double strtod returns, bit for bit. strtod does it with long double
// arithmetic, emulated in wasm (it was 4% of the wasm core's profile on kernels' occupancy
// and counter values); anything else still goes to strtod.
static std::optional<double> plain_decimal(std::string_view tok) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t i = 0;
  const bool neg = !tok.empty() && tok[0] == '-';
  if (neg) ++i;
  uint64_t mant = 0;
  int significant = 0, frac_digits = 0;
  const size_t int_start = i;
  for (; i < tok.size() && is_digit(tok[i]); ++i) {
    if (mant || tok[i] != '0') ++significant;
    mant = mant * 10 + uint64_t(tok[i] - '0');
    if (significant > 15) return std::nullopt;
  }
  if (i == int_start) return std::nullopt;
  if (i < tok.size() && tok[i] == '.') {
    const size_t frac_start = ++i;
    for (; i < tok.size() && is_digit(tok[i]); ++i, ++frac_digits) {
      if (mant || tok[i] != '0') ++significant;
      mant = mant * 10 + uint64_t(tok[i] - '0');
      if (significant > 15 || frac_digits >= 22) return std::nullopt;
    }
    if (i == frac_start) return std::nullopt;
  }
  if (i != tok.size()) return std::nullopt;
  double v = static_cast<double>(mant);
  if (frac_digits) v /= kPow10[frac_digits];
  return neg ? -v : v;
}

// A JSON number too long for Clinger's fast path (memcpys' "memory bandwidth (GB/s)" is written
// with 16-17 digits: 0.18604651162790697), read by simdjson's number parser, which rounds
// correctly as strtod does, so the double is the same bit for bit. musl's strtod does it in
// emulated long double arithmetic (strtod, fmodl and the soft-float helpers were 2.5% of the
// wasm read of the modern trace, for 2% of its events). nullopt: not a JSON number (a leading
// zero, a "+", "inf"...), left to strtod.
static std::optional<double> json_number(std::string_view tok) {
  thread_local simdjson::ondemand::parser parser;
  char buf[64 + simdjson::SIMDJSON_PADDING];
  tok.copy(buf, tok.size());
  std::memset(buf + tok.size(), ' ', sizeof buf - tok.size());
  simdjson::ondemand::document doc;
  double v = 0;
  if (parser.iterate(buf, tok.size(), sizeof buf).get(doc) || doc.get_double().get(v) || !doc.at_end())
    return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view tok) {
  tok = trim_token(tok);
  if (tok.empty() || tok.size() > 64) return std::nullopt;
  if (auto v = plain_decimal(tok)) return v;
  if (auto v = json_number(tok); v && std::isfinite(*v)) return v;
  char buf[72];
  tok.copy(buf, tok.size());
  buf[tok.size()] = '\0';
  char* end = nullptr;
  const double v = std::strtod(buf, &end);
  if (end != buf + tok.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_us_to_ns(std::string_view tok) {
  tok = trim_token(tok);
  size_t i = 0;
  const bool neg = i < tok.size() && tok[i] == '-';
  if (neg) ++i;
  if (i >= tok.size() || !is_digit(tok[i])) return std::nullopt;
  // integer part
  uint64_t whole = 0;
  for (; i < tok.size() && is_digit(tok[i]); ++i) {
    if (whole > (UINT64_MAX - 9) / 10) return std::nullopt;
    whole = whole * 10 + uint64_t(tok[i] - '0');
  }
  uint64_t frac_ns = 0;
  if (i < tok.size() && tok[i] == '.') {
    ++i;
    int digits = 0;
    bool round_up = false;
    for (; i < tok.size() && is_digit(tok[i]); ++i, ++digits) {
      if (digits < 3) {
        frac_ns = frac_ns * 10 + uint64_t(tok[i] - '0');
      } else if (digits == 3) {
        round_up = tok[i] >= '5';
      }
    }
    for (int d = digits; d < 3; ++d) frac_ns *= 10;
    if (round_up) ++frac_ns;
  }
  if (i < tok.size()) {
    if (tok[i] != 'e' && tok[i] != 'E') return std::nullopt;
    const auto d = parse_double(tok);  // rare: exponent notation
    if (!d) return std::nullopt;
    const double ns = std::round(*d * 1000.0);
    if (!(std::fabs(ns) < 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(ns);
  }
  if (whole > uint64_t(INT64_MAX) / 1000) return std::nullopt;
  const uint64_t total = whole * 1000 + frac_ns;
  if (total > uint64_t(INT64_MAX)) return std::nullopt;
  return neg ? -static_cast<int64_t>(total) : static_cast<int64_t>(total);
}

std::optional<int64_t> parse_int(std::string_view tok) {
  tok = trim_token(tok);
  size_t i = 0;
  const bool neg = i < tok.size() && tok[i] == '-';
  if (neg) ++i;
  if (i >= tok.size() || !is_digit(tok[i])) return std::nullopt;
  uint64_t v = 0;
  for (; i < tok.size() && is_digit(tok[i]); ++i) {
    if (v > (uint64_t(INT64_MAX) - 9) / 10) return std::nullopt;
    v = v * 10 + uint64_t(tok[i] - '0');
  }
  if (i < tok.size()) {
    if (tok[i] == '.') {
      ++i;
      while (i < tok.size() && is_digit(tok[i])) ++i;
    }
    if (i < tok.size()) {
      const auto d = parse_double(tok);
      if (!d || std::fabs(*d) >= 9.2e18) return std::nullopt;
      return static_cast<int64_t>(*d);
    }
  }
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

}  // namespace ks
