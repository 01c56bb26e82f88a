// `kinetoscope ranges`: the Ranges view (core/analysis/ranges.h), the user's record_function
// ranges as a tree, of each trace as JSON, CSV or text. Kept apart from main.cpp so the command
// reads top to bottom.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/ranges.h"

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
  for (const std::string& path : files) {
    ks::TraceReader reader;
    if (!ks::load_trace(path, reader)) {
      status = 1;
      continue;
    }
    const std::string name = ks::base_name(path);
    const ks::TraceModel& m = reader.model();
    const ks::OpTree tree = ks::build_op_tree(m);
    if (has_detail) {
      bool found = false;
      const std::vector<ks::RangeKernel> k = ks::range_kernels(tree, m, detail, found);
      if (!found) {
        std::fprintf(stderr, "%s: no range %s (a path as `kinetoscope ranges --csv` lists it)\n", name.c_str(), detail.c_str());
        status = 1;
        continue;
      }
      if (json) {
        std::printf("%s\n", ks::range_kernels_json(k, detail, name).c_str());
        continue;
      }
      std::printf("%s: kernels launched in %s (us)\n  %7s %12s %5s  %s\n", name.c_str(), detail.c_str(), "calls", "total", "TC", "kernel");
      for (const ks::RangeKernel& r : k)
        std::printf("  %7llu %12.1f %5s  %s\n", (unsigned long long)r.calls, r.total_ns / 1e3,
                    r.tensor_cores == ks::TcState::kYes ? "yes" : r.tensor_cores == ks::TcState::kNo ? "no" : "?", r.name.c_str());
      continue;
    }
    const ks::RangeTable t = ks::range_table(tree, m);
    if (json) {
      std::printf("%s\n", ks::range_table_json(t, m, name).c_str());
      continue;
    }
    if (csv) {
      std::fputs(ks::range_table_csv(t, m).c_str(), stdout);
      continue;
    }
    if (t.rows.empty()) {
      std::printf("%s: no user ranges (wrap code in torch.profiler.record_function(\"name\") to see it here)\n", name.c_str());
      continue;
    }
    std::printf("%s: %zu range%s, %llu calls (us; device: launched on the range's thread; GPU range: its\n"
                "  gpu_user_annotation copy and the device work inside it)\n",
                name.c_str(), t.rows.size(), t.rows.size() == 1 ? "" : "s", (unsigned long long)t.calls);
    std::printf("  %7s %12s %12s %12s %12s %7s %12s %12s  %s\n", "calls", "host", "host self", "device", "device self",
                "TC %", "GPU range", "GPU r. dev", "range");
    for (const ks::RangeRow& r : t.rows) {
      char tc[16] = "-", span[24] = "-", work[24] = "-";
      if (r.kernel_total_ns > 0) std::snprintf(tc, sizeof tc, "%.1f", ks::range_tc_pct(r));
      if (r.gpu_copies) {
        std::snprintf(span, sizeof span, "%.1f", r.gpu_span_ns / 1e3);
        std::snprintf(work, sizeof work, "%.1f", r.gpu_work_ns / 1e3);
      }
      std::printf("  %7llu %12.1f %12.1f %12.1f %12.1f %7s %12s %12s  %*s%s\n", (unsigned long long)r.calls,
                  r.host_total_ns / 1e3, r.host_self_ns / 1e3, r.device_total_ns / 1e3, r.device_self_ns / 1e3, tc, span,
                  work, r.depth * 2, "", r.name.c_str());
    }
  }
  return status;
}
