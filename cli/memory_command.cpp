// `kinetoscope memory`: the Memory view of each trace, printed from the Session's answers
// (core/session/views/memory.cpp) as JSON, CSV or text. Kept apart from main.cpp so the command
// reads top to bottom.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cli/file_source.h"
#include "core/session/session.h"
#include "core/util/json_writer.h"

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

// A window's bound as a query parameter: %.17g reads back as the same double.
std::string us_param(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string label_of(const ks::Answer& a, size_t row) { return a.strings[a.column("device")->str[row]]; }

// The rows of one device in an answer whose rows are grouped by device: [first, end).
std::pair<size_t, size_t> rows_of(const ks::Answer& a, const std::string& label) {
  size_t first = a.rows, end = a.rows;
  for (size_t r = 0; r < a.rows; ++r) {
    if (label_of(a, r) != label) {
      if (first < a.rows) return {first, r};
      continue;
    }
    if (first == a.rows) first = r;
  }
  return {first, end};
}

// {"GPU0": [rows of GPU0], ...} over the devices `labels`, each present even without rows.
std::string by_device(const ks::Answer& a, const std::vector<std::string>& labels, bool as_arrays) {
  std::string out = "{";
  for (const std::string& label : labels) {
    if (out.size() > 1) out += ',';
    ks::append_json_escaped(out, label);
    out += ':';
    const auto [from, to] = rows_of(a, label);
    out += ks::answer_rows_json(a, from, to, as_arrays);
  }
  return out + "}";
}

// The one JSON object of a trace (docs/contracts.md "Memory"): the devices answer's metadata and
// rows, then the statistics, events and curve of each device.
std::string memory_json(const ks::Session& session, const ks::QueryParams& window, const std::string& device,
                        const std::string& name) {
  const ks::Answer devices = session.query("memory_devices", window);
  std::vector<std::string> labels;
  std::string out = "{\"file\":";
  ks::append_json_escaped(out, name);
  for (const auto& [key, value] : devices.meta) {
    out += ',';
    ks::append_json_escaped(out, key);
    out += ':' + value;
  }
  out += ",\"devices\":";
  if (device.empty()) {
    for (size_t r = 0; r < devices.rows; ++r) labels.push_back(label_of(devices, r));
    out += ks::answer_rows_json(devices, 0, devices.rows);
  } else {
    labels.push_back(device);
    const auto [from, to] = rows_of(devices, device);
    out += ks::answer_rows_json(devices, from, to);
  }
  // Every device's rows (the analyses count every device at once), then the asked one's.
  out += ",\"stats\":" + by_device(session.query("memory_stats", window), labels, false);
  out += ",\"events\":" + by_device(session.query("memory_events", window), labels, false);
  out += ",\"curve\":" + by_device(session.query("memory_curve", window), labels, true);
  return out + "}";
}

// The text: per device its records and whole-trace peaks, then the statistics of the window.
void print_text(const ks::Session& session, const ks::QueryParams& window, const std::string& device, const std::string& name) {
  const ks::Answer devices = session.query("memory_devices", {});
  if (devices.rows == 0) {
    std::printf("%s: no [memory] events (record the trace with profile_memory=True)\n", name.c_str());
    return;
  }
  std::string default_device;
  for (const auto& [key, value] : devices.meta)
    if (key == "default_device") default_device = value.size() >= 2 ? value.substr(1, value.size() - 2) : value;
  std::printf("%s: memory on %zu device%s (default %s)\n", name.c_str(), devices.rows, devices.rows == 1 ? "" : "s",
              default_device.c_str());
  const ks::Answer stats = session.query("memory_stats", window);
  auto col = [](const ks::Answer& a, const char* c) { return a.column(c)->f64; };
  const auto peak_a = col(devices, "peak_allocated_bytes"), peak_r = col(devices, "peak_reserved_bytes"),
             records = col(devices, "records"), peak_us = col(devices, "peak_us");
  const std::vector<uint8_t>& from_bytes = devices.column("allocated_from_bytes")->u8;
  const auto calls = col(stats, "calls"), inc = col(stats, "size_increase_bytes"), self_inc = col(stats, "self_size_increase_bytes"),
             allocs = col(stats, "allocation_count"), self_allocs = col(stats, "self_allocation_count"),
             size = col(stats, "allocation_size_bytes"), self_size = col(stats, "self_allocation_size_bytes");
  for (size_t k = 0; k < devices.rows; ++k) {
    const std::string label = label_of(devices, k);
    if (!device.empty() && device != label) continue;
    std::printf("  %s: %llu records", label.c_str(), (unsigned long long)records[k]);
    if (!std::isnan(peak_a[k]))
      std::printf(", peak allocated %.2f MB at %.1f us%s", peak_a[k] / 1048576.0, peak_us[k],
                  from_bytes[k] ? " (running sum of Bytes)" : "");
    if (!std::isnan(peak_r[k])) std::printf(", peak reserved %.2f MB", peak_r[k] / 1048576.0);
    std::printf("\n    %8s %14s %14s %8s %8s %14s %14s  %s\n", "calls", "increase KB", "self incr KB", "allocs", "self",
                "alloc KB", "self alloc KB", "operator");
    const auto [from, to] = rows_of(stats, label);
    for (size_t r = from; r < to; ++r)
      std::printf("    %8llu %14.2f %14.2f %8lld %8lld %14.2f %14.2f  %s\n", (unsigned long long)calls[r], inc[r] / 1024.0,
                  self_inc[r] / 1024.0, (long long)allocs[r], (long long)self_allocs[r], size[r] / 1024.0,
                  self_size[r] / 1024.0, stats.strings[stats.column("name")->str[r]].c_str());
  }
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
  ks::QueryParams window;
  if (std::isfinite(from_us)) window["from_us"] = us_param(from_us);
  if (std::isfinite(to_us)) window["to_us"] = us_param(to_us);
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
    if (!device.empty()) {
      const ks::Answer devices = session.query("memory_devices", {});
      std::string list;
      bool found = false;
      for (size_t r = 0; r < devices.rows; ++r) {
        const std::string label = label_of(devices, r);
        found = found || label == device;
        list += (list.empty() ? "" : ", ") + label;
      }
      if (!found) {
        if (devices.rows == 0)
          std::fprintf(stderr, "%s: no memory events (record with profile_memory=True), so no device %s.\n", name.c_str(),
                       device.c_str());
        else
          std::fprintf(stderr, "%s: no device %s (the devices are %s).\n", name.c_str(), device.c_str(), list.c_str());
        status = 1;
        continue;
      }
    }
    if (json) {
      std::printf("%s\n", memory_json(session, window, device, name).c_str());
    } else if (csv) {
      // Every device's rows with their device column, or the asked device's.
      const ks::Answer a = session.query(events ? "memory_events" : "memory_stats", window);
      const auto [from, to] = device.empty() ? std::pair<size_t, size_t>{0, a.rows} : rows_of(a, device);
      std::fputs(ks::answer_csv(a, from, to).c_str(), stdout);
    } else {
      print_text(session, window, device, name);
    }
  }
  return status;
}
