#include "cli/snapshot_analyses.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/snapshot/snapshot_compare.h"
#include "core/snapshot/snapshot_stats.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

std::string mib(int64_t b) {
  char s[64];
  std::snprintf(s, sizeof s, "%.1f MiB", double(b) / (1024.0 * 1024.0));
  return s;
}

std::string hex(uint64_t a) {
  char s[32];
  std::snprintf(s, sizeof s, "0x%llx", (unsigned long long)a);
  return s;
}

void time_json(JsonWriter& w, int64_t t) {
  if (t < 0) w.null();
  else w.value(t);
}

// The entry the moment names on a device, or a sentence on stderr and false.
bool resolve(const std::string& name, const SnapshotModel& m, int64_t device, const SnapshotMomentArg& at, int64_t& entry) {
  const int64_t n = snapshot_history_size(m, device);
  if (at.entry) {
    if (*at.entry < -1 || *at.entry >= n) {
      if (n == 0)
        std::fprintf(stderr, "%s: device %lld has no history: only --entry -1 (the dump) can be shown.\n", name.c_str(),
                     (long long)device);
      else
        std::fprintf(stderr, "%s: device %lld's history has %lld entries (0 to %lld; -1: before the first); --entry %lld is not one.\n",
                     name.c_str(), (long long)device, (long long)n, (long long)(n - 1), (long long)*at.entry);
      return false;
    }
    entry = *at.entry;
  } else if (at.at_us) {
    entry = snapshot_entry_at(m, device, *at.at_us);
  } else {
    entry = n - 1;
  }
  return true;
}

void inconsistencies_json(JsonWriter& w, const std::vector<std::pair<std::string, uint64_t>>& v) {
  w.begin_array();
  for (const auto& [what, n] : v) w.begin_object().key("what").value(what).key("count").value(uint64_t(n)).end_object();
  w.end_array();
}

std::string moment_text(int64_t entry, int64_t at_us, int64_t n) {
  std::string s = entry < 0 ? "before the first entry" : "after entry " + std::to_string(entry);
  if (entry >= 0 && entry == n - 1) s += " (the dump)";
  if (n == 0) s = "at the dump (no history)";
  if (at_us >= 0) s += " at " + std::to_string(at_us) + " us";
  return s;
}

}  // namespace

std::string oom_fragmentation_text(const OomFragmentation& f) {
  return "    then " + mib(f.alive_block_bytes) + " in " + std::to_string(f.alive_blocks) + " live block" +
         (f.alive_blocks == 1 ? "" : "s") + ", " + mib(f.inactive_bytes) + " cached but free (reserved - allocated), the largest free block " +
         mib(f.largest_inactive_bytes) + "\n";
}

int print_snapshot_segments(const std::string& name, const SnapshotModel& m, const std::vector<int64_t>& devices,
                            const SnapshotMomentArg& at, bool json) {
  int status = 0;
  std::vector<AllocatorState> states;
  for (int64_t d : devices) {
    int64_t entry = -1;
    if (!resolve(name, m, d, at, entry)) {
      status = 1;
      continue;
    }
    states.push_back(allocator_state(m, d, entry));
  }
  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("file").value(name);
    w.key("devices").begin_array();
    for (const AllocatorState& s : states) {
      w.begin_object();
      w.key("device").value(s.device);
      w.key("entry").value(s.entry);
      w.key("at_us");
      time_json(w, s.at_us);
      w.key("reserved_bytes").value(s.reserved_bytes);
      w.key("allocated_bytes").value(s.allocated_bytes);
      w.key("awaiting_free_bytes").value(s.awaiting_free_bytes);
      w.key("requested_bytes").value(s.requested_bytes);
      w.key("inactive_bytes").value(s.inactive_bytes);
      w.key("largest_inactive_bytes").value(s.largest_inactive_bytes);
      w.key("allocated_blocks").value(uint64_t(s.allocated_blocks));
      w.key("awaiting_free_blocks").value(uint64_t(s.awaiting_free_blocks));
      w.key("inactive_blocks").value(uint64_t(s.inactive_blocks));
      w.key("inconsistencies");
      inconsistencies_json(w, s.inconsistencies);
      w.key("segments").begin_array();
      for (const StateSegment& seg : s.segments) {
        w.begin_object();
        w.key("address").value(uint64_t(seg.address));
        w.key("size").value(seg.size);
        w.key("stream").value(seg.stream);
        w.key("active_bytes").value(seg.active_bytes);
        w.key("inactive_bytes").value(seg.inactive_bytes);
        w.key("largest_inactive_bytes").value(seg.largest_inactive_bytes);
        w.key("blocks").begin_array();
        for (uint32_t k = seg.first_block; k < seg.first_block + seg.blocks; ++k) {
          const StateBlock& b = s.blocks[k];
          w.begin_object();
          w.key("address").value(uint64_t(b.address));
          w.key("size").value(b.size);
          w.key("state").value(state_block_kind_name(b.kind));
          if (b.kind != StateBlockKind::kInactive) {
            w.key("requested_bytes").value(b.requested_bytes);
            w.key("size_from_dump").value(b.size_from_dump);
            w.key("alloc_entry");
            if (b.alloc_entry < 0) w.null();
            else w.value(b.alloc_entry);
            w.key("site").value(b.alloc_entry < 0 && b.stack == 0 ? std::string("<allocated before the history began>")
                                                                   : snapshot_site(m, b.stack));
          }
          w.end_object();
        }
        w.end_array();
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return status;
  }
  for (const AllocatorState& s : states) {
    std::printf("%s: device %lld %s\n", name.c_str(), (long long)s.device,
                moment_text(s.entry, s.at_us, snapshot_history_size(m, s.device)).c_str());
    std::printf("  %zu segment%s, %s reserved: %s allocated in %llu blocks, %s awaiting free in %llu, %s inactive in %llu (the largest %s)\n",
                s.segments.size(), s.segments.size() == 1 ? "" : "s", mib(s.reserved_bytes).c_str(), mib(s.allocated_bytes).c_str(),
                (unsigned long long)s.allocated_blocks, mib(s.awaiting_free_bytes).c_str(),
                (unsigned long long)s.awaiting_free_blocks, mib(s.inactive_bytes).c_str(), (unsigned long long)s.inactive_blocks,
                mib(s.largest_inactive_bytes).c_str());
    for (const auto& [what, n] : s.inconsistencies)
      std::printf("  not replayed: %llu %s\n", (unsigned long long)n, what.c_str());
    for (const StateSegment& seg : s.segments) {
      std::printf("  segment %s  %s  stream %lld: %s active, %s inactive\n", hex(seg.address).c_str(), mib(seg.size).c_str(),
                  (long long)seg.stream, mib(seg.active_bytes).c_str(), mib(seg.inactive_bytes).c_str());
      for (uint32_t k = seg.first_block; k < seg.first_block + seg.blocks; ++k) {
        const StateBlock& b = s.blocks[k];
        std::printf("    %-16s %12s  %-13s", hex(b.address).c_str(), mib(b.size).c_str(), state_block_kind_name(b.kind));
        if (b.kind != StateBlockKind::kInactive) {
          std::printf("  asked %s", mib(b.requested_bytes).c_str());
          if (b.alloc_entry >= 0) std::printf("  entry %lld  %s", (long long)b.alloc_entry, snapshot_site(m, b.stack).c_str());
          else std::printf("  before the history%s%s", b.stack ? "  " : "", b.stack ? snapshot_site(m, b.stack).c_str() : "");
        }
        std::printf("\n");
      }
    }
  }
  return status;
}

int print_snapshot_categories(const std::string& name, const SnapshotModel& m, const std::vector<int64_t>& devices,
                              const SnapshotMomentArg& at, const MemoryTimeline* timeline, const std::string& timeline_name,
                              bool json) {
  int status = 0;
  struct Row {
    int64_t device;
    std::vector<std::string> what;
    std::vector<CategoryBytes> by_stack;
    std::vector<TimelineCategories> by_timeline;
  };
  std::vector<Row> rows;
  for (int64_t d : devices) {
    Row r;
    r.device = d;
    const SnapDeviceStats st = snapshot_device_stats(m, d, {}, 0);
    std::vector<int64_t> entries{st.peak_entry};
    r.what.push_back("peak");
    if (at.entry || at.at_us) {
      int64_t e = -1;
      if (!resolve(name, m, d, at, e)) {
        status = 1;
        continue;
      }
      entries.push_back(e);
      r.what.push_back("asked");
    }
    r.by_stack = snapshot_categories(m, d, entries);
    if (timeline) {
      // The peak's time is its entry's (the first entry's when the peak is before it).
      for (size_t k = 0; k < entries.size(); ++k) {
        int64_t t = r.by_stack[k].at_us;
        if (k == 0) t = st.peak_at_us;
        if (k == 1 && at.at_us) t = *at.at_us;
        r.by_timeline.push_back(memory_timeline_at(*timeline, t));
      }
    }
    rows.push_back(std::move(r));
  }
  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("file").value(name);
    if (timeline) {
      w.key("memory_timeline").begin_object();
      w.key("file").value(timeline_name);
      w.key("samples").value(uint64_t(timeline->times_us.size()));
      w.key("first_us");
      time_json(w, timeline->times_us.empty() ? -1 : timeline->times_us.front());
      w.key("last_us");
      time_json(w, timeline->times_us.empty() ? -1 : timeline->times_us.back());
      w.end_object();
    }
    w.key("devices").begin_array();
    for (const Row& r : rows) {
      w.begin_object();
      w.key("device").value(r.device);
      w.key("moments").begin_array();
      for (size_t k = 0; k < r.by_stack.size(); ++k) {
        const CategoryBytes& c = r.by_stack[k];
        w.begin_object();
        w.key("moment").value(r.what[k]);
        w.key("entry").value(c.entry);
        w.key("at_us");
        time_json(w, c.at_us);
        int64_t total = 0;
        for (int64_t b : c.bytes) total += b;
        w.key("total_bytes").value(total);
        w.key("by_stacks").begin_object();
        for (size_t i = 0; i < kMemCategories; ++i) {
          w.key(mem_category_name(MemCategory(i))).begin_object();
          w.key("bytes").value(c.bytes[i]).key("allocations").value(uint64_t(c.allocations[i]));
          w.end_object();
        }
        w.end_object();
        if (timeline) {
          const TimelineCategories& tc = r.by_timeline[k];
          w.key("from_memory_timeline").begin_object();
          w.key("matched").value(tc.matched);
          w.key("sample_us");
          time_json(w, tc.sample_us);
          for (size_t i = 0; i < kTimelineCategories; ++i) w.key(kTimelineCategoryNames[i]).value(tc.bytes[i]);
          w.end_object();
        }
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return status;
  }
  for (const Row& r : rows) {
    std::printf("%s: device %lld, memory by kind (rule: docs/snapshots.md)\n", name.c_str(), (long long)r.device);
    for (size_t k = 0; k < r.by_stack.size(); ++k) {
      const CategoryBytes& c = r.by_stack[k];
      std::printf("  %s %s:\n", r.what[k] == "peak" ? "at the peak," : "at",
                  moment_text(c.entry, c.at_us, snapshot_history_size(m, r.device)).c_str());
      for (size_t i = 0; i < kMemCategories; ++i)
        std::printf("    %-16s %12s  %6llu allocations\n", mem_category_name(MemCategory(i)), mib(c.bytes[i]).c_str(),
                    (unsigned long long)c.allocations[i]);
      if (timeline) {
        const TimelineCategories& tc = r.by_timeline[k];
        if (tc.matched)
          std::printf("    export_memory_timeline (%s) at %lld us:\n", timeline_name.c_str(), (long long)tc.sample_us);
        else
          std::printf("    export_memory_timeline (%s) does not cover this moment; its own peak, at %lld us:\n",
                      timeline_name.c_str(), (long long)tc.sample_us);
        for (size_t i = 0; i < kTimelineCategories; ++i)
          std::printf("    %-16s %12s\n", kTimelineCategoryNames[i], mib(tc.bytes[i]).c_str());
      }
    }
  }
  return status;
}

void print_snapshot_compare(const std::string& name_a, const SnapshotModel& a, const std::string& name_b,
                            const SnapshotModel& b, const std::vector<int64_t>& devices, bool json) {
  std::vector<SnapshotComparison> cs;
  for (int64_t d : devices) cs.push_back(compare_snapshots(a, b, d));
  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("a").value(name_a);
    w.key("b").value(name_b);
    w.key("devices").begin_array();
    for (const SnapshotComparison& c : cs) {
      w.begin_object();
      w.key("device").value(c.device);
      auto side = [&](const char* k, const SnapDeviceStats& s) {
        w.key(k).begin_object();
        w.key("trace_entries").value(uint64_t(s.trace_entries));
        w.key("peak_allocated_bytes").value(s.peak_allocated_bytes);
        w.key("peak_entry").value(s.peak_entry);
        w.key("peak_at_us");
        time_json(w, s.peak_at_us);
        w.key("peak_reserved_bytes").value(s.peak_reserved_bytes);
        w.key("ooms").value(uint64_t(s.ooms.size()));
        w.end_object();
      };
      side("a", c.a);
      side("b", c.b);
      w.key("peak_growth_bytes").value(c.b.peak_allocated_bytes - c.a.peak_allocated_bytes);
      w.key("sites").begin_array();
      for (const CompareSite& s : c.sites) {
        w.begin_object();
        w.key("frame").value(s.frame);
        w.key("a_bytes").value(s.a_bytes);
        w.key("b_bytes").value(s.b_bytes);
        w.key("growth_bytes").value(s.growth_bytes());
        w.key("a_allocations").value(uint64_t(s.a_allocations));
        w.key("b_allocations").value(uint64_t(s.b_allocations));
        w.end_object();
      }
      w.end_array();
      w.key("categories").begin_array();
      for (size_t i = 0; i < kMemCategories; ++i) {
        w.begin_object();
        w.key("category").value(mem_category_name(MemCategory(i)));
        w.key("a_bytes").value(c.a_categories.bytes[i]);
        w.key("b_bytes").value(c.b_categories.bytes[i]);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return;
  }
  std::printf("A: %s\nB: %s\n", name_a.c_str(), name_b.c_str());
  for (const SnapshotComparison& c : cs) {
    std::printf("\ndevice %lld\n", (long long)c.device);
    std::printf("  peak allocated: A %s, B %s (%s%s)\n", mib(c.a.peak_allocated_bytes).c_str(), mib(c.b.peak_allocated_bytes).c_str(),
                c.b.peak_allocated_bytes >= c.a.peak_allocated_bytes ? "+" : "",
                mib(c.b.peak_allocated_bytes - c.a.peak_allocated_bytes).c_str());
    std::printf("  peak reserved:  A %s, B %s\n", mib(c.a.peak_reserved_bytes).c_str(), mib(c.b.peak_reserved_bytes).c_str());
    std::printf("  at each peak, by allocation site (A, B, growth), most grown first:\n");
    for (size_t k = 0; k < c.sites.size() && k < 20; ++k) {
      const CompareSite& s = c.sites[k];
      std::printf("    %12s %12s %13s  %s\n", mib(s.a_bytes).c_str(), mib(s.b_bytes).c_str(),
                  ((s.growth_bytes() >= 0 ? "+" : "") + mib(s.growth_bytes())).c_str(), s.frame.c_str());
    }
    if (c.sites.size() > 20) std::printf("    ... %zu more sites (--json lists all)\n", c.sites.size() - 20);
    std::printf("  at each peak, by kind (A, B):\n");
    for (size_t i = 0; i < kMemCategories; ++i)
      std::printf("    %-16s %12s %12s\n", mem_category_name(MemCategory(i)), mib(c.a_categories.bytes[i]).c_str(),
                  mib(c.b_categories.bytes[i]).c_str());
  }
}

std::string read_memory_timeline(const std::string& path, MemoryTimeline& out) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return "Cannot open " + path + ": " + std::strerror(errno) + ".";
  std::string text;
  char buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof buf)) > 0) {
    text.append(buf, size_t(got));
    if (text.size() > (size_t(1) << 32)) {
      gzclose(f);
      return "It is over 4 GiB: not an export_memory_timeline file.";
    }
  }
  int zerr = Z_OK;
  const char* msg = gzerror(f, &zerr);
  const bool failed = got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END);
  const std::string why = failed && msg ? msg : "";
  gzclose(f);
  if (failed) return "Cannot read it: " + why + ".";
  return parse_memory_timeline(text, out);
}

}  // namespace ks
