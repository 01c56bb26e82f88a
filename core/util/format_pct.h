// One formatter for every percentage metric the Overview, the Kernels view, the recommendations
// and the CLI print (GPU utilization, est. SM efficiency and occupancy, Tensor Core shares, the
// step-time shares): two decimals and " %", "44.49 %". The page prints the same numbers with
// `formatPct` (web/src/lib/overview.ts, `toFixed(2)`), so both must round alike: printf rounds an
// exact tie (a value with a 5 in the third decimal that a double holds exactly: multiples of
// 1/8 such as 12.125) to even, toFixed away from zero; ties are rounded away from zero here too.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace ks {

inline std::string format_pct(double pct) {
  char buf[64];
  if (!std::isfinite(pct)) return "—";
  const double eighths = pct * 8;
  if (eighths == std::floor(eighths) && std::fabs(pct) < 1e15) {
    // Exactly representable with 3 decimals: round the third half away from zero, as toFixed.
    std::snprintf(buf, sizeof buf, "%.3f", std::fabs(pct));
    std::string s = buf;
    const bool up = s.back() >= '5';
    s.pop_back();
    long long hundredths = std::llround(std::stod(s) * 100) + (up ? 1 : 0);
    if (pct < 0 && hundredths != 0) hundredths = -hundredths;
    std::snprintf(buf, sizeof buf, "%s%lld.%02lld %%", pct < 0 && hundredths == 0 ? "" : (hundredths < 0 ? "-" : ""),
                  std::llabs(hundredths) / 100, std::llabs(hundredths) % 100);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.2f %%", pct);
  return buf;
}

}  // namespace ks
