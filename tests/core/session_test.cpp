// core/session: the analysis graph built once per Session, and the one answer shape (typed
// columns, the answer's own strings, metadata) on tests/data/op-tree-linking.json, whose numbers
// op_tree_test.cpp checks by hand (aten::linear: 1 call, host 10/50 us, device 0/30 us).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/session/session.h"
#include "core/session/views.h"
#include "test_util.h"

namespace {

struct Opened {
  ks::Session s;
  explicit Opened(const char* fixture, bool tb_plugin = false) : s(ks::SessionOptions{tb_plugin}) {
    kstest::feed_all(s.reader(), kstest::read_fixture(fixture), 7);
    REQUIRE(s.reader().error().empty());
  }
};

size_t row_of(const ks::Answer& a, const std::string& name) {
  const ks::AnswerColumn& names = *a.column("name");
  for (size_t r = 0; r < a.rows; ++r)
    if (a.strings[names.str[r]] == name) return r;
  FAIL("no row " << name);
  return 0;
}

}  // namespace

TEST_CASE("Session answers the operator table as typed columns with its own strings", "[session]") {
  Opened o("op-tree-linking.json");
  const ks::Answer a = o.s.query("operators", {{"group_by", "op+shape"}});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 6);
  const size_t r = row_of(a, "aten::linear");
  CHECK(a.strings[a.column("input_shape")->str[r]] == "[[8, 16], [4, 16], [4]]");
  CHECK(a.column("calls")->f64[r] == 1);
  CHECK(a.column("host_self_us")->f64[r] == 10);
  CHECK(a.column("host_total_us")->f64[r] == 50);
  CHECK(a.column("device_self_us")->f64[r] == 0);
  CHECK(a.column("device_total_us")->f64[r] == 30);
  CHECK(a.column("tc_eligible")->u8[r] == ks::kTriYes);
  CHECK(a.column("call_stack") == nullptr);  // op+stack's own column
  // Each text once: "[]" is the shape of three rows.
  CHECK(std::set<std::string>(a.strings.begin(), a.strings.end()).size() == a.strings.size());
  CHECK(std::count(a.strings.begin(), a.strings.end(), "[]") == 1);
  // Every column is the schema's, with as many cells as rows.
  for (const ks::AnswerColumn& c : a.columns) {
    CHECK(ks::kOperatorsSchema.column(c.spec->name) == c.spec);
    const size_t cells = c.f64.size() + c.i32.size() + c.str.size() + c.u8.size();
    CHECK(cells == a.rows);
  }
  const std::string json = ks::answer_json(a);
  CHECK(json.rfind("{\"group_by\":\"op+shape\",\"show_gpu\":true,\"rows\":[{\"name\":\"aten::addmm\",", 0) == 0);
  CHECK(json.find("\"name\":\"aten::linear\",\"input_shape\":\"[[8, 16], [4, 16], [4]]\",\"calls\":1,\"host_self_us\":10,"
                  "\"host_total_us\":50,\"device_self_us\":0,\"device_total_us\":30,\"tc_eligible\":true,") != std::string::npos);
  CHECK(json.find("],\"linking\":{\"launches\":") != std::string::npos);
  CHECK(json.back() == '}');
}

TEST_CASE("Session answers the kernel table: dims as three ints, nulls of a grouping's columns", "[session]") {
  Opened o("op-tree-linking.json");
  const ks::Answer props = o.s.query("kernels", {{"group_by", "props"}});
  REQUIRE(props.error.empty());
  const size_t r = row_of(props, "volta_h884gemm_64x64");
  const ks::AnswerColumn& grid = *props.column("grid");
  CHECK((grid.i32[3 * r] == 80 && grid.i32[3 * r + 1] == 1 && grid.i32[3 * r + 2] == 1));
  CHECK(props.column("registers_per_thread")->i32[r] == 64);
  CHECK(props.column("shared_memory")->i32[r] == 8192);
  CHECK(props.strings[props.column("operator")->str[r]] == "aten::addmm");
  CHECK(props.column("tensor_cores")->u8[r] == ks::kTriYes);
  CHECK(props.column("occupancy_pct")->f64[r] == 50);
  CHECK(ks::answer_csv(props).rfind(
            "name,operator,grid,block,registers_per_thread,shared_memory,calls,tensor_cores,op_tc_eligible,tensor_cores_rule,"
            "total_us,mean_us,min_us,max_us,blocks_per_sm,occupancy_pct\n",
            0) == 0);
  CHECK(ks::answer_csv(props).find("volta_h884gemm_64x64,aten::addmm,\"[80, 1, 1]\",\"[128, 1, 1]\",64,8192,1,yes,yes,") !=
        std::string::npos);

  const ks::Answer names = o.s.query("kernels", {});
  const size_t n = row_of(names, "volta_h884gemm_64x64");
  CHECK(names.column("grid")->i32[3 * n] == ks::kNullI32);
  CHECK(names.column("registers_per_thread")->i32[n] == ks::kNullI32);
  CHECK(names.column("operator")->str[n] == ks::kNullString);
  CHECK(names.column("op_tc_eligible")->u8[n] == ks::kTriUnknown);
  CHECK_FALSE(names.column("grid")->present);  // name grouping has no launch properties: not in its CSV
  CHECK(ks::answer_csv(names).rfind("name,calls,tensor_cores,tensor_cores_rule,total_us,", 0) == 0);
  CHECK(ks::answer_json(names).find("\"operator\":null,\"grid\":null,\"block\":null,\"registers_per_thread\":null,") !=
        std::string::npos);
}

TEST_CASE("Session builds each part of its graph once, whatever views ask", "[session]") {
  Opened o("op-tree-linking.json");
  std::map<std::string, int> built;
  o.s.set_progress([&](std::string_view part, int, int) { ++built[std::string(part)]; });
  CHECK(o.s.query("operators", {}).error.empty());
  CHECK(o.s.query("operators", {{"group_by", "op+stack"}}).error.empty());
  CHECK(o.s.query("kernels", {{"step", "1"}}).error.empty());
  CHECK(o.s.query("operators", {{"step", "1"}}).error.empty());
  (void)o.s.breakdown();
  (void)o.s.gpus();
  (void)o.s.memory();
  CHECK(built["operator trees"] == 1);
  CHECK(built["steps"] == 1);
  CHECK(built["step attribution"] == 1);
  CHECK(built["step breakdown"] == 1);
  CHECK(built["GPU metrics"] == 1);
  CHECK(built["memory index"] == 1);
}

TEST_CASE("Session says what it cannot answer, without rows", "[session]") {
  Opened o("op-tree-linking.json");
  const ks::Answer step = o.s.query("operators", {{"step", "9"}});
  CHECK(step.error == "no step 9 (the only step is 1)");
  CHECK(step.rows == 0);
  CHECK(ks::answer_json(step) == "{\"error\":\"no step 9 (the only step is 1)\"}");
  CHECK(o.s.query("kernels", {{"group_by", "grid"}}).error == "unknown group_by: grid");
  CHECK(o.s.query("no-such-view", {}).error == "unknown view: no-such-view");
}

TEST_CASE("Session's tb_plugin mode is chosen once and holds for every view", "[session]") {
  Opened plain("h800-fp8-deepseek-kernels.json");
  Opened tb("h800-fp8-deepseek-kernels.json", true);
  CHECK(tb.s.tb_plugin());
  const ks::Answer a = plain.s.query("kernels", {});
  const ks::Answer b = tb.s.query("kernels", {});
  const size_t ra = row_of(a, "triton_tem_fused_bmm_7"), rb = row_of(b, "triton_tem_fused_bmm_7");
  CHECK(a.column("tensor_cores")->u8[ra] == ks::kTriUnknown);  // the rule table cannot tell
  CHECK(b.column("tensor_cores")->u8[rb] == ks::kTriNo);       // tb_plugin's list: not on it
  CHECK(b.column("tensor_cores_rule")->str[rb] == ks::kNullString);
}

// The Memory view's answers on tests/data/memory-alive-at-peak.json, whose numbers memory_test.cpp
// works out by hand: GPU0 peaks at 3 MiB + 4096 bytes at 320 µs (220 µs from the origin at 100).
TEST_CASE("Session answers the memory devices, with peaks in a window and nulls where none", "[session][memory]") {
  Opened o("memory-alive-at-peak.json");
  const ks::Answer a = o.s.query("memory_devices", {});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 2);
  CHECK(a.strings[a.column("device")->str[1]] == "GPU0");
  CHECK(a.column("peak_allocated_bytes")->f64[1] == 3 * 1048576 + 4096);
  CHECK(a.column("peak_us")->f64[1] == 220);
  CHECK(a.column("records")->f64[1] == 9);
  CHECK(a.column("has_addresses")->u8[1] == 1);
  const std::string json = ks::answer_json(a);
  CHECK(json.starts_with("{\"origin_us\":100,\"default_device\":\"GPU0\",\"devices\":[{\"device\":\"CPU\",\"peak_allocated_bytes\":64,"));
  // A window with no GPU record: no peak (null), no records.
  const ks::Answer early = o.s.query("memory_devices", {{"from_us", "0"}, {"to_us", "1"}});
  REQUIRE(early.rows == 2);
  CHECK(std::isnan(early.column("peak_allocated_bytes")->f64[1]));
  CHECK(early.column("records")->f64[1] == 0);
  CHECK(ks::answer_json(early).find("{\"device\":\"GPU0\",\"peak_allocated_bytes\":null,\"peak_reserved_bytes\":null,\"records\":0,\"peak_us\":null,") !=
        std::string::npos);
}

TEST_CASE("Session answers memory statistics and events per device, signed sizes exact", "[session][memory]") {
  Opened o("memory-alive-at-peak.json");
  const ks::Answer stats = o.s.query("memory_stats", {{"device", "GPU0"}});
  REQUIRE(stats.error.empty());
  REQUIRE(stats.rows == 5);  // aten::add, empty, linear, matmul, relu: by name
  CHECK(stats.strings[stats.column("name")->str[0]] == "aten::add");
  CHECK(stats.column("size_increase_bytes")->f64[0] == 8192 - 1048576);
  const std::string json = ks::answer_json(stats);
  CHECK(json.starts_with("{\"device\":{\"device\":\"GPU0\",\"peak_allocated_bytes\":3149824,"));
  CHECK(json.find("\"size_increase_bytes\":-1040384,") != std::string::npos);  // a negative count, as an integer
  CHECK(json.find("\"device\":\"GPU0\",\"name\"") == std::string::npos);       // the device column is not in --json
  // One device asked: its device column is absent, with no cell to carry.
  CHECK_FALSE(stats.column("device")->present);
  CHECK(stats.column("device")->str.empty());
  // Every device, grouped: the CSV has the device column first.
  const std::string csv = ks::answer_csv(o.s.query("memory_stats", {}));
  CHECK(csv.starts_with("device,name,calls,size_increase_bytes,"));
  CHECK(csv.find("\nCPU,aten::empty,1,64,64,1,1,64,64\n") != std::string::npos);
  CHECK(csv.find("\nGPU0,aten::add,1,-1040384,-1040384,1,1,8192,8192\n") != std::string::npos);

  // Events inside [100, 300] µs from the origin: a side outside it is null (memory_test.cpp).
  const ks::Answer ev = o.s.query("memory_events", {{"device", "GPU0"}, {"from_us", "100"}, {"to_us", "300"}});
  REQUIRE(ev.rows == 3);
  CHECK(ev.strings[ev.column("operator")->str[2]] == "aten::linear (aten::empty)");
  CHECK(std::isnan(ev.column("alloc_us")->f64[2]));
  CHECK(ev.column("release_us")->f64[2] == 250);
  CHECK(ev.strings[ev.column("call_stack")->str[2]].starts_with("model.py(10): forward"));
  CHECK(ev.strings[ev.column("no_stack")->str[2]].empty());
  CHECK(ks::answer_json(ev).find("{\"operator\":\"aten::relu\",\"size_bytes\":2097152,\"alloc_us\":220,\"release_us\":null,\"duration_us\":null}") !=
        std::string::npos);
}

TEST_CASE("Session answers the memory curve as columns, its window's peak in the metadata", "[session][memory]") {
  Opened o("memory-alive-at-peak.json");
  const ks::Answer all = o.s.query("memory_curve", {{"device", "GPU0"}});
  REQUIRE(all.rows == 9);
  CHECK(all.column("allocated_bytes")->f64[4] == 3 * 1048576 + 4096);
  CHECK(all.column("reserved_bytes")->f64[4] == 4 * 1048576);
  const std::string json = ks::answer_json(all);
  CHECK(json.starts_with("{\"device\":\"GPU0\",\"peak_allocated_bytes\":3149824,\"peak_reserved_bytes\":4194304,\"peak_us\":220,\"rows\":["));
  // Drawn over 1 pixel column of a window: the level entering it, the column's points, the level
  // leaving it at the window's end.
  const ks::Answer drawn = o.s.query("memory_curve", {{"device", "GPU0"}, {"from_us", "200"}, {"to_us", "300"}, {"columns", "1"}});
  REQUIRE(drawn.rows >= 2);
  CHECK(drawn.column("t_us")->f64.front() == 200);
  CHECK(drawn.column("t_us")->f64.back() == 300);
  CHECK(ks::answer_json(drawn).find("\"peak_us\":220") != std::string::npos);
}

TEST_CASE("Session answers the allocations alive at a moment, at the peak by default", "[session][memory]") {
  Opened o("memory-alive-at-peak.json");
  const ks::Answer peak = o.s.query("memory_alive", {});
  REQUIRE(peak.error.empty());
  REQUIRE(peak.rows == 3);
  CHECK(peak.strings[peak.column("operator")->str[0]] == "aten::relu");
  CHECK(peak.column("size_bytes")->f64[0] == 2 * 1048576);
  const std::string json = ks::answer_json(o.s.query("memory_alive", {{"device", "GPU0"}, {"at_us", "220"}, {"limit", "2"}}));
  CHECK(json.starts_with("{\"device\":\"GPU0\",\"at_us\":220,\"allocated_bytes\":3149824,\"alive_bytes\":3149824,\"addresses\":true,\"count\":3,\"rows\":["));
  CHECK(json.find("aten::linear (aten::empty)") == std::string::npos);  // the third largest, past the limit
  // aten::empty's 4096 bytes, allocated at 125 µs (25 from the origin): 195 µs old at the peak.
  CHECK(ks::answer_json(o.s.query("memory_alive", {{"at_us", "220"}})).find("\"age_us\":195,") != std::string::npos);
}

TEST_CASE("Session says which memory device or number it cannot answer", "[session][memory]") {
  Opened o("memory-alive-at-peak.json");
  CHECK(o.s.query("memory_stats", {{"device", "GPU3"}}).error == "no device GPU3 (the devices are CPU, GPU0)");
  CHECK(o.s.query("memory_events", {{"from_us", "soon"}}).error == "from_us is not a number: soon");
  CHECK(o.s.query("memory_curve", {{"from_us", "300"}, {"to_us", "200"}}).error == "from_us is after to_us");
  CHECK(o.s.query("memory_curve", {{"columns", "0"}}).error == "columns must be 1 to 1000000");
  Opened none("op-tree-linking.json");
  CHECK(ks::answer_json(none.s.query("memory_devices", {})).ends_with(",\"default_device\":null,\"devices\":[]}"));
  CHECK(none.s.query("memory_alive", {}).error == "This trace has no memory events (record it with profile_memory=True).");
}
