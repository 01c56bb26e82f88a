#include "core/session/session.h"

#include "core/session/views.h"

namespace ks {

std::string_view param(const QueryParams& p, std::string_view name, std::string_view fallback) {
  const auto it = p.find(name);
  return it == p.end() ? fallback : std::string_view(it->second);
}

Session::Session(SessionOptions options) : options_(options) {
  static uint64_t made = 0;  // the wasm module has one thread; the CLI makes its Sessions on one
  serial_ = ++made;
}

void Session::report(OverviewPhase phase) const {
  if (progress_) progress_(overview_phase_name(phase), int(phase), kOverviewPhaseCount);
}

// A node is kept once reading is finished; a partial model (a view asked for while reading)
// builds it anew each time, since the model still grows.
template <class T, class F>
const T& Session::cached(std::optional<T>& slot, F&& build) const {
  if (!slot || !reader_.finished()) slot = build();
  return *slot;
}

const StepsResult& Session::steps() const {
  return cached(steps_, [&] {
    report(OverviewPhase::kSteps);
    StepOptions o;
    o.tb_plugin_gpu_annotations = options_.tb_plugin;
    return find_steps(model(), o);
  });
}

const StepBreakdown& Session::breakdown() const {
  return cached(breakdown_, [&] {
    const StepsResult& found = steps();
    report(OverviewPhase::kBreakdown);
    StepOptions o;
    o.tb_plugin_gpu_annotations = options_.tb_plugin;
    return step_breakdown(model(), found, o);
  });
}

const GpuMetricsResult& Session::gpus() const {
  return cached(gpus_, [&] {
    const StepsResult& found = steps();
    report(OverviewPhase::kGpuMetrics);
    return gpu_metrics(model(), found, options_.tb_plugin);
  });
}

const OpTree& Session::tree() const {
  return cached(tree_, [&] {
    report(OverviewPhase::kOperatorTrees);
    return build_op_tree(model(), {options_.tb_plugin});
  });
}

const OpTree& Session::diff_tree() const {
  if (options_.tb_plugin || !has_user_ranges(model())) return tree();
  return cached(diff_tree_, [&] {
    report("diff trees");
    OpTreeOptions o;
    o.user_ranges = true;
    return build_op_tree(model(), o);
  });
}

const ModuleView& Session::modules() const {
  return cached(modules_, [&] {
    report("module trees");
    return module_view(model(), {options_.tb_plugin});
  });
}

const MemoryIndex& Session::memory() const {
  return cached(memory_, [&] {
    const OpTree& t = tree();
    report("memory index");
    return build_memory_index(model(), t, {options_.tb_plugin});
  });
}

const StepAttribution& Session::attribution() const {
  return cached(attribution_, [&] {
    const OpTree& t = tree();
    const StepsResult& found = steps();
    report("step attribution");
    return attribute_steps(t, model(), found);
  });
}

const FlopsResult& Session::flops() const {
  return cached(flops_, [&] { return count_flops(tree(), model()); });
}

const HtaScoped& Session::hta_scoped(GpuTimeRounding rounding) const {
  return cached(hta_scoped_[rounding == GpuTimeRounding::kHta ? 1 : 0], [&] {
    report("GPU events in scope");
    return ks::hta_scoped(model(), rounding);
  });
}

OverviewInputs Session::overview_inputs() const {
  OverviewInputs in{model(), breakdown(), gpus(), tree(), options_.tb_plugin};
  if (!options_.tb_plugin) in.flops = &flops();  // the default mode's FLOPs-based advice
  return in;
}

bool Session::step_filter(std::string_view step, std::optional<StepFilter>& out, std::string& error) const {
  out.reset();
  if (step.empty()) return true;
  out = ks::step_filter(attribution(), steps(), step);
  if (out) return true;
  error = unknown_step_message(steps(), step);
  return false;
}

Answer Session::query(std::string_view view, const QueryParams& params) const {
  Answer a;
  for (const ViewDef& v : views()) {
    if (v.schema->view != view) continue;
    if (v.answer) return v.answer(*this, params);
    if (v.pair) return error_answer(*v.schema, "the " + std::string(view) + " view compares two traces: ask it with the other trace's Session");
    if (v.snapshot) return error_answer(*v.schema, "the " + std::string(view) + " view is of a memory snapshot, not of a trace");
    return error_answer(*v.schema, "the " + std::string(view) + " view is answered by reading the file again, not by a loaded trace");
  }
  a.error = "unknown view: " + std::string(view);
  return a;
}

Answer Session::query(std::string_view view, const QueryParams& params, const Session& other) const {
  for (const ViewDef& v : views()) {
    if (v.schema->view != view) continue;
    if (v.pair) return v.pair(*this, other, params);
    return error_answer(*v.schema, "the " + std::string(view) + " view is of one trace: ask it without another Session");
  }
  Answer a;
  a.error = "unknown view: " + std::string(view);
  return a;
}

}  // namespace ks
