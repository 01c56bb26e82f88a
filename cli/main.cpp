// kinetoscope: the command-line face of the core. Reads traces exactly as the browser does
// (same chunked reader), prints the views as text or JSON.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/summary.h"

namespace {

const char kUsage[] =
    "usage: kinetoscope summary [--json] [--chunk-bytes N] TRACE...\n"
    "       kinetoscope steps [--json] [--tb-plugin] TRACE...\n"
    "       kinetoscope gpus [--json] [--tb-plugin] TRACE...\n"
    "\n"
    "  summary   what each trace holds: schema, devices, distributed info, time span,\n"
    "            events per category and phase, and trace health (skipped/repaired events).\n"
    "            --json prints one JSON object per file, one per line.\n"
    "\n"
    "  steps     the steps (ProfilerStep#N, extended to the end of their GPU work) and the\n"
    "            step-time breakdown: kernel, memcpy, memset, communication, runtime,\n"
    "            dataloader, CPU exec, other, per step and on average (times in us).\n"
    "            --tb-plugin also counts ProfilerStep and annotation ranges on GPU streams,\n"
    "            as tb_plugin does (see docs/compatibility.md).\n"
    "\n"
    "  gpus      per GPU over the steps: utilization, est. SM efficiency, est. achieved\n"
    "            occupancy, and the utilization timeline (--json).\n"
    "\n"
    "TRACE is a PyTorch profiler trace (*.pt.trace.json or .json.gz; gzip is detected by content).\n";

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int run_summary(int argc, char** argv) {
  bool json = false;
  size_t chunk = 4 << 20;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--chunk-bytes" && i + 1 < argc) chunk = std::stoul(argv[++i]);
    else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope summary: unknown option %s\n%s", a.c_str(), kUsage);
      return 2;
    } else files.push_back(a);
  }
  if (files.empty() || chunk == 0) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int status = 0;
  for (const std::string& path : files) {
    ks::TraceReader reader;
    const std::string open_problem = ks::read_file_into(path, reader, chunk);
    const std::string error = open_problem.empty() ? reader.error() : open_problem;
    if (!error.empty()) status = 1;
    const std::string name = base_name(path);
    if (json) {
      std::printf("%s\n", ks::summary_json(reader.model(), name, error).c_str());
    } else {
      std::fputs(ks::summary_text(reader.model(), name, error).c_str(), stdout);
    }
  }
  return status;
}

int run_step_views(const char* command, int argc, char** argv) {
  const bool gpus = !std::strcmp(command, "gpus");
  bool json = false;
  ks::StepOptions options;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--tb-plugin") options.tb_plugin_gpu_annotations = true;
    else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope %s: unknown option %s\n%s", command, a.c_str(), kUsage);
      return 2;
    } else files.push_back(a);
  }
  if (files.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int status = 0;
  for (const std::string& path : files) {
    ks::TraceReader reader;
    const std::string open_problem = ks::read_file_into(path, reader);
    const std::string error = open_problem.empty() ? reader.error() : open_problem;
    const std::string name = base_name(path);
    if (!error.empty()) {
      status = 1;
      std::fprintf(stderr, "%s: %s\n", name.c_str(), error.c_str());
      continue;
    }
    const ks::StepsResult steps = ks::find_steps(reader.model(), options);
    if (gpus) {
      const ks::GpuMetricsResult g = ks::gpu_metrics(reader.model(), steps);
      if (json) {
        std::printf("%s\n", ks::gpu_metrics_json(g, name).c_str());
        continue;
      }
      std::printf("%s: %zu GPU%s with kernels, over the steps' window\n", name.c_str(), g.gpus.size(),
                  g.gpus.size() == 1 ? "" : "s");
      for (const ks::GpuMetrics& m : g.gpus) {
        std::printf("  GPU %d: utilization %.2f %%", m.device, m.utilization * 100);
        if (m.sm_efficiency) std::printf(", est. SM efficiency %.2f %%", *m.sm_efficiency * 100);
        if (m.occupancy_pct) std::printf(", est. achieved occupancy %.2f %%", *m.occupancy_pct);
        std::printf("\n");
      }
      continue;
    }
    const ks::StepBreakdown b = ks::step_breakdown(reader.model(), steps, options);
    if (json) {
      std::printf("%s\n", ks::step_breakdown_json(b, name).c_str());
      continue;
    }
    std::printf("%s: %zu step%s%s (us)\n", name.c_str(), b.steps.size(), b.steps.size() == 1 ? "" : "s",
                steps.from_profiler_steps ? "" : ", no ProfilerStep: the whole trace");
    std::printf("  %-8s %12s", "step", "total");
    for (size_t r = 0; r < ks::kRoleCount; ++r) std::printf(" %13s", ks::role_name(ks::Role(r)));
    std::printf("\n");
    auto row = [&](const std::string& label, double total, const auto& ns) {
      std::printf("  %-8s %12.1f", label.c_str(), total / 1e3);
      for (size_t r = 0; r < ks::kRoleCount; ++r) std::printf(" %13.1f", double(ns[r]) / 1e3);
      std::printf("\n");
    };
    for (const ks::StepCosts& c : b.steps) row(c.step.name, double(c.total_ns), c.ns);
    row("average", b.average_total_ns, b.average_ns);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "summary")) return run_summary(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "steps") || !std::strcmp(argv[1], "gpus"))
    return run_step_views(argv[1], argc - 2, argv + 2);
  std::fprintf(stderr, "kinetoscope: unknown command %s\n%s", argv[1], kUsage);
  return 2;
}
