// The FLOPs the page shows beside the flops view (issue 25): the Operators and Kernels tables'
// FLOPs columns, the roofline view and its verdicts, and the peak table view, on the hand-made
// two-step trace (tests/data/README.md "FLOPs fixtures": every number below worked out there) and
// on the golden flop_cases trace of tests/data/h200_pt211, where the operators' columns must add
// up to the flops view's own count.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "core/analysis/roofline.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "tests/core/test_util.h"

namespace {

struct Loaded {
  ks::Session s;
  explicit Loaded(const std::string& text, ks::SessionOptions o = {}) : s(o) { kstest::feed_all(s.reader(), text, 1 << 20); }
  ks::Answer q(std::string_view view, const ks::QueryParams& p = {}) const {
    ks::Answer a = s.query(view, p);
    REQUIRE(a.error.empty());
    return a;
  }
};

// Row `name` (and input shape / kernel name prefix) of an answer, or -1.
long row_of(const ks::Answer& a, const std::string& name, const char* col = "name") {
  const ks::AnswerColumn* c = a.column(col);
  REQUIRE(c);
  for (size_t r = 0; r < a.rows; ++r)
    if (c->str[r] != ks::kNullString && a.strings[c->str[r]].rfind(name, 0) == 0) return long(r);
  return -1;
}
double f64(const ks::Answer& a, const char* col, long r) {
  REQUIRE(r >= 0);
  REQUIRE(a.column(col));
  return a.column(col)->f64[size_t(r)];
}
std::string str(const ks::Answer& a, const char* col, long r) {
  REQUIRE(r >= 0);
  const uint32_t i = a.column(col)->str[size_t(r)];
  return i == ks::kNullString ? "(null)" : a.strings[i];
}

constexpr double kAddmm = 2147483648.0, kMmTf32 = 33554432.0, kMmFp32 = 16777216.0;
constexpr double kAddmmBytes = 6293504, kMmTf32Bytes = 917504, kMmFp32Bytes = 524288;

}  // namespace

TEST_CASE("operators answer: FLOPs columns of the counted calls, empty for the rest (hand-worked)", "[roofline]") {
  Loaded t(kstest::read_fixture("flops-mfu-two-steps.json"));
  const ks::Answer a = t.q("operators");
  // aten::addmm: one bf16 call, 100 µs on the H100 SXM (989.5 dense BF16)
  const long addmm = row_of(a, "aten::addmm");
  CHECK(f64(a, "flops", addmm) == kAddmm);
  CHECK(str(a, "flop_dtype", addmm) == "bf16");
  CHECK(f64(a, "tflops_per_s", addmm) == Approx(21.47483648));
  CHECK(f64(a, "pct_of_peak", addmm) == Approx(21.47483648 / 989.5 * 100));
  CHECK(f64(a, "intensity", addmm) == Approx(kAddmm / kAddmmBytes));
  // aten::mm: three calls, two counted (the TF32 one under PythonDispatchMode once, the FP32 one):
  // 90 µs; % of peak is each dtype's FLOPs at its peak over the time (494.5 TF32, 67 FP32)
  const long mm = row_of(a, "aten::mm");
  CHECK(f64(a, "calls", mm) == 3);
  CHECK(f64(a, "flops", mm) == kMmTf32 + kMmFp32);
  CHECK(str(a, "flop_dtype", mm) == "tf32+fp32");
  CHECK(f64(a, "tflops_per_s", mm) == Approx((kMmTf32 + kMmFp32) / 90e-6 / 1e12));
  CHECK(f64(a, "pct_of_peak", mm) == Approx((kMmTf32 / 494.5e12 + kMmFp32 / 67e12) / 90e-6 * 100));
  CHECK(f64(a, "intensity", mm) == Approx((kMmTf32 + kMmFp32) / (kMmTf32Bytes + kMmFp32Bytes)));
  // not counted: linear (its addmm has them), relu (no formula), PythonDispatchMode: null, not 0
  for (const char* n : {"aten::linear", "aten::relu", "PythonDispatchMode"}) {
    const long r = row_of(a, n);
    CHECK(std::isnan(f64(a, "flops", r)));
    CHECK(str(a, "flop_dtype", r) == "(null)");
    CHECK(std::isnan(f64(a, "tflops_per_s", r)));
    CHECK(std::isnan(f64(a, "pct_of_peak", r)));
    CHECK(std::isnan(f64(a, "intensity", r)));
  }
  const std::string json = ks::answer_json(a);
  CHECK(json.find("\"name\":\"aten::relu\"") != std::string::npos);
  CHECK(json.find("\"flops\":null,\"flop_dtype\":null,\"tflops_per_s\":null,\"pct_of_peak\":null,\"intensity\":null") != std::string::npos);
  CHECK(ks::answer_csv(a).substr(0, ks::answer_csv(a).find('\n')).find(",flops,flop_dtype,tflops_per_s,pct_of_peak,intensity") != std::string::npos);

  // By input shape: each mm shape its own row with its own dtype.
  const ks::Answer s = t.q("operators", {{"group_by", "op+shape"}});
  const long tf = row_of(s, "aten::mm");
  REQUIRE(tf >= 0);
  for (size_t r = 0; r < s.rows; ++r) {
    if (s.strings[s.column("name")->str[r]] != "aten::mm") continue;
    const std::string shape = s.strings[s.column("input_shape")->str[r]];
    if (shape == "[[512, 256], [256, 128]]") {  // the outer call and the one under PythonDispatchMode
      CHECK(s.column("calls")->f64[r] == 2);
      CHECK(s.column("flops")->f64[r] == kMmTf32);
      CHECK(s.strings[s.column("flop_dtype")->str[r]] == "tf32");
      CHECK(s.column("pct_of_peak")->f64[r] == Approx(kMmTf32 / 50e-6 / 1e12 / 494.5 * 100));
    } else {
      CHECK(shape == "[[256, 256], [256, 128]]");
      CHECK(s.column("flops")->f64[r] == kMmFp32);
      CHECK(s.strings[s.column("flop_dtype")->str[r]] == "fp32");
      CHECK(s.column("pct_of_peak")->f64[r] == Approx(kMmFp32 / 40e-6 / 1e12 / 67 * 100));
    }
  }
  // By call stack (none recorded: one row per name), the same totals as by name.
  const ks::Answer k = t.q("operators", {{"group_by", "op+stack"}});
  CHECK(f64(k, "flops", row_of(k, "aten::mm")) == kMmTf32 + kMmFp32);

  // The step filter: step 2 has the two mm calls only; step 1 the addmm only.
  const ks::Answer s2 = t.q("operators", {{"step", "2"}});
  CHECK(f64(s2, "flops", row_of(s2, "aten::mm")) == kMmTf32 + kMmFp32);
  CHECK(row_of(s2, "aten::addmm") == -1);
  const ks::Answer s1 = t.q("operators", {{"step", "1"}});
  CHECK(f64(s1, "flops", row_of(s1, "aten::addmm")) == kAddmm);

  // Another peak row: the A100's BF16 is 312.
  const ks::Answer p = t.q("operators", {{"peak", "a100-sxm-80gb"}});
  CHECK(f64(p, "pct_of_peak", row_of(p, "aten::addmm")) == Approx(21.47483648 / 312 * 100));
  CHECK(t.s.query("operators", {{"peak", "h300"}}).error.rfind("no peak row h300", 0) == 0);
}

TEST_CASE("operators and kernels answers: no FLOPs columns without counted calls, nor with --tb-plugin", "[roofline]") {
  Loaded none(kstest::read_fixture("flops-no-record-shapes.json"));
  for (const char* view : {"operators", "kernels"}) {
    const ks::Answer a = none.q(view);
    CHECK_FALSE(a.column("flops"));
    CHECK(ks::answer_json(a).find("\"flops\"") == std::string::npos);
  }
  Loaded tb(kstest::read_fixture("flops-mfu-two-steps.json"), {true});
  CHECK_FALSE(tb.q("operators").column("flops"));
  CHECK_FALSE(tb.q("kernels").column("flops"));
}

TEST_CASE("kernels answer: a kernel has the FLOPs of the counted call it alone ran (hand-worked)", "[roofline]") {
  Loaded t(kstest::read_fixture("flops-mfu-two-steps.json"));
  const ks::Answer a = t.q("kernels");
  const long nvjet = row_of(a, "nvjet_sm90");
  CHECK(f64(a, "flops", nvjet) == kAddmm);
  CHECK(str(a, "flop_dtype", nvjet) == "bf16");
  CHECK(f64(a, "tflops_per_s", nvjet) == Approx(21.47483648));
  CHECK(f64(a, "intensity", nvjet) == Approx(kAddmm / kAddmmBytes));
  const long cutlass = row_of(a, "void cutlass::Kernel2<cutlass_80_tensorop");
  CHECK(f64(a, "flops", cutlass) == kMmTf32);
  CHECK(str(a, "flop_dtype", cutlass) == "tf32");
  CHECK(f64(a, "pct_of_peak", cutlass) == Approx(0.67108864 / 494.5 * 100));
  const long ffma = row_of(a, "sm80_xmma_gemm_f32f32");
  CHECK(f64(a, "flops", ffma) == kMmFp32);
  CHECK(f64(a, "pct_of_peak", ffma) == Approx(0.4194304 / 67 * 100));
  CHECK(std::isnan(f64(a, "flops", row_of(a, "void at::native::vectorized_elementwise"))));  // the relu's
  // props grouping: the launching operator is in the row's key
  const ks::Answer p = t.q("kernels", {{"group_by", "props"}});
  CHECK(f64(p, "flops", row_of(p, "nvjet_sm90")) == kAddmm);
  const ks::Answer s2 = t.q("kernels", {{"step", "2"}});
  CHECK(row_of(s2, "nvjet_sm90") == -1);
  CHECK(f64(s2, "flops", row_of(s2, "sm80_xmma_gemm_f32f32")) == kMmFp32);
}

TEST_CASE("roof_check: the lower roof at the intensity, and the verdict", "[roofline]") {
  // H100 SXM BF16 989.5 TFLOP/s, 3350 GB/s: ridge at 295.4 FLOP/byte
  CHECK(ks::ridge_intensity(989.5, 3350) == Approx(295.373));
  ks::RoofCheck r = ks::roof_check(600, 1000, 989.5, 3350);
  CHECK_FALSE(r.memory_side);
  CHECK(r.roof_tflops == 989.5);
  CHECK(r.verdict == ks::RoofVerdict::kComputeBound);
  r = ks::roof_check(20, 10, 989.5, 3350);  // bandwidth roof 33.5 TFLOP/s at 10 FLOP/byte
  CHECK(r.memory_side);
  CHECK(r.roof_tflops == Approx(33.5));
  CHECK(r.pct_of_roof == Approx(20 / 33.5 * 100));
  CHECK(r.verdict == ks::RoofVerdict::kMemoryBound);
  CHECK(ks::roof_check(5, 10, 989.5, 3350).verdict == ks::RoofVerdict::kFarFromBoth);
  CHECK(ks::roof_check(5, 10, std::nan(""), 3350).verdict == ks::RoofVerdict::kNone);  // no peak for the dtype
  CHECK(ks::roof_verdict_word(ks::RoofVerdict::kFarFromBoth) == "far from both");
}

TEST_CASE("roofline view: each counted group under its roof, with its verdict (hand-worked)", "[roofline]") {
  Loaded t(kstest::read_fixture("flops-mfu-two-steps.json"));
  const ks::Answer a = t.q("roofline");
  REQUIRE(a.rows == 3);
  // device time descending: the addmm (100 µs), the TF32 mm (50), the FP32 mm (40)
  CHECK(str(a, "name", 0) == "aten::addmm");
  CHECK(str(a, "dtype", 0) == "bf16");
  CHECK(f64(a, "intensity", 0) == Approx(kAddmm / kAddmmBytes));  // 341.2: right of the 295.4 ridge
  CHECK(str(a, "bound", 0) == "compute");
  CHECK(f64(a, "roof_tflops", 0) == 989.5);
  CHECK(f64(a, "pct_of_roof", 0) == Approx(21.47483648 / 989.5 * 100));
  CHECK(str(a, "verdict", 0) == "far from both");
  CHECK(f64(a, "roof_us_per_call", 0) == Approx(kAddmm / 989.5e12 * 1e6));
  // the TF32 mm at 36.6 FLOP/byte: left of the TF32 ridge (147.6), under 3350 × 36.57 / 1000 TFLOP/s
  CHECK(str(a, "input_shape", 1) == "[[512, 256], [256, 128]]");
  CHECK(str(a, "bound", 1) == "memory");
  CHECK(f64(a, "roof_tflops", 1) == Approx(3350 * (kMmTf32 / kMmTf32Bytes) / 1000));
  CHECK(f64(a, "pct_of_roof", 1) == Approx(0.67108864 / (3350 * (kMmTf32 / kMmTf32Bytes) / 1000) * 100));
  CHECK(str(a, "dtype", 2) == "fp32");
  CHECK(f64(a, "roof_tflops", 2) == 67);  // 3350 × 32 / 1000 = 107.2 is above FP32's 67
  // op grouping: the two mm dtypes stay two points
  const ks::Answer o = t.q("roofline", {{"group_by", "op"}});
  CHECK(o.rows == 3);
  CHECK(str(o, "input_shape", 0) == "(null)");
  // a peak row without FP8 or TF32 (V100): no roof for the TF32 point, so no verdict
  const ks::Answer v = t.q("roofline", {{"peak", "v100-sxm2"}});
  CHECK(str(v, "verdict", 1) == "(null)");
  CHECK(std::isnan(f64(v, "roof_tflops", 1)));
  CHECK(t.s.query("roofline", {{"group_by", "stack"}}).error == "unknown group_by: stack");
  // no shapes: no rows, the note says why
  Loaded none(kstest::read_fixture("flops-no-record-shapes.json"));
  const ks::Answer n = none.q("roofline");
  CHECK(n.rows == 0);
  CHECK(std::string(ks::answer_meta(n, "note")).find("recorded without record_shapes=True") != std::string::npos);
}

TEST_CASE("device_peaks view: every row, and the one the trace matched", "[roofline]") {
  Loaded t(kstest::read_fixture("flops-mfu-two-steps.json"));
  const ks::Answer a = t.q("device_peaks");
  CHECK(a.rows == ks::device_peaks().size());
  CHECK(std::string(ks::answer_meta(a, "matched_row")) == "\"h100-sxm\"");
  const long h = row_of(a, "h100-sxm", "id");
  CHECK(f64(a, "bf16", h) == 989.5);
  CHECK(f64(a, "memory_gbs", h) == 3350);
  CHECK(std::isnan(f64(a, "bf16", row_of(a, "v100-sxm2", "id"))));
}

// The golden flop_cases trace (29 single operations under FlopCounterMode, PyTorch 2.11 on an
// H200): the Operators table's FLOPs, row by row, add up to the flops view's per operator.
TEST_CASE("operators answer: FLOPs columns add up to the flops view on flop_cases", "[roofline][golden]") {
  const std::filesystem::path path = kstest::repo_path("tests/data/h200_pt211/flops/flop_cases.pt.trace.json.gz");
  if (!std::filesystem::exists(path)) {
    WARN("tests/data/h200_pt211/flops is absent");
    return;
  }
  const std::string bytes = kstest::read_path(path);
  if (bytes.size() > 2 && uint8_t(bytes[0]) == 0x1f) {
    WARN("no zlib here (wasm)");
    return;
  }
  Loaded t(bytes);
  const ks::Answer f = t.q("flops");
  std::map<std::string, double> want;
  double total = 0;
  for (size_t r = 0; r < f.rows; ++r) {
    want[f.strings[f.column("name")->str[r]]] += f.column("flops")->f64[r];
    total += f.column("flops")->f64[r];
  }
  REQUIRE(total > 0);
  for (const char* group : {"op", "op+shape"}) {
    const ks::Answer a = t.q("operators", {{"group_by", group}});
    std::map<std::string, double> got;
    for (size_t r = 0; r < a.rows; ++r)
      if (!std::isnan(a.column("flops")->f64[r])) got[a.strings[a.column("name")->str[r]]] += a.column("flops")->f64[r];
    CHECK(got == want);
  }
  // and the roofline's rows hold the same FLOPs
  const ks::Answer rl = t.q("roofline");
  double roof_total = 0;
  for (size_t r = 0; r < rl.rows; ++r) roof_total += rl.column("flops")->f64[r];
  CHECK(roof_total == total);
}
