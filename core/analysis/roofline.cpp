#include "core/analysis/roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "core/analysis/operators.h"

namespace ks {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double FlopGroup::tflops_per_s() const { return device_ns > 0 ? flops / device_ns / 1e3 : kNaN; }
double FlopGroup::intensity() const { return bytes > 0 ? flops / bytes : kNaN; }

std::vector<FlopGroup> flop_groups(const FlopsResult& fr, const OpTree& t, const TraceModel& m, bool by_shape,
                                   const StepFilter* step) {
  std::vector<FlopGroup> out;
  std::map<std::tuple<StringId, std::string, FlopDtype>, size_t> index;
  std::map<StringId, std::string> shapes;  // python_repr_of_json of each distinct Input Dims text
  for (const FlopCall& c : fr.calls) {
    if (step && !step->has_node(c.node)) continue;
    std::string shape;
    if (by_shape) {
      // The Operators view's op+shape key of the call (operators.cpp ShapeReprs).
      const StringId dims = m.cpu_ops[t.nodes[size_t(c.node)].row].input_dims;
      auto [it, fresh] = shapes.try_emplace(dims);
      if (fresh) it->second = dims ? python_repr_of_json(m.strings.get(dims)) : "[]";
      shape = it->second;
    }
    auto [it, fresh] = index.try_emplace({c.name, shape, c.count.dtype}, out.size());
    if (fresh) {
      FlopGroup g;
      g.name = c.name;
      g.input_shape = std::move(shape);
      g.dtype = c.count.dtype;
      out.push_back(std::move(g));
    }
    FlopGroup& g = out[it->second];
    ++g.calls;
    g.flops += double(c.count.flops);
    g.bytes += double(c.count.bytes);
    g.device_ns += double(c.device_ns);
  }
  return out;
}

std::vector<SoleKernel> sole_kernels(const FlopsResult& fr, const OpTree& t) {
  std::vector<SoleKernel> out;
  std::vector<int32_t> stack;
  for (uint32_t i = 0; i < fr.calls.size(); ++i) {
    int found = 0;
    SoleKernel k;
    k.call = i;
    stack.assign(1, fr.calls[i].node);
    while (!stack.empty() && found < 2) {
      const int32_t n = stack.back();
      stack.pop_back();
      const OpNode& node = t.nodes[size_t(n)];
      for (int32_t l = node.first_launch; l >= 0 && found < 2; l = t.launches[size_t(l)].next) {
        const Launch& launch = t.launches[size_t(l)];
        for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d) {
          if (t.launched[d].kind != EventKind::kKernel) continue;
          if (++found > 1) break;
          k.kernel = t.launched[d].row;
          k.launcher = n;
        }
      }
      for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) stack.push_back(c);
    }
    if (found == 1) out.push_back(k);
  }
  return out;
}

double pct_of_peaks(const std::map<FlopDtype, double>& flops_by_dtype, const DevicePeak& peak, double time_ns) {
  if (!(time_ns > 0) || flops_by_dtype.empty()) return kNaN;
  double peak_ns = 0;  // the time the peaks would take: FLOP / (TFLOP/s) = ps; /1e3: ns
  for (const auto& [d, f] : flops_by_dtype) {
    const double p = peak_tflops(peak, d);
    if (!(p > 0)) return kNaN;
    peak_ns += f / p / 1e3;
  }
  return peak_ns / time_ns * 100;
}

std::string dtype_mix(const std::map<FlopDtype, double>& flops_by_dtype) {
  std::vector<std::pair<double, FlopDtype>> v;
  for (const auto& [d, f] : flops_by_dtype) v.push_back({-f, d});
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& [f, d] : v) {
    if (!out.empty()) out += '+';
    out += flop_dtype_word(d);
  }
  return out;
}

std::string_view roof_verdict_word(RoofVerdict v) {
  switch (v) {
    case RoofVerdict::kMemoryBound: return "memory-bound";
    case RoofVerdict::kComputeBound: return "compute-bound";
    case RoofVerdict::kFarFromBoth: return "far from both";
    case RoofVerdict::kNone: break;
  }
  return "";
}

double ridge_intensity(double peak_tflops, double memory_gbs) {
  return peak_tflops > 0 && memory_gbs > 0 ? peak_tflops * 1e3 / memory_gbs : kNaN;
}

RoofCheck roof_check(double tflops, double intensity, double peak_tflops, double memory_gbs) {
  RoofCheck r;
  r.roof_tflops = r.pct_of_roof = kNaN;
  if (!(peak_tflops > 0) || !(memory_gbs > 0) || !(intensity > 0)) return r;
  // GB/s × FLOP/byte = GFLOP/s; /1e3: TFLOP/s.
  const double bandwidth_roof = memory_gbs * intensity / 1e3;
  r.memory_side = bandwidth_roof < peak_tflops;
  r.roof_tflops = std::min(bandwidth_roof, peak_tflops);
  if (!std::isfinite(tflops)) return r;  // no time: a roof, no place under it
  r.pct_of_roof = tflops / r.roof_tflops * 100;
  r.verdict = r.pct_of_roof < kNearRoofPct ? RoofVerdict::kFarFromBoth
              : r.memory_side              ? RoofVerdict::kMemoryBound
                                           : RoofVerdict::kComputeBound;
  return r;
}

double roof_us_per_call(const FlopGroup& g, double roof_tflops) {
  if (!(roof_tflops > 0) || !g.calls) return kNaN;
  return g.flops / double(g.calls) / roof_tflops / 1e6;  // FLOP / (TFLOP/s) = ps; /1e6: µs
}

}  // namespace ks
