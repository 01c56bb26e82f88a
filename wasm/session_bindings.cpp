// The Embind layer: a Session wraps one ks::Session (core/session/session.h: the trace, its
// analysis graph and caches). Only conversion lives here; the worker copies chunk bytes straight
// into the reader's buffer (prepare returns a heap offset). Views on the one answer shape are
// query(view, params); the others still have a call of their own each, until they move there.
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/analysis/distributed.h"
#include "core/analysis/diff.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/heap_stats.h"
#include "core/analysis/kernels.h"
#include "core/analysis/modules.h"
#include "core/analysis/memory.h"
#include "core/analysis/operators.h"
#include "core/analysis/overview.h"
#include "core/analysis/ranges.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/step_scope.h"
#include "core/analysis/summary.h"
#include "core/session/session.h"
#include "core/trace/model_columns.h"
#include "core/util/json_writer.h"
#include "core/trace/model_merge.h"
#include "core/trace/trace_reader.h"
#include "core/trace/trace_trimmer.h"
#include "core/util/heartbeat.h"

namespace {

class Session {
 public:
  Session() = default;
  // tbPlugin: link and count as tb_plugin does (docs/compatibility.md), for the Session's life.
  explicit Session(bool tbPlugin) : s_(ks::SessionOptions{tbPlugin}) {}
  // Heap offset where n bytes may be written (HEAPU8 may have grown: re-read it).
  double prepare(double n) { return static_cast<double>(reinterpret_cast<uintptr_t>(s_.reader().prepare(static_cast<size_t>(n)))); }
  void commit(double n) { s_.reader().commit(static_cast<size_t>(n)); }
  void finish() { s_.reader().finish(); }
  // The stream around the JSON failed part-way (gzip corrupt or cut off, or a read error).
  void inputError(bool gzip) {
    s_.reader().note_input_error(gzip ? ks::TraceReader::InputError::kGzip : ks::TraceReader::InputError::kRead);
  }
  bool failed() const { return s_.reader().failed(); }
  std::string error() const { return s_.reader().error(); }

  // One file, several workers (core/trace/model_merge.h; docs/contracts.md "One file, several
  // workers"): a later range's Session starts at a split; the earlier one stops at the first
  // split it confirms; the later one's partial model crosses as pieces merged into the earlier.
  void startAt(double offset, bool rootIsArray) { s_.reader().start_at(uint64_t(offset), rootIsArray); }
  void stopAt(const emscripten::val& offsets) {
    std::vector<uint64_t> v;
    const unsigned n = offsets.isArray() ? offsets["length"].as<unsigned>() : 0;
    for (unsigned i = 0; i < n; ++i) v.push_back(uint64_t(offsets[i].as<double>()));
    s_.reader().stop_at(std::move(v));
  }
  bool stopped() const { return s_.reader().stopped(); }
  double coveredEnd() const { return double(s_.reader().covered_end()); }
  void readOn() { s_.reader().read_on(); }
  // A finished partial Session's next piece, a Uint8Array copy; null once all were given.
  emscripten::val nextPiece(double maxBytes) {
    if (!writer_) writer_ = std::make_unique<ks::PartialWriter>(s_.reader());
    if (!writer_->next(piece_, size_t(maxBytes))) return emscripten::val::null();
    return emscripten::val::global("Uint8Array").new_(
        emscripten::typed_memory_view(piece_.size(), reinterpret_cast<const uint8_t*>(piece_.data())));
  }
  // Merging a piece: its bytes at mergePrepare(n)'s heap offset, then mergeCommit(n) answers
  // "merging" | "done" | "refused" (nothing changed: readOn) | "broken" (read the file again).
  double mergePrepare(double n) {
    piece_.resize(size_t(n));
    return static_cast<double>(reinterpret_cast<uintptr_t>(piece_.data()));
  }
  std::string mergeCommit(double n) {
    if (!merger_) merger_ = std::make_unique<ks::PartialMerger>(s_.reader());
    const bool ok = merger_->add(piece_.data(), std::min(size_t(n), piece_.size()));
    const std::string state = merger_->done() ? "done" : merger_->refused() ? "refused" : ok ? "merging" : "broken";
    if (merger_->done() || !ok) merger_.reset();  // the next range gets a merger of its own
    std::string().swap(piece_);
    return state;
  }

  std::string summaryJson() const { return ks::summary_json(s_.model(), "", s_.reader().error()); }
  // Steps and the step-time breakdown (the JSON of `kinetoscope steps --json`).
  std::string stepBreakdownJson() const { return ks::step_breakdown_json(s_.breakdown(), ""); }
  // GPU metrics over the steps (the JSON of `kinetoscope gpus --json`).
  std::string gpuMetricsJson() const { return ks::gpu_metrics_json(s_.gpus(), ""); }
  // The GPU summary of one step ("": all steps), as `kinetoscope gpus --step N --json`: the step's
  // window and the kernels it issued (overview.h gpu_summary_json).
  std::string gpuSummaryJson(const std::string& step) const {
    if (step.empty()) return ks::gpu_summary_json(s_.model(), s_.gpus(), nullptr, s_.tb_plugin(), "");
    return in_step(step, [&](const ks::StepFilter* s) {
      return ks::gpu_summary_json(s_.model(), ks::gpu_metrics(s_.model(), ks::chosen_steps(s_.steps(), *s)), s,
                                  s_.tb_plugin(), "");
    });
  }
  // The Overview of `kinetoscope overview --json`: steps, average, GPU summary, recommendations.
  std::string overviewJson() const {
    const ks::OverviewInputs in = s_.overview_inputs();
    s_.report(ks::overview_phase_name(ks::OverviewPhase::kRecommendations), int(ks::OverviewPhase::kRecommendations),
              ks::kOverviewPhaseCount);
    return ks::overview_json(in, "");
  }
  // Progress of what is computed after reading (issue 12): fn(phase, index, count) is called
  // before each part is built, the Overview's as index 1..count of ks::OverviewPhase, the parts
  // only other views need (module trees, memory index, step attribution) with index 0, count 0.
  // A part already built is not reported again. The worker posts each report to the page, where
  // it is the card's progress and the watchdog's sign of life. undefined: no reports.
  void setProgress(emscripten::val fn) {
    progress_ = std::move(fn);
    if (progress_.isUndefined()) s_.set_progress(nullptr);
    else s_.set_progress([this](std::string_view part, int index, int count) { progress_(std::string(part), index, count); });
  }
  // Test hook (docs/contracts.md, "Failure paths and their test hooks"): fails the way the core
  // fails for real, so that the page's handling of it can be tested. "abort": abort(), which
  // Emscripten turns into a RuntimeError "Aborted()"; "oom": allocates (untouched) 256 MB blocks
  // until the heap cannot grow any more, which ends as a real out-of-memory does. The worker
  // calls it only when the page was opened for a failure test.
  void debugFault(const std::string& kind) const {
    if (kind == "abort") std::abort();
    if (kind == "oom") {
      for (;;) {
        void* p = ::operator new(size_t(256) << 20);
        static_cast<volatile char*>(p)[0] = 1;  // used, so the allocation is not optimized away
      }
    }
  }
  // A view's answer (core/session/views.h; docs/contracts.md "Session and answers"), for the
  // worker to transfer as it is: {view, rowCount, columns: {name: typed array (a copy)}, absent:
  // [column names without values], stringBytes: Uint8Array (the answer's strings in UTF-8, each
  // followed by a 0 byte), stringEnds: Uint32Array (where each 0 is), stringCount, meta: JSON text of the small metadata object, error: ""
  // or one sentence}. `params`: an object of strings ({group_by: "op", step: "2"}).
  emscripten::val query(const std::string& view, const emscripten::val& params) const {
    const ks::Answer a = s_.query(view, to_params(params));
    emscripten::val out = emscripten::val::object();
    out.set("view", view);
    out.set("error", a.error);
    out.set("rowCount", double(a.error.empty() ? a.rows : 0));
    emscripten::val columns = emscripten::val::object(), absent = emscripten::val::array();
    unsigned absent_count = 0;
    for (const ks::AnswerColumn& c : a.columns) {
      const std::string name(c.spec->name);
      if (!c.present) absent.set(absent_count++, name);
      const std::string array(ks::column_type_array(c.spec->type));
      switch (c.spec->type) {
        case ks::ColumnType::kF64:
        case ks::ColumnType::kCount: columns.set(name, typed(array, c.f64)); break;
        case ks::ColumnType::kI32:
        case ks::ColumnType::kI32x3: columns.set(name, typed(array, c.i32)); break;
        case ks::ColumnType::kString: columns.set(name, typed(array, c.str)); break;
        case ks::ColumnType::kTri:
        case ks::ColumnType::kBool: columns.set(name, typed(array, c.u8)); break;
      }
    }
    out.set("columns", columns);
    out.set("absent", absent);
    std::string bytes;
    std::vector<uint32_t> ends;
    ends.reserve(a.strings.size());
    for (const std::string& str : a.strings) {
      bytes.append(str).push_back('\0');
      ends.push_back(uint32_t(bytes.size() - 1));
    }
    out.set("stringEnds", typed("Uint32Array", ends));
    out.set("stringBytes", emscripten::val::global("Uint8Array").new_(
                               emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()))));
    out.set("stringCount", double(a.strings.size()));
    std::string meta = "{";
    for (const auto& [key, value] : a.meta) {
      if (meta.size() > 1) meta += ',';
      ks::append_json_escaped(meta, key);
      meta += ':' + value;
    }
    out.set("meta", meta + "}");
    return out;
  }
  // The same answer as the CLI's --json text (tests compare the two).
  std::string queryJson(const std::string& view, const emscripten::val& params) const {
    return ks::answer_json(s_.query(view, to_params(params)));
  }
  // One operator group's calls split by call stack (inputShape: the row's input_shape, or "").
  std::string operatorStacksJson(const std::string& groupBy, const std::string& name, const std::string& inputShape,
                                 const std::string& step) const {
    ks::OpGroupBy g;
    if (!ks::parse_op_group_by(groupBy, g)) return bad_group_by(groupBy);
    return in_step(step, [&](const ks::StepFilter* s) {
      return ks::operator_stacks_json(ks::operator_stacks(s_.tree(), s_.model(), g, name, inputShape, s));
    });
  }
  // One operator group's kernels and call stacks, as `kinetoscope operators --detail NAME --json`.
  std::string operatorDetailJson(const std::string& groupBy, const std::string& name, const std::string& inputShape,
                                 const std::string& step) const {
    ks::OpGroupBy g;
    if (!ks::parse_op_group_by(groupBy, g)) return bad_group_by(groupBy);
    return in_step(step, [&](const ks::StepFilter* s) {
      const ks::OpTree& t = s_.tree();
      return ks::operator_detail_json(ks::operator_kernels(t, s_.model(), g, name, inputShape, s),
                                      ks::operator_stacks(t, s_.model(), g, name, inputShape, s),
                                      ks::operator_stackless_calls(t, s_.model(), g, name, inputShape, s), t, s_.model());
    });
  }
  // One kernel table row's detail, as `kinetoscope kernels --detail NAME --json`. A "props" row is
  // named by its operator and props = [grid x, y, z, block x, y, z, registers, shared memory]
  // (0 where the row has none); a "name" row ignores both.
  std::string kernelDetailJson(const std::string& groupBy, const std::string& name, const std::string& op,
                               const emscripten::val& props, const std::string& step) const {
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
    return in_step(step, [&](const ks::StepFilter* s) {
      return ks::kernel_detail_json(ks::kernel_detail(s_.tree(), s_.model(), key, s), key, s_.model());
    });
  }
  // The Diff view with this trace as the baseline and `experiment` (another Session of the same
  // worker) as the experiment, as `kinetoscope diff --json` with the names given.
  std::string diffJson(const Session& experiment, const std::string& baselineName,
                       const std::string& experimentName) const {
    const ks::DiffResult d = ks::diff_trees(s_.diff_tree(), s_.model(), experiment.s_.diff_tree(),
                                            experiment.s_.model(), s_.tb_plugin());
    return ks::diff_json(d, baselineName, experimentName);
  }
  // Whether the Module view has anything to show: {"modules": bool, "lightning": bool} (cheap).
  std::string modulePresenceJson() const {
    const ks::ModulePresence p = ks::module_presence(s_.model());
    ks::JsonWriter w;
    w.begin_object().key("modules").value(p.modules).key("lightning").value(p.lightning).end_object();
    return w.take();
  }
  // The Module view's tables, as `kinetoscope modules --json`.
  std::string modulesJson() const { return ks::module_view_json(s_.modules(), ""); }
  // One thread's tree for the flame graph and the operator tree (tid "": the main thread).
  std::string moduleTreeJson(const std::string& tid) const {
    return ks::module_tree_json(s_.modules(), s_.model(), tid);
  }
  // The kernels launched in one Ranges row (its key), as `kinetoscope ranges --detail KEY --json`.
  std::string rangeKernelsJson(const std::string& key) const {
    bool found = false;
    const std::vector<ks::RangeKernel> k = ks::range_kernels(s_.tree(), s_.model(), key, found);
    if (!found) return error_json("no range " + key);
    return ks::range_kernels_json(k, key, "");
  }
  // This trace's part of a run's Distributed view (the map step): its rank summary as JSON, for
  // reduceDistributedJson. `worker` and `span` name it in the run ("default" without a span).
  std::string distributedRankJson(const std::string& worker, const std::string& span) const {
    return ks::rank_summary_json(ks::distributed_rank(s_.model(), worker, span, s_.tb_plugin()));
  }
  // Bytes the memory index holds (for the benchmark), building it if needed.
  double memoryIndexBytes() const { return static_cast<double>(ks::memory_index_bytes(s_.memory())); }
  double bytesRead() const { return static_cast<double>(s_.model().bytes_read); }
  double eventCount() const { return static_cast<double>(s_.model().event_count); }
  // One model table as {column name: typed array} (copies, so they survive memory growth).
  emscripten::val columns(const std::string& kind) const {
    emscripten::val out = emscripten::val::object();
    for (const ks::Column& c : ks::table_columns(s_.model(), kind)) {
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
    const ks::StringPool& sp = s_.model().strings;
    emscripten::val out = emscripten::val::array();
    for (size_t i = static_cast<size_t>(from), k = 0; i < sp.size(); ++i, ++k) {
      const std::string_view s = sp.get(static_cast<ks::StringId>(i));
      out.set(k, emscripten::val(std::string(s)));  // std::string crosses as UTF-8
    }
    return out;
  }
  // Trace start in ns (column times are relative to it), split to stay exact in doubles.
  double startNsHigh() const { return static_cast<double>(s_.model().start_ns / 1000000000); }
  double startNsLow() const { return static_cast<double>(s_.model().start_ns % 1000000000); }
  double bufferCapacity() const { return static_cast<double>(s_.reader().buffer_capacity()); }
  // Where the heap goes (for scripts/bench-wasm-node.cjs): model tables, strings, the trees built
  // so far ([default, tb_plugin]; null: not built), and the allocator's bytes in use.
  std::string heapStatsJson() const {
    const ks::OpTree* trees[2] = {s_.tb_plugin() ? nullptr : s_.tree_if_built(), s_.tb_plugin() ? s_.tree_if_built() : nullptr};
    return ks::heap_stats_json(s_.model(), trees, 2);
  }

 private:
  // f(filter of step `step`, or null for "": all steps); a step the trace lacks answers an error.
  template <class F>
  std::string in_step(const std::string& step, F&& f) const {
    std::optional<ks::StepFilter> filter;
    std::string error;
    if (!s_.step_filter(step, filter, error)) return error_json(error);
    return f(filter ? &*filter : nullptr);
  }

  template <class T>
  static emscripten::val typed(const std::string& array, const std::vector<T>& v) {
    return emscripten::val::global(array.c_str()).new_(emscripten::typed_memory_view(v.size(), v.data()));
  }
  static ks::QueryParams to_params(const emscripten::val& params) {
    ks::QueryParams out;
    if (params.isNull() || params.isUndefined() || params.typeOf().as<std::string>() != "object") return out;
    const emscripten::val keys = emscripten::val::global("Object").call<emscripten::val>("keys", params);
    const unsigned n = keys["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const std::string k = keys[i].as<std::string>();
      const emscripten::val v = params[k];
      if (v.isString()) out[k] = v.as<std::string>();
    }
    return out;
  }

  static std::string error_json(const std::string& message) {
    ks::JsonWriter w;
    w.begin_object().key("error").value(message).end_object();
    return w.take();
  }
  static std::string bad_group_by(const std::string& g) { return error_json("unknown group_by: " + g); }

  ks::Session s_;
  std::unique_ptr<ks::PartialWriter> writer_;
  std::unique_ptr<ks::PartialMerger> merger_;
  std::string piece_;
  emscripten::val progress_ = emscripten::val::undefined();
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

// The core's heartbeat (core/util/heartbeat.h) from inside its long loops calls `fn` (the worker
// posts it as the running call's sign of life for the page's watchdog). undefined: none.
emscripten::val& heartbeat_fn() {
  static emscripten::val fn = emscripten::val::undefined();
  return fn;
}
void setHeartbeat(emscripten::val fn) {
  heartbeat_fn() = std::move(fn);
  if (heartbeat_fn().isUndefined()) ks::set_heartbeat(nullptr, nullptr);
  else ks::set_heartbeat([](void*) { heartbeat_fn()(); }, nullptr);
}

// A split proposed in a window of the file's bytes (its index in the window, -1: none), and the
// root kind of its first bytes (1 '[', 0 '{', -1 neither): model_merge.h.
double proposeSplit(const std::string& window) {
  const size_t at = ks::propose_split(window.data(), window.size());
  return at == SIZE_MAX ? -1 : double(at);
}
int rootIsArray(const std::string& head) { return ks::root_is_array(head.data(), head.size()); }

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::function("reduceDistributedJson", &reduceDistributedJson);
  emscripten::function("setHeartbeat", &setHeartbeat);
  emscripten::function("proposeSplit", &proposeSplit);
  emscripten::function("rootIsArray", &rootIsArray);

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
      .constructor<bool>()
      .function("prepare", &Session::prepare)
      .function("commit", &Session::commit)
      .function("finish", &Session::finish)
      .function("inputError", &Session::inputError)
      .function("failed", &Session::failed)
      .function("startAt", &Session::startAt)
      .function("stopAt", &Session::stopAt)
      .function("stopped", &Session::stopped)
      .function("coveredEnd", &Session::coveredEnd)
      .function("readOn", &Session::readOn)
      .function("nextPiece", &Session::nextPiece)
      .function("mergePrepare", &Session::mergePrepare)
      .function("mergeCommit", &Session::mergeCommit)
      .function("error", &Session::error)
      .function("summaryJson", &Session::summaryJson)
      .function("stepBreakdownJson", &Session::stepBreakdownJson)
      .function("gpuMetricsJson", &Session::gpuMetricsJson)
      .function("gpuSummaryJson", &Session::gpuSummaryJson)
      .function("overviewJson", &Session::overviewJson)
      .function("query", &Session::query)
      .function("queryJson", &Session::queryJson)
      .function("operatorStacksJson", &Session::operatorStacksJson)
      .function("operatorDetailJson", &Session::operatorDetailJson)
      .function("kernelDetailJson", &Session::kernelDetailJson)
      .function("modulePresenceJson", &Session::modulePresenceJson)
      .function("modulesJson", &Session::modulesJson)
      .function("moduleTreeJson", &Session::moduleTreeJson)
      .function("rangeKernelsJson", &Session::rangeKernelsJson)
      .function("distributedRankJson", &Session::distributedRankJson)
      .function("memoryIndexBytes", &Session::memoryIndexBytes)
      .function("diffJson", &Session::diffJson)
      .function("bytesRead", &Session::bytesRead)
      .function("eventCount", &Session::eventCount)
      .function("columns", &Session::columns)
      .function("strings", &Session::strings)
      .function("startNsHigh", &Session::startNsHigh)
      .function("startNsLow", &Session::startNsLow)
      .function("bufferCapacity", &Session::bufferCapacity)
      .function("heapStatsJson", &Session::heapStatsJson)
      .function("setProgress", &Session::setProgress)
      .function("debugFault", &Session::debugFault);
}
