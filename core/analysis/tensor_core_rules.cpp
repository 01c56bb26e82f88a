#include "core/analysis/tensor_core_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <optional>

// How the table was built: the matrix units are only reached through MMA instructions (NVIDIA
// HMMA/IMMA/DMMA, wgmma, tcgen05; AMD MFMA/WMMA), which only a few families of kernels issue —
// vendor GEMM and convolution libraries, CUTLASS and what is built on it, attention libraries,
// DeepGEMM, Composable Kernel, Triton templates. Those families name their kernels after the
// instruction or the library, so a name tells "yes" when it carries such a mark. "No" is said only
// where the name itself shows a CUDA-core kernel (an FFMA/SIMT variant, PyTorch's own element-wise
// and reduction kernels, collectives, copies), never for a name that is merely unfamiliar: that is
// unknown. Specific rules come first (FlashAttention's pre/post-processing kernels before the
// FlashAttention rule, FFMA xmma kernels before the xmma rule).

namespace ks {

namespace {

bool has(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }
bool has_any(std::string_view s, std::initializer_list<std::string_view> xs) {
  return std::any_of(xs.begin(), xs.end(), [&](std::string_view x) { return has(s, x); });
}
bool starts_any(std::string_view s, std::initializer_list<std::string_view> xs) {
  return std::any_of(xs.begin(), xs.end(), [&](std::string_view x) { return s.starts_with(x); });
}
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// An MMA instruction shape as cuBLAS, cuDNN and CUTLASS 2 spell it inside a name: a type letter
// (h half, s single/tf32/bf16 accumulate, i int8, c complex, d double, b binary, z) right after a
// '_' or the start, the shape, then a word ("gemm", "cudnn", "fprop", "dgrad"...):
// volta_h884gemm, turing_fp16_s1688cudnn, cutlass_80_tensorop_bf16_s16816gemm, i8816gemm.
bool has_mma_shape(std::string_view s) {
  for (std::string_view shape : {"884", "1688", "16816", "16832", "8816"}) {
    for (size_t at = s.find(shape); at != std::string_view::npos; at = s.find(shape, at + 1)) {
      if (at < 1 || at + shape.size() >= s.size()) continue;
      const char type = s[at - 1];
      if (!has(std::string_view("hsicdbz"), std::string_view(&type, 1))) continue;
      if (at >= 2 && s[at - 2] != '_') continue;
      if (is_lower(s[at + shape.size()])) return true;
    }
  }
  return false;
}

// "sm80_xmma_...", "sm100_xmma_...": cuBLAS/cuDNN's xmma kernels; tb_plugin's xmma_gemm & co.
bool is_xmma(const KernelName& k) {
  std::string_view f = k.func;
  if (f.starts_with("sm")) {
    size_t i = 2;
    while (i < f.size() && is_digit(f[i])) ++i;
    if (i > 2 && f.substr(i).starts_with("_xmma_")) return true;
  }
  return has(f, "xmma_");
}

// Tensile/hipBLASLt kernels: Cijk_<layout>_<types>_..._MT<tile>_MI<m>x<n>x<k>[x<b>]_... when they
// use MFMA (MI = matrix instruction); the same names without MI are VALU (MAC) kernels or the
// split-K reduction ("Cijk_SS_BiasS_..._PostGSU16").
bool is_tensile(const KernelName& k) {
  return k.func.starts_with("Cijk_") || (k.func.starts_with("Custom") && has(k.func, "_Cijk_"));
}
bool tensile_has_mfma(const KernelName& k) {
  for (size_t at = k.func.find("_MI"); at != std::string_view::npos; at = k.func.find("_MI", at + 1))
    if (at + 3 < k.func.size() && is_digit(k.func[at + 3])) return true;
  return false;
}

// PyTorch's memory-efficient attention (from xformers): fmha_cutlass{F,B}_<dtype>_..._sm<arch>.
// Its GEMMs are TensorOp for sm80 (any dtype, f32 through TF32's fast path), for 16-bit types on
// sm75/sm70, and SIMT otherwise (sm50, f32 before sm80).
std::optional<bool> mem_efficient_attention_uses_tc(const KernelName& k) {
  std::string_view f = k.func;
  if (!starts_any(f, {"fmha_cutlassF_", "fmha_cutlassB_"})) return std::nullopt;
  f.remove_prefix(std::string_view("fmha_cutlassF_").size());
  const std::string_view dtype = f.substr(0, f.find('_'));
  const size_t sm = f.rfind("_sm");
  if (sm == std::string_view::npos) return std::nullopt;
  int arch = 0;
  for (size_t i = sm + 3; i < f.size() && is_digit(f[i]); ++i) arch = arch * 10 + (f[i] - '0');
  if (arch >= 80) return true;
  if (arch >= 70) return dtype == "f16" || dtype == "bf16";
  return false;
}

// Words of PyTorch-style CUDA-core kernels, looked for in the function's own name only (template
// arguments name functors of every kind, namespaces name libraries). A name that also speaks of a matmul or attention is
// left to the other rules.
bool elementwise_by_name(const KernelName& k) {
  // The function's own name, without its namespaces ("flashinfer::" says nothing of the work).
  std::string_view f = k.lower;
  if (const size_t colons = f.rfind("::"); colons != std::string_view::npos) f.remove_prefix(colons + 2);
  if (has_any(f, {"gemm", "matmul", "attn", "attention", "conv", "mma", "fmha", "flash", "_mm_", "bmm", "moe"}))
    return false;
  return has_any(f, {"elementwise", "reduce", "reduction", "copy", "fill", "memset", "memcpy", "transpose",
                     "softmax", "norm", "scatter", "gather", "index", "indices", "embedding", "cast", "quant",
                     "sort", "scan", "topk", "concat", "activation", "relu", "gelu", "silu", "sigmoid", "tanh",
                     "dropout", "rotary", "rope", "permute", "histogram", "swiglu", "geglu", "act_and_mul"});
}

constexpr TcState kYes = TcState::kYes, kNo = TcState::kNo, kUnknown = TcState::kUnknown;
constexpr TcVendor kAny = TcVendor::kAny, kNvidia = TcVendor::kNvidia, kAmd = TcVendor::kAmd;

const std::array kRules = {
    // --- specific "no" rules first: helpers of Tensor Core libraries and CUDA-core builds of them
    TcRule{"xmma-ffma", kNo, kNvidia, "*xmma*_ffma*, *_ffma_*",
           "FP32 GEMM on CUDA cores (FFMA), from the xmma family that otherwise uses Tensor Cores",
           [](const KernelName& k) { return has(k.func, "_ffma_") || k.func.ends_with("_ffma"); }},
    TcRule{"flash-attention-aux", kNo, kAny,
           "flash_bwd_dot_do_o*, *convert_dq*, *convert_dkv*, FlashAttnBwdPreprocess/Postprocess, *combine*, "
           "prepare_varlen_num_blocks",
           "FlashAttention's element-wise and reduction passes around the attention kernels (no MMA)",
           [](const KernelName& k) {
             return has_any(k.text, {"flash_bwd_dot_do_o", "flash_bwd_convert_dq", "flash_bwd_convert_dkv",
                                     "flash_bwd_clear_dkvaccum", "FlashAttnBwdPreprocess", "FlashAttnBwdPostprocess",
                                     "FlashAttnBwdDkvPostprocess", "FlashAttnFwdCombine", "splitkv_combine",
                                     "splitkv_mla_combine", "prepare_varlen_num_blocks"});
           }},
    TcRule{"cutlass-reduction", kNo, kAny, "cutlass ReduceSplitK / reduction::kernel",
           "CUTLASS's split-K reduction, an element-wise sum of partial results",
           [](const KernelName& k) { return has_any(k.text, {"ReduceSplitK", "reduction::kernel"}); }},
    TcRule{"cutlass-simt", kNo, kAny, "cutlass*_simt_*, MmaSimt, OpClassSimt, UniversalFMA",
           "CUTLASS kernels built for CUDA cores (SIMT FMA) instead of Tensor Cores",
           [](const KernelName& k) {
             return has_any(k.text, {"_simt_", "MmaSimt", "OpClassSimt", "UniversalFMA"});
           }},
    TcRule{"mem-efficient-attention-simt", kNo, kAny, "fmha_cutlassF_f32_*_sm50/70/75, fmha_cutlass*_sm50",
           "PyTorch's memory-efficient attention built for SIMT (sm50, or FP32 before sm80)",
           [](const KernelName& k) { return mem_efficient_attention_uses_tc(k) == std::optional<bool>(false); }},
    TcRule{"deepgemm-layout", kNo, kNvidia, "deep_gemm::transpose*, deep_gemm::*tma_aligned*",
           "DeepGEMM's layout helpers (transposes, scale packing)",
           [](const KernelName& k) {
             return k.func.starts_with("deep_gemm::") && has_any(k.func, {"transpose", "tma_aligned", "pack"});
           }},
    TcRule{"flashinfer-decode", kNo, kNvidia, "flashinfer::*Decode*",
           "FlashInfer's decode attention kernels, which run on CUDA cores",
           [](const KernelName& k) { return k.func.starts_with("flashinfer::") && has(k.func, "Decode"); }},
    // --- libraries known by name (NVIDIA, then AMD)
    TcRule{"cublas-xmma", kYes, kNvidia, "sm80_xmma_*, sm90_xmma_*, *xmma_gemm*, *xmma_*implicit_gemm*",
           "cuBLAS/cuBLASLt/cuDNN xmma GEMM and convolution kernels, built on Tensor Core MMA", is_xmma},
    TcRule{"cublas-nvjet", kYes, kNvidia, "nvjet_*",
           "cuBLAS's JIT GEMM kernels on Hopper and Blackwell (wgmma/tcgen05)",
           [](const KernelName& k) { return k.func.starts_with("nvjet_"); }},
    TcRule{"cudnn-sdpa", kYes, kNvidia, "cudnn_generated_fort_native_sdpa_*",
           "cuDNN v9's fused attention (flash fprop/bprop) engines",
           [](const KernelName& k) { return k.func.starts_with("cudnn_generated_fort_native_sdpa"); }},
    TcRule{"flash-attention", kYes, kAny,
           "flash_fwd*, flash_bwd*, pytorch_flash::*, flash::compute_attn_ws*, flash::FlashAttnFwd/Bwd*, "
           "FlashAttention*",
           "FlashAttention 2/3/4 (and PyTorch's copy of FA2) attention kernels, whose matmuls are MMA",
           [](const KernelName& k) {
             return has_any(k.text, {"flash_fwd", "flash_bwd", "FlashAttnFwd", "FlashAttnBwd", "compute_attn_ws",
                                     "FlashAttention"});
           }},
    TcRule{"mem-efficient-attention", kYes, kAny, "fmha_cutlassF_*_sm80, fmha_cutlassB_*_sm80 (16-bit from sm70)",
           "PyTorch's memory-efficient attention: TensorOp GEMMs on sm80, and for 16-bit types on sm70/sm75",
           [](const KernelName& k) { return mem_efficient_attention_uses_tc(k).value_or(false); }},
    TcRule{"fmha", kYes, kAny, "*fmha*, *Fmha* (TensorRT fmha_v2, CK FmhaFwdKernel, AITER)",
           "fused multi-head attention kernels of TensorRT-LLM, Composable Kernel and AITER, built on MMA",
           [](const KernelName& k) { return has_any(k.text, {"fmha", "Fmha", "FMHA"}); }},
    TcRule{"flashinfer-prefill", kYes, kNvidia, "flashinfer::*Prefill*, flashinfer::mla::*",
           "FlashInfer's prefill and MLA attention kernels (mma.sync)",
           [](const KernelName& k) {
             return k.func.starts_with("flashinfer::") && has_any(k.func, {"Prefill", "mla::"});
           }},
    TcRule{"deepgemm", kYes, kNvidia, "deep_gemm::*gemm*, deep_gemm::*mqa_logits*, dpsk::gemm::*",
           "DeepGEMM's FP8/BF16 GEMM and MQA-logits kernels (wgmma/tcgen05)",
           [](const KernelName& k) {
             std::string_view f = k.func;
             if (!starts_any(f, {"deep_gemm::", "dpsk::gemm::"})) return false;
             f.remove_prefix(f.find("::") + 2);  // the namespace itself says "gemm"
             return has_any(f, {"gemm", "mqa_logits"}) && !has_any(f, {"transpose", "tma_aligned", "pack"});
           }},
    TcRule{"tensile-mfma", kYes, kAmd, "Cijk_*_MI<m>x<n>x<k>*",
           "rocBLAS/hipBLASLt Tensile GEMMs whose name carries an MFMA instruction (MI16x16x16, MI32x32x8...): "
           "Matrix Cores",
           [](const KernelName& k) { return is_tensile(k) && tensile_has_mfma(k); }},
    TcRule{"miopen-igemm-xdlops", kYes, kAmd, "igemm_*_gtcx*",
           "MIOpen's implicit-GEMM convolutions in the xdlops (gtcx) variant: Matrix Cores",
           [](const KernelName& k) { return k.func.starts_with("igemm_") && has(k.func, "_gtcx"); }},
    TcRule{"ck-tile-gemm", kYes, kAmd, "ck_tile::kentry<...Gemm.../...Flatmm...>",
           "Composable Kernel tile GEMMs (grouped, MoE flat-matmul), built on MFMA: Matrix Cores",
           [](const KernelName& k) {
             return k.func == "ck_tile::kentry" && has_any(k.text, {"Gemm", "Flatmm", "GEMM"});
           }},
    TcRule{"aiter-asm", kYes, kAmd, "aiter::fmoe_*, aiter::*gemm*, aiter::mla_*",
           "AITER's assembly fused-MoE, GEMM and MLA attention kernels for MI300 (MFMA): Matrix Cores",
           [](const KernelName& k) {
             return k.func.starts_with("aiter::") && has_any(k.func, {"fmoe", "gemm", "mla_"});
           }},
    // --- the MMA instruction or API written in the name
    TcRule{"mma-shape", kYes, kNvidia, "*h884*, *s1688*, *h16816*, *s16816*, *i8816*, *i16832* (gemm, cudnn, fprop...)",
           "cuBLAS, cuDNN and CUTLASS 2 name the Tensor Core MMA shape they issue (884: Volta, 1688: Turing, "
           "16816: Ampere and later)",
           [](const KernelName& k) { return has_mma_shape(k.text) || has_any(k.text, {"hmma", "_imma", "imma_"}); }},
    TcRule{"cutlass-tensorop", kYes, kAny, "cutlass*tensorop*, MmaTensorOp, OpClassTensorOp",
           "CUTLASS kernels built for Tensor Cores (TensorOp)",
           [](const KernelName& k) { return has_any(k.text, {"tensorop", "TensorOp"}); }},
    TcRule{"hopper-blackwell-mma", kYes, kNvidia, "*Gmma*, *wgmma*, *Umma*, *tcgen05*, cute SM80_16x8/SM90_64x atoms",
           "Hopper warpgroup MMA (GMMA/wgmma) and Blackwell UMMA/tcgen05 kernels (CUTLASS 3, CuTe)",
           [](const KernelName& k) {
             return has_any(k.text, {"Gmma", "GMMA", "gmma", "Umma", "UMMA", "tcgen05", "SM80_16x8x", "SM75_16x8x",
                                     "SM90_64x", "SM100_MMA", "SM70_8x8x4"});
           }},
    TcRule{"cutlass3-gemm", kYes, kAny, "cutlass::device_kernel<...Gemm...>",
           "CUTLASS 3 GEMM kernels (GemmUniversal, grouped GEMMs such as DeepSeek's FP8 ones): Tensor Core "
           "mainloops unless built for SIMT (caught above)",
           [](const KernelName& k) { return k.func == "cutlass::device_kernel" && has_any(k.text, {"Gemm", "gemm"}); }},
    TcRule{"ck-xdl-mfma", kYes, kAmd, "*xdl*, *xdlops*, *mfma*, *Mfma* (Composable Kernel, MIOpen)",
           "Composable Kernel and MIOpen kernels built on MFMA (XDL = xdlops): Matrix Cores",
           [](const KernelName& k) { return has_any(k.text, {"xdl", "Xdl", "XDL", "mfma", "Mfma", "MFMA"}); }},
    TcRule{"wmma", kYes, kAny, "*wmma*, *Wmma* (nvcuda::wmma, CK WMMA on RDNA3)",
           "kernels written with the WMMA matrix API (NVIDIA Tensor Cores, AMD RDNA3 WMMA)",
           [](const KernelName& k) { return has_any(k.text, {"wmma", "Wmma", "WMMA"}); }},
    // --- Triton: templates may use MMA, Inductor's point-wise and reduction kernels do not
    TcRule{"triton-template", kUnknown, kAny, "triton_tem_*",
           "Inductor's Triton matmul/conv templates: tl.dot uses Tensor/Matrix Cores for 16-bit and 8-bit "
           "inputs, and for FP32 only when TF32 is allowed; the name does not say the dtype",
           [](const KernelName& k) { return k.func.starts_with("triton_tem_"); }},
    TcRule{"triton-pointwise-reduction", kNo, kAny, "triton_poi_*, triton_red_*, triton_per_*, triton_for_*",
           "Inductor's point-wise, reduction and foreach kernels, generated without tl.dot",
           [](const KernelName& k) {
             return starts_any(k.func, {"triton_poi_", "triton_red_", "triton_per_", "triton_for_"});
           }},
    // --- named CUDA-core kernels
    TcRule{"tensile-valu", kNo, kAmd, "Cijk_* without _MI",
           "Tensile kernels without a matrix instruction: VALU (MAC) GEMMs and the split-K reduction",
           is_tensile},
    TcRule{"blas-simt", kNo, kAny,
           "*sgemm*, *gcgemm*, gemv*, gemmSN_*, gemmk1_*, splitKreduce*, scal_kernel, *scudnn*, *convolve_sgemm*, "
           "wgrad_alg0_engine, dgrad_engine, fft*, winograd*",
           "FP32 GEMM/GEMV and convolution algorithms of cuBLAS/cuDNN that run on CUDA cores",
           [](const KernelName& k) {
             return has_any(k.func, {"sgemm", "gcgemm", "gemv", "gemmSN_", "gemmk1_", "splitKreduce", "scal_kernel",
                                     "scudnn", "wgrad_alg0_engine", "dgrad_engine", "fft2d_", "fft1d_", "winograd",
                                     "Winograd"});
           }},
    TcRule{"library-helpers", kNo, kAny,
           "cudnn::*, cask_cudnn*::*, cublasLt::*, epilogue::impl::*, nchwToNhwc*, __amd_rocclr_*, rocprim::*, "
           "rocblas_*, MIOpen*, naive_conv*",
           "helper kernels of cuDNN, cuBLASLt, ROCm and MIOpen: layout changes, offsets, batch norm, copies",
           [](const KernelName& k) {
             return starts_any(k.func, {"cudnn::", "cask_cudnn", "cublasLt::", "epilogue::impl::", "__amd_rocclr_",
                                        "rocprim::", "rocblas_", "MIOpen", "miopen", "naive_conv", "internal::gemvx"}) ||
                    has_any(k.func, {"nchwToNhwc", "nhwcToNchw"});
           }},
    TcRule{"ck-tile-other", kNo, kAmd, "ck_tile::kentry<...Rmsnorm2d/Layernorm2d/MoeSorting/Elementwise...>",
           "Composable Kernel tile normalization, sorting and element-wise kernels (no matmul)",
           [](const KernelName& k) {
             return k.func == "ck_tile::kentry" &&
                    has_any(k.text, {"Rmsnorm", "Layernorm", "Sorting", "Elementwise", "Topk", "Smoothquant",
                                     "Reduce", "Permute"});
           }},
    TcRule{"communication", kNo, kAny, "nccl*, rccl*, deep_ep::*, dpsk::ep::*, *cross_device_reduce*",
           "collective and all-to-all communication kernels (NCCL, RCCL, DeepEP)",
           [](const KernelName& k) {
             return starts_any(k.func, {"nccl", "rccl", "deep_ep::", "dpsk::ep::", "cdpsk::"}) ||
                    has_any(k.func, {"cross_device_reduce", "allreduce", "all_reduce"});
           }},
    TcRule{"pytorch-native", kNo, kAny,
           "at::native::*, at_cuda_detail::*, cub::*, thrust::*, c10::*, cunn_*, (anonymous namespace)::softmax_warp_*, "
           "fbgemm_gpu::*, split_embedding*",
           "PyTorch's and FBGEMM's own CUDA kernels: element-wise, reductions, indexing, sorting, embeddings",
           [](const KernelName& k) {
             return starts_any(k.func, {"at::native::", "at_cuda_detail::", "cub::", "thrust::", "c10::", "cunn_",
                                        "(anonymous namespace)::softmax_warp", "fbgemm_gpu::", "split_embedding"});
           }},
    TcRule{"elementwise-by-name", kNo, kAny,
           "*elementwise*, *reduce*, *copy*, *fill*, *norm*, *softmax*, *index*, *quant*, *relu*... (no gemm/attention)",
           "the kernel's own name says element-wise, reduction, copy or normalization work, which has no matmul",
           elementwise_by_name},
    // --- what the name does not tell
    TcRule{"triton-other", kUnknown, kAny, "triton_*",
           "a Triton kernel: tl.dot runs on Tensor/Matrix Cores only for some dtypes, and the name does not say",
           [](const KernelName& k) { return k.func.starts_with("triton"); }},
    TcRule{"no-rule", kUnknown, kAny, "(no rule matched)",
           "the name matches no known kernel family, so it does not tell which units the kernel uses",
           [](const KernelName&) { return true; }},
};

}  // namespace

KernelName::KernelName(std::string_view name) : text(name) {
  // The call's argument list starts at the first '(' outside template brackets that is not
  // "(anonymous namespace)".
  constexpr std::string_view kAnon = "(anonymous namespace)";
  size_t end = name.size();
  int angle = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') {
      ++angle;
    } else if (c == '>') {
      if (angle > 0) --angle;
    } else if (c == '(') {
      if (name.substr(i).starts_with(kAnon)) {
        i += kAnon.size() - 1;
      } else if (angle == 0) {
        end = i;
        break;
      }
    }
  }
  const std::string_view head = name.substr(0, end);
  // The return type ("void ", "std::enable_if<...>::type ") ends at the last space outside
  // brackets; the function's own template arguments start at the next '<' (a name cut inside
  // them, as tools print long names, has no closing '>').
  size_t start = 0, stop = head.size();
  int depth = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if (c == ' ' && depth == 0) start = i + 1;
  }
  depth = 0;
  for (size_t i = start; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '(') ++depth;
    else if (c == ')' && depth > 0) --depth;
    else if (c == '<' && depth == 0) {
      stop = i;
      break;
    }
  }
  func = head.substr(start, stop - start);
  lower.assign(func);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
}

std::string_view tc_state_word(TcState s) {
  return s == TcState::kYes ? "yes" : s == TcState::kNo ? "no" : "unknown";
}

std::span<const TcRule> tc_rules() { return kRules; }

const TcRule* classify_tc_kernel(std::string_view name) {
  const KernelName k(name);
  for (const TcRule& r : kRules)
    if (r.match(k)) return &r;
  return &kRules.back();
}

std::string tc_rule_text(const TcRule& rule) {
  std::string out(rule.pattern);
  out += ": ";
  out += rule.why;
  return out;
}

TcState tc_eligible_op_since_tb_plugin(std::string_view name) {
  // What PyTorch added since tb_plugin's list: scaled (FP8), grouped and int8 matmuls,
  // scaled-dot-product attention in each backend's form, the convolution backward that replaced
  // cudnn_convolution_backward, MIOpen's convolutions (ROCm).
  static constexpr auto kOps = std::to_array<std::string_view>({
      "aten::convolution_backward", "aten::miopen_convolution", "aten::miopen_convolution_transpose",
      "aten::miopen_depthwise_convolution", "aten::_addmm_activation", "aten::_scaled_mm", "aten::_scaled_mm_v2",
      "aten::_scaled_grouped_mm", "aten::_grouped_mm", "aten::grouped_mm", "aten::_int_mm",
      "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
      "aten::_scaled_dot_product_flash_attention_backward", "aten::_scaled_dot_product_efficient_attention",
      "aten::_scaled_dot_product_efficient_attention_backward", "aten::_scaled_dot_product_cudnn_attention",
      "aten::_scaled_dot_product_cudnn_attention_backward", "aten::_flash_attention_forward",
      "aten::_flash_attention_backward", "aten::_efficient_attention_forward", "aten::_efficient_attention_backward",
      "aten::_cudnn_attention_forward", "aten::_cudnn_attention_backward", "aten::_fused_attention_overrideable",
      "aten::_scaled_dot_product_fused_attention_overrideable"});
  if (std::find(kOps.begin(), kOps.end(), name) != kOps.end()) return TcState::kYes;
  // A compiled region runs whatever Inductor generated: its name does not say.
  if (name.starts_with("CompiledFunction") || name.starts_with("## Call CompiledFxGraph") ||
      name.starts_with("Torch-Compiled Region") || name.starts_with("torch-compiled region"))
    return TcState::kUnknown;
  // Inductor wraps each kernel launch in a range named after the kernel.
  if (name.starts_with("triton_tem_")) return TcState::kYes;  // a matmul/conv template
  if (starts_any(name, {"triton_poi_", "triton_red_", "triton_per_", "triton_for_"})) return TcState::kNo;
  if (name.starts_with("triton_")) return TcState::kUnknown;
  return TcState::kNo;
}

bool is_tc_kernel_name(std::string_view name) {
  static constexpr std::array<std::string_view, 18> kMarkers = {
      "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
      "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
      "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
      "c1688"};
  return std::any_of(kMarkers.begin(), kMarkers.end(),
                     [&](std::string_view m) { return name.find(m) != std::string_view::npos; });
}

bool is_tc_eligible_op_name(std::string_view name) {
  static constexpr std::array<std::string_view, 45> kOps = {
      "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
      "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
      "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
      "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr", "aten::matmul", "aten::mm",
      "aten::mv", "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
      "aten::chain_matmul", "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell",
      "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell", "aten::rnn_tanh_cell",
      "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
      "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
      "MmBackward", "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward",
      "MvBackward", "aten::cudnn_convolution_transpose_backward_weight",
      "aten::cudnn_convolution_transpose_backward_input", "AddmmBackward",
      "aten::cudnn_convolution_backward_input", "AddbmmBackward",
      "aten::cudnn_convolution_backward"};
  return std::find(kOps.begin(), kOps.end(), name) != kOps.end();
}

TcState tc_eligible_op(std::string_view name, bool tb_plugin) {
  if (is_tc_eligible_op_name(name)) return TcState::kYes;
  return tb_plugin ? TcState::kNo : tc_eligible_op_since_tb_plugin(name);
}

TcState tc_either(TcState a, TcState b) {
  if (a == TcState::kYes || b == TcState::kYes) return TcState::kYes;
  if (a == TcState::kUnknown || b == TcState::kUnknown) return TcState::kUnknown;
  return TcState::kNo;
}

const TcKernelNames::Known& TcKernelNames::classify(StringId name) {
  if (name >= known_.size()) known_.resize(std::max<size_t>(strings_.size(), size_t(name) + 1));
  Known& k = known_[name];
  if (!k.set) {
    k.set = true;
    if (tb_) {
      k.state = is_tc_kernel_name(strings_.get(name)) ? TcState::kYes : TcState::kNo;
    } else {
      k.rule = classify_tc_kernel(strings_.get(name));
      k.state = k.rule->state;
    }
  }
  return k;
}

}  // namespace ks
