// FLOPs, bytes moved and arithmetic intensity of the operators recorded with shapes
// (record_shapes=True), with torch.utils.flop_counter's conventions so the numbers are the ones
// PyTorch users compute (docs/flops.md has every formula and its source): a multiply-add is 2
// FLOPs, bias additions are not counted, attention counts its two (forward) or five (backward)
// matrix products whatever is_causal says, as flop_counter does.
//
// Which calls count: the aten operators flop_counter has a formula for (mm, addmm, bmm, baddbmm,
// _scaled_mm, convolution and its backward, the SDPA backends forward and backward, their
// _flash/_efficient attention kernels) and flash-attn's own operators. matmul, linear and einsum
// have no formula: they reach one of those through their children. A call inside another counted
// call is not counted again (the outer one already holds it): aten::convolution over
// aten::_convolution over aten::cudnn_convolution is one count, and so is FlopCounterMode's
// PythonDispatchMode, which re-records every operator inside itself under the same name.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/op_tree.h"

namespace ks {

// The precision that carries a call's FLOPs, which picks the peak it is measured against.
enum class FlopDtype : uint8_t { kUnknown, kFp64, kFp32, kTf32, kBf16, kFp16, kFp8E4m3, kFp8E5m2, kInt8 };
// "fp64", "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "int8", "unknown".
std::string_view flop_dtype_word(FlopDtype d);

// The shapes of one call, taken from its args' JSON texts.
struct OpArgs {
  std::vector<std::vector<int64_t>> dims;  // per input: its dims ([] for a scalar or a non-tensor)
  std::vector<bool> nested;                // per input: a list of shapes (a TensorList), not one
  std::vector<std::string> types;          // per input: its "Input type" ("float", "c10::BFloat16", "Scalar", "")
  std::vector<std::string> concrete;       // per input: its "Concrete Inputs" text ("", "[2, 2]", "False")
};
// Reads the three texts as the trace writes them ("[[64, 128], [128, 32]]", "[\"float\", ...]",
// "[\"\", \"[2, 2]\"]"); false when one is not a JSON array of that shape. An empty text reads
// as no inputs.
bool parse_op_args(std::string_view dims, std::string_view types, std::string_view concrete, OpArgs& out);

// A counted call: FLOPs (flop_counter's count), bytes (every tensor input read once at its
// element size, every result the formula names written once), and its dtype.
struct OpCount {
  int64_t flops = 0;
  int64_t bytes = 0;
  FlopDtype dtype = FlopDtype::kUnknown;
};

enum class CountResult : uint8_t {
  kNotFlopOp,      // no formula for this name
  kCounted,
  kNoShapes,       // a formula, but the call was recorded without Input Dims
  kNoConcrete,     // a convolution recorded without the Concrete Inputs its formula needs
  kBadShapes,      // shapes that do not fit the formula (a nested/varlen attention, a rank it does not take)
};
std::string_view count_result_word(CountResult r);

// Whether `name` ("aten::mm") has a formula.
bool is_flop_op(std::string_view name);
// Whether the formula of `name` reads its Concrete Inputs (the model keeps them only for those).
bool needs_concrete_inputs(std::string_view name);
CountResult count_op(std::string_view name, const OpArgs& args, OpCount& out);

// A counted call in the operator trees.
struct FlopCall {
  int32_t node = -1;  // OpTree node
  StringId name = 0;
  OpCount count;
  int64_t device_ns = 0;  // its kernels' time (the node's device total, as the Operators view has it)
};

struct FlopsResult {
  bool has_shapes = false;  // some operator was recorded with Input Dims
  std::vector<FlopCall> calls;  // in tree pre-order
  // Calls of an operator with a formula that could not be counted, by CountResult.
  uint64_t no_shapes = 0, no_concrete = 0, bad_shapes = 0;
};

// Walks the operator trees: each outermost call with a formula is counted (its subtree is not
// walked further); an fp32 call whose kernels ran on Tensor Cores is TF32.
FlopsResult count_flops(const OpTree& t, const TraceModel& m);

}  // namespace ks
