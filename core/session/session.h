// One loaded trace and its analysis graph, wired once for the page (wasm/session_bindings.cpp)
// and the CLI: steps → breakdown / GPU metrics → operator trees → memory index / step
// attribution, each built on first use and kept (docs/contracts.md "Session and answers").
// Every view is query(view, params), answered in the one shape of answer.h.
//
// The tb_plugin-compatible mode (docs/compatibility.md) is a construction option: a Session
// computes in one mode and keeps one set of caches; a caller that wants both reads the trace
// into two Sessions (the CLI's --tb-plugin; the page never asks for it).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/flops.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/gpu_time.h"
#include "core/analysis/memory.h"
#include "core/analysis/modules.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/overview.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/step_scope.h"
#include "core/analysis/steps.h"
#include "core/session/answer.h"
#include "core/trace/trace_reader.h"

namespace ks {

struct SessionOptions {
  bool tb_plugin = false;
};

// A query's parameters by name (the view's schema lists them); absent means its default.
using QueryParams = std::map<std::string, std::string, std::less<>>;

class Session {
 public:
  explicit Session(SessionOptions options = {});
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Reading: bytes go into the reader (prepare/commit/finish), as the worker and the CLI feed it.
  TraceReader& reader() { return reader_; }
  const TraceReader& reader() const { return reader_; }
  const TraceModel& model() const { return reader_.model(); }
  bool tb_plugin() const { return options_.tb_plugin; }

  // fn(part, index, count) before each part of the graph is built: the Overview's parts as
  // index 1..count of OverviewPhase, the others (module trees, memory index, step attribution,
  // diff trees) with 0, 0. A part already built is not reported again.
  using Progress = std::function<void(std::string_view part, int index, int count)>;
  void set_progress(Progress fn) { progress_ = std::move(fn); }

  // The graph. Each node is built on first use and kept once reading is finished (before that,
  // a partial model's view is built anew on each ask).
  const StepsResult& steps() const;
  const StepBreakdown& breakdown() const;
  const GpuMetricsResult& gpus() const;
  const OpTree& tree() const;
  // The Diff view's trees: with the user's record_function ranges when the trace has some
  // (OpTreeOptions::user_ranges; not in tb_plugin mode, whose trees leave them out).
  const OpTree& diff_tree() const;
  const ModuleView& modules() const;
  const MemoryIndex& memory() const;
  const StepAttribution& attribution() const;
  // The counted FLOPs of the operator trees (flops.h): the flops, roofline, operators and kernels views read them.
  const FlopsResult& flops() const;
  // HTA's scope's GPU events and cut (gpu_time.h hta_scoped), one per rounding: what the GPU time
  // view's analyses read, built once for all of them.
  const HtaScoped& hta_scoped(GpuTimeRounding rounding) const;
  OverviewInputs overview_inputs() const;
  // The operator trees if built (for the heap's accounting), else null.
  const OpTree* tree_if_built() const { return tree_ ? &*tree_ : nullptr; }

  // The filter of step `step` ("": none, the whole trace). False with `error` set when the trace
  // has no step of that name (unknown_step_message's sentence).
  bool step_filter(std::string_view step, std::optional<StepFilter>& out, std::string& error) const;

  // A view's answer (views.h lists them). An unknown view, parameter value or step answers with
  // `error` set and no rows.
  Answer query(std::string_view view, const QueryParams& params) const;
  // A view of two traces (the Diff view): this Session's trace and `other`'s, both read in this
  // process (the page's two Sessions of one worker, the CLI's two files). Asking a view of one
  // trace this way, or a view of two without `other`, answers with an error.
  Answer query(std::string_view view, const QueryParams& params, const Session& other) const;
  // A number no other Session of this process has: names a computation of this Session with
  // `other` (the diff's, kept for its second answer by shared()), where an address could be
  // reused by a Session made after this one is gone.
  uint64_t serial() const { return serial_; }

  // A computation several views read (a detail whose lists are views of their own: the kernel
  // detail's stacks, operators and launches; the GPU time view's analyses, which its
  // recommendations read again), kept for the next view that asks with the same key. Only the
  // last one of each `family` (a name of the computation: "gpu-idle", "diff") is kept, so a family
  // holds one answer's worth of memory at most; `key` names the computation and its parameters.
  template <class T, class F>
  const T& shared(std::string_view family, const std::string& key, F&& build) const {
    size_t i = 0;
    while (i < shared_.size() && shared_[i].family != family) ++i;
    if (i == shared_.size()) shared_.push_back({std::string(family), "", nullptr});
    if (!shared_[i].value || shared_[i].key != key || !reader_.finished()) {
      shared_[i].value.reset();  // the old one's memory goes before the new one is built
      std::shared_ptr<const T> built = std::make_shared<const T>(build());  // may add a family's slot
      shared_[i].value = std::move(built);
      shared_[i].key = key;
    }
    return *static_cast<const T*>(shared_[i].value.get());
  }

  // Reports a part of the graph about to be built (for the views' own parts).
  void report(std::string_view part, int index = 0, int count = 0) const {
    if (progress_) progress_(part, index, count);
  }

 private:
  void report(OverviewPhase phase) const;
  template <class T, class F>
  const T& cached(std::optional<T>& slot, F&& build) const;

  SessionOptions options_;
  uint64_t serial_;
  TraceReader reader_;
  Progress progress_;
  mutable std::optional<StepsResult> steps_;
  mutable std::optional<StepBreakdown> breakdown_;
  mutable std::optional<GpuMetricsResult> gpus_;
  mutable std::optional<OpTree> tree_;
  mutable std::optional<OpTree> diff_tree_;
  mutable std::optional<ModuleView> modules_;
  mutable std::optional<MemoryIndex> memory_;
  mutable std::optional<StepAttribution> attribution_;
  mutable std::optional<FlopsResult> flops_;
  mutable std::array<std::optional<HtaScoped>, 2> hta_scoped_;  // by GpuTimeRounding
  struct SharedSlot {
    std::string family, key;
    std::shared_ptr<const void> value;
  };
  mutable std::vector<SharedSlot> shared_;
};

// A parameter's value, or `fallback` when absent.
std::string_view param(const QueryParams& p, std::string_view name, std::string_view fallback = "");

}  // namespace ks
