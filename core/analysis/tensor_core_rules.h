// Which kernels run on Tensor Cores (NVIDIA) or Matrix Cores (AMD), and which operators could,
// told from their names alone: one ordered rule table for kernels (tensor_core_rules.cpp) in the
// default mode, tb_plugin's 2021 substring allowlist and operator list (spec §10) for
// --tb-plugin. Names only, no tree: the operator tree reads them while it is built, and the
// shares of time over the tree (tensor_cores.h) build on both.
//
// A kernel is in one of three states: it uses the matrix units, it does not, or its name does not
// say (a Triton matmul template, a CUTLASS 3 kernel whose template hides its MMA, a kernel no rule
// knows). Unknown is never counted as "no".
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/string_pool.h"

namespace ks {

enum class TcState : int8_t { kNo = 0, kYes = 1, kUnknown = 2 };
// "yes", "no", "unknown" (CSV).
std::string_view tc_state_word(TcState s);

// Whose hardware a rule's kernels run on; kAny for names both vendors' stacks produce.
enum class TcVendor : uint8_t { kAny, kNvidia, kAmd };

// A kernel name taken apart once, so the rules can look at the right part of it:
// "void cutlass::device_kernel<flash::FlashAttnFwdSm90<...>>(...)" has the function
// "cutlass::device_kernel"; "sm90_xmma_gemm_bf16..." is its own function.
struct KernelName {
  explicit KernelName(std::string_view name);
  std::string_view text;  // the whole name as written
  std::string_view func;  // the qualified function name: return type, template and call arguments cut off
  std::string lower;      // func in lower case, for the rules that go by words in it
};

struct TcRule {
  std::string_view id;       // stable, e.g. "cublas-xmma"
  TcState state;
  TcVendor vendor;
  std::string_view pattern;  // what the names look like, for people ("sm80_xmma_*, sm90_xmma_*")
  std::string_view why;      // one sentence: what these kernels are and why that state
  bool (*match)(const KernelName&);
};

// The rules in the order they are tried; the first that matches decides. The last one matches
// every name (unknown: no rule knows it).
std::span<const TcRule> tc_rules();

// The first rule matching the kernel name (never null).
const TcRule* classify_tc_kernel(std::string_view name);

// "<pattern>: <why>" — the text shown for a kernel's classification (CLI tensor_cores_rule).
std::string tc_rule_text(const TcRule& rule);

// Operators that could run on Tensor/Matrix Cores beyond tb_plugin's list
// (is_tc_eligible_op_name; tc_eligible_op combines both): the scaled/grouped/int8 matmuls and the
// attention operators are yes; compiled regions (CompiledFunction*, Torch-Compiled Region,
// CompiledFxGraph) are unknown; Inductor's kernel ranges follow the kernel they launch
// (triton_tem_* yes, point-wise and reductions no, other triton_* unknown); anything else no.
TcState tc_eligible_op_since_tb_plugin(std::string_view name);

// tb_plugin's allowlist (--tb-plugin): the kernel's name contains one of the 2021 Tensor Core
// markers (h884, hmma, xmma_gemm...).
bool is_tc_kernel_name(std::string_view name);
// tb_plugin's operator list (--tb-plugin): convolutions, matmuls, RNN cells, by exact name.
bool is_tc_eligible_op_name(std::string_view name);

// Eligibility of an operator by name: tb_plugin's list (yes/no), and in the default mode also
// tc_eligible_op_since_tb_plugin.
TcState tc_eligible_op(std::string_view name, bool tb_plugin);

// Eligibility of a node holding both: yes if either is, else unknown if either is, else no.
TcState tc_either(TcState a, TcState b);

// The Tensor Core state of kernels by interned name, each name classified once: by the rule
// table (default), or by tb_plugin's allowlist (yes/no only, no rule).
class TcKernelNames {
 public:
  TcKernelNames(const StringPool& strings, bool tb_plugin) : strings_(strings), tb_(tb_plugin) {}
  TcState operator()(StringId name) { return classify(name).state; }
  // The rule that decided (null with tb_plugin's allowlist).
  const TcRule* rule(StringId name) { return classify(name).rule; }

 private:
  struct Known {
    TcState state = TcState::kNo;
    const TcRule* rule = nullptr;
    bool set = false;
  };
  const Known& classify(StringId name);
  const StringPool& strings_;
  bool tb_;
  std::vector<Known> known_;
};

}  // namespace ks
