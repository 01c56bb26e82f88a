// What kind of memory a snapshot's live bytes are — parameters, optimizer state, activations,
// gradients, temporaries — by a rule on the allocations' stacks and lifetimes (a snapshot holds
// no tensor identities, so this is an inference; docs/snapshots.md states the rule and its
// limits), and the categories PyTorch's own memory profiler wrote (export_memory_timeline's
// JSON) at a moment, when the same run's file is given.
//
// The rule, per allocation of the Active Memory Timeline (core/snapshot/snapshot_stats.h: an
// allocation lives from its alloc to its free_completed; blocks alive before the history
// began are allocations too), first match wins. "Stack" is its alloc entry's frames, "free
// stack" its free_requested's (else its free_completed's); a Python frame is one whose file
// ends in .py.
//  1. a torch/optim/ frame named _init_group (where every torch.optim optimizer creates its
//     state): optimizer state; any other torch/optim/ frame: temporaries (a step's
//     intermediates);
//  2. nn.Module's _apply (.to(), .cuda(), .half()), torch/nn/parameter.py, torch/nn/init.py, or
//     an __init__ / reset_parameters in torch/nn/modules/ (module construction): parameters;
//  3. freed by a zero_grad frame, or an AccumulateGrad frame in the stack: gradients;
//  4. allocated before the history began, no stack, and never freed in it: parameters, up to as
//     many of its size as there are gradients of that size alive at once (a gradient has its
//     parameter's size), the rest of that size optimizer state (Adam's exp_avg/exp_avg_sq and
//     SGD's momentum have their parameter's shape); sizes no gradient has: unknown. Other
//     allocations from before the history: unknown;
//  5. allocated in the history without a Python frame (autograd's engine thread runs backward
//     without one), when the history has Python frames at all: gradients if still alive at the
//     end of the history, else temporaries (gradients of activations);
//  6. a frame of an nn.Module's forward (module.py _call_impl): activations when freed without a
//     Python frame (autograd's engine frees saved tensors in backward) or alive at the end,
//     temporaries when freed by Python code;
//  7. anything else allocated in the history: temporaries if freed in it, else unknown.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot/snapshot_model.h"

namespace ks {

enum class MemCategory : uint8_t { kParameters, kOptimizerState, kActivations, kGradients, kTemporaries, kUnknown };
constexpr size_t kMemCategories = 6;
// "parameters", "optimizer_state", "activations", "gradients", "temporaries", "unknown".
const char* mem_category_name(MemCategory c);

struct CategoryBytes {
  int64_t entry = -1;  // after this entry (-1: before the first)
  int64_t at_us = -1;
  std::array<int64_t, kMemCategories> bytes{};
  std::array<uint64_t, kMemCategories> allocations{};
};

// The categories of the memory alive after each of `entries` (clamped to [-1, last]), in the
// order asked; the bytes of each moment add up to the timeline's level then.
std::vector<CategoryBytes> snapshot_categories(const SnapshotModel& m, int64_t device, const std::vector<int64_t>& entries);

// The categories over the whole history in at most `points` moments, for a chart: the entry
// positions (0: before the first entry, k: after entry k-1) cut into `points` runs of equal
// length, each given at its position of most memory alive (as the timeline's pixel columns).
std::vector<CategoryBytes> snapshot_category_series(const SnapshotModel& m, int64_t device, size_t points);

// torch.profiler's export_memory_timeline(path.json[.gz]): [times_us, sizes], sizes[i] the bytes
// of each category after times_us[i], in PyTorch's order (_memory_profiler.py
// _CATEGORY_TO_INDEX, shifted by the unused first column).
constexpr size_t kTimelineCategories = 8;
extern const char* const kTimelineCategoryNames[kTimelineCategories];  // parameters, optimizer_state,
                                                                       // inputs, temporaries, activations,
                                                                       // gradients, autograd_detail, unknown
struct MemoryTimeline {
  std::vector<int64_t> times_us;
  std::vector<std::array<int64_t, kTimelineCategories>> sizes;
};
// "" when `json` is such a file's text; else one sentence of what is wrong and where.
std::string parse_memory_timeline(std::string_view json, MemoryTimeline& out);

struct TimelineCategories {
  bool matched = false;   // the time falls within the timeline (first..last sample)
  int64_t sample_us = -1; // the sample used: the last at or before the time; unmatched: the
                          // timeline's own peak (its largest total), as a fallback to compare
  std::array<int64_t, kTimelineCategories> bytes{};
};
// at_us < 0 (a moment without time): unmatched.
TimelineCategories memory_timeline_at(const MemoryTimeline& tl, int64_t at_us);

}  // namespace ks
