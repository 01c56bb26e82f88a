// Memory snapshots (core/snapshot/snapshot_model.h, snapshot_stats.h): the hand-made snapshot of
// tests/data/snapshots (its numbers worked out in tests/data/README.md) in protocols 2-5 and any
// chunk size, an older snapshot without history, what is not a snapshot, truncations, and the
// real samples against the numbers Python's own pickle module gives
// (tests/data/snapshots/expected_numbers.py → *.expected.json; vit_timm's pickle is in ../shared,
// skipped when absent).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"
#include "simdjson.h"
#include "test_util.h"

namespace {

struct Loaded {
  ks::SnapshotReader r;
  Loaded(const std::string& bytes, size_t chunk) {
    r.set_total_size(bytes.size());
    for (size_t i = 0; i < bytes.size(); i += chunk) r.feed(bytes.data() + i, std::min(chunk, bytes.size() - i));
    r.finish();
  }
};

const char* kBefore = "<allocated before the history began>";

}  // namespace

TEST_CASE("snapshot: the hand-made snapshot's numbers, protocols 2-5, any chunk size", "[snapshot]") {
  for (int p = 2; p <= 5; ++p)
    for (size_t chunk : {size_t(1), size_t(13), size_t(4 << 20)}) {
      INFO("protocol " << p << ", chunk " << chunk);
      Loaded l(kstest::read_fixture("snapshots/hand-made-protocol" + std::to_string(p) + ".pickle"), chunk);
      REQUIRE_FALSE(l.r.failed());
      CHECK(l.r.error() == "");
      const ks::SnapshotModel& m = l.r.model();
      CHECK(m.health.empty());
      CHECK(m.has_history);
      REQUIRE(ks::snapshot_devices(m) == std::vector<int64_t>{0, 1});
      REQUIRE(m.segments.size() == 2);
      CHECK(m.blocks.size() == 4);

      const ks::SnapDeviceStats d0 = ks::snapshot_device_stats(m, 0, int64_t(1007));
      CHECK(d0.trace_entries == 12);
      CHECK(d0.allocations == 4);
      CHECK(d0.frees == 3);
      CHECK(d0.before_history_bytes == 800000);  // block at 0x100000 (500000) + the free at 0x300000 (300000)
      CHECK(d0.peak_allocated_bytes == 4024288);
      CHECK(d0.peak_entry == 4);
      CHECK(d0.peak_at_us == 1004);
      CHECK(d0.peak_reserved_bytes == 6291456);
      CHECK(d0.allocated_at_dump_bytes == 1048576);
      CHECK(d0.reserved_at_dump_bytes == 2097152);
      CHECK(d0.alive_at_dump_bytes == 3024288);
      CHECK(d0.segments == 1);
      REQUIRE(d0.ooms.size() == 1);
      CHECK(d0.ooms[0].entry == 9);
      CHECK(d0.ooms[0].at_us == 1009);
      CHECK(d0.ooms[0].requested_bytes == 8000000);
      CHECK(d0.ooms[0].device_free_bytes == 123456);
      CHECK(d0.ooms[0].allocated_bytes == 3724288);
      CHECK(d0.ooms[0].reserved_bytes == 6291456);
      REQUIRE(d0.top_sites.size() == 3);
      CHECK(d0.top_sites[0].frame == "model.py:7:forward");  // past the C++ frame at::empty
      CHECK(d0.top_sites[0].bytes == 3000000);
      CHECK(d0.top_sites[0].allocations == 2);
      CHECK(d0.top_sites[1].frame == "model.py:3:__init__");
      CHECK(d0.top_sites[1].bytes == 524288);
      CHECK(d0.top_sites[2].frame == kBefore);
      CHECK(d0.top_sites[2].bytes == 500000);
      REQUIRE(d0.at);
      CHECK(d0.at->entry == 7);
      CHECK(d0.at->allocated_bytes == 3724288);
      CHECK(d0.at->reserved_bytes == 6291456);
      REQUIRE(d0.at->top_sites.size() == 4);
      CHECK(d0.at->top_sites[1].frame == "aten/src/ATen/native/Cat.cpp:99:at::native::cat");  // no Python frame
      CHECK(d0.at->top_sites[1].bytes == 700000);

      const ks::SnapDeviceStats d1 = ks::snapshot_device_stats(m, 1);
      CHECK(d1.trace_entries == 0);
      CHECK(d1.peak_allocated_bytes == 2000000);
      CHECK(d1.peak_entry == -1);
      CHECK(d1.peak_at_us == -1);
      CHECK(d1.allocated_at_dump_bytes == 2097152);
      REQUIRE(d1.top_sites.size() == 1);
      CHECK(d1.top_sites[0].frame == kBefore);
    }
}

TEST_CASE("snapshot: a time before the history gives the state before its first entry", "[snapshot]") {
  Loaded l(kstest::read_fixture("snapshots/hand-made-protocol4.pickle"), 4096);
  const ks::SnapDeviceStats d = ks::snapshot_device_stats(l.r.model(), 0, int64_t(5));
  REQUIRE(d.at);
  CHECK(d.at->entry == -1);
  CHECK(d.at->allocated_bytes == 800000);
  CHECK(d.at->reserved_bytes == 2097152);
}

TEST_CASE("snapshot: the peak counts the level before the first entry (unlike memory_viz's y-axis)", "[snapshot]") {
  Loaded l(kstest::read_fixture("snapshots/peak-before-first-entry.pickle"), 5);
  REQUIRE_FALSE(l.r.failed());
  const ks::SnapDeviceStats d = ks::snapshot_device_stats(l.r.model(), 0);
  CHECK(d.before_history_bytes == 1500000);
  CHECK(d.peak_allocated_bytes == 1500000);  // memory_viz's max_size: 1200000
  CHECK(d.peak_entry == -1);
  CHECK(d.peak_at_us == 10);  // the state held until the first entry
  CHECK(d.alive_at_dump_bytes == 1200000);
  REQUIRE(d.top_sites.size() == 1);
  CHECK(d.top_sites[0].frame == kBefore);
  CHECK(d.top_sites[0].allocations == 2);
}

TEST_CASE("snapshot: an older snapshot, a bare list of segments without history", "[snapshot]") {
  Loaded l(kstest::read_fixture("snapshots/legacy-segments-list-no-history.pickle"), 7);
  REQUIRE_FALSE(l.r.failed());
  const ks::SnapshotModel& m = l.r.model();
  CHECK_FALSE(m.has_history);
  REQUIRE(m.blocks.size() == 3);
  CHECK(m.blocks[2].address == 0x1000000 + 2 * 1048576);  // blocks follow each other
  CHECK(m.blocks[0].requested_size == 1048576);            // no requested_size: the size
  const ks::SnapDeviceStats d = ks::snapshot_device_stats(m, 0);
  CHECK(d.trace_entries == 0);
  CHECK(d.peak_allocated_bytes == 2097152);
  CHECK(d.reserved_at_dump_bytes == 3145728);
  CHECK(d.allocated_at_dump_bytes == 2097152);
}

TEST_CASE("snapshot: a data pickle that is no snapshot, and bad input, get one sentence", "[snapshot][hostile]") {
  Loaded a(kstest::read_fixture("snapshots/not-a-snapshot-dict.pickle"), 3);
  CHECK(a.r.failed());
  CHECK(a.r.error() == "The pickle's dict has no \"segments\" or \"device_traces\", so it is not a CUDA memory snapshot.");
  Loaded b(kstest::read_fixture("not-a-trace.json"), 3);
  CHECK(b.r.failed());
  CHECK(b.r.error().find("Not a pickle of protocol 2 to 5") == 0);
  Loaded c(std::string("\x80\x04") + "cbuiltins\neval\n", 1);
  CHECK(c.r.failed());
  CHECK(c.r.error().find("Refused the pickle's GLOBAL opcode (0x63) at byte 2") == 0);
  CHECK(c.r.model().devices.empty());
}

TEST_CASE("snapshot: segments that is a string, before any list was made (a crash fuzz_snapshot_reader found)", "[snapshot][hostile]") {
  // pickle.dumps({'segments': 'x'}, protocol=4): the field's "no list" id matched the sink's
  // "no list cached yet" and read an empty slab.
  std::string bytes;
  const std::string hex = "80049513000000000000007d948c087365676d656e7473948c017894732e";
  for (size_t i = 0; i < hex.size(); i += 2) bytes.push_back(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
  Loaded l(bytes, 4);
  CHECK_FALSE(l.r.failed());
  CHECK(l.r.model().segments.empty());
  REQUIRE(l.r.model().health.size() == 1);
  CHECK(l.r.model().health[0].first == "fields of the wrong type (read as 0)");
}

TEST_CASE("snapshot: a truncation at every byte loads what was complete and says so", "[snapshot][hostile]") {
  const std::string bytes = kstest::read_fixture("snapshots/hand-made-protocol4.pickle");
  size_t loaded = 0;
  uint64_t last_entries = 0;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Loaded l(bytes.substr(0, cut), 64);
    INFO("cut at " << cut);
    CHECK_FALSE(l.r.error().empty());
    if (l.r.failed()) continue;
    ++loaded;
    const ks::SnapshotModel& m = l.r.model();
    const uint64_t entries = m.devices.empty() ? 0 : m.devices[0].size_rows();
    CHECK(entries <= 12);
    CHECK(entries >= last_entries);  // a longer prefix never loads fewer entries
    last_entries = entries;
    for (int64_t d : ks::snapshot_devices(m)) {
      const ks::SnapDeviceStats s = ks::snapshot_device_stats(m, d);
      CHECK(s.peak_allocated_bytes >= 0);
    }
  }
  CHECK(loaded > bytes.size() / 2);  // most cuts keep something
  CHECK(last_entries == 12);
}

TEST_CASE("snapshot: a truncation inside a one-device history keeps the entries read (the list's pending APPEND)",
          "[snapshot][hostile]") {
  // device_traces holds one list, put in by a single APPEND that a cut never reaches: the
  // salvage must still put that list where it was going, or every entry is lost (it was, before).
  const std::string bytes = kstest::read_fixture("h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle");
  Loaded whole(bytes, 4 << 20);
  REQUIRE(whole.r.model().devices.size() == 1);
  const size_t all = whole.r.model().devices[0].size_rows();
  uint64_t last = 0;
  for (int eighth = 3; eighth <= 7; ++eighth) {
    Loaded l(bytes.substr(0, bytes.size() * size_t(eighth) / 8), 1 << 20);
    INFO("cut at " << eighth << "/8");
    CHECK_FALSE(l.r.failed());
    REQUIRE(l.r.model().devices.size() == 1);
    const uint64_t entries = l.r.model().devices[0].size_rows();
    CHECK(entries > last);
    CHECK(entries < all);
    last = entries;
  }
}

TEST_CASE("snapshot: allocator_settings and external_annotations, as Python's pickle reads them", "[snapshot][golden]") {
  // The values below are Python's repr of pickle.load(...)["allocator_settings"] and
  // ["external_annotations"] of the two real samples (written out by hand from python3).
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"PYTORCH_CUDA_ALLOC_CONF", ""},
      {"max_split_size", "-1"},
      {"garbage_collection_threshold", "0.0"},
      {"expandable_segments", "False"},
      {"pinned_num_register_threads", "1"},
      {"release_lock_on_cudamalloc", "False"},
      {"pinned_use_cuda_host_register", "False"},
      {"graph_capture_record_stream_reuse", "False"},
      {"roundup_power2_divisions",
       "{1: 0, 2: 0, 4: 0, 8: 0, 16: 0, 32: 0, 64: 0, 128: 0, 256: 0, 512: 0, 1024: 0, 2048: 0, 4096: 0, 8192: 0, "
       "16384: 0, 32768: 0}"},
  };
  {
    Loaded l(kstest::read_fixture("h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle"), 4096);
    CHECK(l.r.model().allocator_settings == settings);
    CHECK(l.r.model().annotations.empty());
  }
  const std::string vit = kstest::repo_path("../shared/traces/h100_pt211/vit_timm/vit_timm.snapshot.pickle");
  if (!std::filesystem::exists(vit)) return;  // ../shared absent
  Loaded l(kstest::read_path(vit), 4096);
  const ks::SnapshotModel& m = l.r.model();
  CHECK(m.allocator_settings == settings);
  REQUIRE(m.annotations.size() == 8);
  CHECK(m.annotations[0].start);
  CHECK(m.strings.get(m.annotations[0].name) == "Optimizer.step#AdamW.step");
  CHECK(m.annotations[0].device == 0);
  CHECK(m.annotations[0].time_us == 1795712515937604);
  CHECK_FALSE(m.annotations[1].start);
  CHECK(m.strings.get(m.annotations[1].name) == "Optimizer.step#AdamW.step");
  CHECK(m.annotations[1].time_us == 1795712515941248);
  CHECK(m.strings.get(m.annotations[2].name) == "Optimizer.zero_grad#AdamW.zero_grad");
  CHECK(m.annotations[2].time_us == 1795712515941314);
}

namespace {

void check_against_expected(const std::string& pickle_path, const std::string& expected_path) {
  const std::string bytes = kstest::read_path(pickle_path);
  Loaded l(bytes, 4 << 20);
  REQUIRE_FALSE(l.r.failed());
  CHECK(l.r.error() == "");
  CHECK(l.r.model().health.empty());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.load(expected_path).get(doc) == simdjson::SUCCESS);
  simdjson::dom::array devices;
  REQUIRE(doc["devices"].get(devices) == simdjson::SUCCESS);
  REQUIRE(ks::snapshot_devices(l.r.model()).size() == devices.size());
  for (simdjson::dom::element want : devices) {
    int64_t device = 0;
    REQUIRE(want["device"].get(device) == simdjson::SUCCESS);
    const ks::SnapDeviceStats got = ks::snapshot_device_stats(l.r.model(), device);
    auto i = [&](const char* k) {
      int64_t v = 0;
      if (want[k].get(v) != simdjson::SUCCESS) v = -1;  // null
      return v;
    };
    INFO("device " << device);
    CHECK(int64_t(got.trace_entries) == i("trace_entries"));
    CHECK(int64_t(got.allocations) == i("allocations"));
    CHECK(int64_t(got.frees) == i("frees"));
    CHECK(got.peak_allocated_bytes == i("peak_allocated_bytes"));
    CHECK(got.peak_at_us == i("peak_at_us"));
    CHECK(got.peak_entry == i("peak_entry"));
    CHECK(got.peak_reserved_bytes == i("peak_reserved_bytes"));
    CHECK(got.before_history_bytes == i("before_history_bytes"));
    CHECK(got.allocated_at_dump_bytes == i("allocated_at_dump_bytes"));
    CHECK(got.reserved_at_dump_bytes == i("reserved_at_dump_bytes"));
    CHECK(got.alive_at_dump_bytes == i("alive_at_dump_bytes"));
    CHECK(int64_t(got.segments) == i("segments"));
    simdjson::dom::array ooms, sites;
    REQUIRE(want["ooms"].get(ooms) == simdjson::SUCCESS);
    REQUIRE(got.ooms.size() == ooms.size());
    size_t k = 0;
    for (simdjson::dom::element o : ooms) {
      int64_t at = 0, req = 0, free = 0, alloc = 0, res = 0;
      REQUIRE(o["at_us"].get(at) == simdjson::SUCCESS);
      REQUIRE(o["requested_bytes"].get(req) == simdjson::SUCCESS);
      REQUIRE(o["device_free_bytes"].get(free) == simdjson::SUCCESS);
      REQUIRE(o["allocated_bytes"].get(alloc) == simdjson::SUCCESS);
      REQUIRE(o["reserved_bytes"].get(res) == simdjson::SUCCESS);
      CHECK(got.ooms[k].at_us == at);
      CHECK(got.ooms[k].requested_bytes == req);
      CHECK(got.ooms[k].device_free_bytes == free);
      CHECK(got.ooms[k].allocated_bytes == alloc);
      CHECK(got.ooms[k].reserved_bytes == res);
      ++k;
    }
    REQUIRE(want["top_sites"].get(sites) == simdjson::SUCCESS);
    REQUIRE(got.top_sites.size() == sites.size());
    k = 0;
    for (simdjson::dom::element s : sites) {
      std::string_view frame;
      int64_t b = 0, n = 0;
      REQUIRE(s["frame"].get(frame) == simdjson::SUCCESS);
      REQUIRE(s["bytes_at_peak"].get(b) == simdjson::SUCCESS);
      REQUIRE(s["allocations"].get(n) == simdjson::SUCCESS);
      CHECK(got.top_sites[k].frame == frame);
      CHECK(got.top_sites[k].bytes == b);
      CHECK(int64_t(got.top_sites[k].allocations) == n);
      ++k;
    }
  }
}

}  // namespace

TEST_CASE("snapshot: the GPT protocol-5 sample against Python's pickle (expected_numbers.py)", "[snapshot][golden]") {
  check_against_expected(kstest::repo_path("tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle"),
                         kstest::repo_path("tests/data/snapshots/gpt_protocol5.snapshot.expected.json"));
}

TEST_CASE("snapshot: the ViT sample of ../shared against Python's pickle (expected_numbers.py)", "[snapshot][golden]") {
  const std::string p = kstest::repo_path("../shared/traces/h100_pt211/vit_timm/vit_timm.snapshot.pickle");
  if (!std::filesystem::exists(p)) return;  // ../shared absent
  check_against_expected(p, kstest::repo_path("tests/data/snapshots/vit_timm.snapshot.expected.json"));
}
