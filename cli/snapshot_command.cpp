// `kinetoscope snapshot`: the numbers of CUDA allocator snapshots (torch.cuda.memory._dump_snapshot
// pickles) per device, read by the core's safe pickle reader (core/snapshot/) in 4 MB chunks as
// the page reads traces: the history's counts, the peak and what held it by allocation site,
// each out-of-memory event, the state at the dump, and with --at-us the state at a time.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/session/answer.h"
#include "core/session/snapshot_session.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"
#include "core/util/json_writer.h"

namespace {

const char kSnapshotUsage[] =
    "usage: kinetoscope snapshot [--json] [--device N] [--at-us T] [--chunk-bytes N] FILE...\n"
    "\n"
    "  CUDA memory snapshots (torch.cuda.memory._dump_snapshot pickles, protocols 2-5, read\n"
    "  without running any of their code) per device: the allocator history's entries,\n"
    "  allocations and frees; the peak of the allocated memory (counting the blocks alive\n"
    "  before the history began, as pytorch.org/memory_viz does) with its time and the\n"
    "  allocation sites holding it (innermost Python frame); each out-of-memory event with\n"
    "  the size asked for, the free memory the allocator saw and what was allocated and\n"
    "  reserved then; allocated and reserved memory and segments at the dump.\n"
    "  --device N: that device only. --at-us T: also the state at time T (time_us).\n"
    "  --json prints one JSON object per file, one per line.\n";

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Reads the file into the reader in chunks; returns a sentence when it cannot be read at all.
std::string read_snapshot(const std::string& path, ks::SnapshotReader& r, size_t chunk) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return "Cannot open " + path + ": " + std::strerror(errno) + ".";
  struct stat st {};
  if (fstat(fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode)) r.set_total_size(uint64_t(st.st_size));
  std::vector<char> buf(chunk);
  bool first = true;
  for (;;) {
    const size_t got = std::fread(buf.data(), 1, buf.size(), f.get());
    if (got == 0) break;
    if (first && got >= 2 && uint8_t(buf[0]) == 0x1f && uint8_t(buf[1]) == 0x8b)
      return "It is gzip-compressed: gunzip it first (a snapshot pickle is read as written).";
    first = false;
    r.feed(buf.data(), got);
  }
  if (std::ferror(f.get())) return "Read error: " + std::string(std::strerror(errno)) + ".";
  r.finish();
  return {};
}

// `--json`'s object, assembled from the snapshot views' answers (core/session/views/snapshot.cpp)
// as the page reads them: the summary's metadata and rows, each device's ooms and top sites nested.
std::string snapshot_json(const ks::SnapshotSession& s, const std::string& name, std::optional<int64_t> device,
                          std::optional<int64_t> at_us) {
  ks::QueryParams p;
  if (device) p["device"] = std::to_string(*device);
  ks::QueryParams with_at = p;
  if (at_us) with_at["at_us"] = std::to_string(*at_us);
  const ks::Answer sum = s.query("snapshot-summary", with_at);
  const ks::Answer ooms = s.query("snapshot-ooms", p);
  const ks::Answer sites = s.query("snapshot-sites", p);
  const ks::Answer at_sites = at_us ? s.query("snapshot-sites", with_at) : ks::Answer{};
  auto cell = [](const ks::Answer& a, std::string_view col, size_t row) { return ks::answer_cell_json(a, *a.column(col), row); };
  auto rows_of = [&](const ks::Answer& a, const std::string& dev, std::initializer_list<std::string_view> cols) {
    std::string out = "[";
    for (size_t r = 0; r < a.rows; ++r) {
      if (cell(a, "device", r) != dev) continue;
      if (out.size() > 1) out += ',';
      out += '{';
      bool first = true;
      for (std::string_view c : cols) {
        if (!first) out += ',';
        first = false;
        ks::append_json_escaped(out, c);
        out += ':' + cell(a, c, r);
      }
      out += '}';
    }
    return out + "]";
  };
  std::string out = "{\"file\":";
  ks::append_json_escaped(out, name);
  for (const char* k : {"bytes", "has_history", "error", "health"}) out += ",\"" + std::string(k) + "\":" + std::string(ks::answer_meta(sum, k));
  out += ",\"devices\":[";
  for (size_t r = 0; r < sum.rows; ++r) {
    if (r) out += ',';
    out += '{';
    bool first = true;
    for (std::string_view c : {"device", "trace_entries", "allocations", "frees", "peak_allocated_bytes", "peak_at_us", "peak_entry",
                               "peak_reserved_bytes", "before_history_bytes", "allocated_at_dump_bytes", "reserved_at_dump_bytes",
                               "alive_at_dump_bytes", "segments"}) {
      if (!first) out += ',';
      first = false;
      ks::append_json_escaped(out, c);
      out += ':' + cell(sum, c, r);
    }
    const std::string dev = cell(sum, "device", r);
    out += ",\"ooms\":" + rows_of(ooms, dev, {"at_us", "entry", "requested_bytes", "device_free_bytes", "allocated_bytes", "reserved_bytes"});
    out += ",\"top_sites\":" + rows_of(sites, dev, {"frame", "bytes_at_peak", "allocations"});
    if (at_us) {
      out += ",\"at\":{\"at_us\":" + cell(sum, "at_us", r) + ",\"entry\":" + cell(sum, "at_entry", r) +
             ",\"allocated_bytes\":" + cell(sum, "at_allocated_bytes", r) + ",\"reserved_bytes\":" + cell(sum, "at_reserved_bytes", r) +
             ",\"top_sites\":" + rows_of(at_sites, dev, {"frame", "bytes_at_peak", "allocations"}) + "}";
    }
    out += '}';
  }
  return out + "]}";
}

std::string mib(int64_t b) {
  char s[64];
  std::snprintf(s, sizeof s, "%.1f MiB", double(b) / (1024.0 * 1024.0));
  return s;
}

}  // namespace

int run_snapshot(int argc, char** argv) {
  bool json = false;
  std::optional<int64_t> device, at_us;
  size_t chunk = 4 << 20;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto number = [&](const char* what, int64_t& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(argv[i + 1], &end, 10);
      if (errno || !end || *end || end == argv[i + 1]) return false;
      out = v;
      ++i;
      (void)what;
      return true;
    };
    int64_t v = 0;
    if (a == "--json") {
      json = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kSnapshotUsage, stdout);
      return 0;
    } else if (a == "--device") {
      if (!number("--device", v) || v < 0) {
        std::fprintf(stderr, "kinetoscope: --device takes a device number (0, 1, ...)\n%s", kSnapshotUsage);
        return 2;
      }
      device = v;
    } else if (a == "--at-us") {
      if (!number("--at-us", v)) {
        std::fprintf(stderr, "kinetoscope: --at-us takes a time in microseconds (the snapshot's time_us)\n%s", kSnapshotUsage);
        return 2;
      }
      at_us = v;
    } else if (a == "--chunk-bytes") {
      if (!number("--chunk-bytes", v) || v < 1 || v > (int64_t(1) << 30)) {
        std::fprintf(stderr, "kinetoscope: --chunk-bytes takes a whole number from 1 to 1073741824\n");
        return 2;
      }
      chunk = size_t(v);
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope: unknown option %s\n%s", a.c_str(), kSnapshotUsage);
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fputs(kSnapshotUsage, stderr);
    return 2;
  }
  int status = 0;
  for (const std::string& path : files) {
    const std::string name = ks::base_name(path);
    ks::SnapshotSession session;
    session.set_file(name);
    ks::SnapshotReader& r = session.reader();
    const std::string open_error = read_snapshot(path, r, chunk);
    if (!open_error.empty() || r.failed()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), (open_error.empty() ? r.error() : open_error).c_str());
      status = 1;
      continue;
    }
    const ks::SnapshotModel& m = r.model();
    std::vector<int64_t> devices = ks::snapshot_devices(m);
    if (device) {
      bool found = false;
      for (int64_t d : devices) found |= d == *device;
      if (!found) {
        std::fprintf(stderr, "%s: The snapshot has no device %lld.\n", name.c_str(), (long long)*device);
        status = 1;
        continue;
      }
      devices = {*device};
    }
    if (json) {
      std::printf("%s\n", snapshot_json(session, name, device, at_us).c_str());
      continue;
    }
    std::vector<ks::SnapDeviceStats> stats;
    for (int64_t d : devices) stats.push_back(ks::snapshot_device_stats(m, d, at_us));
    std::printf("%s: memory snapshot, %zu segment%s, %s\n", name.c_str(), m.segments.size(), m.segments.size() == 1 ? "" : "s",
                m.has_history ? "with the allocator's history" : "no history (recorded without _record_memory_history)");
    if (!r.error().empty()) std::printf("  warning: %s\n", r.error().c_str());
    for (const auto& [what, n] : m.health) std::printf("  skipped: %llu %s\n", (unsigned long long)n, what.c_str());
    for (const ks::SnapDeviceStats& s : stats) {
      std::printf("\ndevice %lld\n", (long long)s.device);
      std::printf("  history: %llu entries, %llu allocations, %llu frees\n", (unsigned long long)s.trace_entries,
                  (unsigned long long)s.allocations, (unsigned long long)s.frees);
      std::printf("  peak allocated: %s (%lld bytes)", mib(s.peak_allocated_bytes).c_str(), (long long)s.peak_allocated_bytes);
      if (s.peak_at_us >= 0) std::printf(" at %lld us", (long long)s.peak_at_us);
      std::printf("%s\n", s.peak_entry < 0 && s.trace_entries ? " (before the first entry)" : "");
      std::printf("  alive before the history: %s; peak reserved: %s\n", mib(s.before_history_bytes).c_str(),
                  mib(s.peak_reserved_bytes).c_str());
      std::printf("  at the dump: %s allocated, %s reserved in %llu segment%s\n", mib(s.allocated_at_dump_bytes).c_str(),
                  mib(s.reserved_at_dump_bytes).c_str(), (unsigned long long)s.segments, s.segments == 1 ? "" : "s");
      for (const ks::SnapOom& o : s.ooms) {
        std::printf("  out of memory");
        if (o.at_us >= 0) std::printf(" at %lld us", (long long)o.at_us);
        std::printf(": asked for %s, the device had %s free; %s allocated, %s reserved\n", mib(o.requested_bytes).c_str(),
                    mib(o.device_free_bytes).c_str(), mib(o.allocated_bytes).c_str(), mib(o.reserved_bytes).c_str());
      }
      auto print_sites = [](const std::vector<ks::SnapSite>& sites) {
        for (size_t k = 0; k < sites.size() && k < 10; ++k)
          std::printf("    %12s  %6llu  %s\n", mib(sites[k].bytes).c_str(), (unsigned long long)sites[k].allocations,
                      sites[k].frame.c_str());
      };
      if (!s.top_sites.empty()) {
        std::printf("  held at the peak, by allocation site (bytes, allocations, innermost Python frame):\n");
        print_sites(s.top_sites);
      }
      if (s.at) {
        std::printf("  at %lld us (after entry %lld): %s allocated, %s reserved\n", (long long)s.at->at_us,
                    (long long)s.at->entry, mib(s.at->allocated_bytes).c_str(), mib(s.at->reserved_bytes).c_str());
        print_sites(s.at->top_sites);
      }
    }
  }
  return status;
}
