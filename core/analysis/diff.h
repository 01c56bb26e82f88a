// The Diff view (tb_plugin spec §16): two operator trees, a baseline and an experiment, matched
// at their DataLoader / Module / Optimizer / ProfilerStep nodes, and for each matched pair and each
// stretch between pairs both sides' host and device time and their operators aggregated by name.
// Matched nodes are compared again one level down, so the tree can be zoomed into.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/analysis/step_breakdown.h"

namespace ks {

// One operator name's calls below a side (spec §11 numbers).
struct DiffAgg {
  std::string name;
  uint64_t calls = 0;
  int64_t host_total_ns = 0, device_total_ns = 0, host_self_ns = 0, device_self_ns = 0;
};

// One side of a diff node: one tree node (its name), several ("CompositeNodes") or none ("Blank").
struct DiffSide {
  std::string name;
  uint32_t nodes = 0;      // tree nodes on this side
  uint32_t threads = 0;    // the threads they ran on
  int64_t host_ns = 0;     // Σ host span of the nodes
  int64_t device_ns = 0;   // Σ device total of the nodes
  int64_t total_ns = 0;    // Σ per node: device total, or its host span when it has no device time
  std::vector<DiffAgg> aggs;  // the operator nodes below (the nodes themselves included), by name,
                              // in tb_plugin's collection order (post-order, first call first)
};

// What a thread does in a trace, read from its name and its top-level ranges: the thread running
// the steps ("main"), the autograd engine's (the backward pass), a process group's
// ("communication": gloo's run loops, NCCL's), a DataLoader's, or any other.
enum class ThreadRole : uint8_t { kMain, kAutograd, kCommunication, kDataLoader, kOther, kCount };
const char* thread_role_name(ThreadRole r);   // "main", "autograd", "communication", "dataloader", "other"
const char* thread_role_label(ThreadRole r);  // "Main thread", "Autograd (backward)", ...

struct DiffNode {
  std::string path;  // "0" for the root, "<parent path>-<index>" below
  std::string name;  // the baseline side's name, or the experiment's when the baseline is blank
  // Set on the nodes that stand for one role's threads (the root's children when the traces' work
  // ran on threads of several roles); the others have none.
  std::optional<ThreadRole> role;
  DiffSide baseline, experiment;
  std::vector<DiffNode> children;
};

struct DiffResult {
  DiffNode root;
  bool compared = false;  // both traces have host operators; else `error` says which has none
  std::string error;
};

// Which thread's tree each side uses: tb_plugin takes the first thread (in order of first
// appearance), which is not always the one running the steps; otherwise the first thread with a
// ProfilerStep at its top, or failing that the one with the most host time at its top (-1: none).
// That thread is the main one; by default the others are compared too (diff_threads).
int32_t diff_tree_root(const OpTree& t, const TraceModel& m, bool tb_plugin);

// The threads one side compares (default mode), by role: each thread's root (OpTree::roots) with
// its role, the main thread first, the others in order of first appearance.
struct DiffThread {
  int32_t root = -1;
  ThreadRole role = ThreadRole::kOther;
};
std::vector<DiffThread> diff_threads(const OpTree& t, const TraceModel& m);

// Trees deeper than 256 matched levels (hostile traces) are compared to that depth only.
DiffResult diff_trees(const OpTree& baseline, const TraceModel& baseline_model, const OpTree& experiment,
                      const TraceModel& experiment_model, bool tb_plugin);

// The numbers `kinetoscope diff --fail-if-slower` gates on, per step on average over the steps
// (the Overview's numbers): "step" the step time, and each part of the step-time breakdown
// ("kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other").
// False for an unknown metric name.
const std::vector<std::string>& diff_metric_names();
bool diff_metric_ns(const StepBreakdown& b, std::string_view metric, double& out_ns);

// The gate's one line: "<metric> per step: baseline X us, experiment Y us, +Z % (more than P %
// slower)" or "(within P %)"; `slower` is set when the change exceeds `pct`. A metric that was 0
// in the baseline is slower by any amount.
std::string diff_gate_line(std::string_view metric, double baseline_ns, double experiment_ns, double pct, bool& slower);

}  // namespace ks
