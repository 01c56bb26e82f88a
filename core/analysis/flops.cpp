// FLOPs per operator call from its recorded shapes (flops.h; the formulas, with their sources, in
// docs/flops.md). Each formula is written from torch/utils/flop_counter.py's (PyTorch 2.11) and
// checked against PyTorch's own counts in tests/core/flops_test.cpp.
#include "core/analysis/flops.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace ks {

std::string_view flop_dtype_word(FlopDtype d) {
  switch (d) {
    case FlopDtype::kFp64: return "fp64";
    case FlopDtype::kFp32: return "fp32";
    case FlopDtype::kTf32: return "tf32";
    case FlopDtype::kBf16: return "bf16";
    case FlopDtype::kFp16: return "fp16";
    case FlopDtype::kFp8E4m3: return "fp8_e4m3";
    case FlopDtype::kFp8E5m2: return "fp8_e5m2";
    case FlopDtype::kInt8: return "int8";
    default: return "unknown";
  }
}

std::string_view count_result_word(CountResult r) {
  switch (r) {
    case CountResult::kNotFlopOp: return "no formula";
    case CountResult::kCounted: return "counted";
    case CountResult::kNoShapes: return "recorded without Input Dims";
    case CountResult::kNoConcrete: return "recorded without Concrete Inputs";
    default: return "shapes that do not fit the formula";
  }
}

namespace {

// ---- the args' JSON texts --------------------------------------------------------------------

struct Cursor {
  std::string_view s;
  size_t i = 0;
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    ws();
    return i < s.size() && s[i] == c;
  }
  bool integer(int64_t& v) {
    ws();
    const auto r = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (r.ec != std::errc()) return false;
    i = size_t(r.ptr - s.data());
    return true;
  }
  // A JSON string's text (escapes kept as written: the texts read here have none that matter).
  bool string(std::string& out) {
    if (!eat('"')) return false;
    out.clear();
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        out += s[i + 1];
        i += 2;
        continue;
      }
      out += s[i++];
    }
    if (i >= s.size()) return false;
    ++i;
    return true;
  }
};

// One input's dims: [a, b, ...] of integers, or a list of such lists (a TensorList: nested).
bool read_dims(Cursor& c, std::vector<int64_t>& dims, bool& nested) {
  dims.clear();
  nested = false;
  if (!c.eat('[')) return false;
  if (c.eat(']')) return true;
  if (c.peek('[')) {  // a TensorList's shapes: skip them, the input is no single tensor
    nested = true;
    int depth = 1;
    while (c.i < c.s.size() && depth > 0) {
      const char ch = c.s[c.i++];
      if (ch == '[') ++depth;
      else if (ch == ']') --depth;
    }
    return depth == 0;
  }
  for (;;) {
    int64_t v = 0;
    if (!c.integer(v)) return false;
    dims.push_back(v);
    if (c.eat(']')) return true;
    if (!c.eat(',')) return false;
  }
}

bool read_string_list(std::string_view text, std::vector<std::string>& out) {
  out.clear();
  Cursor c{text};
  c.ws();
  if (c.i == text.size()) return true;
  if (!c.eat('[')) return false;
  if (c.eat(']')) return true;
  for (;;) {
    std::string s;
    if (!c.string(s)) return false;
    out.push_back(std::move(s));
    if (c.eat(']')) return true;
    if (!c.eat(',')) return false;
  }
}

}  // namespace

bool parse_op_args(std::string_view dims, std::string_view types, std::string_view concrete, OpArgs& out) {
  out = {};
  Cursor c{dims};
  c.ws();
  if (c.i < dims.size()) {
    if (!c.eat('[')) return false;
    if (!c.eat(']')) {
      for (;;) {
        std::vector<int64_t> d;
        bool nested = false;
        if (!read_dims(c, d, nested)) return false;
        out.dims.push_back(std::move(d));
        out.nested.push_back(nested);
        if (c.eat(']')) break;
        if (!c.eat(',')) return false;
      }
    }
  }
  return read_string_list(types, out.types) && read_string_list(concrete, out.concrete);
}

namespace {

// ---- element types ------------------------------------------------------------------------------

// The element size of an "Input type" that names a tensor's dtype (0: not a tensor: "Scalar",
// "ScalarList", "", "TensorList", or a type this table does not know).
int element_bytes(std::string_view t) {
  static constexpr std::pair<std::string_view, int> kSizes[] = {
      {"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2}, {"c10::Float8_e4m3fn", 1},
      {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1}, {"c10::Float8_e5m2fnuz", 1}, {"signed char", 1},
      {"unsigned char", 1}, {"bool", 1}, {"short int", 2}, {"int", 4}, {"long int", 8}, {"long long int", 8},
      {"c10::complex<float>", 8}, {"c10::complex<double>", 16}, {"c10::complex<c10::Half>", 4},
  };
  for (const auto& [name, size] : kSizes)
    if (t == name) return size;
  return 0;
}

FlopDtype dtype_of(std::string_view t) {
  if (t == "float") return FlopDtype::kFp32;
  if (t == "double") return FlopDtype::kFp64;
  if (t == "c10::BFloat16") return FlopDtype::kBf16;
  if (t == "c10::Half") return FlopDtype::kFp16;
  if (t == "c10::Float8_e4m3fn" || t == "c10::Float8_e4m3fnuz") return FlopDtype::kFp8E4m3;
  if (t == "c10::Float8_e5m2" || t == "c10::Float8_e5m2fnuz") return FlopDtype::kFp8E5m2;
  if (t == "signed char") return FlopDtype::kInt8;
  return FlopDtype::kUnknown;
}

// A ScalarType code as Concrete Inputs writes an out_dtype (c10/core/ScalarType.h's order).
int scalar_type_bytes(std::string_view code) {
  int v = -1;
  if (std::from_chars(code.data(), code.data() + code.size(), v).ec != std::errc()) return 0;
  switch (v) {
    case 0: case 1: case 11: case 23: case 24: case 25: case 26: return 1;  // uint8 int8 bool fp8s
    case 2: case 5: case 15: return 2;  // int16 half bfloat16
    case 3: case 6: return 4;           // int32 float
    case 4: case 7: return 8;           // int64 double
    default: return 0;
  }
}

int64_t numel(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string_view type_at(const OpArgs& a, size_t i) { return i < a.types.size() ? std::string_view(a.types[i]) : ""; }
const std::vector<int64_t>& dims_at(const OpArgs& a, size_t i) {
  static const std::vector<int64_t> kNone;
  return i < a.dims.size() ? a.dims[i] : kNone;
}
std::string_view concrete_at(const OpArgs& a, size_t i) {
  return i < a.concrete.size() ? std::string_view(a.concrete[i]) : "";
}

// Every tensor input read once, at its element size (a 0-dim tensor is one element).
int64_t input_bytes(const OpArgs& a) {
  int64_t b = 0;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.nested[i]) continue;
    const int size = element_bytes(type_at(a, i));
    if (size) b += numel(a.dims[i]) * size;
  }
  return b;
}

// "[2, 2]", "[1]", "2", "False": a Concrete Inputs text as integers (a bool as 0/1).
bool concrete_ints(std::string_view s, std::vector<int64_t>& out) {
  out.clear();
  if (s == "True" || s == "False") {
    out.push_back(s == "True");
    return true;
  }
  Cursor c{s};
  const bool list = c.eat('[');
  if (list && c.eat(']')) return true;
  for (;;) {
    int64_t v = 0;
    c.ws();
    if (c.s.substr(c.i, 4) == "True") {
      v = 1;
      c.i += 4;
    } else if (c.s.substr(c.i, 5) == "False") {
      c.i += 5;
    } else if (!c.integer(v)) {
      return false;
    }
    out.push_back(v);
    if (!list) {
      c.ws();
      return c.i == s.size();
    }
    if (c.eat(']')) return true;
    if (!c.eat(',')) return false;
  }
}

// The i-th of a per-spatial-dimension list ("[1]" applies to every dimension).
int64_t per_dim(const std::vector<int64_t>& v, size_t i) { return v.size() == 1 ? v[0] : v[i]; }

// ---- the formulas ---------------------------------------------------------------------------------

// flop_counter's mm_flop: [m, k] @ [k, n] is 2mnk.
bool mm(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t& flops, int64_t& out_numel) {
  if (a.size() != 2 || b.size() != 2 || a[1] != b[0]) return false;
  flops = 2 * a[0] * a[1] * b[1];
  out_numel = a[0] * b[1];
  return true;
}

// bmm_flop: [B, m, k] @ [B, k, n] is 2Bmnk.
bool bmm(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t& flops, int64_t& out_numel) {
  if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1]) return false;
  flops = 2 * a[0] * a[1] * a[2] * b[2];
  out_numel = a[0] * a[1] * b[2];
  return true;
}

// conv_flop_count(x, w, out, transposed): 2 · prod(spatial) · prod(w[2:]) · x[0] · w[0] · w[1],
// where spatial is x's for a transposed convolution and the output's otherwise.
int64_t conv_flop_count(const std::vector<int64_t>& x, const std::vector<int64_t>& w, const std::vector<int64_t>& out,
                        bool transposed) {
  const std::vector<int64_t>& shape = transposed ? x : out;
  int64_t f = 2 * x[0] * w[0] * w[1];
  for (size_t i = 2; i < shape.size(); ++i) f *= shape[i];
  for (size_t i = 2; i < w.size(); ++i) f *= w[i];
  return f;
}

std::vector<int64_t> swap01(const std::vector<int64_t>& s) {
  std::vector<int64_t> t = s;
  if (t.size() >= 2) std::swap(t[0], t[1]);
  return t;
}

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

// Concrete Inputs from `at`: stride, padding, dilation, transposed, output_padding, groups (the
// order of aten::convolution's and aten::convolution_backward's arguments).
bool conv_params(const OpArgs& a, size_t at, size_t spatial, ConvParams& p) {
  std::vector<int64_t> t, g;
  if (!concrete_ints(concrete_at(a, at), p.stride) || !concrete_ints(concrete_at(a, at + 1), p.padding) ||
      !concrete_ints(concrete_at(a, at + 2), p.dilation) || !concrete_ints(concrete_at(a, at + 3), t) ||
      !concrete_ints(concrete_at(a, at + 4), p.output_padding) || !concrete_ints(concrete_at(a, at + 5), g))
    return false;
  auto fits = [&](const std::vector<int64_t>& v) { return v.size() == 1 || v.size() == spatial; };
  if (t.size() != 1 || g.size() != 1 || g[0] < 1 || !fits(p.stride) || !fits(p.padding) || !fits(p.dilation) ||
      !(p.output_padding.empty() || fits(p.output_padding)))
    return false;
  p.transposed = t[0] != 0;
  p.groups = g[0];
  return true;
}

// The output shape of a convolution of x by w (PyTorch's conv output size).
std::vector<int64_t> conv_output(const std::vector<int64_t>& x, const std::vector<int64_t>& w, const ConvParams& p) {
  std::vector<int64_t> out = {x[0], p.transposed ? w[1] * p.groups : w[0]};
  for (size_t i = 2; i < x.size(); ++i) {
    const size_t d = i - 2;
    const int64_t k = w[i], s = per_dim(p.stride, d), pad = per_dim(p.padding, d), dil = per_dim(p.dilation, d);
    if (p.transposed) {
      const int64_t op = p.output_padding.empty() ? 0 : per_dim(p.output_padding, d);
      out.push_back((x[i] - 1) * s - 2 * pad + dil * (k - 1) + op + 1);
    } else {
      out.push_back(s > 0 ? (x[i] + 2 * pad - dil * (k - 1) - 1) / s + 1 : 0);
    }
  }
  return out;
}

bool conv_shapes_fit(const std::vector<int64_t>& x, const std::vector<int64_t>& w) {
  return x.size() >= 3 && x.size() <= 5 && w.size() == x.size();
}

// sdpa_flop_count: q [b, h, s_q, d_q], k [b, h, s_k, d_q], v [b, h, s_k, d_v]: the scores
// (2·b·h·s_q·s_k·d_q) and their product with v (2·b·h·s_q·s_k·d_v); is_causal is not looked at.
int64_t sdpa_fwd(int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t dq, int64_t dv) {
  return 2 * b * h * sq * sk * dq + 2 * b * h * sq * sk * dv;
}
// sdpa_backward_flop_count: the scores again, then dScores, dV, dQ and dK: five products,
// 2·b·h·s_q·s_k·(3·d_q + 2·d_v).
int64_t sdpa_bwd(int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t dq, int64_t dv) {
  return 2 * b * h * sq * sk * (3 * dq + 2 * dv);
}

enum class Layout { kBhsd, kBshd };

// An attention call: q, k, v at q_at..q_at+2 in `layout`; backward with its grad_out at 0.
bool attention(const OpArgs& a, size_t q_at, Layout layout, bool backward, int64_t& flops, int64_t& out_numel) {
  const std::vector<int64_t>&q = dims_at(a, q_at), &k = dims_at(a, q_at + 1), &v = dims_at(a, q_at + 2);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) return false;
  const size_t S = layout == Layout::kBhsd ? 2 : 1, H = layout == Layout::kBhsd ? 1 : 2;
  const int64_t b = q[0], h = q[H], sq = q[S], sk = k[S], dq = q[3], dv = v[3];
  if (k[0] != b || v[0] != b || k[3] != dq || v[S] != sk) return false;
  if (backward) {
    flops = sdpa_bwd(b, h, sq, sk, dq, dv);
    out_numel = numel(q) + numel(k) + numel(v);  // dQ, dK, dV
  } else {
    flops = sdpa_fwd(b, h, sq, sk, dq, dv);
    out_numel = b * h * sq * dv;
  }
  return true;
}

std::string_view strip_aten(std::string_view name) {
  return name.substr(0, 6) == "aten::" ? name.substr(6) : std::string_view();
}

enum class Op : uint8_t {
  kNone, kMm, kAddmm, kBmm, kBaddbmm, kScaledMm, kConv, kConvBackward, kSdpa, kSdpaBackward,
  kFlashFwd, kFlashBwd, kEfficientFwd, kEfficientBwd, kFlashAttnFwd, kFlashAttnBwd
};

Op op_of(std::string_view name) {
  if (name == "flash_attn::_flash_attn_forward") return Op::kFlashAttnFwd;
  if (name == "flash_attn::_flash_attn_backward") return Op::kFlashAttnBwd;
  const std::string_view n = strip_aten(name);
  if (n.empty()) return Op::kNone;
  if (n == "mm") return Op::kMm;
  if (n == "addmm") return Op::kAddmm;
  if (n == "bmm") return Op::kBmm;
  if (n == "baddbmm") return Op::kBaddbmm;
  if (n == "_scaled_mm") return Op::kScaledMm;
  if (n == "convolution" || n == "_convolution") return Op::kConv;
  if (n == "convolution_backward") return Op::kConvBackward;
  if (n == "_scaled_dot_product_flash_attention" || n == "_scaled_dot_product_efficient_attention" ||
      n == "_scaled_dot_product_cudnn_attention")
    return Op::kSdpa;
  if (n == "_scaled_dot_product_flash_attention_backward" || n == "_scaled_dot_product_efficient_attention_backward" ||
      n == "_scaled_dot_product_cudnn_attention_backward")
    return Op::kSdpaBackward;
  if (n == "_flash_attention_forward") return Op::kFlashFwd;
  if (n == "_flash_attention_backward") return Op::kFlashBwd;
  if (n == "_efficient_attention_forward") return Op::kEfficientFwd;
  if (n == "_efficient_attention_backward") return Op::kEfficientBwd;
  return Op::kNone;
}

}  // namespace

bool is_flop_op(std::string_view name) { return op_of(name) != Op::kNone; }

bool needs_concrete_inputs(std::string_view name) { return op_keeps_concrete_inputs(name); }

CountResult count_op(std::string_view name, const OpArgs& a, OpCount& out) {
  out = {};
  const Op op = op_of(name);
  if (op == Op::kNone) return CountResult::kNotFlopOp;
  if (a.dims.empty()) return CountResult::kNoShapes;
  int64_t flops = 0, out_numel = 0;
  size_t first = 0;  // the input whose dtype is the call's (and its results')
  int out_bytes = 0;  // 0: the first input's element size
  int64_t extra_out_bytes = 0;
  bool ok = false;
  switch (op) {
    case Op::kMm: ok = mm(dims_at(a, 0), dims_at(a, 1), flops, out_numel); break;
    case Op::kAddmm: ok = mm(dims_at(a, 1), dims_at(a, 2), flops, out_numel), first = 1; break;
    case Op::kBmm: ok = bmm(dims_at(a, 0), dims_at(a, 1), flops, out_numel); break;
    case Op::kBaddbmm: ok = bmm(dims_at(a, 1), dims_at(a, 2), flops, out_numel), first = 1; break;
    case Op::kScaledMm:
      // _scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum): an mm
      // whose result is out_dtype (the inputs' FP8 when absent).
      ok = mm(dims_at(a, 0), dims_at(a, 1), flops, out_numel);
      out_bytes = scalar_type_bytes(concrete_at(a, 6));
      break;
    case Op::kConv: {
      // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
      const std::vector<int64_t>&x = dims_at(a, 0), &w = dims_at(a, 1);
      if (!conv_shapes_fit(x, w)) return CountResult::kBadShapes;
      ConvParams p;
      if (a.concrete.size() < 9) return CountResult::kNoConcrete;
      if (!conv_params(a, 3, x.size() - 2, p)) return CountResult::kBadShapes;
      const std::vector<int64_t> y = conv_output(x, w, p);
      flops = conv_flop_count(x, w, y, p.transposed);
      out_numel = numel(y);
      ok = true;
      break;
    }
    case Op::kConvBackward: {
      // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
      // transposed, output_padding, groups, output_mask): grad_input as the transposed
      // convolution of grad_output by the weight, grad_weight as a convolution of the input by
      // grad_output (batch and channels swapped), each when output_mask asks for it.
      const std::vector<int64_t>&go = dims_at(a, 0), &x = dims_at(a, 1), &w = dims_at(a, 2);
      if (!conv_shapes_fit(x, w) || go.size() != x.size()) return CountResult::kBadShapes;
      if (a.concrete.size() < 11) return CountResult::kNoConcrete;
      ConvParams p;
      std::vector<int64_t> mask, bias;
      if (!conv_params(a, 4, x.size() - 2, p) || !concrete_ints(concrete_at(a, 10), mask) || mask.size() < 2)
        return CountResult::kBadShapes;
      if (mask[0]) {
        flops += conv_flop_count(go, w, x, !p.transposed);
        out_numel += numel(x);
      }
      if (mask[1]) {
        flops += p.transposed ? conv_flop_count(swap01(go), swap01(x), swap01(w), false)
                              : conv_flop_count(swap01(x), swap01(go), swap01(w), false);
        out_numel += numel(w);
      }
      if (mask.size() > 2 && mask[2] && concrete_ints(concrete_at(a, 3), bias)) out_numel += numel(bias);
      ok = true;
      break;
    }
    case Op::kSdpa: ok = attention(a, 0, Layout::kBhsd, false, flops, out_numel); break;
    case Op::kSdpaBackward: ok = attention(a, 1, Layout::kBhsd, true, flops, out_numel), first = 1; break;
    // The kernels under SDPA, called directly: their tensors are [batch, seq, heads, dim]
    // (flop_counter reads them as [batch, heads, seq, dim], which swaps seq and heads; docs/flops.md).
    case Op::kFlashFwd:
    case Op::kEfficientFwd:
    case Op::kFlashAttnFwd: ok = attention(a, 0, Layout::kBshd, false, flops, out_numel); break;
    case Op::kFlashBwd:
    case Op::kEfficientBwd:
    case Op::kFlashAttnBwd: ok = attention(a, 1, Layout::kBshd, true, flops, out_numel), first = 1; break;
    default: break;
  }
  if (!ok) return CountResult::kBadShapes;
  const int in_size = element_bytes(type_at(a, first));
  out.flops = flops;
  out.dtype = dtype_of(type_at(a, first));
  out.bytes = input_bytes(a) + out_numel * (out_bytes ? out_bytes : in_size) + extra_out_bytes;
  return CountResult::kCounted;
}

FlopsResult count_flops(const OpTree& t, const TraceModel& m) {
  FlopsResult r;
  // (node, inside a call with a formula that could not be counted: its re-recorded copies are
  // not counted as failures again)
  std::vector<std::pair<int32_t, bool>> stack;
  OpArgs args;
  for (int32_t root : t.roots) {
    stack.assign(1, {root, false});
    while (!stack.empty()) {
      const auto [i, in_failed] = stack.back();
      stack.pop_back();
      const OpNode& n = t.nodes[size_t(i)];
      bool failed = in_failed;
      if (n.type != NodeType::kRoot && n.kind == EventKind::kCpuOp) {
        const CpuOpRow& row = m.cpu_ops[n.row];
        if (row.input_dims) r.has_shapes = true;
        const std::string_view name = m.strings.get(row.s.name);
        if (is_flop_op(name)) {
          OpCount c;
          CountResult res = CountResult::kBadShapes;
          if (parse_op_args(m.strings.get(row.input_dims), m.strings.get(row.input_type),
                            m.strings.get(m.concrete_inputs(n.row)), args))
            res = count_op(name, args, c);
          if (res == CountResult::kCounted) {
            if (c.dtype == FlopDtype::kFp32 && node_tc_total_ns(t, n) > 0) c.dtype = FlopDtype::kTf32;
            r.calls.push_back({i, row.s.name, c, node_device_total_ns(t, n)});
            continue;  // what runs inside it is part of this count
          }
          if (!in_failed) {
            if (res == CountResult::kNoShapes) ++r.no_shapes;
            else if (res == CountResult::kNoConcrete) ++r.no_concrete;
            else ++r.bad_shapes;
          }
          failed = true;
        }
      }
      // Children in order: pushed last to first.
      const size_t at = stack.size();
      for (int32_t c = n.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) stack.push_back({c, failed});
      std::reverse(stack.begin() + ptrdiff_t(at), stack.end());
    }
  }
  return r;
}

}  // namespace ks
