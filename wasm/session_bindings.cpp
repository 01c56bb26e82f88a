// The Embind layer: a Session wraps one ks::Session (core/session/session.h: the trace, its
// analysis graph and caches). Only conversion lives here; the worker copies chunk bytes straight
// into the reader's buffer (prepare returns a heap offset). Views on the one answer shape are
// query(view, params), a view of two traces (the Diff view) query(view, params, otherSession);
// the others still have a call of their own each, until they move there.
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
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/heap_stats.h"
#include "core/analysis/memory.h"
#include "core/analysis/overview.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/operators.h"
#include "core/analysis/ranges.h"
#include "core/analysis/step_scope.h"
#include "core/session/session.h"
#include "core/session/snapshot_session.h"
#include "core/session/views.h"
#include "core/trace/model_columns.h"
#include "core/util/json_writer.h"
#include "core/trace/model_merge.h"
#include "core/trace/trace_reader.h"
#include "core/trace/trace_trimmer.h"
#include "core/util/heartbeat.h"

namespace {

// An answer as the worker transfers it: {view, rowCount, columns: {name: typed array (a copy)},
// ends: {name: Uint32Array} (where each row's pairs end, for f64pairs columns), absent: [column
// names without values], stringBytes: Uint8Array (the answer's strings in UTF-8, each followed by
// a 0 byte), stringEnds: Uint32Array (where each 0 is), stringCount, meta: JSON text of the small
// metadata object, error: "" or one sentence}.
template <class T>
emscripten::val typed(const std::string& array, const std::vector<T>& v) {
  return emscripten::val::global(array.c_str()).new_(emscripten::typed_memory_view(v.size(), v.data()));
}

emscripten::val answer_to_js(const std::string& view, const ks::Answer& a) {
  emscripten::val out = emscripten::val::object();
  out.set("view", view);
  out.set("error", a.error);
  out.set("rowCount", double(a.error.empty() ? a.rows : 0));
  emscripten::val columns = emscripten::val::object(), ends = emscripten::val::object(), absent = emscripten::val::array();
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
      case ks::ColumnType::kF64Pairs:
        columns.set(name, typed(array, c.f64));
        ends.set(name, typed("Uint32Array", c.ends));
        break;
    }
  }
  out.set("columns", columns);
  out.set("ends", ends);
  out.set("absent", absent);
  std::string bytes;
  std::vector<uint32_t> string_ends;
  string_ends.reserve(a.strings.size());
  for (const std::string& str : a.strings) {
    bytes.append(str).push_back('\0');
    string_ends.push_back(uint32_t(bytes.size() - 1));
  }
  out.set("stringEnds", typed("Uint32Array", string_ends));
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
  // worker to transfer as it is (answer_to_js). `params`: an object of strings ({group_by: "op",
  // step: "2"}).
  emscripten::val query(const std::string& view, const emscripten::val& params) const {
    return answer_to_js(view, s_.query(view, to_params(params)));
  }
  // A view of two traces (the Diff view: this Session the baseline, `other`, another Session of
  // this module, the experiment): query with a third argument (Embind tells the two by arity).
  emscripten::val query(const std::string& view, const emscripten::val& params, const Session& other) const {
    return answer_to_js(view, s_.query(view, to_params(params), other.s_));
  }
  // The answer in its binary form (core/session/answer.h answer_bytes), a Uint8Array copy: for an
  // answer that goes back into the core, as a rank summary into the run's reduce.
  emscripten::val queryBytes(const std::string& view, const emscripten::val& params) const {
    const std::string bytes = ks::answer_bytes(s_.query(view, to_params(params)));
    return emscripten::val::global("Uint8Array").new_(
        emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
  }
  // The same answer as the CLI's --json text (tests compare the two).
  std::string queryJson(const std::string& view, const emscripten::val& params) const {
    return ks::answer_json(s_.query(view, to_params(params)));
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
  // What it kept and dropped (after finish()): the trim view's answer, as Session.query gives one.
  emscripten::val report() const { return answer_to_js("trim", ks::trim_report_answer(trimmer_)); }
  // The trimmed trace as a Uint8Array (a copy: it survives memory growth and delete()).
  emscripten::val output() const {
    const std::string& out = trimmer_.output();
    return emscripten::val::global("Uint8Array").new_(
        emscripten::typed_memory_view(out.size(), reinterpret_cast<const uint8_t*>(out.data())));
  }

 private:
  ks::TraceTrimmer trimmer_;
};

// A CUDA allocator snapshot (a pickle; core/session/snapshot_session.h), fed as a Session is:
// prepare(n) gives a heap offset for n bytes, commit(n) reads them; its views are query(view,
// params) answers (the snapshot-* views of core/session/views.h).
class SnapshotSession {
 public:
  SnapshotSession() = default;
  void setFile(const std::string& name) { s_.set_file(name); }
  void setTotalSize(double bytes) { s_.reader().set_total_size(uint64_t(bytes)); }
  double prepare(double n) {
    buffer_.resize(size_t(n));
    return static_cast<double>(reinterpret_cast<uintptr_t>(buffer_.data()));
  }
  void commit(double n) { s_.reader().feed(buffer_.data(), std::min(size_t(n), buffer_.size())); }
  void inputError(bool gzip) { s_.note_input_error(gzip); }
  void finish() {
    s_.reader().finish();
    finished_ = true;
    std::vector<char>().swap(buffer_);
  }
  // While reading: nothing more can be loaded (the feeder stops); once finished: nothing was.
  bool failed() const { return finished_ ? s_.failed() : s_.reader().stopped(); }
  std::string error() const { return s_.reader().error(); }
  double bytesRead() const { return double(s_.reader().bytes_read()); }
  // The same run's export_memory_timeline JSON, paired: "" or the sentence of what is wrong.
  std::string setMemoryTimeline(const std::string& name, const std::string& json) { return s_.set_memory_timeline(name, json); }
  emscripten::val query(const std::string& view, const emscripten::val& params) const {
    return answer_to_js(view, s_.query(view, to_params(params)));
  }
  // The same answer as the CLI's --json text would print it (tests compare the two).
  std::string queryJson(const std::string& view, const emscripten::val& params) const {
    return ks::answer_json(s_.query(view, to_params(params)));
  }

 private:
  static ks::QueryParams to_params(const emscripten::val& params) {
    ks::QueryParams out;
    if (params.isNull() || params.isUndefined() || params.typeOf().as<std::string>() != "object") return out;
    const emscripten::val keys = emscripten::val::global("Object").call<emscripten::val>("keys", params);
    const unsigned n = keys["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const std::string k = keys[i].as<std::string>();
      if (params[k].isString()) out[k] = params[k].as<std::string>();
    }
    return out;
  }
  ks::SnapshotSession s_;
  std::vector<char> buffer_;
  bool finished_ = false;
};

// The reduce step of the Distributed view: the rank summaries of a run's traces (Uint8Arrays
// from Session.queryBytes('distributed_rank', ...)) to {error: "" or one sentence, spans: [{workers,
// commops, stragglers, collectives, gpu_time}]}, each a view's answer as Session.query gives it.
emscripten::val reduceDistributed(const emscripten::val& summaries, bool tbPlugin) {
  std::vector<std::string> bytes;
  const unsigned n = summaries.isArray() ? summaries["length"].as<unsigned>() : 0;
  for (unsigned i = 0; i < n; ++i) {
    const emscripten::val b = summaries[i];
    std::string& out = bytes.emplace_back(b.isUndefined() || b.isNull() ? 0 : b["byteLength"].as<size_t>(), '\0');
    if (!out.empty())
      emscripten::val(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(out.data()))).call<void>("set", b);
  }
  const ks::DistributedRunAnswers run = ks::distributed_run_answers(std::vector<std::string_view>(bytes.begin(), bytes.end()), tbPlugin);
  emscripten::val out = emscripten::val::object(), spans = emscripten::val::array();
  out.set("error", run.error);
  for (size_t i = 0; i < run.spans.size(); ++i) {
    const ks::DistributedSpanAnswers& s = run.spans[i];
    emscripten::val span = emscripten::val::object();
    span.set("workers", answer_to_js("distributed", s.workers));
    span.set("commops", answer_to_js("distributed_commops", s.commops));
    span.set("stragglers", answer_to_js("distributed_stragglers", s.stragglers));
    span.set("collectives", answer_to_js("distributed_collectives", s.collectives));
    span.set("gpu_time", answer_to_js("distributed_gpu_time", s.gpu_time));
    spans.set(unsigned(i), span);
  }
  out.set("spans", spans);
  return out;
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

// The split plan (model_merge.h nominal_splits / choose_splits): offsets as numbers, exact to 2^53.
emscripten::val offsets_array(const std::vector<uint64_t>& v) {
  emscripten::val out = emscripten::val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(unsigned(i), double(v[i]));
  return out;
}
emscripten::val nominalSplits(double size, int ranges) { return offsets_array(ks::nominal_splits(uint64_t(size), ranges)); }
emscripten::val chooseSplits(const emscripten::val& nominal, const emscripten::val& found, double size) {
  std::vector<uint64_t> n;
  std::vector<int64_t> f;
  const unsigned count = nominal.isArray() ? nominal["length"].as<unsigned>() : 0;
  const unsigned have = found.isArray() ? found["length"].as<unsigned>() : 0;
  for (unsigned i = 0; i < count; ++i) {
    n.push_back(uint64_t(nominal[i].as<double>()));
    f.push_back(i < have && !found[i].isNull() && !found[i].isUndefined() ? int64_t(found[i].as<double>()) : -1);
  }
  return offsets_array(ks::choose_splits(n, f, uint64_t(size)));
}

// The split read's merge order (model_merge.h RangeMerge), driven by the page's first worker
// (web/src/worker/split-read.ts mergeRanges): actions and piece states as the strings the page
// uses, offsets as numbers (exact to 2^53), the outcome as the page's MergeOutcome.
class RangeMerge {
 public:
  explicit RangeMerge(const emscripten::val& splits) : m_(offsets_of(splits)) {}
  std::string at(bool stopped, double coveredEnd) { return name(m_.at(stopped, offset(coveredEnd))); }
  // A state mergeCommit never answers is taken as a piece that did not merge.
  std::string piece(const std::string& state, bool stopped, double coveredEnd) {
    const ks::PieceState s = state == "merging" ? ks::PieceState::kMerging
                             : state == "done"  ? ks::PieceState::kDone
                             : state == "refused" ? ks::PieceState::kRefused
                                                  : ks::PieceState::kBroken;
    return name(m_.piece(s, stopped, offset(coveredEnd)));
  }
  std::string ended() { return name(m_.ended()); }
  std::string lost(const std::string& why) { return name(m_.lost(why)); }
  std::string noSource() { return name(m_.no_source()); }
  int range() const { return m_.range(); }
  double from() const { return double(m_.from()); }
  emscripten::val outcome() const {
    emscripten::val out = emscripten::val::object();
    out.set("merged", m_.merged());
    out.set("readOn", m_.read_on());
    out.set("broken", m_.broken());
    out.set("reason", m_.reason().empty() ? emscripten::val::null() : emscripten::val(m_.reason()));
    return out;
  }

 private:
  // NaN and negatives as 0, past 2^64 as its last byte: never an undefined conversion.
  static uint64_t offset(double d) { return d > 0 ? d < 18446744073709551615.0 ? uint64_t(d) : UINT64_MAX : 0; }
  static std::vector<uint64_t> offsets_of(const emscripten::val& v) {
    std::vector<uint64_t> out;
    const unsigned n = v.isArray() ? v["length"].as<unsigned>() : 0;
    for (unsigned i = 0; i < n; ++i) out.push_back(offset(v[i].as<double>()));
    return out;
  }
  static std::string name(ks::MergeAction a) {
    switch (a) {
      case ks::MergeAction::kAskPiece: return "ask";
      case ks::MergeAction::kReadOn: return "readOn";
      case ks::MergeAction::kReadAgain: return "readAgain";
      case ks::MergeAction::kFinished: break;
    }
    return "finished";
  }
  ks::RangeMerge m_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(kinetoscope) {
  emscripten::function("reduceDistributed", &reduceDistributed);
  emscripten::function("setHeartbeat", &setHeartbeat);
  emscripten::function("proposeSplit", &proposeSplit);
  emscripten::function("rootIsArray", &rootIsArray);
  emscripten::function("nominalSplits", &nominalSplits);
  emscripten::function("chooseSplits", &chooseSplits);

  emscripten::class_<RangeMerge>("RangeMerge")
      .constructor<const emscripten::val&>()
      .function("at", &RangeMerge::at)
      .function("piece", &RangeMerge::piece)
      .function("ended", &RangeMerge::ended)
      .function("lost", &RangeMerge::lost)
      .function("noSource", &RangeMerge::noSource)
      .function("range", &RangeMerge::range)
      .function("from", &RangeMerge::from)
      .function("outcome", &RangeMerge::outcome);

  emscripten::class_<Trimmer>("Trimmer")
      .constructor<double, double>()
      .function("prepare", &Trimmer::prepare)
      .function("commit", &Trimmer::commit)
      .function("inputError", &Trimmer::inputError)
      .function("finish", &Trimmer::finish)
      .function("failed", &Trimmer::failed)
      .function("error", &Trimmer::error)
      .function("report", &Trimmer::report)
      .function("output", &Trimmer::output);

  emscripten::class_<SnapshotSession>("SnapshotSession")
      .constructor<>()
      .function("setFile", &SnapshotSession::setFile)
      .function("setTotalSize", &SnapshotSession::setTotalSize)
      .function("prepare", &SnapshotSession::prepare)
      .function("commit", &SnapshotSession::commit)
      .function("inputError", &SnapshotSession::inputError)
      .function("finish", &SnapshotSession::finish)
      .function("failed", &SnapshotSession::failed)
      .function("error", &SnapshotSession::error)
      .function("bytesRead", &SnapshotSession::bytesRead)
      .function("setMemoryTimeline", &SnapshotSession::setMemoryTimeline)
      .function("query", &SnapshotSession::query)
      .function("queryJson", &SnapshotSession::queryJson);

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
      .function("query", emscripten::select_overload<emscripten::val(const std::string&, const emscripten::val&) const>(&Session::query))
      .function("query", emscripten::select_overload<emscripten::val(const std::string&, const emscripten::val&, const Session&) const>(&Session::query))
      .function("queryBytes", &Session::queryBytes)
      .function("queryJson", &Session::queryJson)
      .function("memoryIndexBytes", &Session::memoryIndexBytes)
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
