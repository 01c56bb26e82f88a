// The Module view (tb_plugin spec §14, §5.4): which nn.Module the time belongs to.
//
// Two tables of the same shape: the nn.Module hierarchy recorded by `with_modules`/`with_stack`
// (python_function frames carrying `Python module id`), and PyTorch Lightning's modules
// (`[pl][module]<type>: <name>` ranges). A row is one module of the hierarchy; its numbers are the
// sums over every call of that module (tb_plugin aggregates by (name, module id), not by place in
// the hierarchy), so a module reached along two paths shows the same numbers at both.
//
// Beside the tables, each thread's operator tree as the view draws it: the module frames over
// time (the flame graph) with the operators under them, and on the main thread the backward
// passes regrouped under `<module>.backward` nodes where `fwdbwd` flows say which forward
// operator each backward pass belongs to (§5.4).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

struct ModuleRow {
  std::string name;       // without tb_plugin's "nn.Module: " prefix ("[pl][module]" for Lightning)
  std::string path;       // names from the top of the hierarchy, joined by "/" ("MyModule/Linear")
  std::string key;        // unique per row: names and module ids from the top ("MyModule#0/Linear#1")
  int64_t module_id = 0;  // `Python module id` (Lightning: 0)
  int32_t parent = -1;    // row index, -1 at the top
  int32_t depth = 0;
  bool in_trees = true;   // false: no call of it is in the operator trees (tb_plugin fails then)
  uint64_t occurrences = 0;
  uint64_t operators = 0;  // Σ over the calls of the operators directly under the module
  int64_t host_total_ns = 0, host_self_ns = 0, device_total_ns = 0, device_self_ns = 0;
  // Beyond tb_plugin: the backward passes §5.4 put under this module's `.backward` nodes (host
  // span and device time of those nodes, summed; 0 without fwdbwd flows).
  int64_t backward_host_ns = 0, backward_device_ns = 0;
};

struct ModuleTable {
  std::vector<ModuleRow> rows;  // hierarchy pre-order; top level sorted by name (stable)
};

struct ModuleOptions {
  bool tb_plugin = false;
};

// One node of a thread's tree as the Module view shows it.
enum class ViewNodeKind : uint8_t { kModule, kBackward, kPlModule, kPlProfile, kStep, kOperator, kOther };
const char* view_node_kind_name(ViewNodeKind k);

struct ViewNode {
  std::string name;
  ViewNodeKind kind = ViewNodeKind::kOperator;
  int64_t start_ns = 0, end_ns = 0;
  int32_t parent = -1, depth = 0;
  int32_t row = -1;  // the table row of its module (kModule, kBackward: the forward's), else -1
  int64_t host_total_ns = 0, host_self_ns = 0, device_total_ns = 0, device_self_ns = 0;
};

struct ThreadTree {
  std::string tid;
  bool main = false;      // the thread §5.4 calls main (backward passes are moved into it)
  uint32_t modules = 0;   // module (and PL module, backward) nodes in it
  std::vector<ViewNode> nodes;  // pre-order
};

struct ModuleView {
  bool has_modules = false;    // python_function module frames are in the trace
  bool has_lightning = false;  // [pl][module] ranges are (in tb_plugin mode: and Framework says Lightning)
  ModuleTable modules;
  ModuleTable lightning;
  std::vector<ThreadTree> threads;  // threads holding modules (and the main thread), in tree order
  uint64_t backward_flows = 0;      // fwdbwd flows seen
  uint64_t backward_regrouped = 0;  // backward passes moved under a module's .backward node
  // What became of the fwdbwd flows (they add up to backward_flows): charged to a module; from a
  // forward operator run outside every module (the loss in a training step, an optimizer); to a
  // backward pass another flow already took; to no backward pass of the trace (none recorded, or
  // cut off by the profiling window). `backward_none_why`: why nothing could be charged at all.
  uint64_t flows_charged = 0, flows_outside_modules = 0, flows_shared_pass = 0, flows_no_pass = 0;
  std::string backward_none_why;
  std::string error;  // tb_plugin mode: why tb_plugin would show no Module view
};

// Cheap: whether the trace has anything for the Module view (a scan of names and args only).
struct ModulePresence {
  bool modules = false;
  bool lightning = false;
};
ModulePresence module_presence(const TraceModel& m);

ModuleView module_view(const TraceModel& m, const ModuleOptions& options = {});

// Its tables and one thread's tree as columns, `kinetoscope modules --json`/--csv: the modules,
// module_tree and module_presence answers (core/session/views/modules.cpp).

}  // namespace ks
