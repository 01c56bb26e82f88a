// libFuzzer target for the snapshot load path: the safe pickle reader (core/snapshot/
// pickle_reader.h), the snapshot model built on its events and every number computed from it
// (each device's stats, at the peak and at a time the input picks; the allocator's state there
// and before the history, the fragmentation at each oom, the categories at the peak). Beyond "no crash" (under
// ASan/UBSan), it checks that the chunk size never changes the result, and that nothing refused
// reached the model. Seeds: tests/fuzz/snapshot_corpus (a first byte other than PROTO's 0x80 picks
// the chunk size); the hostile pickles are read as they are.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/snapshot/allocator_state.h"
#include "core/snapshot/snapshot_categories.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"

namespace {
std::string load(const uint8_t* data, size_t size, size_t chunk, bool sized, int64_t at_us) {
  ks::SnapshotReader r;
  if (sized) r.set_total_size(size);
  for (size_t i = 0; i < size; i += chunk) r.feed(reinterpret_cast<const char*>(data) + i, std::min(chunk, size - i));
  r.finish();
  std::string out = r.failed() ? "failed: " : "loaded: ";
  out += r.error();
  if (r.failed()) {
    // A refused or unreadable pickle loads nothing at all.
    const ks::SnapshotModel& m = r.model();
    if (r.error().find("Refused") == 0 && (!m.devices.empty() || !m.segments.empty())) std::abort();
    return out;
  }
  const ks::SnapshotModel& m = r.model();
  for (const auto& [what, n] : m.health) out += "|" + what + "=" + std::to_string(n);
  for (int64_t d : ks::snapshot_devices(m)) {
    const ks::SnapDeviceStats s = ks::snapshot_device_stats(m, d, at_us, 5);
    out += "|dev" + std::to_string(d) + ":" + std::to_string(s.trace_entries) + "," + std::to_string(s.allocations) + "," +
           std::to_string(s.frees) + "," + std::to_string(s.peak_allocated_bytes) + "," + std::to_string(s.peak_entry) + "," +
           std::to_string(s.peak_reserved_bytes) + "," + std::to_string(s.reserved_at_dump_bytes) + "," +
           std::to_string(s.ooms.size());
    for (const ks::SnapSite& site : s.top_sites) out += ";" + site.frame + "=" + std::to_string(site.bytes);
    if (s.at) out += "@" + std::to_string(s.at->entry) + "," + std::to_string(s.at->allocated_bytes);
    // The replayed states tile every segment with their blocks; the categories add up to the
    // timeline's level at the peak.
    for (const ks::AllocatorState& st : ks::allocator_states(m, d, {s.peak_entry, -1})) {
      for (const ks::StateSegment& seg : st.segments) {
        int64_t sum = 0;
        for (uint32_t k = seg.first_block; k < seg.first_block + seg.blocks; ++k) sum += st.blocks[k].size;
        if (sum != seg.size) std::abort();
      }
      out += "#" + std::to_string(st.reserved_bytes) + "," + std::to_string(st.allocated_bytes) + "," +
             std::to_string(st.largest_inactive_bytes) + "," + std::to_string(st.inconsistencies.size());
    }
    for (const ks::OomFragmentation& f : ks::oom_fragmentation(m, d)) out += "!" + std::to_string(f.inactive_bytes);
    int64_t by_kind = 0;
    const std::vector<ks::CategoryBytes> kinds = ks::snapshot_categories(m, d, {s.peak_entry});
    for (int64_t b : kinds[0].bytes) by_kind += b;
    if (by_kind != s.peak_allocated_bytes) std::abort();
  }
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t chunk = 1 + size % 61;
  bool sized = true;
  if (data[0] != 0x80) {  // a pickle (PROTO first, as the hostile corpus) is read as it is
    chunk = 1 + data[0] % 61;  // else the first byte picks a chunk size
    sized = data[0] & 0x80;    // and whether the reader knows the file's size
    data += 1;
    size -= 1;
  }
  const int64_t at_us = 1000 + int64_t(chunk);  // the hand-made seeds' times are 1000-1011
  const std::string whole = load(data, size, size ? size : 1, sized, at_us);
  const std::string chunked = load(data, size, chunk, sized, at_us);
  if (whole != chunked) std::abort();
  return 0;
}
