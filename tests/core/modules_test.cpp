// The Module view on hand-made traces (tests/data/README.md has the arithmetic): the hierarchy
// and its numbers, Lightning's modules, and the backward passes regrouped under modules (§5.4).
// tb_plugin's own numbers are checked in tests/golden/modules_test.mjs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>

#include "core/analysis/modules.h"
#include "core/session/session.h"
#include "core/trace/trace_reader.h"
#include "test_util.h"

namespace {

using Loaded = kstest::LoadedFixture;

constexpr int64_t us = 1000;

const ks::ModuleRow& row(const ks::ModuleTable& t, const std::string& path) {
  for (const ks::ModuleRow& r : t.rows)
    if (r.path == path) return r;
  FAIL("no row " << path);
  return t.rows.front();
}

const ks::ViewNode* node(const ks::ThreadTree& t, const std::string& name, int64_t start_us) {
  for (const ks::ViewNode& n : t.nodes)
    if (n.name == name && n.start_ns - 1700000000000000 * us == start_us * us) return &n;
  return nullptr;
}

// A real trace (gzip natively); null where it is absent (../shared) or gzip under wasm (no zlib).
std::unique_ptr<ks::TraceReader> load_real(const std::string& rel) {
  namespace fs = std::filesystem;
  const fs::path dir = kstest::repo_path(rel);
  if (!fs::exists(dir)) return nullptr;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.path().string().ends_with(".pt.trace.json.gz")) continue;
    const std::string text = kstest::read_path(e.path());
    if (text.size() > 1 && uint8_t(text[0]) == 0x1f) return nullptr;
    auto r = std::make_unique<ks::TraceReader>();
    kstest::feed_all(*r, text, 1 << 20);
    if (!r->error().empty()) return nullptr;
    return r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("modules-modulelist-parent-ids: the hierarchy from time, not from Python parent ids", "[modules]") {
  // Step 1's first block points its forward frame, and the second block itself, at the training
  // step: the parent-id walk made two GPT_0 roots (one with every backward pass, one with none),
  // a childless Block_0 and Linear_0/Linear_1 at the top level (16 rows for 8 modules).
  Loaded l("modules-modulelist-parent-ids.json");
  const ks::ModuleView v = ks::module_view(l.m());
  REQUIRE(v.has_modules);
  const auto& t = v.modules;
  REQUIRE(t.rows.size() == 8);
  const char* paths[] = {"GPT_0", "GPT_0/Block_0", "GPT_0/Block_0/Linear_0", "GPT_0/Block_0/Linear_1",
                         "GPT_0/Block_1", "GPT_0/Block_1/Linear_2", "GPT_0/Block_1/Linear_3", "GPT_0/LayerNorm_0"};
  for (size_t i = 0; i < 8; ++i) CHECK(t.rows[i].path == paths[i]);
  // GPT_0 [10,500) in each step: 490 - Block_0 180 - Block_1 190 - LayerNorm_0 2x30 = 60 self.
  const auto& gpt = row(t, "GPT_0");
  CHECK(gpt.occurrences == 2);
  CHECK(gpt.host_total_ns == 980 * us);
  CHECK(gpt.host_self_ns == 120 * us);
  CHECK(gpt.device_total_ns == 220 * us);  // (40+30+20+10+6+4) x 2 steps
  // Both steps' backward passes (autograd thread, [600,660) and [700,760) per step: a span of 160)
  // go to the one GPT_0 row; 25 us of kernel each.
  CHECK(gpt.backward_host_ns == 320 * us);
  CHECK(gpt.backward_device_ns == 100 * us);
  CHECK(row(t, "GPT_0/Block_0/Linear_0").backward_device_ns == 50 * us);
  CHECK(row(t, "GPT_0/Block_1/Linear_2").backward_device_ns == 50 * us);
  CHECK(row(t, "GPT_0/Block_0").occurrences == 2);
  CHECK(row(t, "GPT_0/Block_0").device_total_ns == 140 * us);
  // Called twice per step: one row, four calls.
  const auto& ln = row(t, "GPT_0/LayerNorm_0");
  CHECK(ln.occurrences == 4);
  CHECK(ln.host_total_ns == 120 * us);
  CHECK(ln.device_total_ns == 20 * us);
  // --tb-plugin keeps tb_plugin's walk of the parent ids, duplicates and all.
  const ks::ModuleView tb = ks::module_view(l.m(), {true});
  CHECK(tb.modules.rows.size() == 18);
  size_t gpt_roots = 0;
  for (const ks::ModuleRow& r : tb.modules.rows) gpt_roots += r.path == "GPT_0";
  CHECK(gpt_roots == 2);
}

TEST_CASE("diff-baseline: a module whose parent id is 0 inside another module's frame nests by time", "[modules]") {
  Loaded l("diff-baseline.json");
  const ks::ModuleView v = ks::module_view(l.m());
  REQUIRE(v.modules.rows.size() == 2);
  CHECK(v.modules.rows[0].path == "Net");
  CHECK(v.modules.rows[1].path == "Net/Conv2d");
}

TEST_CASE("real ModuleList GPT (H200, PyTorch 2.11): 45 rows, ln_f called twice per step is one row", "[modules]") {
  const auto r = load_real("tests/data/h200_pt211/gpt_modulelist");
  if (!r) return;  // gzip under wasm
  const ks::ModuleView v = ks::module_view(r->model());
  const auto& t = v.modules;
  REQUIRE(t.rows.size() == 45);
  CHECK(t.rows[0].path == "GPT_0");
  CHECK(t.rows[0].occurrences == 2);
  CHECK(t.rows[0].host_total_ns == 9326873);
  CHECK(t.rows[0].backward_device_ns == 1256166);
  size_t top = 0, blocks = 0;
  for (const ks::ModuleRow& x : t.rows) {
    top += x.depth == 0;
    blocks += x.depth == 1 && x.name.starts_with("Block_");
  }
  CHECK(top == 1);
  CHECK(blocks == 4);
  CHECK(t.rows[3].path == "GPT_0/Block_0");
  CHECK(t.rows[4].path == "GPT_0/Block_0/LayerNorm_0");
  CHECK(row(t, "GPT_0/Block_0").host_total_ns == 2366536);
  const auto& ln_f = row(t, "GPT_0/LayerNorm_8");
  CHECK(ln_f.occurrences == 4);
  CHECK(ln_f.device_total_ns == 14529);
}

TEST_CASE("real timm ViT (H100, PyTorch 2.11, ../shared): 264 rows under one root, as before", "[modules]") {
  const auto r = load_real("../shared/traces/h100_pt211/vit_timm");
  if (!r) return;  // ../shared absent, or gzip under wasm
  const ks::ModuleView v = ks::module_view(r->model());
  const auto& t = v.modules;
  REQUIRE(t.rows.size() == 264);
  size_t top = 0;
  for (const ks::ModuleRow& x : t.rows) top += x.depth == 0;
  CHECK(top == 1);
  CHECK(t.rows[0].path == "VisionTransformer_0");
  CHECK(t.rows[0].host_total_ns == 46126181);
  CHECK(t.rows[0].backward_device_ns == 29236516);
  CHECK(t.rows[1].path == "VisionTransformer_0/PatchEmbed_0");
  CHECK(t.rows[100].path == "VisionTransformer_0/Sequential_0/Block_4/Attention_4/Dropout_13");
  CHECK(t.rows[263].path == "VisionTransformer_0/Linear_48");
  CHECK(t.rows[263].device_total_ns == 31168);
}

TEST_CASE("modules-fwdbwd: hierarchy, numbers per module, summed over its calls", "[modules]") {
  Loaded l("modules-fwdbwd.json");
  const ks::ModuleView v = ks::module_view(l.m());
  REQUIRE(v.has_modules);
  CHECK_FALSE(v.has_lightning);
  CHECK(v.error.empty());
  const auto& t = v.modules;
  REQUIRE(t.rows.size() == 5);
  // Pre-order; the Linear that Block calls twice is one row (tb_plugin: two identical rows).
  CHECK(t.rows[0].path == "Net");
  CHECK(t.rows[1].path == "Net/Block");
  CHECK(t.rows[2].path == "Net/Block/Linear");
  CHECK(t.rows[3].path == "Net/ReLU");
  CHECK(t.rows[4].path == "Net/Linear");
  CHECK(t.rows[2].parent == 1);
  CHECK(t.rows[2].depth == 2);
  CHECK(t.rows[2].module_id == 12);
  CHECK(t.rows[4].module_id == 15);
  CHECK(t.rows[2].key != t.rows[4].key);

  // Net [10,110) per step: 100 - Block 50 - ReLU 10 - Linear 30 = self 10; device 10+10+4+20 = 44,
  // none of it directly under Net (no operator child). Two steps.
  const auto& net = row(t, "Net");
  CHECK(net.occurrences == 2);
  CHECK(net.operators == 0);
  CHECK(net.host_total_ns == 200 * us);
  CHECK(net.host_self_ns == 20 * us);
  CHECK(net.device_total_ns == 88 * us);
  CHECK(net.device_self_ns == 0);
  // Block [12,62): 50 - 2 x Linear 20 = 10.
  const auto& block = row(t, "Net/Block");
  CHECK(block.occurrences == 2);
  CHECK(block.host_total_ns == 100 * us);
  CHECK(block.host_self_ns == 20 * us);
  CHECK(block.device_total_ns == 40 * us);
  CHECK(block.device_self_ns == 0);
  // Linear id 12, called twice per step: 20 - aten::linear 18 = 2 each; its aten::linear launched
  // (through aten::addmm) a 10 us kernel, which is device self of the module (direct operator child).
  const auto& lin12 = row(t, "Net/Block/Linear");
  CHECK(lin12.occurrences == 4);
  CHECK(lin12.operators == 4);
  CHECK(lin12.host_total_ns == 80 * us);
  CHECK(lin12.host_self_ns == 8 * us);
  CHECK(lin12.device_total_ns == 40 * us);
  CHECK(lin12.device_self_ns == 40 * us);
  const auto& relu = row(t, "Net/ReLU");
  CHECK(relu.occurrences == 2);
  CHECK(relu.operators == 2);
  CHECK(relu.host_total_ns == 20 * us);
  CHECK(relu.host_self_ns == 4 * us);
  CHECK(relu.device_total_ns == 8 * us);
  CHECK(relu.device_self_ns == 8 * us);
  const auto& lin15 = row(t, "Net/Linear");
  CHECK(lin15.occurrences == 2);
  CHECK(lin15.host_total_ns == 60 * us);
  CHECK(lin15.host_self_ns == 4 * us);
  CHECK(lin15.device_total_ns == 40 * us);
  CHECK(lin15.device_self_ns == 40 * us);
}

TEST_CASE("modules-fwdbwd: backward passes regrouped under <module>.backward (§5.4)", "[modules]") {
  Loaded l("modules-fwdbwd.json");
  const ks::ModuleView v = ks::module_view(l.m());
  CHECK(v.backward_flows == 8);
  // Per step: Linear15's AddmmBackward0 + the AccumulateGrad after it, ReLU's, the second
  // Linear12 call's, the first call's + its AccumulateGrad = 6.
  CHECK(v.backward_regrouped == 12);
  // The autograd thread lost all its ranges to the main thread: only the main thread is left.
  REQUIRE(v.threads.size() == 1);
  const ks::ThreadTree& main = v.threads[0];
  CHECK(main.tid == "100");
  CHECK(main.main);

  // Net.backward [150,248): Linear15.backward [150,186) + ReLU.backward [190,200) + Block.backward
  // [202,248); self 98 - 36 - 10 - 46 = 6; device 16 + 3 + 8 + 8 = 35. Under ProfilerStep#1.
  const ks::ViewNode* nb = node(main, "nn.Module: Net.backward", 150);
  REQUIRE(nb);
  CHECK(nb->kind == ks::ViewNodeKind::kBackward);
  CHECK(nb->end_ns - nb->start_ns == 98 * us);
  CHECK(nb->host_self_ns == 6 * us);
  CHECK(nb->device_total_ns == 35 * us);
  CHECK(main.nodes[size_t(nb->parent)].name == "ProfilerStep#1");
  CHECK(nb->row == 0);
  const ks::ViewNode* l15 = node(main, "nn.Module: Linear.backward", 150);
  REQUIRE(l15);
  CHECK(l15->end_ns - l15->start_ns == 36 * us);  // up to the AccumulateGrad that joined its group
  CHECK(l15->host_self_ns == 2 * us);
  CHECK(l15->device_total_ns == 16 * us);
  CHECK(l15->row == 4);
  // Block.backward [202,248): the second call's pass [202,222) then the first call's [224,248).
  const ks::ViewNode* bb = node(main, "nn.Module: Block.backward", 202);
  REQUIRE(bb);
  CHECK(bb->end_ns - bb->start_ns == 46 * us);
  CHECK(bb->host_self_ns == 2 * us);
  CHECK(bb->device_total_ns == 16 * us);
  const ks::ViewNode* first = node(main, "nn.Module: Linear.backward", 224);
  REQUIRE(first);
  CHECK(first->end_ns - first->start_ns == 24 * us);
  CHECK(first->row == 2);
  CHECK(main.nodes[size_t(first->parent)].name == "nn.Module: Block.backward");

  // The table's backward columns: Net 2 x 98 us host, 2 x 35 us device; Linear12 2 x (20 + 24).
  CHECK(row(v.modules, "Net").backward_host_ns == 196 * us);
  CHECK(row(v.modules, "Net").backward_device_ns == 70 * us);
  CHECK(row(v.modules, "Net/Block/Linear").backward_host_ns == 88 * us);
  CHECK(row(v.modules, "Net/Block/Linear").backward_device_ns == 32 * us);
  CHECK(row(v.modules, "Net/ReLU").backward_device_ns == 6 * us);
}

TEST_CASE("modules-fwdbwd in tb_plugin mode: Block's two Linear calls are two rows", "[modules]") {
  Loaded l("modules-fwdbwd.json");
  const ks::ModuleView v = ks::module_view(l.m(), {true});
  REQUIRE(v.modules.rows.size() == 6);
  CHECK(v.modules.rows[2].path == "Net/Block/Linear");
  CHECK(v.modules.rows[3].path == "Net/Block/Linear");
  CHECK(v.modules.rows[2].key != v.modules.rows[3].key);
  // Both show the module's sums (aggregated by name and id, not by place).
  CHECK(v.modules.rows[3].occurrences == 4);
  CHECK(v.modules.rows[3].host_total_ns == 80 * us);
}

TEST_CASE("lightning-modules: [pl][module] ranges, hierarchy from dotted names", "[modules]") {
  Loaded l("lightning-modules.json");
  const ks::ModuleView v = ks::module_view(l.m());
  CHECK_FALSE(v.has_modules);
  REQUIRE(v.has_lightning);
  const auto& t = v.lightning;
  REQUIRE(t.rows.size() == 4);
  CHECK(t.rows[0].name == "torch.nn.modules.container.Sequential: layer");
  CHECK(t.rows[1].name == "torch.nn.modules.linear.Linear: layer.0");
  CHECK(t.rows[2].name == "torch.nn.modules.activation.ReLU: layer.1");
  CHECK(t.rows[3].name == "torch.nn.modules.linear.Linear: layer.2");
  CHECK(t.rows[1].parent == 0);
  // layer [5,65) x 2: 60 - 20 - 8 - 20 = 12 self; device 6 + 5 = 11, none directly under it.
  CHECK(t.rows[0].occurrences == 2);
  CHECK(t.rows[0].operators == 0);
  CHECK(t.rows[0].host_total_ns == 120 * us);
  CHECK(t.rows[0].host_self_ns == 24 * us);
  CHECK(t.rows[0].device_total_ns == 22 * us);
  CHECK(t.rows[0].device_self_ns == 0);
  // layer.0 [10,30): aten::linear [11,29) under it, a 6 us kernel.
  CHECK(t.rows[1].operators == 2);
  CHECK(t.rows[1].host_total_ns == 40 * us);
  CHECK(t.rows[1].host_self_ns == 4 * us);
  CHECK(t.rows[1].device_total_ns == 12 * us);
  CHECK(t.rows[1].device_self_ns == 12 * us);
  CHECK(t.rows[2].host_total_ns == 16 * us);
  CHECK(t.rows[2].device_total_ns == 0);
  CHECK(t.rows[3].device_self_ns == 10 * us);
  // The flame graph's thread holds the Lightning ranges.
  REQUIRE(v.threads.size() == 1);
  CHECK(v.threads[0].modules == 8);
  // tb_plugin reads [pl] ranges from cpu_op events of a "pytorch-lightning" trace only.
  const ks::ModuleView tb = ks::module_view(l.m(), {true});
  CHECK_FALSE(tb.has_lightning);
}

TEST_CASE("module presence is cheap and says what the view will have", "[modules]") {
  Loaded a("modules-fwdbwd.json");
  CHECK(ks::module_presence(a.m()).modules);
  CHECK_FALSE(ks::module_presence(a.m()).lightning);
  Loaded b("lightning-modules.json");
  CHECK(ks::module_presence(b.m()).lightning);
  CHECK_FALSE(ks::module_presence(b.m()).modules);
  Loaded c("op-tree-linking.json");
  const ks::ModuleView v = ks::module_view(c.m());
  CHECK_FALSE(ks::module_presence(c.m()).modules);
  CHECK_FALSE(v.has_modules);
  CHECK(v.modules.rows.empty());
  CHECK(v.threads.empty());
  // Asking for a thread that has no modules answers a sentence, not a crash.
  ks::Session session;
  kstest::feed_all(session.reader(), kstest::read_fixture("op-tree-linking.json"), 1 << 20);
  CHECK(session.query("module_tree", {{"tid", "7"}}).error == "no thread 7 with modules in this trace");
  CHECK(session.query("module_tree", {}).rows == 0);
  CHECK(ks::answer_meta(session.query("module_presence", {}), "modules") == "false");
}

TEST_CASE("tb-unit-module-hierarchy: tb_plugin's TestModuleView.test_build_module_hierarchy", "[modules]") {
  // tb_plugin's golden: Conv2 (id 100) 1 x 211 us; MyModule (id 0) 3 calls, 633 us, self 447;
  // under it Linear (id 1) 3 calls, 3 operators, 186 us, self 90 (62 - 31, 62 - 32, 62 - 33).
  Loaded l("tb-unit-module-hierarchy.json");
  for (bool tb : {false, true}) {
    const ks::ModuleView v = ks::module_view(l.m(), {tb});
    REQUIRE(v.modules.rows.size() == 3);
    const auto& r = v.modules.rows;
    CHECK(r[0].name == "Conv2");
    CHECK(r[0].module_id == 100);
    CHECK(r[0].host_total_ns == 211 * us);
    CHECK(r[0].host_self_ns == 211 * us);
    CHECK(r[1].name == "MyModule");
    CHECK(r[1].occurrences == 3);
    CHECK(r[1].operators == 0);
    CHECK(r[1].host_total_ns == 633 * us);
    CHECK(r[1].host_self_ns == 447 * us);
    CHECK(r[2].path == "MyModule/Linear");
    CHECK(r[2].occurrences == 3);
    CHECK(r[2].operators == 3);
    CHECK(r[2].host_total_ns == 186 * us);
    CHECK(r[2].host_self_ns == 90 * us);
    CHECK(r[2].device_total_ns == 0);
  }
}

TEST_CASE("bad input: modules nested 20,000 deep, a parent-id cycle, a module frame overrunning its parent", "[modules]") {
  // Each module frame one µs inside the last, each a child of the last by Python id; a flow
  // from the innermost operator to a backward pass; then two frames naming each other as parent.
  std::string t = "{\"traceEvents\": [";
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    t += "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: M" + std::to_string(i) + "\",\"pid\":1,\"tid\":1,\"ts\":" +
         std::to_string(i) + ",\"dur\":" + std::to_string(2 * (n - i) + 10) + ",\"args\":{\"Python id\":" + std::to_string(i + 1) +
         ",\"Python parent id\":" + std::to_string(i) + ",\"Python module id\":" + std::to_string(i) + "}},";
  }
  t += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(n) + ",\"dur\":2},";
  t += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"autograd::engine::evaluate_function: MmBackward0\",\"pid\":1,\"tid\":2,\"ts\":" +
       std::to_string(3 * n) + ",\"dur\":4},";
  t += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"MmBackward0\",\"pid\":1,\"tid\":2,\"ts\":" + std::to_string(3 * n + 1) + ",\"dur\":2},";
  t += "{\"ph\":\"s\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(n) + "},";
  t += "{\"ph\":\"f\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":" + std::to_string(3 * n + 1) + ",\"bp\":\"e\"},";
  t += "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: A\",\"pid\":1,\"tid\":3,\"ts\":5,\"dur\":10,\"args\":{\"Python id\":900001,\"Python parent id\":900002,\"Python module id\":7}},";
  t += "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: B\",\"pid\":1,\"tid\":3,\"ts\":6,\"dur\":20,\"args\":{\"Python id\":900002,\"Python parent id\":900001,\"Python module id\":8}}";
  t += "]}";
  ks::TraceReader r;
  kstest::feed_all(r, t, 1 << 20);
  REQUIRE(r.error().empty());
  for (bool tb : {false, true}) {
    const ks::ModuleView v = ks::module_view(r.model(), {tb});
    CHECK(v.has_modules);
    // The hierarchy is cut at a depth no stack minds; the table stays usable.
    CHECK(v.modules.rows.size() <= 300);
    bool m0_at_top = false;
    for (const ks::ModuleRow& x : v.modules.rows) m0_at_top |= x.name == "M0" && x.depth == 0;
    CHECK(m0_at_top);
    CHECK(v.backward_flows == 1);
    CHECK(v.backward_regrouped == 1);
    // B overruns A on thread 3: tb_plugin drops it from the tree; its hierarchy row (if any) says so.
    ks::Session session(ks::SessionOptions{tb});
    kstest::feed_all(session.reader(), t, 1 << 20);
    CHECK(session.query("modules", {}).rows == v.modules.rows.size());
    CHECK(session.query("module_tree", {}).error.empty());
  }
}

// What became of each fwdbwd flow, so the page can say what was and was not charged and why: on
// the hand-made trace all 8 charge a module; on the real GPT (tests/data/h200_pt211), 8 of 326
// start at an operator outside every module (the loss and the optimizer); with no module frame
// directly under a thread or step (Lightning's frames run inside its [pl] ranges), none is charged
// and the view says why.
TEST_CASE("fwdbwd flows: charged, outside every module, or to no backward pass", "[modules]") {
  {
    Loaded l("modules-fwdbwd.json");
    const ks::ModuleView v = ks::module_view(l.m());
    CHECK(v.flows_charged == 8);
    CHECK(v.flows_outside_modules + v.flows_shared_pass + v.flows_no_pass == 0);
    CHECK(v.backward_none_why.empty());
  }
  auto load = [](const std::string& rel, ks::TraceReader& r) {
    const std::string bytes = kstest::read_path(kstest::repo_path("tests/data/" + rel));
    if (bytes.size() > 2 && uint8_t(bytes[0]) == 0x1f) return false;  // under wasm, not gunzipped
    kstest::feed_all(r, bytes, 1 << 20);
    return true;
  };
  ks::TraceReader gpt;
  if (!load("h200_pt211/gpt_modulelist/gpt_rank0.1795735873838978949.pt.trace.json.gz", gpt)) return;
  const ks::ModuleView v = ks::module_view(gpt.model());
  CHECK(v.backward_flows == 326);
  CHECK(v.flows_charged == 318);
  CHECK(v.flows_outside_modules == 8);
  CHECK(v.flows_charged + v.flows_outside_modules + v.flows_shared_pass + v.flows_no_pass == v.backward_flows);
  ks::TraceReader lightning;
  REQUIRE(load("h200_pt211/lightning26/lightning_rank0.1795735937305235890.pt.trace.json.gz", lightning));
  const ks::ModuleView lv = ks::module_view(lightning.model());
  CHECK(lv.backward_flows == 17);
  CHECK(lv.backward_regrouped == 0);
  CHECK(lv.flows_no_pass == 17);
  CHECK(lv.backward_none_why.find("no module frame directly under a thread or a step") == 0);
}
