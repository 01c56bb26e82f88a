// core/session: the analysis graph built once per Session, and the one answer shape (typed
// columns, the answer's own strings, metadata) on tests/data/op-tree-linking.json, whose numbers
// op_tree_test.cpp checks by hand (aten::linear: 1 call, host 10/50 us, device 0/30 us).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

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

// diff-baseline.json by hand: ProfilerStep#1 [0, 100) µs runs a 30 µs kernel, #2 [100, 200) a 28
// µs one (gpu_metrics_test.cpp); its steps' runtime is 5 and 4 µs, the dataloader's 10 and 12.
TEST_CASE("Session answers the steps as rows, their average and roles as metadata", "[session]") {
  Opened o("diff-baseline.json");
  const ks::Answer a = o.s.query("steps", {{"file", "b.json"}});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 2);
  CHECK(a.strings[a.column("name")->str[0]] == "1");
  CHECK(a.strings[a.column("name")->str[1]] == "2");
  CHECK(a.column("total_us")->f64 == std::vector<double>{100, 100});
  CHECK(a.column("kernel_us")->f64 == std::vector<double>{30, 28});
  CHECK(a.column("runtime_us")->f64 == std::vector<double>{5, 4});
  CHECK(a.column("dataloader_us")->f64 == std::vector<double>{10, 12});
  CHECK(a.column("end_us")->f64[0] - a.column("start_us")->f64[0] == Approx(100));
  const std::string json = ks::answer_json(a);
  CHECK(json.rfind("{\"file\":\"b.json\",\"steps\":[{\"name\":\"1\",", 0) == 0);
  CHECK(json.find("],\"average\":{\"total_us\":100,\"kernel_us\":29,") != std::string::npos);
  CHECK(json.find(",\"roles\":{\"kernel\":{\"merged\":2,\"sum_us\":58},") != std::string::npos);
  // The Overview has the same rows, and its metadata after them.
  const ks::Answer ov = o.s.query("overview", {});
  REQUIRE(ov.rows == 2);
  CHECK(ov.column("kernel_us")->f64 == a.column("kernel_us")->f64);
  const std::string ovj = ks::answer_json(ov);
  CHECK(ovj.find("\"accelerator\":\"nvidia\",\"gpus\":[{\"device\":0,") != std::string::npos);
  CHECK(ovj.find(",\"recommendations\":[") != std::string::npos);
}

TEST_CASE("Session answers GPU metrics with each GPU's timeline as one pairs column", "[session]") {
  Opened o("diff-baseline.json");
  const ks::Answer a = o.s.query("gpu_metrics", {});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 1);
  CHECK(a.column("utilization_pct")->f64[0] == Approx(29));  // 58 of 200 µs
  CHECK(std::isnan(a.column("sm_efficiency_pct")->f64[0]));  // no kernel recorded blocks per SM
  const ks::AnswerColumn& t = *a.column("timeline");
  // 200 µs in 10 µs buckets, then the closing (end, 0).
  REQUIRE(t.ends == std::vector<uint32_t>{21});
  REQUIRE(t.f64.size() == 42);
  CHECK(t.f64[2 * 3 + 1] == 1);  // [30, 40) µs: the first kernel runs
  CHECK(t.f64[2 * 20] == Approx(a.column("timeline")->f64[0] + 200));
  CHECK(t.f64[2 * 20 + 1] == 0);
  const std::string json = ks::answer_json(a);
  CHECK(json.find("\"sm_efficiency_pct\":null,\"achieved_occupancy_pct\":null,\"blocks_per_sm_count\":0,\"occupancy_count\":0,"
                  "\"timeline\":[[") != std::string::npos);
  CHECK(json.find(",1],[") != std::string::npos);
}

TEST_CASE("Session answers the summary: the trace's health as rows, what it is as metadata", "[session]") {
  ks::Session s;
  kstest::feed_all(s.reader(), kstest::read_fixture("truncated-mid-event.json"), 7);
  const ks::Answer a = s.query("summary", {{"file", "t.json"}});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 1);
  CHECK(a.strings[a.column("reason")->str[0]] == "truncated");
  CHECK(a.strings[a.column("severity")->str[0]] == "error");
  CHECK(a.column("count")->f64[0] == 1);
  const std::string json = ks::answer_json(a);
  CHECK(json.rfind("{\"file\":\"t.json\",\"ok\":true,\"error\":\"\",\"format\":\"object\",", 0) == 0);
  CHECK(json.find(",\"truncated\":true,\"health\":[{\"reason\":\"truncated\",\"severity\":\"error\",\"count\":1,") != std::string::npos);
}
