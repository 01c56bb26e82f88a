// `kinetoscope memory`: the Memory view (core/analysis/memory.h) of each trace, as JSON, CSV or
// text. Kept apart from main.cpp so the command reads top to bottom.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/memory.h"
#include "core/analysis/op_tree.h"
#include "core/session/session.h"
#include "core/util/csv_writer.h"

namespace {

std::string file_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool parse_us(const char* text, double& out) {
  char* end = nullptr;
  out = std::strtod(text, &end);
  return end != text && *end == '\0' && std::isfinite(out);
}

std::string stats_csv(const ks::MemoryIndex& x, const std::vector<std::vector<ks::MemoryStatRow>>& stats, int device) {
  ks::CsvWriter c;
  for (const char* h : {"device", "name", "calls", "size_increase_bytes", "self_size_increase_bytes", "allocation_count",
                        "self_allocation_count", "allocation_size_bytes", "self_allocation_size_bytes"})
    c.field(h);
  c.end_row();
  for (size_t d = 0; d < x.devices.size(); ++d) {
    if (device >= 0 && size_t(device) != d) continue;
    for (const ks::MemoryStatRow& r : stats[d]) {
      c.field(x.devices[d].label).field(r.name).field(r.calls).field(r.size_increase).field(r.self_size_increase);
      c.field(r.allocation_count).field(r.self_allocation_count).field(r.allocation_size).field(r.self_allocation_size);
      c.end_row();
    }
  }
  return c.take();
}

std::string device_list(const ks::MemoryIndex& x) {
  std::string s;
  for (const ks::MemoryDevice& d : x.devices) s += (s.empty() ? "" : ", ") + d.label;
  return s;
}

}  // namespace

extern const char* const kMemoryUsage =
    "       kinetoscope memory [--json|--csv [--events]] [--device NAME] [--from-us T --to-us T]\n"
    "                          [--tb-plugin] TRACE...\n";

int run_memory(int argc, char** argv) {
  bool json = false, csv = false, events = false, tb = false;
  std::string device;
  double from_us = NAN, to_us = NAN;
  std::vector<std::string> files;
  auto usage = [](const std::string& why) {
    std::fprintf(stderr, "kinetoscope memory: %s\nusage:\n%s", why.c_str(), kMemoryUsage);
    return 2;
  };
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--json") json = true;
    else if (a == "--csv") csv = true;
    else if (a == "--events") events = true;
    else if (a == "--tb-plugin") tb = true;
    else if (a == "--device" && more) device = argv[++i];
    else if ((a == "--from-us" || a == "--to-us") && more) {
      if (!parse_us(argv[++i], a == "--from-us" ? from_us : to_us)) return usage(a + " takes a number of µs");
    } else if (a.size() > 1 && a[0] == '-') return usage("unknown option " + a);
    else files.push_back(a);
  }
  if (files.empty()) return usage("no trace given");
  if (json && csv) return usage("--json or --csv, not both");
  if (events && !csv) return usage("--events picks the CSV table (--csv --events)");
  if (std::isfinite(from_us) && std::isfinite(to_us) && from_us > to_us) return usage("--from-us is after --to-us");
  int status = 0;
  for (const std::string& path : files) {
    const std::string name = file_name(path);
    ks::Session session({tb});
    const std::string open_problem = ks::read_file_into(path, session.reader());
    const std::string error = open_problem.empty() ? session.reader().error() : open_problem;
    if (!error.empty()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), error.c_str());
      status = 1;
      continue;
    }
    const ks::TraceModel& m = session.model();
    const ks::OpTree& tree = session.tree();
    const ks::MemoryIndex& x = session.memory();
    int d = -1;
    if (!device.empty()) {
      d = ks::memory_device_index(x, device);
      if (d < 0) {
        if (x.devices.empty())
          std::fprintf(stderr, "%s: no memory events (record with profile_memory=True), so no device %s.\n", name.c_str(),
                       device.c_str());
        else
          std::fprintf(stderr, "%s: no device %s (the devices are %s).\n", name.c_str(), device.c_str(), device_list(x).c_str());
        status = 1;
        continue;
      }
    }
    const ks::MemoryWindow w = ks::memory_window_us(x, from_us, to_us);
    if (json) {
      std::printf("%s\n", ks::memory_json(x, tree, m, w, d, name).c_str());
      continue;
    }
    if (csv) {
      if (events) std::fputs(ks::memory_events_csv(x, tree, m, w, d).c_str(), stdout);
      else std::fputs(stats_csv(x, ks::memory_stats(x, tree, m, w), d).c_str(), stdout);
      continue;
    }
    if (x.devices.empty()) {
      std::printf("%s: no [memory] events (record the trace with profile_memory=True)\n", name.c_str());
      continue;
    }
    std::printf("%s: memory on %zu device%s (default %s)\n", name.c_str(), x.devices.size(), x.devices.size() == 1 ? "" : "s",
                x.devices[size_t(x.default_device)].label.c_str());
    const auto stats = ks::memory_stats(x, tree, m, w);
    for (size_t k = 0; k < x.devices.size(); ++k) {
      if (d >= 0 && size_t(d) != k) continue;
      const ks::MemoryDevice& dev = x.devices[k];
      std::printf("  %s: %llu records", dev.label.c_str(), (unsigned long long)dev.records);
      if (dev.peak_allocated >= 0)
        std::printf(", peak allocated %.2f MB at %.1f us%s", dev.peak_allocated / 1048576.0,
                    ks::memory_us_between(dev.peak_ts_ns, x.origin_ns), dev.allocated_from_bytes ? " (running sum of Bytes)" : "");
      if (dev.peak_reserved >= 0) std::printf(", peak reserved %.2f MB", dev.peak_reserved / 1048576.0);
      std::printf("\n    %8s %14s %14s %8s %8s %14s %14s  %s\n", "calls", "increase KB", "self incr KB", "allocs",
                  "self", "alloc KB", "self alloc KB", "operator");
      for (const ks::MemoryStatRow& r : stats[k])
        std::printf("    %8llu %14.2f %14.2f %8lld %8lld %14.2f %14.2f  %s\n", (unsigned long long)r.calls,
                    r.size_increase / 1024.0, r.self_size_increase / 1024.0, (long long)r.allocation_count,
                    (long long)r.self_allocation_count, r.allocation_size / 1024.0, r.self_allocation_size / 1024.0,
                    r.name.c_str());
    }
  }
  return status;
}
