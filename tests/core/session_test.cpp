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
#include "session_fixture.h"
#include "test_util.h"

namespace {

using Opened = kstest::OpenedSession;

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
            "total_us,mean_us,min_us,max_us,blocks_per_sm,occupancy_pct,flops,flop_dtype,tflops_per_s,pct_of_peak,intensity\n",
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

TEST_CASE("An answer survives its binary form; bytes that are not one are refused with a reason", "[session]") {
  Opened o("op-tree-linking.json");
  for (const char* view : {"operators", "kernels", "ranges"}) {
    const ks::Answer a = o.s.query(view, {{"group_by", std::string(view) == "kernels" ? "props" : "op+shape"}});
    REQUIRE(a.error.empty());
    const std::string bytes = ks::answer_bytes(a);
    ks::Answer back;
    std::string error;
    REQUIRE(ks::answer_from_bytes(bytes, *a.schema, back, error));
    CHECK(back.schema == a.schema);
    CHECK(back.rows == a.rows);
    CHECK(back.strings == a.strings);
    CHECK(back.meta == a.meta);
    CHECK(ks::answer_json(back) == ks::answer_json(a));
    CHECK(ks::answer_csv(back) == ks::answer_csv(a));
    CHECK(ks::answer_bytes(back) == bytes);
  }
  {
    // A pairs column (each GPU's utilization timeline) keeps its rows' ends and its pairs.
    Opened g("diff-baseline.json");
    const ks::Answer m = g.s.query("gpu_metrics", {});
    REQUIRE(m.error.empty());
    const ks::AnswerColumn* pairs = nullptr;
    for (const ks::AnswerColumn& c : m.columns)
      if (c.spec->type == ks::ColumnType::kF64Pairs) pairs = &c;
    REQUIRE(pairs);
    REQUIRE(!pairs->f64.empty());
    ks::Answer back;
    std::string error;
    REQUIRE(ks::answer_from_bytes(ks::answer_bytes(m), *m.schema, back, error));
    CHECK(back.column(pairs->spec->name)->ends == pairs->ends);
    CHECK(back.column(pairs->spec->name)->f64 == pairs->f64);
    CHECK(ks::answer_json(back) == ks::answer_json(m));
  }
  const ks::Answer a = o.s.query("kernels", {{"group_by", "props"}});
  const std::string bytes = ks::answer_bytes(a);
  ks::Answer back;
  std::string error;
  // Absent columns stay absent (the CSV leaves them out); nulls stay null.
  REQUIRE(ks::answer_from_bytes(bytes, ks::kKernelsSchema, back, error));
  for (size_t i = 0; i < a.columns.size(); ++i) CHECK(back.columns[i].present == a.columns[i].present);
  // Another view's answer, cut short at every length, a byte more, a string index past the strings.
  CHECK_FALSE(ks::answer_from_bytes(bytes, ks::kOperatorsSchema, back, error));
  CHECK(error == "expected the operators view's answer, got kernels's");
  for (size_t n = 0; n < bytes.size(); ++n) {
    if (ks::answer_from_bytes(bytes.substr(0, n), ks::kKernelsSchema, back, error)) FAIL("read " << n << " bytes as an answer");
    CHECK(back.rows == 0);
  }
  CHECK_FALSE(ks::answer_from_bytes(bytes + "x", ks::kKernelsSchema, back, error));
  CHECK(error == "a kernels answer with bytes after its end");
  ks::Answer bad = a;
  for (ks::AnswerColumn& c : bad.columns)
    if (c.spec->type == ks::ColumnType::kString && a.rows) c.str[0] = uint32_t(a.strings.size());
  CHECK_FALSE(ks::answer_from_bytes(ks::answer_bytes(bad), ks::kKernelsSchema, back, error));
  CHECK(error == "a kernels answer whose column name names a string it lacks");
  CHECK_FALSE(ks::answer_from_bytes("KSA0", ks::kKernelsSchema, back, error));
  CHECK(error == "not a Kinetoscope answer");
}

TEST_CASE("Session says what it cannot answer, without rows", "[session]") {
  Opened o("op-tree-linking.json");
  const ks::Answer step = o.s.query("operators", {{"step", "9"}});
  CHECK(step.error == "no step 9 (the only step is 1)");
  CHECK(step.rows == 0);
  CHECK(ks::answer_json(step) == "{\"error\":\"no step 9 (the only step is 1)\"}");
  CHECK(o.s.query("kernels", {{"group_by", "grid"}}).error == "unknown group_by: grid");
  CHECK(o.s.query("no-such-view", {}).error == "unknown view: no-such-view");
  // The Distributed view's reduce is a run's, not one trace's.
  for (const char* view : {"distributed", "distributed_commops", "distributed_stragglers", "distributed_collectives"})
    CHECK(o.s.query(view, {}).error ==
          "the Distributed view is a run's: it reduces the rank summaries (distributed_rank) of the run's traces");
  // Its map is: a trace without collectives has a summary without rows.
  const ks::Answer rank = o.s.query("distributed_rank", {{"worker", "w"}});
  CHECK(rank.error.empty());
  CHECK(rank.rows == 0);
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

// A row's detail: operator_kernels and operator_detail of aten::addmm in op-tree-linking.json (its
// calls launched the 20 us volta_h884gemm_64x64 and the 10 us elementwise_kernel themselves; the
// trace records no stacks), printed as the one object `operators --detail --json` always printed.
TEST_CASE("Session answers an operator row's detail as two answers the CLI prints as one object", "[session]") {
  Opened o("op-tree-linking.json");
  const ks::QueryParams p{{"name", "aten::addmm"}};
  const ks::Answer k = o.s.query("operator_kernels", p);
  const ks::Answer d = o.s.query("operator_detail", p);
  REQUIRE(k.error.empty());
  REQUIRE(d.error.empty());
  REQUIRE(k.rows == 2);
  CHECK(k.strings[k.column("name")->str[0]] == "volta_h884gemm_64x64");
  CHECK(k.column("total_us")->f64[0] == 20);
  CHECK(k.column("tensor_cores")->u8[0] == ks::kTriYes);
  CHECK(k.column("tensor_cores")->u8[1] == ks::kTriNo);
  CHECK(d.rows == 0);
  CHECK(ks::answer_meta(d, "stack_source") == "\"none\"");
  CHECK(ks::answer_json(d, {&k}) ==
        "{\"kernels\":[{\"name\":\"volta_h884gemm_64x64\",\"calls\":1,\"total_us\":20,\"tensor_cores\":true},"
        "{\"name\":\"elementwise_kernel\",\"calls\":1,\"total_us\":10,\"tensor_cores\":false}],\"stacks\":[],"
        "\"stack_source\":\"none\",\"no_stack\":[{\"reason\":\"not_recorded\",\"text\":\"No call stack recorded (profile "
        "with with_stack=True).\",\"calls\":1}]}");
  CHECK(o.s.query("operator_detail", {{"name", "aten::addmm"}, {"step", "nine"}}).error.rfind("no step nine", 0) == 0);
  CHECK(o.s.query("operator_kernels", {{"group_by", "shape"}}).error == "unknown group_by: shape");
}

// The kernel detail's three answers read one computation: the row's numbers in kernel_detail's
// metadata, the launching operators and the launch properties (grid [80, 1, 1], block [128, 1, 1],
// 64 registers, 8 KiB shared memory) as columns of their own.
TEST_CASE("Session answers a kernel row's detail as three answers of one computation", "[session]") {
  Opened o("op-tree-linking.json");
  const ks::QueryParams p{{"group_by", "props"}, {"name", "volta_h884gemm_64x64"}, {"operator", "aten::addmm"},
                          {"grid", "80,1,1"}, {"block", "128,1,1"}, {"registers", "64"}, {"shared_memory", "8192"}};
  const ks::Answer d = o.s.query("kernel_detail", p);
  const ks::Answer ops = o.s.query("kernel_operators", p);
  const ks::Answer l = o.s.query("kernel_launches", p);
  REQUIRE(d.error.empty());
  CHECK(ks::answer_meta_number(d, "calls") == 1);
  CHECK(ks::answer_meta_number(d, "total_us") == 20);
  CHECK(ks::answer_meta(d, "operator") == "\"aten::addmm\"");
  REQUIRE(ops.rows == 1);
  CHECK(ops.strings[ops.column("name")->str[0]] == "aten::addmm");
  REQUIRE(l.rows == 1);
  const std::vector<int32_t>& grid = l.column("grid")->i32;
  CHECK(std::vector<int32_t>(grid.begin(), grid.begin() + 3) == std::vector<int32_t>{80, 1, 1});
  CHECK(l.column("registers_per_thread")->i32[0] == 64);
  CHECK(l.column("shared_memory")->i32[0] == 8192);
  CHECK(l.column("occupancy_pct")->f64[0] == 50);
  CHECK(ks::answer_json(d, {&ops, &l}).find(",\"operators\":[{\"name\":\"aten::addmm\",\"calls\":1,\"total_us\":20}],\"launches\":"
                                            "[{\"grid\":[80,1,1],\"block\":[128,1,1],") != std::string::npos);
  // Another launch shape is another row: none of this kernel's launches is in it.
  const ks::Answer other = o.s.query("kernel_launches", {{"group_by", "props"}, {"name", "volta_h884gemm_64x64"},
                                                         {"operator", "aten::addmm"}, {"grid", "1,1,1"}});
  CHECK(other.rows == 0);
  CHECK(o.s.query("kernel_detail", {{"group_by", "props"}, {"grid", "80,1"}}).error == "grid takes X,Y,Z");
}

TEST_CASE("Session::shared keeps the last computation of each family for the next view that asks", "[session]") {
  Opened o("op-tree-linking.json");
  int built = 0;
  auto build = [&] { return ++built; };
  CHECK(o.s.shared<int>("f", "a", build) == 1);
  CHECK(o.s.shared<int>("f", "a", build) == 1);
  CHECK(built == 1);
  CHECK(o.s.shared<int>("f", "b", build) == 2);
  CHECK(o.s.shared<int>("f", "a", build) == 3);  // only the family's last one is kept
  // Another family has its own: asking it keeps the first family's.
  CHECK(o.s.shared<int>("g", "a", build) == 4);
  CHECK(o.s.shared<int>("f", "a", build) == 3);
  CHECK(o.s.shared<int>("g", "a", build) == 4);
  // A computation that asks other families while it is built (the GPU queue asks the launch
  // statistics) gets its own value back, however many families it adds.
  const int& outer = o.s.shared<int>("outer", "x", [&] {
    int sum = 0;
    for (int i = 0; i < 20; ++i) sum += o.s.shared<int>("inner" + std::to_string(i), "x", [i] { return i; });
    return sum;
  });
  CHECK(outer == 190);
  CHECK(o.s.shared<int>("inner7", "x", build) == 7);
  CHECK(built == 4);
}

// The Module view's tables on tb_plugin's TestModuleView trace: Conv2 (id 100) 1 call, 211 us;
// MyModule (id 0) 3 calls, 633 us, self 447; under it Linear (id 1) 3 calls, 3 operators, 186 us,
// self 90. The tree is a table with its parent column; --json keeps the rows a flat list.
TEST_CASE("Session answers the module tables as a tree with its parent column, --json flat", "[session]") {
  Opened o("tb-unit-module-hierarchy.json");
  const ks::Answer a = o.s.query("modules", {});
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 3);
  CHECK(ks::kModulesSchema.tree_parent == "parent");
  CHECK(a.strings[a.column("name")->str[2]] == "Linear");
  CHECK(a.column("parent")->i32 == std::vector<int32_t>{-1, -1, 1});
  CHECK(a.column("depth")->i32 == std::vector<int32_t>{0, 0, 1});
  CHECK(a.column("id")->f64 == std::vector<double>{100, 0, 1});
  CHECK(a.column("host_total_us")->f64 == std::vector<double>{211, 633, 186});
  CHECK(a.column("host_self_us")->f64 == std::vector<double>{211, 447, 90});
  CHECK(a.column("operators")->f64[2] == 3);
  CHECK(ks::answer_meta(a, "has_lightning") == "false");
  const std::string rows = ks::answer_rows_json(a);
  CHECK(rows.find("\"children\"") == std::string::npos);
  CHECK(rows.find("{\"name\":\"Linear\",\"path\":\"MyModule/Linear\",\"key\":\"MyModule#0/Linear#1\",\"id\":1,\"depth\":1,"
                  "\"parent\":1,\"occurrences\":3,\"operators\":3,\"host_total_us\":186,\"host_self_us\":90,") != std::string::npos);
  CHECK(ks::answer_csv(a).rfind("table,name,path,id,depth,occurrences,operators,", 0) == 0);
  CHECK(ks::answer_csv(a).find("\nmodules,Linear,MyModule/Linear,1,1,3,3,186,90,") != std::string::npos);
  CHECK(o.s.query("modules", {{"table", "lightning"}}).rows == 0);
  CHECK(o.s.query("modules", {{"table", "other"}}).error == "unknown table: other (modules or lightning)");
  const ks::Answer presence = o.s.query("module_presence", {});
  CHECK(presence.rows == 0);
  CHECK(ks::answer_meta(presence, "modules") == "true");
  CHECK(ks::answer_meta(presence, "lightning") == "false");
  const ks::Answer tree = o.s.query("module_tree", {});
  REQUIRE(tree.error.empty());
  CHECK(tree.rows > 0);
  const std::vector<int32_t>& parent = tree.column("parent")->i32;
  for (size_t r = 0; r < tree.rows; ++r) CHECK(parent[r] < int32_t(r));  // pre-order
}

// The kernels of a Ranges row (user-ranges-nested.json: "outer" launched the 50 us nvjet GEMM
// twice and a 10 us add, in its calls and the ranges inside them).
TEST_CASE("Session answers a Ranges row's kernels", "[session]") {
  Opened o("user-ranges-nested.json");
  const ks::Answer k = o.s.query("range_kernels", {{"key", "outer"}});
  REQUIRE(k.error.empty());
  REQUIRE(k.rows == 2);
  CHECK(k.column("calls")->f64 == std::vector<double>{2, 1});
  CHECK(k.column("total_us")->f64 == std::vector<double>{50, 10});
  CHECK(k.column("tensor_cores")->u8 == std::vector<uint8_t>{ks::kTriYes, ks::kTriNo});
  CHECK(ks::answer_json(k).rfind("{\"range\":\"outer\",\"kernels\":[{\"name\":\"nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT\",\"calls\":2,", 0) == 0);
  CHECK(o.s.query("range_kernels", {{"key", "nowhere"}}).error == "no range nowhere");
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

// The Diff view: two answers of the baseline's Session asked with the experiment's, on the
// hand-made pair (tests/data/diff-baseline.json, diff-experiment.json; the arithmetic in
// tests/data/README.md and tests/core/diff_test.cpp): the tree's nodes in pre-order with both
// sides' numbers, each node side's operators, and --json nesting them as the CLI prints it.
TEST_CASE("Session answers the Diff view of two Sessions as the tree's nodes and their operators", "[session][diff]") {
  Opened base("diff-baseline.json"), exp("diff-experiment.json");
  const ks::QueryParams names = {{"baseline", "diff-baseline.json"}, {"experiment", "diff-experiment.json"}};
  const ks::Answer tree = base.s.query("diff", names, exp.s);
  REQUIRE(tree.error.empty());
  REQUIRE(tree.rows == 7);
  auto strings = [&](const ks::Answer& a, const char* column) {
    std::vector<std::string> out;
    for (uint32_t id : a.column(column)->str) out.push_back(id == ks::kNullString ? "null" : a.strings[id]);
    return out;
  };
  CHECK(strings(tree, "path") == std::vector<std::string>{"0", "0-0", "0-1", "0-1-0", "0-1-1", "0-2", "0-3"});
  CHECK(tree.column("parent")->i32 == std::vector<int32_t>{-1, 0, 0, 2, 2, 0, 0});
  CHECK(tree.column("depth")->i32 == std::vector<int32_t>{0, 1, 1, 2, 2, 1, 1});
  CHECK(strings(tree, "role") == std::vector<std::string>(7, "null"));  // one thread a side: no level of roles
  CHECK(strings(tree, "name")[4] == "aten::relu");
  CHECK(strings(tree, "experiment_name")[4] == "aten::mul");
  CHECK(strings(tree, "experiment_name")[6] == "Blank");
  CHECK(tree.column("baseline_duration_us")->f64 == std::vector<double>{180, 10, 50, 40, 10, 30, 90});
  CHECK(tree.column("experiment_duration_us")->f64 == std::vector<double>{110, 20, 50, 40, 10, 40, 0});
  CHECK(tree.column("baseline_device_duration_us")->f64 == std::vector<double>{58, 0, 30, 30, 0, 0, 28});
  CHECK(tree.column("experiment_total_duration_us")->f64 == std::vector<double>{80, 20, 20, 20, 10, 40, 0});
  CHECK(tree.column("baseline_nodes")->f64 == std::vector<double>{6, 1, 1, 1, 1, 1, 3});
  CHECK(tree.column("experiment_nodes")->f64[6] == 0);
  CHECK(ks::answer_meta_string(tree, "baseline") == "diff-baseline.json");

  const ks::Answer ops = base.s.query("diff_operators", names, exp.s);
  REQUIRE(ops.error.empty());
  // Node 0-1-1 (row 4): aten::relu on the baseline's side, aten::mul on the experiment's.
  std::vector<std::string> at4;
  for (size_t r = 0; r < ops.rows; ++r)
    if (ops.column("node")->i32[r] == 4)
      at4.push_back(ops.strings[ops.column("side")->str[r]] + " " + ops.strings[ops.column("name")->str[r]] + " " +
                    std::to_string(int(ops.column("calls")->f64[r])) + " " + std::to_string(int(ops.column("host_duration_us")->f64[r])));
  CHECK(at4 == std::vector<std::string>{"baseline aten::relu 1 10", "experiment aten::mul 1 10"});
  // The root's baseline side: four operators in collection order, aten::convolution first.
  CHECK(ops.column("node")->i32[0] == 0);
  CHECK(ops.strings[ops.column("name")->str[0]] == "aten::convolution");
  CHECK(ops.column("calls")->f64[0] == 2);
  CHECK(ops.column("self_host_duration_us")->f64[0] == 59);
  CHECK(ops.column("self_device_duration_us")->f64[0] == 58);
  // The blank side (0-3's experiment, row 6) has no operators; rows go by node, the baseline's first.
  for (size_t r = 0; r < ops.rows; ++r) {
    CHECK_FALSE((ops.column("node")->i32[r] == 6 && ops.strings[ops.column("side")->str[r]] == "experiment"));
    if (r > 0) CHECK(ops.column("node")->i32[r] >= ops.column("node")->i32[r - 1]);
  }
  // --json nests both answers back into the one object the CLI has always printed.
  std::string golden = kstest::read_path(kstest::repo_path("tests/golden/cli/diff/diff-baseline--diff-experiment.json"));
  while (!golden.empty() && golden.back() == '\n') golden.pop_back();
  CHECK(ks::diff_json(tree, ops) == golden);
}

TEST_CASE("Session's Diff answers are of the experiment asked with, whichever was asked before", "[session][diff]") {
  Opened base("diff-baseline.json"), exp("diff-experiment.json"), self("diff-baseline.json");
  auto root_experiment_us = [&](const ks::Session& other) {
    const ks::Answer a = base.s.query("diff", {}, other);
    REQUIRE(a.error.empty());
    return a.column("experiment_duration_us")->f64[0];
  };
  auto operator_rows = [&](const ks::Session& other) { return base.s.query("diff_operators", {}, other).rows; };
  // The second answer of a pair is the kept computation's: it must be the pair's, not the last one's.
  CHECK(root_experiment_us(exp.s) == 110);
  const size_t with_exp = operator_rows(exp.s);
  CHECK(root_experiment_us(self.s) == 180);
  const size_t with_self = operator_rows(self.s);
  CHECK(with_self != with_exp);
  CHECK(operator_rows(exp.s) == with_exp);
  CHECK(root_experiment_us(exp.s) == 110);
}

TEST_CASE("Session says when the Diff view cannot compare, and which views take another Session", "[session][diff]") {
  Opened base("diff-baseline.json"), exp("diff-experiment.json"), tb("diff-experiment.json", true);
  Opened empty("members-after-trace-events.json");
  const ks::QueryParams names = {{"baseline", "a.json"}, {"experiment", "b.json"}};
  // A trace without host operators: the sentence, both names, no rows; --json as it always was.
  const ks::Answer none = base.s.query("diff", names, empty.s);
  CHECK(none.error == "the experiment has no host operators to compare");
  CHECK(none.rows == 0);
  CHECK(ks::diff_json(none, base.s.query("diff_operators", names, empty.s)) ==
        "{\"baseline\":\"a.json\",\"experiment\":\"b.json\",\"error\":\"the experiment has no host operators to compare\",\"tree\":null}");
  // Two Sessions of different modes are not compared.
  CHECK(base.s.query("diff", names, tb.s).error.find("different modes") != std::string::npos);
  // A view of two traces asked of one, and a view of one asked with two.
  CHECK(base.s.query("diff", names).error == "the diff view compares two traces: ask it with the other trace's Session");
  CHECK(base.s.query("operators", {}, exp.s).error == "the operators view is of one trace: ask it without another Session");
  CHECK(base.s.query("no-such-view", {}, exp.s).error == "unknown view: no-such-view");
}
