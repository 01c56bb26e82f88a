// The GPU time view's frequent kernel sequences (issue 24 §7; Holistic Trace Analysis's
// get_frequent_cuda_kernel_sequences is the model): the sequences of GPU work launched under one
// operator call that repeat most often — fusion candidates.
//
// The rule, as HTA's: the operator calls whose name contains `operator_filter` are the roots; the
// GPU events (kernels, memcpys, memsets) launched by a root or anything under it, in order of their
// start, are its sequence; a root with fewer than `min_kernels` of them is skipped; a pattern is
// the root's name and the names of its sequence, counted with the GPU time of its events and the
// host time of the roots. Patterns are ordered by count (most first), then by their text.
// Where Kinetoscope differs (docs/compatibility.md): HTA takes as roots only the matching calls at
// the shallowest depth any of them has, so a trace whose shallowest match is one aten::zeros under
// the step ignores every aten::linear under a module; here a root is a matching call with no
// matching call above it, at any depth (the same calls when they all sit at one depth).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

struct KernelSequenceOptions {
  std::string operator_filter = "aten::";
  size_t min_kernels = 3;  // HTA's min_pattern_len
  size_t top = 10;         // patterns kept (HTA's top_k: 5)
};

struct KernelSequence {
  StringId op = 0;                  // the root operator's name
  std::vector<StringId> kernels;    // the sequence's names, in order
  uint64_t count = 0;               // roots with this pattern
  int64_t gpu_ns = 0;               // the GPU time of all its events, every occurrence
  int64_t cpu_ns = 0;               // the host time of its roots
  int64_t first_start_ns = 0, first_end_ns = 0;  // its first occurrence's root
  std::vector<StringId> stack;      // the first occurrence's operators above the root, outermost first
};

struct KernelSequencesResult {
  uint64_t roots = 0;     // calls matching the filter with no matching call above them
  uint64_t counted = 0;   // of them, those with at least min_kernels GPU events
  uint64_t patterns = 0;  // distinct patterns before `top`
  std::vector<KernelSequence> sequences;  // the first `top`, ordered
};

KernelSequencesResult kernel_sequences(const OpTree& t, const TraceModel& m, const KernelSequenceOptions& options = {});

}  // namespace ks
