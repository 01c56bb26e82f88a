// FLOPs per operator call (core/analysis/flops.h): each formula on hand-worked shapes (worked out
// in tests/data/README.md, "FLOPs fixtures"), PyTorch's own counts for the 29 single-op cases and
// the GPT step of tests/data/h200_pt211 (flop_counter_golden.json, exactly), the device peak
// table's matches, and the flops view on a hand-made two-step trace.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "core/analysis/device_peaks.h"
#include "core/analysis/flops.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "simdjson.h"
#include "tests/core/test_util.h"

namespace fs = std::filesystem;

namespace {

ks::CountResult count(std::string_view name, std::string_view dims, std::string_view types, std::string_view concrete,
                      ks::OpCount& out) {
  ks::OpArgs a;
  REQUIRE(ks::parse_op_args(dims, types, concrete, a));
  return ks::count_op(name, a, out);
}

}  // namespace

TEST_CASE("flops: op args are read from the trace's JSON texts", "[flops]") {
  ks::OpArgs a;
  REQUIRE(ks::parse_op_args(R"([[2, 8, 32, 32], [16, 4, 3, 3], [], [[1, 2], [3]]])",
                            R"(["float", "float", "ScalarList", "TensorList"])", R"(["", "", "[2, 2]", ""])", a));
  REQUIRE(a.dims.size() == 4);
  CHECK(a.dims[0] == std::vector<int64_t>{2, 8, 32, 32});
  CHECK(a.dims[2].empty());
  CHECK(a.nested[3]);
  CHECK(a.types[1] == "float");
  CHECK(a.concrete[2] == "[2, 2]");
  CHECK(ks::parse_op_args("", "", "", a));  // recorded without shapes: no inputs
  CHECK(a.dims.empty());
  CHECK_FALSE(ks::parse_op_args("[[1, 2]", "[]", "[]", a));  // cut short
  CHECK_FALSE(ks::parse_op_args("[[1, x]]", "[]", "[]", a));
}

TEST_CASE("flops: matmuls, hand-worked", "[flops]") {
  ks::OpCount c;
  // mm [64,128] @ [128,32]: 2·64·128·32; bytes (64·128 + 128·32 + 64·32)·4
  REQUIRE(count("aten::mm", "[[64, 128], [128, 32]]", R"(["float", "float"])", "", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 524288);
  CHECK(c.bytes == 57344);
  CHECK(c.dtype == ks::FlopDtype::kFp32);
  // addmm: the bias is read, not counted: (32 + 8192 + 4096)·4 + 2048·4
  REQUIRE(count("aten::addmm", "[[32], [64, 128], [128, 32], [], []]", R"(["float", "float", "float", "Scalar", "Scalar"])",
                "", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 524288);
  CHECK(c.bytes == 57472);
  // bmm [4,64,128] @ [4,128,32]: 2·4·64·128·32
  REQUIRE(count("aten::bmm", "[[4, 64, 128], [4, 128, 32]]", R"(["c10::BFloat16", "c10::BFloat16"])", "", c) ==
          ks::CountResult::kCounted);
  CHECK(c.flops == 2097152);
  CHECK(c.bytes == (4 * 64 * 128 + 4 * 128 * 32 + 4 * 64 * 32) * 2);
  CHECK(c.dtype == ks::FlopDtype::kBf16);
  REQUIRE(count("aten::baddbmm", "[[4, 64, 32], [4, 64, 128], [4, 128, 32], [], []]",
                R"(["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"])", "", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 2097152);
  CHECK(c.dtype == ks::FlopDtype::kFp16);
  // _scaled_mm FP8 e4m3 [64,128] @ [128,32], out_dtype 15 (bfloat16): the operands at 1 byte, the
  // two 0-dim float scales at 4, the result at 2: 8192 + 4096 + 8 + 2048·2
  REQUIRE(count("aten::_scaled_mm", "[[64, 128], [128, 32], [], [], [], [], [], []]",
                R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "Scalar", "Scalar"])",
                R"(["", "", "", "", "", "", "15", "False"])", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 524288);
  CHECK(c.bytes == 16392);
  CHECK(c.dtype == ks::FlopDtype::kFp8E4m3);
  REQUIRE(count("aten::_scaled_mm", "[[16, 32], [32, 16], [], []]", R"(["c10::Float8_e5m2", "c10::Float8_e4m3fn", "float", "float"])",
                "", c) == ks::CountResult::kCounted);
  CHECK(c.dtype == ks::FlopDtype::kFp8E5m2);
  CHECK(c.bytes == 16 * 32 + 32 * 16 + 8 + 16 * 16);  // no out_dtype: the result in the operands' FP8
  // shapes that do not multiply, an op with no formula
  CHECK(count("aten::mm", "[[64, 128], [64, 32]]", R"(["float", "float"])", "", c) == ks::CountResult::kBadShapes);
  CHECK(count("aten::matmul", "[[64, 128], [128, 32]]", R"(["float", "float"])", "", c) == ks::CountResult::kNotFlopOp);
  CHECK(count("aten::mm", "", "", "", c) == ks::CountResult::kNoShapes);
}

TEST_CASE("flops: convolutions, hand-worked (groups, stride, dilation, transposed, backward)", "[flops]") {
  ks::OpCount c;
  // conv2d x [2,8,32,32], w [16,4,3,3], stride 2, padding 2, dilation 2, groups 2: out 16x16
  // ((32 + 4 - 2·2 - 1) / 2 + 1); 2 · (16·16) · (3·3) · 2 · 16 · 4 = 589,824
  REQUIRE(count("aten::convolution", "[[2, 8, 32, 32], [16, 4, 3, 3], [16], [], [], [], [], [], []]",
                R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
                R"(["", "", "", "[2, 2]", "[2, 2]", "[2, 2]", "False", "[0, 0]", "2"])", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 589824);
  CHECK(c.bytes == (2 * 8 * 32 * 32 + 16 * 4 * 9 + 16 + 2 * 16 * 16 * 16) * 4);
  // conv_transpose2d x [2,8,16,16], w [8,8,3,3], groups 2: over the input's 16x16,
  // 2 · 256 · 9 · 2 · 8 · 8 = 589,824; out [2,16,18,18]
  REQUIRE(count("aten::convolution", "[[2, 8, 16, 16], [8, 8, 3, 3], [], [], [], [], [], [], []]",
                R"(["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
                R"(["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "2"])", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 589824);
  CHECK(c.bytes == (2 * 8 * 256 + 8 * 8 * 9 + 2 * 16 * 18 * 18) * 4);
  // conv1d x [2,8,64], w [16,8,5], stride 2: out (64 - 4 - 1)/2 + 1 = 30; 2·30·5·2·16·8 = 76,800
  REQUIRE(count("aten::_convolution", "[[2, 8, 64], [16, 8, 5], [], [], [], [], [], [], [], [], [], [], []]",
                R"(["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"])",
                R"(["", "", "", "[2]", "[0]", "[1]", "False", "[0]", "1", "False", "False", "True", "True"])", c) ==
          ks::CountResult::kCounted);
  CHECK(c.flops == 76800);
  // backward of the grouped conv above, all three grads: grad_input as a transposed convolution
  // over grad_output's 16x16 (589,824) + grad_weight as a convolution of the input (batch and
  // channels swapped) by grad_output: 2 · (3·3) · (16·16) · 8 · 16 · 2 = 1,179,648
  REQUIRE(count("aten::convolution_backward",
                "[[2, 16, 16, 16], [2, 8, 32, 32], [16, 4, 3, 3], [], [], [], [], [], [], [], []]",
                R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"])",
                R"(["", "", "", "[16]", "[2, 2]", "[2, 2]", "[2, 2]", "False", "[0, 0]", "2", "[True, True, True]"])", c) ==
          ks::CountResult::kCounted);
  CHECK(c.flops == 589824 + 1179648);
  CHECK(c.bytes == (2 * 16 * 256 + 2 * 8 * 1024 + 16 * 4 * 9) * 4 + (2 * 8 * 1024 + 16 * 4 * 9 + 16) * 4);
  // only grad_weight asked for (output_mask [False, True, False])
  REQUIRE(count("aten::convolution_backward",
                "[[2, 16, 16, 16], [2, 8, 32, 32], [16, 4, 3, 3], [], [], [], [], [], [], [], []]",
                R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"])",
                R"(["", "", "", "[16]", "[2, 2]", "[2, 2]", "[2, 2]", "False", "[0, 0]", "2", "[False, True, False]"])", c) ==
          ks::CountResult::kCounted);
  CHECK(c.flops == 1179648);
  // a convolution recorded without Concrete Inputs (before PyTorch 2.1): no stride, no count
  CHECK(count("aten::convolution", "[[2, 8, 32, 32], [16, 4, 3, 3], [16], [], [], [], [], [], []]",
              R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
              "", c) == ks::CountResult::kNoConcrete);
}

TEST_CASE("flops: attention, hand-worked (is_causal as flop_counter: not looked at)", "[flops]") {
  ks::OpCount c;
  // SDPA flash forward, q k v [2,4,128,64], is_causal True: 2·2·4·128·128·64 · 2 = 33,554,432,
  // the same as without the mask (flop_counter counts the full score matrix)
  REQUIRE(count("aten::_scaled_dot_product_flash_attention", "[[2, 4, 128, 64], [2, 4, 128, 64], [2, 4, 128, 64], [], [], [], []]",
                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", ""])",
                R"(["", "", "", "0.", "True", "False", ""])", c) == ks::CountResult::kCounted);
  CHECK(c.flops == 33554432);
  CHECK(c.bytes == (3 * 2 * 4 * 128 * 64 + 2 * 4 * 128 * 64) * 2);
  // backward, q [2,4,64,64], k v [2,4,96,64]: five products, 2·8·64·96·(3·64 + 2·64) = 31,457,280
  REQUIRE(count("aten::_scaled_dot_product_efficient_attention_backward",
                "[[2, 4, 64, 64], [2, 4, 64, 64], [2, 4, 96, 64], [2, 4, 96, 64], [], [2, 4, 64, 64], [2, 4, 64]]",
                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "c10::BFloat16", "float"])", "",
                c) == ks::CountResult::kCounted);
  CHECK(c.flops == 31457280);
  // the kernel under it called directly, [batch, seq, heads, dim]: the same count
  REQUIRE(count("aten::_efficient_attention_backward",
                "[[2, 64, 4, 64], [2, 64, 4, 64], [2, 96, 4, 64], [2, 96, 4, 64], [], [2, 64, 4, 64]]",
                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "c10::BFloat16"])", "", c) ==
          ks::CountResult::kCounted);
  CHECK(c.flops == 31457280);
  // flash-attn's own operator, [batch, seq, heads, dim], d_v ≠ d_qk: 2·1·8·256·256·(128 + 64)
  REQUIRE(count("flash_attn::_flash_attn_forward", "[[1, 256, 8, 128], [1, 256, 8, 128], [1, 256, 8, 64]]",
                R"(["c10::Half", "c10::Half", "c10::Half"])", "", c) == ks::CountResult::kCounted);
  CHECK(c.flops == int64_t(2) * 8 * 256 * 256 * (128 + 64));
  // a varlen (nested) call: 3-D tensors, not counted
  CHECK(count("aten::_flash_attention_forward", "[[300, 8, 64], [300, 8, 64], [300, 8, 64], [3], [3]]",
              R"(["c10::Half", "c10::Half", "c10::Half", "int", "int"])", "", c) == ks::CountResult::kBadShapes);
}

TEST_CASE("flops: each of the 29 cases of flop_cases gives PyTorch's own count, per case and per op", "[flops][golden]") {
  const fs::path dir = kstest::repo_path("tests/data/h200_pt211/flops");
  if (!fs::exists(dir / "flop_cases.pt.trace.json.gz")) {
    WARN("tests/data/h200_pt211/flops is absent");
    return;
  }
  const std::string bytes = kstest::read_path(dir / "flop_cases.pt.trace.json.gz");
  if (bytes.size() > 2 && uint8_t(bytes[0]) == 0x1f) {
    WARN("no zlib here (wasm)");
    return;
  }
  ks::Session s;
  kstest::feed_all(s.reader(), bytes, 4 << 20);
  const ks::TraceModel& m = s.model();
  const ks::OpTree& t = s.tree();
  const ks::FlopsResult r = ks::count_flops(t, m);
  CHECK(r.has_shapes);
  CHECK(r.no_shapes + r.no_concrete + r.bad_shapes == 0);

  simdjson::dom::parser p;
  simdjson::dom::element golden;
  REQUIRE(p.load((dir / "flop_counter_golden.json").string()).get(golden) == simdjson::SUCCESS);
  simdjson::dom::object cases;
  REQUIRE(golden["cases"].get(cases) == simdjson::SUCCESS);
  size_t checked = 0;
  for (auto [case_name, want] : cases) {
    // The case's range; the calls that start inside it (its backward runs on the autograd thread
    // while the range is open).
    int64_t from = -1, to = -1;
    const std::string range = "case:" + std::string(case_name);
    for (size_t i = 0; i < m.user_annotations.size(); ++i) {
      const ks::SliceRow& u = m.user_annotations[i].s;
      if (m.strings.get(u.name) == range) from = u.ts_ns, to = u.ts_ns + m.dur_ns(u);
    }
    INFO(range);
    REQUIRE(from >= 0);
    std::map<std::string, int64_t> got;
    int64_t total = 0;
    for (const ks::FlopCall& c : r.calls) {
      const int64_t at = ks::node_start_ns(t, m, t.nodes[size_t(c.node)]);
      if (at < from || at > to) continue;
      std::string op(m.strings.get(c.name));
      op.replace(0, 6, "aten.");  // "aten::mm" as flop_counter names it, "aten.mm"
      got[op] += c.count.flops;
      total += c.count.flops;
    }
    std::map<std::string, int64_t> expected;
    simdjson::dom::object by_op;
    REQUIRE(want["by_op"].get(by_op) == simdjson::SUCCESS);
    for (auto [op, v] : by_op) expected[std::string(op)] = v.get_int64().value_unsafe();
    CHECK(got == expected);
    CHECK(total == want["total"].get_int64().value_unsafe());
    ++checked;
  }
  CHECK(checked == 29);  // every case of the golden (tests/data/README.md says 28: the SDPA cases are 12, not 11)
}

TEST_CASE("flops: the GPT step (forward + backward) gives PyTorch's own count per op", "[flops][golden]") {
  const fs::path dir = kstest::repo_path("tests/data/h200_pt211");
  const fs::path trace = dir / "gpt_modulelist/gpt_rank0.1795735873838978949.pt.trace.json.gz";
  if (!fs::exists(trace)) {
    WARN("tests/data/h200_pt211/gpt_modulelist is absent");
    return;
  }
  const std::string bytes = kstest::read_path(trace);
  if (bytes.size() > 2 && uint8_t(bytes[0]) == 0x1f) {
    WARN("no zlib here (wasm)");
    return;
  }
  ks::Session s;
  kstest::feed_all(s.reader(), bytes, 4 << 20);
  const ks::TraceModel& m = s.model();
  const ks::OpTree& t = s.tree();
  const ks::FlopsResult r = ks::count_flops(t, m);
  // The step's forward and backward ranges (record_function "forward" / "backward") of each of the
  // two steps: flop_counter counted one forward + backward.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (size_t i = 0; i < m.user_annotations.size(); ++i) {
    const ks::SliceRow& u = m.user_annotations[i].s;
    const std::string_view n = m.strings.get(u.name);
    if (n == "forward" || n == "backward") ranges.emplace_back(u.ts_ns, u.ts_ns + m.dur_ns(u));
  }
  REQUIRE(ranges.size() == 4);  // 2 steps
  std::map<std::string, int64_t> got;
  for (const ks::FlopCall& c : r.calls) {
    const int64_t at = ks::node_start_ns(t, m, t.nodes[size_t(c.node)]);
    bool in = false;
    for (const auto& [a, b] : ranges) in = in || (at >= a && at <= b);
    if (!in) continue;
    std::string op(m.strings.get(c.name));
    op.replace(0, 6, "aten.");
    got[op] += c.count.flops;
  }
  simdjson::dom::parser p;
  simdjson::dom::element golden;
  REQUIRE(p.load((dir / "flops/flop_counter_golden.json").string()).get(golden) == simdjson::SUCCESS);
  simdjson::dom::object by_op;
  REQUIRE(golden["gpt_step_fwd_bwd"]["by_op"].get(by_op) == simdjson::SUCCESS);
  for (auto [op, v] : by_op) {
    INFO(std::string(op));
    CHECK(got[std::string(op)] == 2 * v.get_int64().value_unsafe());  // two steps
  }
}

TEST_CASE("device peaks: deviceProperties pick the row, dense figures only", "[flops]") {
  std::string why;
  auto match = [&](std::string name, int sms, int64_t gib, std::string arch = "") {
    ks::DeviceInfo d;
    d.name = std::move(name);
    d.sms = sms;
    d.memory_bytes = gib << 30;
    d.gcn_arch_name = std::move(arch);
    const ks::DevicePeak* p = ks::match_device_peak(d, why);
    return p ? std::string(p->id) : std::string("none");
  };
  CHECK(match("NVIDIA H100 80GB HBM3", 132, 80) == "h100-sxm");
  CHECK(match("NVIDIA H100 PCIe", 114, 80) == "h100-pcie");
  CHECK(match("NVIDIA H100", 114, 80) == "h100-pcie");  // no form factor in the name: the SMs tell
  CHECK(match("NVIDIA H100 NVL", 132, 94) == "h100-nvl");
  CHECK(match("NVIDIA H200", 132, 140) == "h200-sxm");
  CHECK(match("NVIDIA H20", 78, 96) == "h20");
  CHECK(match("NVIDIA H800", 132, 80) == "h800-sxm");
  CHECK(match("NVIDIA A100-SXM4-40GB", 108, 40) == "a100-sxm-40gb");
  CHECK(match("NVIDIA A100-SXM4-80GB", 108, 80) == "a100-sxm-80gb");
  CHECK(match("NVIDIA A100-PCIE-40GB", 108, 40) == "a100-pcie-40gb");
  CHECK(match("NVIDIA A100 80GB PCIe", 108, 80) == "a100-pcie-80gb");
  CHECK(match("Tesla V100-SXM2-16GB", 80, 16) == "v100-sxm2");
  CHECK(match("Tesla V100-PCIE-32GB", 80, 32) == "v100-pcie");
  CHECK(match("NVIDIA L4", 58, 24) == "l4");
  CHECK(match("NVIDIA L40S", 142, 48) == "l40s");
  CHECK(match("NVIDIA B200", 148, 180) == "b200");
  CHECK(match("NVIDIA GB200", 152, 186) == "gb200");
  CHECK(match("AMD Instinct MI300X", 304, 192, "gfx942:sramecc+:xnack-") == "mi300x");
  CHECK(match("", 304, 256, "gfx942:sramecc+:xnack-") == "mi325x");
  CHECK(match("AMD Instinct MI250X / MI250", 110, 64, "gfx90a:sramecc+:xnack-") == "mi250x-gcd");
  CHECK(match("AMD Instinct MI250X / MI250", 104, 64, "gfx90a:sramecc+:xnack-") == "none");  // an MI250
  CHECK(match("NVIDIA GeForce RTX 4090", 128, 24) == "none");
  CHECK(why.find("no peak known") != std::string::npos);
  // dense, never the 2:4-sparse figure: H100 SXM BF16 989.5 (the datasheet's 1,979 is sparse)
  const ks::DevicePeak* h100 = ks::device_peak("h100-sxm");
  REQUIRE(h100);
  CHECK(ks::peak_tflops(*h100, ks::FlopDtype::kBf16) == 989.5);
  CHECK(ks::peak_tflops(*h100, ks::FlopDtype::kFp8E5m2) == 1979);
  CHECK(std::isnan(ks::peak_tflops(*ks::device_peak("v100-sxm2"), ks::FlopDtype::kBf16)));
  for (const ks::DevicePeak& p : ks::device_peaks()) {
    INFO(std::string(p.id));
    CHECK(!p.source.empty());
    CHECK(p.memory_gbs > 0);
    // a dense table: the 16-bit Tensor Core peak is at most 2x TF32's and FP8's at most 2x 16-bit
    if (std::isfinite(p.tf32)) CHECK(p.bf16 <= 2.02 * p.tf32);  // the datasheets round: L4 121 vs 60
    if (std::isfinite(p.fp8)) CHECK(p.fp8 <= 2.03 * p.bf16);  // L40S 733 vs 362.05
  }
}

namespace {

double num(simdjson::dom::element e);

struct FlopsView {
  ks::Session s;
  simdjson::dom::parser p;
  simdjson::dom::element j;
  ks::Answer a;
  FlopsView(const std::string& text, ks::QueryParams params = {}) {
    kstest::feed_all(s.reader(), text, 7);
    a = s.query("flops", params);
    REQUIRE(a.error.empty());
    REQUIRE(p.parse(ks::answer_json(a)).get(j) == simdjson::SUCCESS);
  }
  double at(std::initializer_list<const char*> path) const {
    simdjson::dom::element e = j;
    for (const char* k : path) REQUIRE(e[k].get(e) == simdjson::SUCCESS);
    return num(e);
  }
  bool is_null(std::initializer_list<const char*> path) const {
    simdjson::dom::element e = j;
    for (const char* k : path) REQUIRE(e[k].get(e) == simdjson::SUCCESS);
    return e.is_null();
  }
  double cell(const char* col, size_t row) const { return a.column(col)->f64[row]; }
  std::string text(const char* col, size_t row) const { return a.strings[a.column(col)->str[row]]; }
};

double num(simdjson::dom::element e) {
  double v = std::nan("");
  if (!e.is_null()) REQUIRE(e.get_double().get(v) == simdjson::SUCCESS);
  return v;
}
double num(simdjson::dom::element e, const char* key) {
  simdjson::dom::element x;
  REQUIRE(e[key].get(x) == simdjson::SUCCESS);
  return num(x);
}
std::string text(simdjson::dom::element e, const char* key) {
  std::string_view v;
  REQUIRE(e[key].get(v) == simdjson::SUCCESS);
  return std::string(v);
}

simdjson::dom::element step_of(const FlopsView& v, size_t i) {
  simdjson::dom::array steps;
  REQUIRE(v.j["steps"].get(steps) == simdjson::SUCCESS);
  REQUIRE(i < steps.size());
  simdjson::dom::element e;
  REQUIRE(steps.at(i).get(e) == simdjson::SUCCESS);
  return e;
}

}  // namespace

// flops-mfu-two-steps.json (tests/data/README.md): an H100 SXM; step 1 one bf16 addmm under
// aten::linear, 1024³ (100 µs of kernel); step 2 an fp32 mm whose CUTLASS kernel is a TF32
// Tensor Core one (512x256 @ 256x128, 50 µs) held twice by FlopCounterMode's PythonDispatchMode,
// a plain fp32 mm (256x256 @ 256x128, 40 µs, an FFMA kernel) and a relu (10 µs, no formula);
// each step 1000 µs.
TEST_CASE("flops view: per step FLOPs, TFLOP/s and MFU against the dtype carrying most FLOPs", "[flops]") {
  FlopsView v(kstest::read_fixture("flops-mfu-two-steps.json"), {{"file", "f.json"}});
  CHECK(v.is_null({"note"}));
  simdjson::dom::element d;
  REQUIRE(v.j["device"].get(d) == simdjson::SUCCESS);
  CHECK(text(d, "peak_row") == "h100-sxm");
  CHECK(num(d["peaks_tflops"].value_unsafe(), "bf16") == 989.5);
  CHECK(num(d, "memory_bandwidth_gbs") == 3350);
  const simdjson::dom::element s1 = step_of(v, 0), s2 = step_of(v, 1);
  CHECK(text(s1, "step") == "1");
  CHECK(num(s1, "duration_us") == 1000);
  CHECK(num(s1, "flops") == 2147483648.0);  // 2·1024³, the addmm alone (linear has no formula)
  CHECK(num(s1, "tflops_per_s") == Approx(2.147483648));
  CHECK(text(s1, "mfu_dtype") == "bf16");
  CHECK(num(s1, "mfu_pct") == Approx(2.147483648 / 989.5 * 100));
  // step 2: 2·512·256·128 (TF32, counted once under PythonDispatchMode) + 2·256·256·128 (FP32)
  CHECK(num(s2, "flops") == 33554432.0 + 16777216.0);
  CHECK(text(s2, "mfu_dtype") == "tf32");
  CHECK(num(s2, "mfu_pct") == Approx(0.050331648 / 494.5 * 100));
  CHECK(v.at({"average", "flops"}) == (2147483648.0 + 50331648.0) / 2);
  CHECK(v.at({"average", "tflops_per_s"}) == Approx(1.098907648));
  CHECK(v.at({"average", "mfu_pct"}) == Approx(1.098907648 / 989.5 * 100));
  // coverage: 100 + 50 + 40 µs of counted calls' kernels of 200 µs of kernels
  CHECK(v.at({"coverage", "counted_device_us"}) == 190);
  CHECK(v.at({"coverage", "kernel_us"}) == 200);
  CHECK(v.at({"coverage", "pct"}) == 95);
  // the operator rows, FLOPs descending
  REQUIRE(v.a.rows == 3);
  CHECK(v.text("name", 0) == "aten::addmm");
  CHECK(v.text("dtype", 0) == "bf16");
  CHECK(v.cell("bytes", 0) == (1024 + 2 * 1024 * 1024) * 2 + 1024 * 1024 * 2);
  CHECK(v.cell("device_us", 0) == 100);
  CHECK(v.cell("tflops_per_s", 0) == Approx(21.47483648));
  CHECK(v.cell("pct_of_peak", 0) == Approx(21.47483648 / 989.5 * 100));
  CHECK(v.cell("intensity", 0) == Approx(2147483648.0 / 6293504));
  CHECK(v.text("name", 1) == "aten::mm");
  CHECK(v.text("dtype", 1) == "tf32");
  CHECK(v.cell("calls", 1) == 1);
  CHECK(v.cell("pct_of_peak", 1) == Approx(0.67108864 / 494.5 * 100));
  CHECK(v.text("dtype", 2) == "fp32");
  CHECK(v.cell("bytes", 2) == (256 * 256 + 256 * 128 + 256 * 128) * 4);
  CHECK(v.cell("pct_of_peak", 2) == Approx(0.4194304 / 67 * 100));
  CHECK(std::string(ks::answer_meta(v.a, "uncounted")) == R"({"no_shapes":0,"no_concrete_inputs":0,"bad_shapes":0})");
}

TEST_CASE("flops view: --step and --peak", "[flops]") {
  FlopsView v(kstest::read_fixture("flops-mfu-two-steps.json"), {{"step", "2"}, {"peak", "a100-sxm-80gb"}});
  simdjson::dom::array steps;
  REQUIRE(v.j["steps"].get(steps) == simdjson::SUCCESS);
  CHECK(steps.size() == 1);
  REQUIRE(v.a.rows == 2);
  CHECK(v.at({"coverage", "kernel_us"}) == 100);
  CHECK(v.at({"coverage", "counted_device_us"}) == 90);
  CHECK(v.at({"average", "mfu_pct"}) == Approx(0.050331648 / 156 * 100));  // the A100's TF32
  CHECK(text(v.j["device"].value_unsafe(), "peak_row") == "a100-sxm-80gb");
  ks::Session s;
  kstest::feed_all(s.reader(), kstest::read_fixture("flops-mfu-two-steps.json"), 1 << 20);
  CHECK(s.query("flops", {{"peak", "h300"}}).error.rfind("no peak row h300 (the rows are v100-sxm2, ", 0) == 0);
  CHECK(s.query("flops", {{"step", "9"}}).error == "no step 9 (the steps are 1, 2)");
}

TEST_CASE("flops view: a trace recorded without shapes gives null, never zeros", "[flops]") {
  FlopsView v(kstest::read_fixture("flops-no-record-shapes.json"));
  CHECK(v.a.rows == 0);
  CHECK(ks::answer_meta_string(v.a, "note").rfind("recorded without record_shapes=True", 0) == 0);
  CHECK(v.is_null({"coverage"}));
  CHECK(v.is_null({"average", "flops"}));
  CHECK(v.is_null({"average", "mfu_pct"}));
  const simdjson::dom::element s1 = step_of(v, 0);
  CHECK(std::isnan(num(s1, "flops")));
  CHECK(std::isnan(num(s1, "tflops_per_s")));
  CHECK(num(s1, "duration_us") == 1000);
}

TEST_CASE("flops view: an unknown device shows FLOPs and TFLOP/s, no MFU, and says why", "[flops]") {
  std::string text = kstest::read_fixture("flops-mfu-two-steps.json");
  const size_t at = text.find("NVIDIA H100 80GB HBM3");
  REQUIRE(at != std::string::npos);
  text.replace(at, 21, "NVIDIA GeForce RTX 4090");
  FlopsView v(text);
  CHECK(v.is_null({"device", "peak_row"}));
  CHECK(v.at({"average", "tflops_per_s"}) == Approx(1.098907648));
  CHECK(v.is_null({"average", "mfu_pct"}));
  CHECK(std::isnan(v.cell("pct_of_peak", 0)));
  CHECK(v.cell("tflops_per_s", 0) == Approx(21.47483648));
  const std::string note = ks::answer_meta_string(v.a, "note");
  CHECK(note.find("no peak known for name \"NVIDIA GeForce RTX 4090\"") == 0);
  CHECK(note.find("MFU is not (choose a row with --peak)") != std::string::npos);
}

TEST_CASE("flops: Concrete Inputs are kept only for the ops whose formula reads them", "[flops]") {
  // Every op of the FLOP cases has Concrete Inputs; the model keeps those of the convolutions and
  // _scaled_mm alone (TraceModel::cpu_op_concrete), not 8 bytes and a text for every op row.
  const fs::path trace = kstest::repo_path("tests/data/h200_pt211/flops/flop_cases.pt.trace.json.gz");
  if (!fs::exists(trace)) {
    WARN("tests/data/h200_pt211/flops is absent");
    return;
  }
  const std::string bytes = kstest::read_path(trace);
  if (bytes.size() > 2 && uint8_t(bytes[0]) == 0x1f) {
    WARN("no zlib here (wasm)");
    return;
  }
  ks::TraceReader r;
  kstest::feed_all(r, bytes, 1 << 20);
  const ks::TraceModel& m = r.model();
  size_t keeping = 0;
  for (size_t i = 0; i < m.cpu_ops.size(); ++i) {
    const bool keeps = ks::op_keeps_concrete_inputs(m.strings.get(m.cpu_ops[i].s.name));
    keeping += keeps;
    CHECK((m.concrete_inputs(i) != 0) == keeps);
  }
  CHECK(keeping == m.cpu_op_concrete.size());
  CHECK(keeping > 0);
  CHECK(keeping * 20 < m.cpu_ops.size());
  // the grouped convolution's, as written
  bool seen = false;
  for (size_t i = 0; i < m.cpu_ops.size() && !seen; ++i)
    seen = m.strings.get(m.concrete_inputs(i)) == R"(["", "", "", "[2, 2]", "[2, 2]", "[2, 2]", "False", "[0, 0]", "2"])";
  CHECK(seen);
}
