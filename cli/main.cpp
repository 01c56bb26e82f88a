// kinetoscope: the command-line face of the core. Reads traces exactly as the browser does
// (same chunked reader), prints the views as text or JSON.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/summary.h"

namespace {

const char kUsage[] =
    "usage: kinetoscope summary [--json] [--chunk-bytes N] TRACE...\n"
    "\n"
    "  summary   what each trace holds: schema, devices, distributed info, time span,\n"
    "            events per category and phase, and trace health (skipped/repaired events).\n"
    "            --json prints one JSON object per file, one per line.\n"
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "summary")) return run_summary(argc - 2, argv + 2);
  std::fprintf(stderr, "kinetoscope: unknown command %s\n%s", argv[1], kUsage);
  return 2;
}
