// `kinetoscope snapshot`: the numbers of CUDA allocator snapshots (torch.cuda.memory._dump_snapshot
// pickles) per device, read by the core's safe pickle reader (core/snapshot/) in 4 MB chunks as
// the page reads traces: the history's counts, the peak and what held it by allocation site,
// each out-of-memory event, the state at the dump, and with --at-us the state at a time; the
// analyses of cli/snapshot_analyses.h with --segments, --categories and --compare.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "cli/snapshot_analyses.h"
#include "core/session/answer.h"
#include "core/session/snapshot_session.h"
#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"
#include "core/util/json_writer.h"

namespace {

const char kSnapshotUsage[] =
    "usage: kinetoscope snapshot [--json] [--device N] [--at-us T] [--chunk-bytes N] FILE...\n"
    "       kinetoscope snapshot --segments [--entry N | --at-us T] [--device N] [--json] FILE...\n"
    "       kinetoscope snapshot --categories [--memory-timeline FILE] [--entry N | --at-us T]\n"
    "                            [--device N] [--json] FILE...\n"
    "       kinetoscope snapshot --compare [--device N] [--json] A B\n"
    "\n"
    "  CUDA memory snapshots (torch.cuda.memory._dump_snapshot pickles, protocols 2-5, plain or\n"
    "  gzipped, read without running any of their code) per device: the allocator history's entries,\n"
    "  allocations and frees; the peak of the allocated memory (counting the blocks alive\n"
    "  before the history began, as pytorch.org/memory_viz does) with its time and the\n"
    "  allocation sites holding it (innermost Python frame); each out-of-memory event with\n"
    "  the size asked for, the free memory the allocator saw and what was allocated and\n"
    "  reserved then, and the fragmentation then (the live blocks, the cached free memory and\n"
    "  its largest free block); allocated and reserved memory and segments at the dump.\n"
    "  --device N: that device only. --at-us T: also the state at time T (time_us).\n"
    "  --json prints one JSON object per file, one per line.\n"
    "  --segments: the allocator's segments and their blocks (allocated, awaiting free,\n"
    "  inactive) at the dump, or after entry N (-1: before the first) or at time T, replayed\n"
    "  backwards from the dump as pytorch.org/memory_viz's segment view does.\n"
    "  --categories: the bytes alive at the peak (and at --entry/--at-us) by kind: parameters,\n"
    "  optimizer state, activations, gradients, temporaries, unknown, by a rule on the stacks\n"
    "  (docs/snapshots.md); --memory-timeline FILE: also the categories of the same run's\n"
    "  torch.profiler export_memory_timeline JSON (.json or .json.gz) at the same time.\n"
    "  --compare A B: the two snapshots' peaks, the allocation sites at each peak sorted by\n"
    "  growth from A to B, and the kinds at each peak, side by side.\n";

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Inflates a gzip-compressed snapshot (torch writes plain pickles; people gzip them to share)
// into the reader chunk by chunk. A stream cut off or corrupt part-way: the reader finishes with
// what came before it (its own sentence says the pickle ends early), and the health says why.
std::string read_gzip_snapshot(std::FILE* f, ks::SnapshotReader& r, size_t chunk) {
  std::vector<char> out(chunk);
  const ks::GzipEnd end = ks::inflate_file(
      f, chunk, [&](size_t) { return out.data(); }, [&](size_t n) { r.feed(out.data(), n); }, [] { return false; });
  if (end == ks::GzipEnd::kNoInflate) return "Cannot start gzip decompression.";
  r.finish();
  const char* problem = end == ks::GzipEnd::kCutOff      ? "its gzip stream is cut off"
                        : end == ks::GzipEnd::kCorrupt   ? "its gzip stream is corrupt"
                        : end == ks::GzipEnd::kReadError ? "a read error"
                                                         : nullptr;
  // Bytes after a whole pickle (its STOP read) are ignored, as gzip(1) ignores trailing garbage.
  if (problem && !r.error().empty())
    r.model().count("gzip input that ended early or was corrupt (" + std::string(problem) + "; what came before is loaded)");
  return {};
}

// Reads the file into the reader in chunks (gzip recognised by its magic bytes, not the name);
// returns a sentence when it cannot be read at all.
std::string read_snapshot(const std::string& path, ks::SnapshotReader& r, size_t chunk) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return "Cannot open " + path + ": " + std::strerror(errno) + ".";
  unsigned char magic[2] = {0, 0};
  const size_t m = std::fread(magic, 1, 2, f.get());
  std::rewind(f.get());
  if (m == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return read_gzip_snapshot(f.get(), r, chunk);
  struct stat st {};
  if (fstat(fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode)) r.set_total_size(uint64_t(st.st_size));
  std::vector<char> buf(chunk);
  for (;;) {
    const size_t got = std::fread(buf.data(), 1, buf.size(), f.get());
    if (got == 0) break;
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
    out += ",\"ooms\":" + rows_of(ooms, dev, {"at_us", "entry", "requested_bytes", "device_free_bytes", "allocated_bytes", "reserved_bytes",
                                                    "alive_blocks", "alive_block_bytes", "inactive_bytes", "largest_inactive_bytes"});
    out += ",\"top_sites\":" + rows_of(sites, dev, {"frame", "bytes_at_peak", "allocations"});
    if (at_us) {
      out += ",\"at\":{\"at_us\":" + cell(sum, "at_us", r) + ",\"entry\":" + cell(sum, "at_entry", r) +
             ",\"allocated_bytes\":" + cell(sum, "at_allocated_bytes", r) + ",\"reserved_bytes\":" + cell(sum, "at_reserved_bytes", r) +
             ",\"top_sites\":" + rows_of(at_sites, dev, {"frame", "bytes_at_peak", "allocations"}) + "}";
    }
    out += '}';
  }
  out += "]";
  for (const char* k : {"allocator_settings", "external_annotations"}) out += ",\"" + std::string(k) + "\":" + std::string(ks::answer_meta(sum, k));
  return out + "}";
}

std::string mib(int64_t b) {
  char s[64];
  std::snprintf(s, sizeof s, "%.1f MiB", double(b) / (1024.0 * 1024.0));
  return s;
}

}  // namespace

int run_snapshot(int argc, char** argv) {
  bool json = false, segments = false, categories = false, compare = false;
  std::optional<int64_t> device, at_us, entry;
  std::string timeline_path;
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
    } else if (a == "--segments") {
      segments = true;
    } else if (a == "--categories") {
      categories = true;
    } else if (a == "--compare") {
      compare = true;
    } else if (a == "--entry") {
      if (!number("--entry", v) || v < -1) {
        std::fprintf(stderr, "kinetoscope: --entry takes an entry of the history (0, 1, ...; -1: before the first)\n%s", kSnapshotUsage);
        return 2;
      }
      entry = v;
    } else if (a == "--memory-timeline") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kinetoscope: --memory-timeline takes a file (torch.profiler's export_memory_timeline JSON)\n%s", kSnapshotUsage);
        return 2;
      }
      timeline_path = argv[++i];
      categories = true;
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
  if (int(segments) + int(categories) + int(compare) > 1) {
    std::fprintf(stderr, "kinetoscope: --segments, --categories and --compare are separate outputs: pick one\n%s", kSnapshotUsage);
    return 2;
  }
  if (entry && at_us) {
    std::fprintf(stderr, "kinetoscope: --entry and --at-us both name the moment: give one\n%s", kSnapshotUsage);
    return 2;
  }
  if (entry && !segments && !categories) {
    std::fprintf(stderr, "kinetoscope: --entry goes with --segments or --categories\n%s", kSnapshotUsage);
    return 2;
  }
  if (compare && (files.size() != 2 || at_us)) {
    std::fprintf(stderr, "kinetoscope: --compare takes two snapshots, A and B (and no --at-us)\n%s", kSnapshotUsage);
    return 2;
  }
  ks::MemoryTimeline timeline;
  if (!timeline_path.empty()) {
    const std::string problem = ks::read_memory_timeline(timeline_path, timeline);
    if (!problem.empty()) {
      std::fprintf(stderr, "%s: %s\n", ks::base_name(timeline_path).c_str(), problem.c_str());
      return 1;
    }
  }
  if (compare) {
    ks::SnapshotReader ra, rb;
    ks::SnapshotReader* readers[2] = {&ra, &rb};
    for (int k = 0; k < 2; ++k) {
      const std::string open_error = read_snapshot(files[size_t(k)], *readers[k], chunk);
      if (!open_error.empty() || readers[k]->failed()) {
        std::fprintf(stderr, "%s: %s\n", ks::base_name(files[size_t(k)]).c_str(),
                     (open_error.empty() ? readers[k]->error() : open_error).c_str());
        return 1;
      }
      if (!readers[k]->error().empty())
        std::fprintf(stderr, "%s: warning: %s\n", ks::base_name(files[size_t(k)]).c_str(), readers[k]->error().c_str());
    }
    std::vector<int64_t> devices = ks::snapshot_devices(ra.model());
    for (int64_t d : ks::snapshot_devices(rb.model())) devices.push_back(d);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    if (device) {
      if (std::find(devices.begin(), devices.end(), *device) == devices.end()) {
        std::fprintf(stderr, "kinetoscope: neither snapshot has device %lld.\n", (long long)*device);
        return 1;
      }
      devices = {*device};
    }
    ks::print_snapshot_compare(ks::base_name(files[0]), ra.model(), ks::base_name(files[1]), rb.model(), devices, json);
    return 0;
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
    if (segments || categories) {
      if (!r.error().empty()) std::fprintf(stderr, "%s: warning: %s\n", name.c_str(), r.error().c_str());
      const ks::SnapshotMomentArg moment{entry, at_us};
      const int s = segments ? ks::print_snapshot_segments(name, m, devices, moment, json)
                             : ks::print_snapshot_categories(name, m, devices, moment, timeline_path.empty() ? nullptr : &timeline,
                                                             ks::base_name(timeline_path), json);
      if (s) status = s;
      continue;
    }
    if (json) {
      std::printf("%s\n", snapshot_json(session, name, device, at_us).c_str());
      continue;
    }
    // The text's numbers (--json has them from the session's views, built there once).
    std::vector<ks::SnapDeviceStats> stats;
    std::vector<std::vector<ks::OomFragmentation>> frag;
    for (int64_t d : devices) {
      stats.push_back(ks::snapshot_device_stats(m, d, at_us));
      frag.push_back(ks::oom_fragmentation(m, d));
    }
    std::printf("%s: memory snapshot, %zu segment%s, %s\n", name.c_str(), m.segments.size(), m.segments.size() == 1 ? "" : "s",
                m.has_history ? "with the allocator's history" : "no history (recorded without _record_memory_history)");
    if (!r.error().empty()) std::printf("  warning: %s\n", r.error().c_str());
    for (const auto& [what, n] : m.health) std::printf("  skipped: %llu %s\n", (unsigned long long)n, what.c_str());
    if (!m.allocator_settings.empty()) {
      std::printf("  allocator settings:");
      for (const auto& [k, v] : m.allocator_settings) std::printf(" %s=%s", k.c_str(), v.empty() ? "''" : v.c_str());
      std::printf("\n");
    }
    if (!m.annotations.empty())
      std::printf("  %zu external annotation%s (record_function ranges' START/END)\n", m.annotations.size(),
                  m.annotations.size() == 1 ? "" : "s");
    for (size_t si = 0; si < stats.size(); ++si) {
      const ks::SnapDeviceStats& s = stats[si];
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
      for (size_t oi = 0; oi < s.ooms.size(); ++oi) {
        const ks::SnapOom& o = s.ooms[oi];
        std::printf("  out of memory");
        if (o.at_us >= 0) std::printf(" at %lld us", (long long)o.at_us);
        std::printf(": asked for %s, the device had %s free; %s allocated, %s reserved\n", mib(o.requested_bytes).c_str(),
                    mib(o.device_free_bytes).c_str(), mib(o.allocated_bytes).c_str(), mib(o.reserved_bytes).c_str());
        if (oi < frag[si].size()) std::fputs(ks::oom_fragmentation_text(frag[si][oi]).c_str(), stdout);
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
