// The outputs of `kinetoscope snapshot`'s analyses beyond its summary (cli/snapshot_command.cpp
// reads the files and picks one): --segments (the allocator's state at a moment), --categories
// (the kinds of memory alive, by stacks and from export_memory_timeline), --compare A B.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_categories.h"
#include "core/snapshot/snapshot_model.h"

namespace ks {

// The moment asked for by --entry N or --at-us T on a device; none: the dump (the last entry).
struct SnapshotMomentArg {
  std::optional<int64_t> entry;
  std::optional<int64_t> at_us;
};

// Each returns 0, or 1 after saying on stderr why a device could not be shown.
int print_snapshot_segments(const std::string& name, const SnapshotModel& m, const std::vector<int64_t>& devices,
                            const SnapshotMomentArg& at, bool json);
int print_snapshot_categories(const std::string& name, const SnapshotModel& m, const std::vector<int64_t>& devices,
                              const SnapshotMomentArg& at, const MemoryTimeline* timeline, const std::string& timeline_name,
                              bool json);
void print_snapshot_compare(const std::string& name_a, const SnapshotModel& a, const std::string& name_b,
                            const SnapshotModel& b, const std::vector<int64_t>& devices, bool json);

// Reads export_memory_timeline's JSON (gzipped or not); "" or a sentence.
std::string read_memory_timeline(const std::string& path, MemoryTimeline& out);

// One line of text per oom for the summary: "fragmentation: ...".
std::string oom_fragmentation_text(const OomFragmentation& f);

}  // namespace ks
