// The Tensor/Matrix Core rule table (core/analysis/tensor_core_rules.cpp) on real kernel names:
// every name of ../shared/traces (tests/core/tensor_core_kernel_names.tsv) and the names below,
// gathered from public traces, profiler outputs and library sources of the hardware tb_plugin's
// 2021 list does not know (Hopper, Blackwell, FP8, MI250/MI300). Each carries the state and rule
// worked out by hand and where the name was found. Names that tools printed cut off are kept as
// printed (the rules must decide on what a trace's reader sees of them).
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/analysis/tensor_cores.h"
#include "test_util.h"

namespace {

using ks::TcState;
constexpr TcState Y = TcState::kYes, N = TcState::kNo, U = TcState::kUnknown;

struct Case {
  const char* name;
  TcState state;
  const char* rule;
  const char* source;
};

// Sources, shortened:
//  DS   deepseek-ai/profile-data (DeepSeek-V3/R1 on H800: prefill.json, decode.json, train.json),
//       names as quoted in a public trace-analysis script of those traces (sglang contributor's
//       research_mono, PER_SCENARIO_INFOS) and a public lesson on train.json (FlashAttnBwd).
//  SG   the same script's SGLang-on-H800 scenarios (DeepGEMM, FA3, DeepEP).
const Case kPublicNames[] = {
    // --- cuBLAS / cuBLASLt -------------------------------------------------------------------
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     Y, "cublas-xmma", "SG"},
    {"sm90_xmma_gemm_bf16f32_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
     Y, "cublas-xmma", "DS prefill"},
    {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     Y, "cublas-xmma", "H100 TF32 GEMM in a public profiling write-up (timeit vs torch.profiler)"},
    // FP32 GEMM on CUDA cores: tb_plugin's xmma_gemm marker calls it Tensor Core.
    {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
     N, "xmma-ffma", "A100 FP32 training, nsys kernel summary in a public course solution"},
    {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
     N, "xmma-ffma", "cuBLAS SGEMM on H20, nsys cuda_gpu_kern_sum in a public note"},
    {"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", Y, "cublas-nvjet", "nsys CSV of an H100 MoE benchmark (public repo)"},
    {"nvjet_sm90_hsh_32x64_64x16_4x1_v_bz_TNN", Y, "cublas-nvjet", "torch.profiler table of a public H100 benchmark"},
    {"nvjet_sm120_tst_mma_64x64x128_3_32x32x128_tmaAB_alignCD4_bz_TNNN", Y, "cublas-nvjet",
     "RTX 50 (sm_120) kernel list in a public porting note"},
    {"nvjet_sm100_tst_64x32_64x16_2x1_2cta_v_bz_TNT", Y, "cublas-nvjet", "B200 SGLang kernel breakdown (public report)"},
    {"ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn", Y, "mma-shape",
     "ncu tensor-pipe counters of a Llama run (public notes)"},
    {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, "
     "true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float "
     "const>, cublasGemvTensorStridedBatched<float> >, float>(cublasGemvParams<cublasGemvTensorStridedBatched<float "
     "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >)",
     N, "blas-simt", "../shared/traces two_rank_sampled (cut here at the parameter list)"},
    // --- cuDNN ---------------------------------------------------------------------------------
    {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x", Y, "cudnn-sdpa",
     "FSDP comparison on H100 (public report): cuDNN v9 SDPA forward"},
    {"cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_1x", Y, "cudnn-sdpa",
     "same report, backward"},
    {"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", Y, "cudnn-sdpa",
     "SDPBackend sweep on A100 (public notes)"},
    {"void cutlass__5x_cudnn::Kernel<cutlass_tensorop_f16_s16816fprop_optimize", Y, "mma-shape",
     "cuDNN 9 convolution, kernel table in a public report (printed cut)"},
    // --- CUTLASS 2 and 3 -----------------------------------------------------------------------
    {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x3_tn_align8>(cutlass_80_tensorop_bf16_"
     "s16816gemm_relu_bf16_128x64_64x3_tn_align8::Params)",
     Y, "mma-shape", "SG decode"},
    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(T1::Params)", N, "cutlass-simt",
     "A100 FP32 training, nsys kernel summary in a public course solution"},
    {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c_outfmt_head::GemmKernel>(dpsk::grouped_gemm::"
     "cuda::fp8_ptp128c_outfmt_head::GemmKernel::Params)",
     Y, "cutlass3-gemm", "DS prefill: DeepSeek-V3's FP8 grouped GEMM"},
    {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<long, "
     "long, long>>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<(int)12, ...",
     Y, "hopper-blackwell-mma", "nsys top kernels of an H100 MoE run (public repo, printed cut)"},
    {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int,int,int>, "
     "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<9, "
     "cute::tuple<cute::C<1>,cute::C<1>,cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecializedPingpong>, ",
     Y, "hopper-blackwell-mma", "CUTLASS symbol parsing test of a public kernel-taxonomy project (cut there)"},
    {"imp::<unnamed>::mmq_imma_kernel<(int)128, (bool)0, (bool)0, (bool)0>", Y, "mma-shape",
     "int8 IMMA kernel in a public quantized-inference benchmark table"},
    // --- attention -----------------------------------------------------------------------------
    {"void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t, 128>, "
     "true, flash::SingleTileScheduler, flash::SeqLenTraits<true> >(flash::CollectiveMainloopFwd<Flash_fwd_kernel_traits<"
     "192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t, 128>, true, flash::SeqLenTraits<true> >::Params, "
     "flash::CollectiveEpilogueFwd<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t, 128>, "
     "flash::SeqLenTraits<true> >::Params, flash::SingleTileScheduler::Params, flash::SeqLenTraits<true>, "
     "flash::SeqLenTraits<true>)",
     Y, "flash-attention", "DS prefill: FlashAttention-3 (beta) forward"},
    {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, "
     "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<128>, cute::C<128>, cute::C<192> >, 128, "
     "cutlass::bfloat16_t, float, cutlass::arch::Sm90, true, false, false, true, false, false, false, true, true, false, "
     "false, false>, flash::CollectiveEpilogueFwd<cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, "
     "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::bfloat16_t, cutlass::arch::Sm90, 256, true, false, "
     "false, false>, flash::VarlenDynamicPersistentTileScheduler<128, 256, 32, false, false, true> > > >(flash::"
     "enable_sm90_or_later<flash::FlashAttnFwdSm90<...> >::Params)",
     Y, "flash-attention", "SG prefill: FlashAttention-3 forward (parameter list shortened)"},
    {"flash::enable_sm90<flash::FlashAttnBwdSm90<flash::CollectiveMainloopBwdS...>>", Y, "flash-attention",
     "FA2/FA3/TE backward comparison on H100 (public notes, printed cut)"},
    {"flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<...>>", Y, "flash-attention",
     "same notes: FlashAttention-2 backward"},
    {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::half_t, "
     "Flash_kernel_traits<64, 128, 128, 4, cutlass::half_t> >, false, false, false, false, false, true, false, "
     "false>(pytorch_flash::F",
     Y, "flash-attention", "SDPA profile table (public report, printed cut): PyTorch's FlashAttention-2"},
    {"void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576, 64, 64, 8, cutlass::bfloat16_t, 512, "
     "true, 0, cutlass::bfloat16_t, cutlass::bfloat16_t>, true, flash::SharedStorageMLA<Flash_fwd_kernel_traits_mla<576, "
     "64, 64, 8, cutlass::bfloat16_t, 512, true, 0, cutlass::bfloat16_t, cutlass::bfloat16_t> > >(Flash_fwd_mla_params)",
     Y, "flash-attention", "DS decode: FlashMLA"},
    {"void flash::flash_fwd_splitkv_mla_combine_kernel<cutlass::bfloat16_t, float, long, 512, 64>(Flash_fwd_mla_params)",
     N, "flash-attention-aux", "DS decode: FlashMLA's split-KV combine"},
    {"void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, cute::C<128> >, 6, 256, 1, false, "
     "true, cutlass::bfloat16_t, float, cutlass::arch::Sm90> >(flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, "
     "cute::C<128> >, 6, 256, 1, false, true, cutlass::bfloat16_t, float, cutlass::arch::Sm90>::Params)",
     N, "flash-attention-aux", "SG decode: FA3's split-KV combine, a CUTLASS 3 kernel without a GEMM"},
    {"flash::prepare_varlen_num_blocks_kernel(int, int, int, int const*, int const*, int const*, int const*, int const*, "
     "int const*, int, int, int, int, int, cutlass::FastDivmod, cutlass::FastDivmod, int*, int*, bool)",
     N, "flash-attention-aux", "SG prefill"},
    {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80", Y, "mem-efficient-attention", "SDPA kernel classifier test (public)"},
    {"fmha_cutlassB_bf16_aligned_128x128_k128_sm80", Y, "mem-efficient-attention", "SDPA memory comparison (public notes)"},
    {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, "
     "64, 64, 64, true, true>::Params)",
     Y, "mem-efficient-attention", "GPU simulator kernel-name map (public): FP32 through 3xTF32 on sm80"},
    {"fmha_cutlassF_f32_aligned_64x64_rf_sm75", N, "mem-efficient-attention-simt",
     "T4 (sm_75) inference profile (public notes): FP32 before sm80 is SIMT"},
    {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)0, 16u, 1u, 4u, "
     "4u, 4u, 1u, 4u, (flashinfer::PosEncodingMode)0, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, int, "
     "flashinfer::D",
     Y, "flashinfer-prefill", "SGLang kernel-to-op mapping table (public, printed cut)"},
    {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, (unsigned int)2, (unsigned "
     "int)1, (unsigned int)8, (unsigned int)16, (unsigned int)2, (unsigned int)4, flashinfer::Def",
     N, "flashinfer-decode", "SGLang top kernels on H100 (public report, printed cut)"},
    {"void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &(silu(float const&))>(__nv_bfloat16*, "
     "__nv_bfloat16 const*, int)",
     N, "elementwise-by-name", "SG prefill: SwiGLU activation"},
    // --- DeepGEMM, DeepEP and the rest of DeepSeek's step ---------------------------------------
    {"void dpsk::gemm::fp8_gemm_kernel<7168u, 16384u, 128u, 128u, 128u, 5u, 128u, 128u, 2u, (dpsk::gemm::GemmType)0>("
     "__nv_bfloat16*, float*, int*, unsigned int, unsigned int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, "
     "CUtensorMap_st)",
     Y, "deepgemm", "DS prefill: DeepGEMM FP8 GEMM (DeepSeek's internal namespace)"},
    {"void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 160u, 128u, 0u, 64u, 9u, 4u, 128u, 128u, 1u, true, "
     "(deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, "
     "CUtensorMap_st)",
     Y, "deepgemm", "SG prefill: DeepGEMM grouped FP8 GEMM (MoE)"},
    {"void deep_gemm::sm100_fp8_fp4_gemm_1d1d_impl<(cute::UMMA::Major)0, (cute::UMMA::Major)0, 1", Y, "deepgemm",
     "B200 SGLang kernel report (public, printed cut)"},
    {"void deep_gemm::sm90_tf32_hc_prenorm_gemm_impl<24u, 16384u, 64u, 32u, 64u, 1u, 128u, 12u, 128u, 128u>(unsigned "
     "int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, float*)",
     Y, "deepgemm", "H200 kernel diff table (public)"},
    {"void deep_gemm::sm90_fp8_mqa_logits<64u, 128u, false>(int)", Y, "deepgemm", "kernel-name normalizer test (public)"},
    {"void deep_gemm::transpose_fp32<512, 64>(const float *, float *)", N, "deepgemm-layout",
     "DeepSeek-V3 graph kernel mapping (public)"},
    {"void dpsk::ep::internode::dispatch<false, 4, false, 4>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*, "
     "int4 const*, float const*, long const*, float const*, int*, int*, int*, int*, int const*, int const*, int const*, int "
     "const*, int, int, int, int, int, bool const*, void*, int, int, void**, int, int, int, int, int*)",
     N, "communication", "DS prefill: DeepEP dispatch"},
    {"void deep_ep::internode_ll::combine<3, 10, 7168, 9>(void*, void*, int*, void*, void const*, long const*, float const*, "
     "int const*, long const*, int*, int, int*, int, int, int, int, int, int, int, int, bool)",
     N, "communication", "SG decode: DeepEP low-latency combine"},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", N, "communication",
     "kernel constants of a public SM120 benchmark"},
    {"void cuda::swiglu_forward_with_weight_and_per_token_cast_to_fp8_with_channels_impl<__nv_bfloat16, false, true, "
     "128>(unsigned char*, __nv_bfloat16 const*, int const*, float const*, int, int, float*, int const*, float, "
     "__nv_fp8_interpretation_t)",
     N, "elementwise-by-name", "DS prefill: activation + FP8 cast"},
    {"void per_token_group_quant_8bit_kernel<__nv_bfloat16, c10::Float8_e4m3fn, false>(__nv_bfloat16 const*, void*, "
     "float*, int, int, int, float, float, float, int, int)",
     N, "elementwise-by-name", "SG prefill: FP8 quantization"},
    {"_silu_and_mul_post_quant_kernel", N, "elementwise-by-name", "SG decode: a Triton kernel named by hand"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
     N, "pytorch-native", "DS prefill"},
    // --- Triton / Inductor ---------------------------------------------------------------------
    {"triton_tem_fused__to_copy_addmm_gelu_t_view_9", U, "triton-template",
     "crash report of an Inductor max-autotune GEMM template (public)"},
    {"triton_tem_fused_bmm_7", U, "triton-template", "decode tuning log (public)"},
    {"triton_mm_18", U, "triton-other",
     "Inductor max-autotune choice benchmarked as a kernel (autotune log, public): a matmul whose dtype the name hides"},
    {"triton_red_fused__to_copy_mean_pow_view_0", N, "triton-pointwise-reduction", "MI355 kernel table (public)"},
    // --- AMD: Tensile (rocBLAS, hipBLASLt), Composable Kernel, MIOpen, AITER, runtime -----------
    {"Cijk_Ailk_Bljk_SB_MT128x96x16_MI32x32x2x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS0_ASE_ASGT_ASLT_ASM_ASAE01_"
     "ASCE01_ASEM1_AAC0_BL1_BS1_CLR0_DTLA0_DTLB0_DTVA0_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB2_GRCGA1_"
     "GRCGB1_GRPM1_GRVW2_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPPA0_LBSPPB128_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV1_"
     "MDA2_MO40_MMFGLC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR9_SIA1_SS0_SU0_SUM0_"
     "SUS0_SCIUI1_SPO0_SRVW0_SSO4_SVW4_SNLL0_TSGRA0_TSGRB0_TT1_96_TLDS1_UMLDSA0_UMLDSB1_U64SL1_USFGROn1_VAW1_VSn1_VW1_VWB1_"
     "VFLRP0_WSGRA0_WSGRB0_WS64_WG128_2_1_WGM15",
     Y, "tensile-mfma", "ROCm/ROCm issue 3364 (MI250X, Setonix): rocBLAS FP32 GEMM on MFMA, gfx90a"},
    {"Cijk_Ailk_Bljk_HHS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x32_MI32x32x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA90a_IU1_K1_LBSPPA0_LBSPPB128",
     Y, "tensile-mfma", "hipBLASLt FP16 GEMM on gfx90a in a public kernel comparison (cut)"},
    {"Custom2_Cijk_Ailk_Bljk_HHS_BH_MT128x32x64_MI32x32x8x1_SN_1LDSB0_GRVW8_GSU18_LPB8_LRVW4_MIWT1_1_NTA2_NTB0_NEPBS0_"
     "NLCA1_PLR9_SS0_SU0_SUS0_SPO0_SRVW0_SVW4_VW1_WSGRA1_WSGRB0_WG128_2_1_WGM0",
     Y, "tensile-mfma", "a gfx90a Tensile custom kernel (public assembly source)"},
    {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x208x64_MI16x16x1_SN_LDSB1_AFC0_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB4_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0",
     Y, "tensile-mfma", "MI355 prefill kernel table (public, cut)"},
    {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x16_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASAE01_ASCE01_"
     "ASEM1_AAC0_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRVW8_GSU1_GSUASB_GLS0_ISA1100_IU1_K1_KLA_LBSPP128_LPA0_LPB8_LDL1_"
     "LRVW16_LWPMn1_LDW0_FMA_MIAV1_MDA2_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP",
     Y, "tensile-mfma", "MIOpenDriver GEMM on RDNA3 (gfx1100, WMMA) quoted in tinygrad (cut)"},
    {"Cijk_Alik_Bljk_SB_MT32x64x32_AF0EM8_ASEM8_FL0_GRVW2_ISA90a_MDA2_PGR1_PLR1_SU32_TT2_2_VAW1_VW2_WG16_32_1_WGM8", N,
     "tensile-valu", "Tensile replacement kernel for gfx90a (file list of a public ROCm change): no MI, VALU"},
    {"Cijk_SS_BiasS_HAS_ScaleAlphaVec_PostGSU16_VW1", N, "tensile-valu",
     "hipBLASLt split-K reduction in an MI355 kernel table (public)"},
    {"void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemmMultiD_ABScale_xdl_cshuffle_v3<ck::tensor_layout::gemm::"
     "RowMajor, c",
     Y, "ck-xdl-mfma", "AITER FP8 block-scale GEMM on MI300 (public kernel report, cut)"},
    {"void ck::kernel_gemm_wmma_cshuffle_v3<...>", Y, "wmma",
     "Composable Kernel's RDNA3 GEMM (ck::kernel_gemm_wmma_cshuffle_v3 in CK's source; template elided)"},
    {"void ck_tile::kentry<256, 1, ck_tile::FmhaBwdDQDKDVK...", Y, "fmha",
     "flash-attn ROCm (CK) backward, torch.profiler table in a public issue (cut)"},
    {"void ck_tile::kentry<1, ck_tile::GroupedGemmKernel<ck_tile::GemmSpatiallyLocal", Y, "ck-tile-gemm",
     "MI300 kernel table (public, cut)"},
    {"void ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<ck_tile::Rmsnorm2dFwdPipelineOnePass<ck_tile::"
     "Rmsnorm2dFwdPipelineProblem<",
     N, "ck-tile-other", "MI300 decode kernel table (public, cut)"},
    {"void ck_tile::kentry<2, ck_tile::MoeSortingKernel<ck_tile::MoeSortingProblemEx<int, float, 2, true, false, false, "
     "true, 0> >, ck_tile::MoeSortingKernel<ck_t..., true, 0> >::Kargs)",
     N, "ck-tile-other", "MI355 kernel table (public, cut)"},
    {"aiter::fmoe_bf16_pertokenFp8_g1u1_vs_silu_1tg_ps_32x512", Y, "aiter-asm", "SGLang EP on MI300 notes (public)"},
    {"aiter::mla_dec_stage1_bf16_a16w16_subQ16_mqa16", Y, "aiter-asm", "MI300 decode kernel table (public)"},
    {"void aiter::swiglu_act_and_mul_kernel<std::bfloat16_t, std::bfloat16_t, 8>(std::bfloat16_", N,
     "elementwise-by-name", "MI300 kernel table (public, cut)"},
    {"igemm_fwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64_gkgs", Y,
     "miopen-igemm-xdlops", "MIOpen tuning notes on MI-series (public)"},
    {"miopenSp3AsmConv_v30_3_1_gfx9_fp32_f2x3_stride1", N, "library-helpers", "VGG16 on ROCm kernel shares (public)"},
    {"MIOpenBatchNormFwdTrainSpatial", N, "library-helpers", "rocprof kernel CSV (public)"},
    {"__amd_rocclr_fillBufferAligned.kd", N, "library-helpers", "ROCm trace summary sample (public docs)"},
    {"ncclDevKernel_Generic", N, "communication", "same sample: RCCL"},
    // Names that do not say: unknown, never "no".
    {"void wvSplitK_hf_sml_<__hip_bfloat16, ", U, "no-rule", "vLLM on MI300 decode kernel table (public, cut)"},
    {"hgemm_bf16_32x64x128x5_SPK8_W2x2x1_BLDS1_TN_AS", U, "no-rule", "AITER flydsl GEMM in an MI355 report (public)"},
};

std::string read_text(const std::string& rel) {
  std::ifstream in(kstest::repo_path(rel), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TcState parse_state(const std::string& s) { return s == "yes" ? Y : s == "no" ? N : U; }

}  // namespace

TEST_CASE("Tensor Core rules: public names of Hopper, Blackwell, FP8, MI250/MI300 kernels", "[tensor_cores]") {
  for (const Case& c : kPublicNames) {
    INFO(c.name << "\n  (" << c.source << ")");
    const ks::TcRule* r = ks::classify_tc_kernel(c.name);
    CHECK(std::string(r->id) == c.rule);
    CHECK(r->state == c.state);
  }
}

TEST_CASE("Tensor Core rules: every kernel name of ../shared/traces", "[tensor_cores]") {
  std::istringstream lines(read_text("tests/core/tensor_core_kernel_names.tsv"));
  std::string line;
  size_t rows = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t a = line.find('\t'), b = line.find('\t', a + 1), c = line.find('\t', b + 1);
    REQUIRE(c != std::string::npos);
    const std::string state = line.substr(0, a), rule = line.substr(a + 1, b - a - 1), name = line.substr(c + 1);
    INFO(name.substr(0, 200) << "\n  (" << line.substr(b + 1, c - b - 1) << ")");
    const ks::TcRule* r = ks::classify_tc_kernel(name);
    CHECK(std::string(r->id) == rule);
    CHECK(r->state == parse_state(state));
    ++rows;
  }
  CHECK(rows == 364);
}

TEST_CASE("Tensor Core rules: each rule decides at least one real name", "[tensor_cores]") {
  std::set<std::string> used;
  for (const Case& c : kPublicNames) used.insert(ks::classify_tc_kernel(c.name)->id.data());
  std::istringstream lines(read_text("tests/core/tensor_core_kernel_names.tsv"));
  std::string line;
  while (std::getline(lines, line))
    if (!line.empty() && line[0] != '#') used.insert(ks::classify_tc_kernel(line.substr(line.rfind('\t') + 1))->id.data());
  std::vector<std::string> unused;
  for (const ks::TcRule& r : ks::tc_rules())
    if (!used.count(std::string(r.id))) unused.push_back(std::string(r.id));
  INFO("rules no real name reaches: " << [&] {
    std::string s;
    for (const auto& u : unused) s += u + " ";
    return s;
  }());
  CHECK(unused.empty());
  // ids are unique, and the last rule takes every name
  std::set<std::string_view> ids;
  for (const ks::TcRule& r : ks::tc_rules()) CHECK(ids.insert(r.id).second);
  CHECK(ks::tc_rules().back().id == "no-rule");
  CHECK(ks::classify_tc_kernel("")->id == "no-rule");
}

TEST_CASE("Tensor Core rules: tb_plugin's allowlist keeps its 2021 answers", "[tensor_cores]") {
  // The two lists disagree exactly where the issue says tb_plugin is wrong.
  CHECK_FALSE(ks::is_tc_kernel_name("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"));
  CHECK_FALSE(ks::is_tc_kernel_name("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c_outfmt_head::GemmKernel>"));
  CHECK_FALSE(ks::is_tc_kernel_name("Cijk_Ailk_Bljk_SB_MT128x96x16_MI32x32x2x1_SN_1LDSB0"));
  CHECK_FALSE(ks::is_tc_kernel_name(
      "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_stage5_warpsize2x2x1_g1_"
      "tensor16x8x8_execute_kernel_cudnn_infer"));
  CHECK(ks::is_tc_kernel_name(
      "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__"
      "5x_cublas"));
}

TEST_CASE("KernelName: the function, without return type, template and call arguments", "[tensor_cores]") {
  CHECK(ks::KernelName("void cutlass::device_kernel<flash::FlashAttnFwdCombine<int> >(flash::X::Params)").func ==
        "cutlass::device_kernel");
  CHECK(ks::KernelName("void (anonymous namespace)::softmax_warp_forward<float, float, float, 1>(float*, int)").func ==
        "(anonymous namespace)::softmax_warp_forward");
  CHECK(ks::KernelName("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, 1>(float*)").func ==
        "at::native::(anonymous namespace)::CatArrayBatchedCopy");
  CHECK(ks::KernelName("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int>(cublasGemvParams<int>)")
            .func == "internal::gemvx::kernel");
  CHECK(ks::KernelName("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n").func == "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
  CHECK(ks::KernelName("flash::prepare_varlen_num_blocks_kernel(int, int)").func == "flash::prepare_varlen_num_blocks_kernel");
  CHECK(ks::KernelName("void deep_gemm::sm100_fp8_fp4_gemm_1d1d_impl<(cute::UMMA::Major)0, 1").func ==
        "deep_gemm::sm100_fp8_fp4_gemm_1d1d_impl");  // cut inside the template: no '(' at depth 0
  CHECK(ks::KernelName("void Foo<int>(int)").lower == "foo");
}

TEST_CASE("Tensor Core eligible operators: three states in the default mode", "[tensor_cores]") {
  using ks::tc_eligible_op;
  for (const char* op : {"aten::mm", "aten::_scaled_mm", "aten::_scaled_grouped_mm", "aten::_grouped_mm",
                         "aten::_int_mm", "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
                         "aten::_flash_attention_forward", "aten::_efficient_attention_backward",
                         "aten::_scaled_dot_product_cudnn_attention", "aten::convolution_backward",
                         "aten::miopen_convolution", "triton_tem_fused_mm_0"}) {
    INFO(op);
    CHECK(tc_eligible_op(op, false) == Y);
  }
  for (const char* op : {"CompiledFunction", "CompiledFunctionBackward", "Torch-Compiled Region: 0/1",
                         "## Call CompiledFxGraph fabc1234 ##", "triton_fused_custom"}) {
    INFO(op);
    CHECK(tc_eligible_op(op, false) == U);
  }
  for (const char* op : {"aten::add", "aten::relu", "triton_poi_fused_add_0", "aten::_scaled_dot_product_flash_attention_for_cpu"})
    CHECK(tc_eligible_op(op, false) == N);
  // --tb-plugin: tb_plugin's list only, yes or no
  CHECK(tc_eligible_op("aten::mm", true) == Y);
  CHECK(tc_eligible_op("aten::_scaled_mm", true) == N);
  CHECK(tc_eligible_op("CompiledFunction", true) == N);
  // a node holding both
  CHECK(ks::tc_either(N, U) == U);
  CHECK(ks::tc_either(U, Y) == Y);
  CHECK(ks::tc_either(N, N) == N);
}
