// The Embind layer: a Session wraps one TraceReader. Only conversion lives here; the worker
// copies chunk bytes straight into the reader's buffer (prepare returns a heap offset).
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/distributed.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/kernels.h"
#include "core/analysis/modules.h"
#include "core/analysis/operators.h"
#include "core/analysis/overview.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/step_scope.h"
#include "core/analysis/summary.h"
#include "core/trace/model_columns.h"
#include "core/trace/trace_reader.h"
#include "core/trace/trace_trimmer.h"

namespace {

class Session {
 public:
  // Heap offset where n bytes may be written (HEAPU8 may have grown: re-read it).
  double prepare(double n) { return static_cast<double>(reinterpret_cast<uintptr_t>(reader_.prepare(static_cast<size_t>(n)))); }
  void commit(double n) { reader_.commit(static_cast<size_t>(n)); }
  void finish() { reader_.finish(); }
  // The stream around the JSON failed part-way (gzip corrupt or cut off, or a read error).
  void inputError(bool gzip) {
    reader_.note_input_error(gzip ? ks::TraceReader::InputError::kGzip : ks::TraceReader::InputError::kRead);
  }
  bool failed() const { return reader_.failed(); }
  std::string error() const { return reader_.error(); }
  std::string summaryJson() const { return ks::summary_json(reader_.model(), "", reader_.error()); }
  // Steps and the step-time breakdown (the JSON of `kinetoscope steps --json`).
  std::string stepBreakdownJson(bool tbPlugin) const { return ks::step_breakdown_json(breakdown(tbPlugin), ""); }
  // GPU metrics over the steps (the JSON of `kinetoscope gpus --json`).
  std::string gpuMetricsJson(bool tbPlugin) const { return ks::gpu_metrics_json(gpus(tbPlugin), ""); }
  // The Overview of `kinetoscope overview --json`: steps, average, GPU summary, recommendations.
  std::string overviewJson(bool tbPlugin) const {
    return ks::overview_json({reader_.model(), breakdown(tbPlugin), gpus(tbPlugin), tree(tbPlugin), tbPlugin}, "");
  }
  // The operator table ("op" or "op+shape"), as `kinetoscope operators --json [--step step]`
  // (step "": all steps).
  std::string operatorsJson(const std::string& groupBy, bool tbPlugin, const std::string& step) const {
    ks::OpGroupBy g;
    if (!ks::parse_op_group_by(groupBy, g)) return bad_group_by(groupBy);
    return in_step(tbPlugin, step, [&](const ks::StepFilter* s) {
      return ks::operator_table_json(ks::operator_table(tree(tbPlugin), reader_.model(), g, s), reader_.model());
    });
  }
  // One operator group's calls split by call stack (inputShape: the row's input_shape, or "").
  std::string operatorStacksJson(const std::string& groupBy, const std::string& name, const std::string& inputShape,
                                 bool tbPlugin, const std::string& step) const {
    ks::OpGroupBy g;
    if (!ks::parse_op_group_by(groupBy, g)) return bad_group_by(groupBy);
    return in_step(tbPlugin, step, [&](const ks::StepFilter* s) {
      return ks::operator_stacks_json(ks::operator_stacks(tree(tbPlugin), reader_.model(), g, name, inputShape, s),
                                      reader_.model());
    });
  }
  // One operator group's kernels and call stacks, as `kinetoscope operators --detail NAME --json`.
  std::string operatorDetailJson(const std::string& groupBy, const std::string& name, const std::string& inputShape,
                                 bool tbPlugin, const std::string& step) const {
    ks::OpGroupBy g;
    if (!ks::parse_op_group_by(groupBy, g)) return bad_group_by(groupBy);
    return in_step(tbPlugin, step, [&](const ks::StepFilter* s) {
      const ks::OpTree& t = tree(tbPlugin);
      return ks::operator_detail_json(ks::operator_kernels(t, reader_.model(), g, name, inputShape, s),
                                      ks::operator_stacks(t, reader_.model(), g, name, inputShape, s), reader_.model());
    });
  }
  // The kernel table ("name" or "props"), as `kinetoscope kernels --json [--step step]`.
  std::string kernelsJson(const std::string& groupBy, bool tbPlugin, const std::string& step) const {
    ks::KernelGroupBy g;
    if (!ks::parse_kernel_group_by(groupBy, g)) return bad_group_by(groupBy);
    return in_step(tbPlugin, step, [&](const ks::StepFilter* s) {
      return ks::kernel_table_json(ks::kernel_table(tree(tbPlugin), reader_.model(), g, s), reader_.model());
    });
  }
  // One kernel table row's detail, as `kinetoscope kernels --detail NAME --json`. A "props" row is
  // named by its operator and props = [grid x, y, z, block x, y, z, registers, shared memory]
  // (0 where the row has none); a "name" row ignores both.
  std::string kernelDetailJson(const std::string& groupBy, const std::string& name, const std::string& op,
                               const emscripten::val& props, bool tbPlugin, const std::string& step) const {
    ks::KernelKey key;
    if (!ks::parse_kernel_group_by(groupBy, key.group_by)) return bad_group_by(groupBy);
    key.name = name;
    if (key.group_by == ks::KernelGroupBy::kProps) {
      key.op = op;
      int32_t v[8] = {};
      const unsigned n = props.isArray() ? props["length"].as<unsigned>() : 0;
      for (unsigned i = 0; i < 8 && i < n; ++i) v[i] = props[i].as<int32_t>();
      key.grid = {{v[0], v[1], v[2]}};
      key.block = {{v[3], v[4], v[5]}};
      key.registers_per_thread = v[6];
      key.shared_memory = v[7];
    }
    return in_step(tbPlugin, step, [&](const ks::StepFilter* s) {
      return ks::kernel_detail_json(ks::kernel_detail(tree(tbPlugin), reader_.model(), key, s), key, reader_.model());
    });
  }
  // Whether the Module view has anything to show: {"modules": bool, "lightning": bool} (cheap).
  std::string modulePresenceJson() const {
    const ks::ModulePresence p = ks::module_presence(reader_.model());
    ks::JsonWriter w;
    w.begin_object().key("modules").value(p.modules).key("lightning").value(p.lightning).end_object();
    return w.take();
  }
  // The Module view's tables, as `kinetoscope modules --json`.
  std::string modulesJson(bool tbPlugin) const { return ks::module_view_json(modules(tbPlugin), ""); }
  // One thread's tree for the flame graph and the operator tree (tid "": the main thread).
  std::string moduleTreeJson(bool tbPlugin, const std::string& tid) const {
    return ks::module_tree_json(modules(tbPlugin), reader_.model(), tid);
  }
  // This trace's part of a run's Distributed view (the map step): its rank summary as JSON, for
  // reduceDistributedJson. `worker` and `span` name it in the run ("default" without a span).
  std::string distributedRankJson(const std::string& worker, const std::string& span, bool tbPlugin) const {
    return ks::rank_summary_json(ks::distributed_rank(reader_.model(), worker, span, tbPlugin));
  }
  double bytesRead() const { return static_cast<double>(reader_.model().bytes_read); }
  double eventCount() const { return static_cast<double>(reader_.model().event_count); }
  // One model table as {column name: typed array} (copies, so they survive memory growth).
  emscripten::val columns(const std::string& kind) const {
    emscripten::val out = emscripten::val::object();
    for (const ks::Column& c : ks::table_columns(reader_.model(), kind)) {
      switch (c.type) {
        case ks::Column::Type::kF64:
          out.set(c.name, emscripten::val::global("Float64Array").new_(emscripten::typed_memory_view(c.f64.size(), c.f64.data())));
          break;
        case ks::Column::Type::kI32:
          out.set(c.name, emscripten::val::global("Int32Array").new_(emscripten::typed_memory_view(c.i32.size(), c.i32.data())));
          break;
        case ks::Column::Type::kU32:
          out.set(c.name, emscripten::val::global("Uint32Array").new_(emscripten::typed_memory_view(c.u32.size(), c.u32.data())));
          break;
      }
    }
    return out;
  }
  // The string table from id `from` on (ids in u32 columns index it); call again for new ones.
  emscripten::val strings(double from) const {
    const ks::StringPool& sp = reader_.model().strings;
    emscripten::val out = emscripten::val::array();
    for (size_t i = static_cast<size_t>(from), k = 0; i < sp.size(); ++i, ++k) {
      const std::string_view s = sp.get(static_cast<ks::StringId>(i));
      out.set(k, emscripten::val(std::string(s)));  // std::string crosses as UTF-8
    }
    return out;
  }
  // Trace start in ns (column times are relative to it), split to stay exact in doubles.
  double startNsHigh() const { return static_cast<double>(reader_.model().start_ns / 1000000000); }
  double startNsLow() const { return static_cast<double>(reader_.model().start_ns % 1000000000); }
  double bufferCapacity() const { return static_cast<double>(reader_.buffer_capacity()); }

 private:
  // The steps feed every Overview number and cost a sort of all GPU work: found once per
  // reading of ProfilerStep (the model no longer changes after finish()).
  const ks::StepsResult& steps(bool tbPlugin) const {
    std::optional<ks::StepsResult>& cached = steps_[tbPlugin ? 1 : 0];
    if (!cached || !reader_.finished()) {
      ks::StepOptions options;
      options.tb_plugin_gpu_annotations = tbPlugin;
      cached = ks::find_steps(reader_.model(), options);
    }
    return *cached;
  }

  // The breakdown and GPU metrics feed both the Overview's first part and its summary JSON.
  const ks::StepBreakdown& breakdown(bool tbPlugin) const {
    std::optional<ks::StepBreakdown>& cached = breakdowns_[tbPlugin ? 1 : 0];
    if (!cached || !reader_.finished()) {
      ks::StepOptions options;
      options.tb_plugin_gpu_annotations = tbPlugin;
      cached = ks::step_breakdown(reader_.model(), steps(tbPlugin), options);
    }
    return *cached;
  }
  const ks::GpuMetricsResult& gpus(bool tbPlugin) const {
    std::optional<ks::GpuMetricsResult>& cached = gpus_[tbPlugin ? 1 : 0];
    if (!cached || !reader_.finished()) cached = ks::gpu_metrics(reader_.model(), steps(tbPlugin));
    return *cached;
  }

  // The operator trees feed the Operator and Kernel views and the Tensor Core numbers: built once.
  const ks::OpTree& tree(bool tbPlugin) const {
    std::optional<ks::OpTree>& cached = trees_[tbPlugin ? 1 : 0];
    if (!cached || !reader_.finished()) cached = ks::build_op_tree(reader_.model(), {tbPlugin});
    return *cached;
  }

  // The Module view builds its own trees (Lightning ranges, backward regrouping): once.
  const ks::ModuleView& modules(bool tbPlugin) const {
    std::optional<ks::ModuleView>& cached = modules_[tbPlugin ? 1 : 0];
    if (!cached || !reader_.finished()) cached = ks::module_view(reader_.model(), {tbPlugin});
    return *cached;
  }

  // Which step issued each operator and kernel: found once per tree, then any step is a filter.
  const ks::StepAttribution& attribution(bool tbPlugin) const {
    std::optional<ks::StepAttribution>& cached = attributions_[tbPlugin ? 1 : 0];
    if (!cached || !reader_.finished()) cached = ks::attribute_steps(tree(tbPlugin), reader_.model(), steps(tbPlugin));
    return *cached;
  }

  // f(filter of step `step`, or null for "": all steps); a step the trace lacks answers an error.
  template <class F>
  std::string in_step(bool tbPlugin, const std::string& step, F&& f) const {
    if (step.empty()) return f(nullptr);
    const std::optional<ks::StepFilter> filter = ks::step_filter(attribution(tbPlugin), steps(tbPlugin), step);
    if (!filter) return error_json(ks::unknown_step_message(steps(tbPlugin), step));
    return f(&*filter);
  }

  static std::string error_json(const std::string& message) {
    ks::JsonWriter w;
    w.begin_object().key("error").value(message).end_object();
    return w.take();
  }
  static std::string bad_group_by(const std::string& g) { return error_json("unknown group_by: " + g); }

  ks::TraceReader reader_;
  mutable std::optional<ks::StepsResult> steps_[2];
  mutable std::optional<ks::OpTree> trees_[2];
  mutable std::optional<ks::ModuleView> modules_[2];
  mutable std::optional<ks::StepAttribution> attributions_[2];
  mutable std::optional<ks::StepBreakdown> breakdowns_[2];
  mutable std::optional<ks::GpuMetricsResult> gpus_[2];
};

// A time window of a trace as a smaller, valid trace (for the timeline). The window is given in
// absolute µs (the steps' start_us/end_us) and rounded outward to whole µs.
class Trimmer {
 public:
  Trimmer(double start_us, double end_us)
      : trimmer_(static_cast<int64_t>(std::floor(start_us)) * 1000, static_cast<int64_t>(std::ceil(end_us)) * 1000) {}
  double prepare(double n) { return static_cast<double>(reinterpret_cast<uintptr_t>(trimmer_.prepare(static_cast<size_t>(n)))); }
  void commit(double n) { trimmer_.commit(static_cast<size_t>(n)); }
  void inputError(bool gzip) { trimmer_.note_input_error(gzip); }
  void finish() { trimmer_.finish(); }
  bool failed() const { return trimmer_.failed(); }
  std::string error() const { return trimmer_.error(); }
  double keptEvents() const { return static_cast<double>(trimmer_.kept_events()); }
  double totalEvents() const { return static_cast<double>(trimmer_.total_events()); }
  // The trimmed trace as a Uint8Array (a copy: it survives memory growth and delete()).
  emscripten::val output() const {
    const std::string& out = trimmer_.output();
    return emscripten::val::global("Uint8Array").new_(
        emscripten::typed_memory_view(out.size(), reinterpret_cast<const uint8_t*>(out.data())));
  }

 private:
  ks::TraceTrimmer trimmer_;
};

// The reduce step of the Distributed view: the rank summaries of a run's traces (JSON texts from
// Session.distributedRankJson) to the view, one JSON object per span and line, as `kinetoscope
// distributed --json` prints it. A text that is not a rank summary answers {"error": ...}.
std::string reduceDistributedJson(const emscripten::val& summaries, bool tbPlugin) {
  std::vector<ks::RankSummary> ranks;
  const unsigned n = summaries.isArray() ? summaries["length"].as<unsigned>() : 0;
  for (unsigned i = 0; i < n; ++i) {
    ks::RankSummary r;
    std::string error;
    if (!ks::parse_rank_summary(summaries[i].as<std::string>(), r, error)) {
      ks::JsonWriter w;
      w.begin_object().key("error").value("rank summary " + std::to_string(i + 1) + ": " + error).end_object();
      return w.take() + "\n";
    }
    ranks.push_back(std::move(r));
  }
  return ks::distributed_json(ranks, tbPlugin);
}

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::function("reduceDistributedJson", &reduceDistributedJson);

  emscripten::class_<Trimmer>("Trimmer")
      .constructor<double, double>()
      .function("prepare", &Trimmer::prepare)
      .function("commit", &Trimmer::commit)
      .function("inputError", &Trimmer::inputError)
      .function("finish", &Trimmer::finish)
      .function("failed", &Trimmer::failed)
      .function("error", &Trimmer::error)
      .function("keptEvents", &Trimmer::keptEvents)
      .function("totalEvents", &Trimmer::totalEvents)
      .function("output", &Trimmer::output);

  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("prepare", &Session::prepare)
      .function("commit", &Session::commit)
      .function("finish", &Session::finish)
      .function("inputError", &Session::inputError)
      .function("failed", &Session::failed)
      .function("error", &Session::error)
      .function("summaryJson", &Session::summaryJson)
      .function("stepBreakdownJson", &Session::stepBreakdownJson)
      .function("gpuMetricsJson", &Session::gpuMetricsJson)
      .function("overviewJson", &Session::overviewJson)
      .function("operatorsJson", &Session::operatorsJson)
      .function("operatorStacksJson", &Session::operatorStacksJson)
      .function("operatorDetailJson", &Session::operatorDetailJson)
      .function("kernelsJson", &Session::kernelsJson)
      .function("kernelDetailJson", &Session::kernelDetailJson)
      .function("modulePresenceJson", &Session::modulePresenceJson)
      .function("modulesJson", &Session::modulesJson)
      .function("moduleTreeJson", &Session::moduleTreeJson)
      .function("distributedRankJson", &Session::distributedRankJson)
      .function("bytesRead", &Session::bytesRead)
      .function("eventCount", &Session::eventCount)
      .function("columns", &Session::columns)
      .function("strings", &Session::strings)
      .function("startNsHigh", &Session::startNsHigh)
      .function("startNsLow", &Session::startNsLow)
      .function("bufferCapacity", &Session::bufferCapacity);
}
