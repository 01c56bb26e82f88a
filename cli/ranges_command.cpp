// `kinetoscope ranges`: the Ranges view (core/analysis/ranges.h), the user's record_function
// ranges as a tree, of each trace as JSON, CSV or text. Kept apart from main.cpp so the command
// reads top to bottom.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/session/session.h"
#include "core/util/json_writer.h"

extern const char* const kRangesUsage =
    "       kinetoscope ranges [--json|--csv] TRACE...\n"
    "       kinetoscope ranges --detail PATH [--json] TRACE...\n";

int run_ranges(int argc, char** argv) {
  bool json = false, csv = false, has_detail = false;
  std::string detail;  // a row's path ("mixed_precision_matmuls/fp8_scaled_mm"): its kernels
  std::vector<std::string> files;
  auto usage = [](const std::string& why) {
    std::fprintf(stderr, "kinetoscope ranges: %s\nusage:\n%s", why.c_str(), kRangesUsage);
    return 2;
  };
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--csv") csv = true;
    else if (a == "--detail" && i + 1 < argc) {
      has_detail = true;
      detail = argv[++i];
    }
    else if (a.size() > 1 && a[0] == '-') return usage("unknown option " + a);
    else files.push_back(a);
  }
  if (files.empty()) return usage("no TRACE given");
  if (json && csv) return usage("--json or --csv, not both");
  if (has_detail && csv) return usage("--detail prints JSON (--json) or text, not CSV");
  int status = 0;
  const int loaded = ks::for_each_session(files, false, [&](const std::string& name, const ks::Session& session) {
    if (has_detail) {
      // The row's kernels: the Session's answer (range_kernels), with the file's name first.
      const ks::Answer k = session.query("range_kernels", {{"key", detail}});
      if (!k.error.empty()) {
        std::fprintf(stderr, "%s: %s (a path as `kinetoscope ranges --csv` lists it)\n", name.c_str(), k.error.c_str());
        status = 1;
        return;
      }
      if (json) {
        std::string file = "{\"file\":";
        ks::append_json_escaped(file, name);
        std::printf("%s,%s\n", file.c_str(), ks::answer_json(k).c_str() + 1);
        return;
      }
      std::printf("%s: kernels launched in %s (us)\n  %7s %12s %5s  %s\n", name.c_str(), detail.c_str(), "calls", "total", "TC", "kernel");
      const std::vector<uint8_t>& tc = k.column("tensor_cores")->u8;
      for (size_t r = 0; r < k.rows; ++r)
        std::printf("  %7llu %12.1f %5s  %s\n", (unsigned long long)k.column("calls")->f64[r], k.column("total_us")->f64[r],
                    tc[r] == ks::kTriYes ? "yes" : tc[r] == ks::kTriNo ? "no" : "?", k.strings[k.column("name")->str[r]].c_str());
      return;
    }
    // The table: the Session's answer, printed as JSON (with the file's name first), CSV or text.
    const ks::Answer a = session.query("ranges", {});
    if (json) {
      std::string file = "{\"file\":";
      ks::append_json_escaped(file, name);
      const std::string body = ks::answer_json(a);
      std::printf("%s,%s\n", file.c_str(), body.c_str() + 1);
      return;
    }
    if (csv) {
      std::fputs(ks::answer_csv(a).c_str(), stdout);
      return;
    }
    if (a.rows == 0) {
      std::printf("%s: no user ranges (wrap code in torch.profiler.record_function(\"name\") to see it here)\n", name.c_str());
      return;
    }
    const std::string calls = a.meta[0].second;  // "calls": a whole number
    std::printf("%s: %zu range%s, %s calls (us; device: launched on the range's thread; GPU range: its\n"
                "  gpu_user_annotation copy and the device work inside it)\n",
                name.c_str(), a.rows, a.rows == 1 ? "" : "s", calls.c_str());
    std::printf("  %7s %12s %12s %12s %12s %7s %12s %12s  %s\n", "calls", "host", "host self", "device", "device self",
                "TC %", "GPU range", "GPU r. dev", "range");
    auto col = [&](const char* c) -> const std::vector<double>& { return a.column(c)->f64; };
    const ks::AnswerColumn& names = *a.column("name");
    const std::vector<int32_t>& depth = a.column("depth")->i32;
    for (size_t r = 0; r < a.rows; ++r) {
      char tc[16] = "-", span[24] = "-", work[24] = "-";
      if (!std::isnan(col("tensor_core_pct")[r])) std::snprintf(tc, sizeof tc, "%.1f", col("tensor_core_pct")[r]);
      if (!std::isnan(col("gpu_range_us")[r])) {
        std::snprintf(span, sizeof span, "%.1f", col("gpu_range_us")[r]);
        std::snprintf(work, sizeof work, "%.1f", col("gpu_range_device_us")[r]);
      }
      std::printf("  %7llu %12.1f %12.1f %12.1f %12.1f %7s %12s %12s  %*s%s\n", (unsigned long long)col("calls")[r],
                  col("host_us")[r], col("self_host_us")[r], col("device_us")[r], col("self_device_us")[r], tc, span, work,
                  depth[r] * 2, "", a.strings[names.str[r]].c_str());
    }
  });
  return loaded | status;
}
