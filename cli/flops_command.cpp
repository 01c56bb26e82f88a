// `kinetoscope flops`: FLOPs, achieved TFLOP/s and MFU of each trace recorded with shapes,
// printed from the Session's flops answer (core/session/views/flops.cpp) as JSON, CSV or text.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/device_peaks.h"
#include "core/session/session.h"
#include "core/util/json_writer.h"
#include "simdjson.h"

namespace {

const char kFlopsUsage[] =
    "usage: kinetoscope flops [--json|--csv] [--step N] [--peak DEVICE] TRACE...\n"
    "\n"
    "  FLOPs counted from each operator's recorded shapes (record_shapes=True) with PyTorch's\n"
    "  torch.utils.flop_counter formulas (docs/flops.md): per step its FLOPs, achieved TFLOP/s\n"
    "  and MFU against the device's dense peak for the dtype carrying most of its FLOPs; per\n"
    "  operator and dtype its calls, FLOPs, bytes moved, device time, TFLOP/s, % of peak and\n"
    "  arithmetic intensity; and how much of the kernel time the counted operators cover.\n"
    "  --step N: only the work step N issued. --peak DEVICE: measure against that row of the\n"
    "  peak table instead of the one matched from deviceProperties; the rows:\n";

std::string fmt(double v, const char* f) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// FLOPs with an SI prefix: 2.15 G, 27.6 T.
std::string si(double v) {
  if (!std::isfinite(v)) return "-";
  const char* units[] = {"", "K", "M", "G", "T", "P", "E"};
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 6) v /= 1000, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
  return buf;
}

// A metadata value parsed (its JSON text as the answer holds it).
simdjson::dom::element meta_of(simdjson::dom::parser& p, const ks::Answer& a, std::string_view key) {
  simdjson::dom::element e;
  // Every metadata value is JSON the answer wrote; "null" stands in should one not parse.
  if (p.parse(std::string(ks::answer_meta(a, key))).get(e) != simdjson::SUCCESS && p.parse(std::string("null")).get(e)) {
  }
  return e;
}
double num(simdjson::dom::element e, const char* key) {
  double v = std::nan("");
  if (e.is_object()) {
    simdjson::dom::element x;
    if (e[key].get(x) == simdjson::SUCCESS && x.is_number() && x.get_double().get(v)) v = std::nan("");
  }
  return v;
}
std::string str(simdjson::dom::element e, const char* key) {
  std::string_view v;
  if (e.is_object() && e[key].get(v) == simdjson::SUCCESS) return std::string(v);
  return "";
}

void print_text(const std::string& name, const ks::Answer& a) {
  simdjson::dom::parser p;
  std::printf("%s: FLOPs from the operators' recorded shapes\n", name.c_str());
  {
    const simdjson::dom::element d = meta_of(p, a, "device");
    if (d.is_object()) {
      const std::string row = str(d, "peak_row");
      std::printf("  device: %s; peak row %s%s%s (%s)\n", str(d, "name").empty() ? "(not recorded)" : str(d, "name").c_str(),
                  row.empty() ? "none" : row.c_str(), row.empty() ? "" : ", ", str(d, "peak_name").c_str(), str(d, "matched_by").c_str());
      simdjson::dom::element peaks;
      if (d["peaks_tflops"].get(peaks) == simdjson::SUCCESS && peaks.is_object()) {
        std::printf("  dense peaks (TFLOP/s):");
        for (const char* k : {"fp32", "tf32", "bf16", "fp16", "fp8", "int8"}) std::printf(" %s %s", k, fmt(num(peaks, k), "%g").c_str());
        std::printf("; memory %s GB/s\n", fmt(num(d, "memory_bandwidth_gbs"), "%g").c_str());
      }
    }
  }
  {
    const simdjson::dom::element steps = meta_of(p, a, "steps");
    auto line = [&](const std::string& label, simdjson::dom::element s) {
      std::printf("  %-10s %14s %12s %10s %8s  %s\n", label.c_str(), fmt(num(s, "duration_us"), "%.1f").c_str(),
                  si(num(s, "flops")).c_str(), fmt(num(s, "tflops_per_s"), "%.3f").c_str(), fmt(num(s, "mfu_pct"), "%.2f").c_str(),
                  str(s, "mfu_dtype").c_str());
    };
    std::printf("  %-10s %14s %12s %10s %8s  %s\n", "step", "duration_us", "FLOPs", "TFLOP/s", "MFU %", "MFU dtype");
    simdjson::dom::array list;
    if (steps.get_array().get(list) == simdjson::SUCCESS)
      for (simdjson::dom::element s : list) line(str(s, "step"), s);
    line("average", meta_of(p, a, "average"));
  }
  {
    const simdjson::dom::element c = meta_of(p, a, "coverage");
    if (c.is_object())
      std::printf("  counted ops: %s %% of kernel time (%s of %s us)\n", fmt(num(c, "pct"), "%.1f").c_str(),
                  fmt(num(c, "counted_device_us"), "%.1f").c_str(), fmt(num(c, "kernel_us"), "%.1f").c_str());
  }
  if (a.rows) {
    std::printf("  %8s %-9s %12s %12s %12s %9s %9s %9s  %s\n", "calls", "dtype", "FLOPs", "bytes", "device us", "TFLOP/s",
                "% peak", "FLOP/B", "operator");
    auto col = [&](const char* c) -> const std::vector<double>& { return a.column(c)->f64; };
    for (size_t r = 0; r < a.rows; ++r)
      std::printf("  %8llu %-9s %12s %12s %12s %9s %9s %9s  %s\n", (unsigned long long)col("calls")[r],
                  a.strings[a.column("dtype")->str[r]].c_str(), si(col("flops")[r]).c_str(), si(col("bytes")[r]).c_str(),
                  fmt(col("device_us")[r], "%.1f").c_str(), fmt(col("tflops_per_s")[r], "%.3f").c_str(),
                  fmt(col("pct_of_peak")[r], "%.2f").c_str(), fmt(col("intensity")[r], "%.1f").c_str(),
                  a.strings[a.column("name")->str[r]].c_str());
  }
  const simdjson::dom::element u = meta_of(p, a, "uncounted");
  const double no_shapes = num(u, "no_shapes"), no_concrete = num(u, "no_concrete_inputs"), bad = num(u, "bad_shapes");
  if (no_shapes + no_concrete + bad > 0)
    std::printf("  not counted: %g without Input Dims, %g without Concrete Inputs, %g with shapes no formula takes\n", no_shapes,
                no_concrete, bad);
  const std::string note = ks::answer_meta_string(a, "note");
  if (!note.empty()) std::printf("  note: %s\n", note.c_str());
}

}  // namespace

int run_flops(int argc, char** argv) {
  bool json = false, csv = false;
  std::optional<std::string> step, peak;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--csv") csv = true;
    else if (a == "--step" && i + 1 < argc) step = argv[++i];
    else if (a == "--peak" && i + 1 < argc) peak = argv[++i];
    else if (a == "--help" || a == "-h") {
      std::fputs(kFlopsUsage, stdout);
      for (const ks::DevicePeak& p : ks::device_peaks()) std::printf("    %-15s %s\n", std::string(p.id).c_str(), std::string(p.name).c_str());
      return 0;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope flops: unknown option %s\n%s", a.c_str(), kFlopsUsage);
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty() || (json && csv)) {
    std::fputs(kFlopsUsage, stderr);
    return 2;
  }
  if (step && step->empty()) {
    std::fprintf(stderr, "kinetoscope flops: --step takes a step's name (`kinetoscope steps` lists them).\n");
    return 2;
  }
  int status = 0;
  const int loaded = ks::for_each_session(files, false, [&](const std::string& name, const ks::Session& session) {
    ks::QueryParams params{{"file", name}};
    if (step) params["step"] = *step;
    if (peak) params["peak"] = *peak;
    const ks::Answer a = session.query("flops", params);
    if (!a.error.empty()) {
      std::fprintf(stderr, "%s: %s.\n", name.c_str(), a.error.c_str());
      status = 1;
      return;
    }
    if (json) std::printf("%s\n", ks::answer_json(a).c_str());
    else if (csv) std::fputs(ks::answer_csv(a).c_str(), stdout);
    else print_text(name, a);
  });
  return loaded | status;
}
