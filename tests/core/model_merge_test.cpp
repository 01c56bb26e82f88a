// One file read by every core: a trace read in byte ranges by several readers, the later ranges'
// partial models serialized and merged into the first (model_merge.h), must give exactly the
// model of the sequential read, whatever the split points: on element boundaries (merged), inside
// strings, escapes, nested args, members before or after traceEvents (refused by the check:
// the earlier reader reads on). Compared field by field (row_fields.h), with the string pool,
// the counts, the health with its offsets, and the views' JSON.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/session/views.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/kernels.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/operators.h"
#include "core/analysis/overview.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/steps.h"
#include "core/analysis/summary.h"
#include "core/trace/model_merge.h"
#include "core/trace/row_fields.h"
#include "tests/core/test_util.h"

namespace {

namespace fs = std::filesystem;
using ks::TraceModel;
using ks::TraceReader;

struct Ranged {
  std::unique_ptr<TraceReader> reader = std::make_unique<TraceReader>();
  int merged = 0;  // later ranges merged (the others were refused by the check)
};

void feed_from(TraceReader& r, const std::string& text, uint64_t from, size_t chunk) {
  for (size_t i = size_t(from); i < text.size() && !r.failed() && !r.stopped(); i += chunk)
    r.feed(text.data() + i, std::min(chunk, text.size() - i));
}

// Reads `text` in ranges starting at `splits` (any offsets: the check sorts them out), each range
// fed in `chunk`-byte chunks, the partial models crossing in `piece`-byte pieces.
Ranged read_in_ranges(const std::string& text, std::vector<uint64_t> splits, size_t chunk, size_t piece) {
  Ranged out;
  const int root = ks::root_is_array(text.data(), std::min<size_t>(text.size(), 4096));
  std::sort(splits.begin(), splits.end());
  splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
  splits.erase(std::remove_if(splits.begin(), splits.end(), [&](uint64_t s) { return s == 0 || s >= text.size(); }),
               splits.end());
  if (root < 0) splits.clear();
  TraceReader& first = *out.reader;
  first.stop_at(splits);
  feed_from(first, text, 0, chunk);
  std::vector<std::unique_ptr<TraceReader>> later;
  std::vector<TraceReader*> ptrs;
  for (size_t i = 0; i < splits.size(); ++i) {
    later.push_back(std::make_unique<TraceReader>());
    TraceReader& r = *later.back();
    r.start_at(splits[i], root == 1);
    r.stop_at({splits.begin() + long(i) + 1, splits.end()});
    feed_from(r, text, splits[i], chunk);
    r.finish();
    ptrs.push_back(&r);
  }
  out.merged = ks::merge_ranges(first, ptrs, [&](uint64_t from) { feed_from(first, text, from, chunk); }, piece);
  REQUIRE(out.merged >= 0);
  return out;
}

std::unique_ptr<TraceReader> read_sequential(const std::string& text, size_t chunk) {
  auto r = std::make_unique<TraceReader>();
  kstest::feed_all(*r, text, chunk);
  return r;
}

// A row as the bytes of its fields (no padding), string ids included; a duration as its value
// (a merge files the wide ones of a B/E pair split between ranges after the later range's).
struct FieldBytes {
  const TraceModel& m;
  std::string out;
  template <class T> void num(const T& v) { out.append(reinterpret_cast<const char*>(&v), sizeof(T)); }
  void str(ks::StringId& id) { num(id); }
  void flow(ks::FlowId& f) { num(f); }
  void id(ks::PackedId& p) { num(p); }
  void pair(uint32_t& p) { num(p); }
  void row(ks::EventKind, uint32_t& r) { num(r); }
  void dur(ks::PackedDur& d) { num(m.dur_value(d)); }
};

std::vector<std::vector<std::string>> table_rows(const TraceModel& m) {
  std::vector<std::vector<std::string>> tables(ks::kTableCount);
  ks::for_each_table(m, [&](size_t id, const auto& t) {
    for (size_t i = 0; i < t.size(); ++i) {
      auto row = t[i];
      FieldBytes fb{m, {}};
      ks::visit_fields(row, fb);
      tables[id].push_back(std::move(fb.out));
    }
  });
  return tables;
}

std::string devices_text(const TraceModel& m) {
  std::ostringstream s;
  for (const auto& d : m.devices)
    s << d.id << '|' << d.name << '|' << d.memory_bytes << '|' << d.compute_major << '.' << d.compute_minor << '|'
      << d.sms << '|' << d.warp_size << '|' << d.gcn_arch_name << '|' << d.hip_only_fields << ';';
  s << m.devices_from_compute_properties << '|' << m.distributed.present << m.distributed.rank
    << m.distributed.world_size << m.distributed.backend << m.distributed.pg_count << m.distributed.nccl_version;
  s << '|' << m.schema_version.value_or(-9) << m.display_time_unit << '|' << m.trace_name << '|'
    << m.base_time_ns.value_or(-9) << m.framework << '|' << m.old_naming << m.roctracer;
  return s.str();
}

std::string views_json(const TraceModel& m) {
  const ks::OpTree tree = ks::build_op_tree(m, {false});
  const ks::StepsResult steps = ks::find_steps(m, {});
  const ks::StepBreakdown b = ks::step_breakdown(m, steps, {});
  const ks::GpuMetricsResult g = ks::gpu_metrics(m, steps);
  std::string out = ks::answer_json(ks::overview_inputs_answer({m, b, g, tree, false}, "f"));
  out += ks::answer_json(ks::operator_table_answer(ks::operator_table(tree, m, ks::OpGroupBy::kName, nullptr), m));
  out += ks::answer_json(ks::kernel_table_answer(ks::kernel_table(tree, m, ks::KernelGroupBy::kName, nullptr), m));
  return out;
}

// Everything a reader produced, the same in both: field by field, then the views.
void require_same(const TraceReader& seq, const TraceReader& par, bool views) {
  const TraceModel& a = seq.model();
  const TraceModel& b = par.model();
  REQUIRE(seq.error() == par.error());
  REQUIRE(a.strings.size() == b.strings.size());
  for (ks::StringId i = 0; i < a.strings.size(); ++i) {
    if (a.strings.get(i) != b.strings.get(i)) FAIL("string " << i << ": " << a.strings.get(i) << " vs " << b.strings.get(i));
  }
  const auto ta = table_rows(a), tb = table_rows(b);
  for (size_t t = 0; t < ks::kTableCount; ++t) {
    INFO("table " << t);
    REQUIRE(ta[t].size() == tb[t].size());
    for (size_t i = 0; i < ta[t].size(); ++i)
      if (ta[t][i] != tb[t][i]) FAIL("table " << t << " row " << i << " differs");
  }
  REQUIRE(a.wide_args == b.wide_args);
  REQUIRE(a.flow_pairs == b.flow_pairs);
  REQUIRE(a.event_count == b.event_count);
  REQUIRE(a.category_counts == b.category_counts);
  REQUIRE(a.phase_counts == b.phase_counts);
  REQUIRE(a.kind_counts == b.kind_counts);
  for (size_t r = 0; r < size_t(ks::HealthReason::kCount); ++r) {
    INFO("health " << ks::health_reason_info(ks::HealthReason(r)).id);
    REQUIRE(a.health.get(ks::HealthReason(r)).count == b.health.get(ks::HealthReason(r)).count);
    REQUIRE(a.health.get(ks::HealthReason(r)).sample_offset == b.health.get(ks::HealthReason(r)).sample_offset);
  }
  REQUIRE(devices_text(a) == devices_text(b));
  REQUIRE(a.start_ns == b.start_ns);
  REQUIRE(a.end_ns == b.end_ns);
  REQUIRE(a.has_span == b.has_span);
  REQUIRE(a.format == b.format);
  REQUIRE(a.bytes_read == b.bytes_read);
  REQUIRE(a.truncated == b.truncated);
  REQUIRE(ks::answer_json(ks::summary_model_answer(a, "f", seq.error())) == ks::answer_json(ks::summary_model_answer(b, "f", par.error())));
  if (views && seq.error().empty()) REQUIRE(views_json(a) == views_json(b));
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> files;
  for (const char* dir : {"tests/data", "tests/data/hostile"}) {
    const fs::path p(kstest::repo_path(dir));
    if (!fs::is_directory(p)) continue;
    for (const auto& f : fs::directory_iterator(p))
      if (f.is_regular_file() && f.path().extension() == ".json") files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Element starts the heuristic proposes anywhere in the text (true boundaries or not).
std::vector<uint64_t> proposals(const std::string& text) {
  std::vector<uint64_t> out;
  for (size_t at = ks::propose_split(text.data(), text.size()); at != SIZE_MAX;
       at = ks::propose_split(text.data(), text.size(), at + 1))
    out.push_back(at);
  return out;
}

// A deterministic sequence of offsets (no randomness in tests).
uint64_t lcg(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

}  // namespace

TEST_CASE("the split plan: range i nominally at size/k*i; the boundaries found inside the file, increasing, once each", "[parallel]") {
  using V = std::vector<uint64_t>;
  CHECK(ks::nominal_splits(1000, 1) == V{});
  CHECK(ks::nominal_splits(1000, 2) == V{500});
  CHECK(ks::nominal_splits(1000, 3) == V{333, 666});
  CHECK(ks::nominal_splits(10000000000ull, 3) == V{3333333333ull, 6666666666ull});  // past 4 GiB, exact
  CHECK(ks::choose_splits({500}, {12}, 1000) == V{512});
  CHECK(ks::choose_splits({333, 666}, {-1, 5}, 1000) == V{671});    // no boundary in the first window
  CHECK(ks::choose_splits({333, 666}, {400, 67}, 1000) == V{733});  // both found the same one
  CHECK(ks::choose_splits({500}, {500}, 1000) == V{});              // at the end: no range after it
  CHECK(ks::choose_splits({0}, {0}, 1000) == V{});                  // at the start: no range before it
  // propose_splits is the plan with the windows read: here an event starts every 100 bytes (a
  // window that starts on one cannot tell: its split is the next).
  const auto every_100 = [](uint64_t off, char* buf, size_t n) {
    for (size_t i = 0; i < n; ++i) buf[i] = (off + i) % 100 == 0 ? '{' : (off + i) % 100 == 99 ? ',' : (off + i) % 100 == 98 ? '}' : ' ';
    return n;
  };
  CHECK(ks::propose_splits(10000000000ull, 4, every_100) == V{2500000100ull, 5000000100ull, 7500000100ull});
  CHECK(ks::propose_splits(1000, 3, every_100) == V{400, 700});
}

TEST_CASE("a split at every offset of every fixture gives the sequential model", "[parallel]") {
  const auto files = fixtures();
  REQUIRE(files.size() > 40);
  int merged_total = 0;
  for (const auto& f : files) {
    const std::string text = kstest::read_path(f);
    INFO(f.filename().string());
    const auto seq = read_sequential(text, 61);  // a file that is no trace stops at the same chunk
    // Every offset of the small ones; the big ones (deep nesting) every 211th and every proposal.
    std::vector<uint64_t> offsets;
    const size_t step = text.size() > 32768 ? 211 : 1;
    for (size_t s = 1; s < text.size(); s += step) offsets.push_back(s);
    for (uint64_t s : proposals(text)) offsets.push_back(s);
    for (uint64_t s : offsets) {
      INFO("split at " << s);
      const Ranged par = read_in_ranges(text, {s}, 61, 97);
      merged_total += par.merged;
      // The views for the splits that were merged (those that are not never left one reader).
      require_same(*seq, *par.reader, par.merged > 0 && s % 7 == 0);
    }
  }
  // The check must have let real boundaries through, or nothing above was merged.
  REQUIRE(merged_total > 500);
}

TEST_CASE("3 and 4 ranges, chunk and piece sizes, on the split-point fixtures", "[parallel]") {
  for (const char* name : {"split-points-in-strings-escapes-args.json", "split-points-bare-array.json",
                           "begin-end-pairs.json",
                           "modules-fwdbwd.json", "h800-fp8-deepseek-kernels.json",
                           "wide-external-and-correlation-ids.json"}) {
    INFO(name);
    const std::string text = kstest::read_fixture(name);
    const auto seq = read_sequential(text, 1 << 20);
    const auto props = proposals(text);
    REQUIRE(props.size() >= 3);
    uint64_t state = 12;
    int merged = 0;
    // Every pair and triple of proposals for the small ones (in order: an element's own splits);
    // then proposals mixed with arbitrary offsets.
    for (size_t i = 0; i < props.size(); ++i) {
      for (size_t j = i + 1; j < props.size() && j < i + 6; ++j) {
        INFO("splits " << props[i] << " " << props[j]);
        const Ranged p3 = read_in_ranges(text, {props[i], props[j]}, 1 + lcg(state) % 300, 1 + lcg(state) % 400);
        merged += p3.merged;
        require_same(*seq, *p3.reader, false);
        const uint64_t k = props[(j + 1 + lcg(state) % props.size()) % props.size()];
        const Ranged p4 = read_in_ranges(text, {props[i], props[j], k}, 1 + lcg(state) % 300, 1 + lcg(state) % 400);
        merged += p4.merged;
        require_same(*seq, *p4.reader, p4.merged >= 2);
      }
    }
    for (int n = 0; n < 300; ++n) {
      std::vector<uint64_t> splits;
      for (int k = 0; k < 3; ++k)
        splits.push_back(lcg(state) % 2 ? props[lcg(state) % props.size()] : lcg(state) % text.size());
      const Ranged p = read_in_ranges(text, splits, 1 + lcg(state) % 500, 64);
      require_same(*seq, *p.reader, false);
    }
    REQUIRE(merged > 0);
  }
}

TEST_CASE("an input cut inside a top-level scalar gives the sequential model, read in ranges", "[parallel]") {
  // The fuzzer's find (tests/fuzz/corpus/ranged-cut-in-top-level-scalar.bin; its first byte picks
  // the chunk size, 8): malformed events, then `], "dts":e` and the end. The last range's reader
  // had a chunk end inside the scalar `e`; its final scan, with no byte left, never closed it, so
  // the model said the file was cut at the key (325) where the sequential reader said the end (331).
  const std::string file = kstest::read_path(kstest::repo_path("tests/fuzz/corpus/ranged-cut-in-top-level-scalar.bin"));
  REQUIRE(file.size() == 332);
  const std::string text = file.substr(1);
  const auto seq = read_sequential(text, 8);
  const Ranged par = read_in_ranges(text, {59, 133}, 8, 61);
  require_same(*seq, *par.reader, false);
  REQUIRE(seq->model().health.get(ks::HealthReason::kTruncated).sample_offset == text.size());
}

TEST_CASE("a B in one range closed by its E in the next, with the rows between", "[parallel]") {
  const std::string text = kstest::read_fixture("split-points-in-strings-escapes-args.json");
  const auto seq = read_sequential(text, 4 << 20);
  // Split between "inner span"'s B (in the first range) and its E (in the second).
  const size_t at = text.find("{\"ph\": \"s\", \"cat\": \"ac2g\"");
  REQUIRE(at != std::string::npos);
  const Ranged par = read_in_ranges(text, {at}, 1 << 20, 1 << 20);
  REQUIRE(par.merged == 1);
  require_same(*seq, *par.reader, true);
  REQUIRE(par.reader->model().health.get(ks::HealthReason::kUnmatchedEnd).count == 1);
  REQUIRE(par.reader->model().health.get(ks::HealthReason::kUnclosedBegin).count == 1);
}

// The ops' call stacks are kept apart, in row order (TraceModel::call_stack): the B/E pair
// closed in the later range is filed among that range's rows before their own call stacks are
// appended, so the merge must put them back in row order.
TEST_CASE("a B with a call stack closed by its E in the next range, among ops with call stacks", "[parallel]") {
  const std::string text = R"({"traceEvents":[
    {"ph":"B","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":10,"args":{"Call stack":"a.py(1): outer"}},
    {"ph":"X","cat":"cpu_op","name":"x0","pid":1,"tid":2,"ts":11,"dur":1,"args":{"Call stack":"b.py(1): x0"}},
    {"ph":"X","cat":"cpu_op","name":"x1","pid":1,"tid":2,"ts":12,"dur":1,"args":{"Call stack":"b.py(2): x1"}},
    {"ph":"E","pid":1,"tid":1,"ts":20},
    {"ph":"X","cat":"cpu_op","name":"x2","pid":1,"tid":2,"ts":21,"dur":1,"args":{"Call stack":"b.py(3): x2","Module Hierarchy":"top.m"}},
    {"ph":"X","cat":"cpu_op","name":"x3","pid":1,"tid":2,"ts":22,"dur":1}]})";
  const auto seq = read_sequential(text, 4 << 20);
  const size_t at = text.find(R"({"ph":"X","cat":"cpu_op","name":"x1")");
  REQUIRE(at != std::string::npos);
  const Ranged par = read_in_ranges(text, {at}, 1 << 20, 1 << 20);
  REQUIRE(par.merged == 1);
  require_same(*seq, *par.reader, true);
  for (const TraceReader* r : {seq.get(), par.reader.get()}) {
    const TraceModel& m = r->model();
    REQUIRE(m.cpu_ops.size() == 5);
    std::map<std::string, std::string> stack_of, module_of;
    for (uint32_t i = 0; i < m.cpu_ops.size(); ++i) {
      const std::string name(m.strings.get(m.cpu_ops[i].s.name));
      stack_of[name] = m.strings.get(m.call_stack(ks::EventKind::kCpuOp, i));
      module_of[name] = m.strings.get(m.module_hierarchy(ks::EventKind::kCpuOp, i));
    }
    CHECK(stack_of == std::map<std::string, std::string>{{"outer", "a.py(1): outer"}, {"x0", "b.py(1): x0"},
                                                          {"x1", "b.py(2): x1"}, {"x2", "b.py(3): x2"}, {"x3", ""}});
    CHECK(module_of["x2"] == "top.m");
    CHECK(module_of["x1"].empty());
  }
}

TEST_CASE("a proposal inside a string, an escape or nested args is refused and read on", "[parallel]") {
  const std::string text = kstest::read_fixture("split-points-in-strings-escapes-args.json");
  const auto seq = read_sequential(text, 4 << 20);
  for (const char* inside : {"}, {\\\"not an event", "}, {\\\" \\\\", "{\"b\": [{\"c\"", "{\"d\": 2}", "}, {\\\"second",
                             "{\"id\": 0, \"name\": \"later"}) {
    INFO(inside);
    size_t at = text.find(inside);
    REQUIRE(at != std::string::npos);
    at = text.find('{', at);
    const Ranged par = read_in_ranges(text, {at}, 4096, 4096);
    REQUIRE(par.merged == 0);
    require_same(*seq, *par.reader, true);
  }
}

TEST_CASE("the merge refuses pieces of another start or root, and changes nothing", "[parallel]") {
  const std::string text = kstest::read_fixture("split-points-bare-array.json");
  std::vector<uint64_t> props;  // two real boundaries
  for (uint64_t p : proposals(text))
    if (p > text.find("aten::add")) props.push_back(p);
  REQUIRE(props.size() >= 2);
  TraceReader first;
  first.stop_at({props[0]});
  first.feed(text.data(), text.size());
  REQUIRE(first.stopped());
  TraceReader wrong;  // starts at the next split, not where `first` stopped
  wrong.start_at(props[1], true);
  wrong.feed(text.data() + props[1], text.size() - props[1]);
  wrong.finish();
  ks::PartialWriter w(wrong);
  std::string piece;
  REQUIRE(w.next(piece));
  ks::PartialMerger m(first);
  REQUIRE_FALSE(m.add(piece.data(), piece.size()));
  REQUIRE(m.refused());
  const uint64_t events = first.model().event_count;
  first.read_on();
  first.feed(text.data() + first.covered_end(), text.size() - first.covered_end());
  first.finish();
  const auto seq = read_sequential(text, 4096);
  require_same(*seq, first, true);
  REQUIRE(first.model().event_count > events);
}

TEST_CASE("pieces stay within their size, unless one string is longer", "[parallel]") {
  std::string text = "{\"traceEvents\": [";
  for (int i = 0; i < 2000; ++i) {
    if (i) text += ",\n";
    text += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" + std::to_string(i) +
            "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i * 10) + ", \"dur\": 5}";
  }
  text += ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + std::string(50000, 'x') +
          "\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}";
  const uint64_t split = proposals(text)[1000];
  TraceReader later;
  later.start_at(split, false);
  later.feed(text.data() + split, text.size() - split);
  later.finish();
  ks::PartialWriter w(later);
  std::string piece;
  int pieces = 0, oversized = 0;
  while (w.next(piece, 4096)) {
    ++pieces;
    if (piece.size() > 4096) ++oversized;
  }
  REQUIRE(pieces > 10);
  REQUIRE(oversized == 1);  // the 50,000-byte name
  const auto seq = read_sequential(text, 4 << 20);
  require_same(*seq, *read_in_ranges(text, {split}, 8192, 4096).reader, true);
}

TEST_CASE("every trace in ../shared read in 2, 3 and 4 ranges gives the sequential model", "[parallel]") {
  const fs::path dir(kstest::repo_path("../shared/traces"));
  if (!fs::is_directory(dir)) {
    WARN("../shared/traces is absent: skipped");
    return;
  }
  std::vector<fs::path> files;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    const std::string n = f.path().filename().string();
    if (f.is_regular_file() && (n.size() > 5 && (n.substr(n.size() - 5) == ".json" || n.substr(n.size() - 8) == ".json.gz")))
      files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  int traces = 0, merged = 0;
  for (const auto& f : files) {
    const std::string text = kstest::read_path(f);
    if (text.size() > 1 && uint8_t(text[0]) == 0x1f) continue;  // gzip under wasm (no zlib there)
    INFO(f.string());
    const auto seq = read_sequential(text, 4 << 20);
    if (!seq->error().empty()) continue;  // not a trace (expected outputs beside the traces)
    ++traces;
    const auto at = [&](uint64_t size) -> std::function<size_t(uint64_t, char*, size_t)> {
      (void)size;
      return [&](uint64_t off, char* buf, size_t n) {
        if (off >= text.size()) return size_t(0);
        const size_t got = std::min<size_t>(n, text.size() - size_t(off));
        std::copy_n(text.data() + off, got, buf);
        return got;
      };
    };
    for (int ranges : {2, 3, 4}) {
      INFO(ranges << " ranges");
      const auto splits = ks::propose_splits(text.size(), ranges, at(text.size()));
      const Ranged par = read_in_ranges(text, splits, 1 << 16, 1 << 14);
      merged += par.merged;  // not every one: a proposal may fall in distributedInfo's pg_config
      require_same(*seq, *par.reader, true);
    }
    // Proposals and arbitrary offsets all over the file.
    const auto props = proposals(text);
    uint64_t state = text.size();
    for (int n = 0; n < 12; ++n) {
      std::vector<uint64_t> splits;
      for (int k = 0; k < 1 + n % 3; ++k)
        splits.push_back(n % 2 && !props.empty() ? props[lcg(state) % props.size()] : lcg(state) % text.size());
      require_same(*seq, *read_in_ranges(text, splits, 1 << 15, 1 << 20).reader, false);
    }
  }
  REQUIRE(traces >= 10);
  REQUIRE(merged >= 2 * traces);
}

// Issue 21: a 10 GB file read in ranges has its splits, stops and health offsets past 4 GiB, where
// a 32-bit size_t (the wasm build's) would wrap. The readers are told their absolute offsets
// (start_at, stop_at), so the bytes can be small: here the events of a bare array as they would
// lie from kBase on, read by a first range [kBase, split) and a later one [split, end) merged into
// it, against one reader of the whole. Runs natively and in wasm (kinetoscope_tests is built both ways).
TEST_CASE("ranges past 4 GiB keep exact offsets: the stop, the covered end, the merge's check, health samples",
          "[parallel]") {
  const uint64_t kBase = 5'000'000'000ull + 7;  // past 2^32 (4,294,967,296), not a multiple of anything
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    if (i) text += ",\n";
    if (i == 2500) text += "{\"ph\": \"X\", \"name\": \"odd\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": -3},\n";
    text += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" + std::to_string(i % 7) +
            "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(1000 + i * 10) + ", \"dur\": 5}";
  }
  text += "]";
  const size_t odd = text.find("{\"ph\": \"X\", \"name\": \"odd\"");
  const size_t split = text.find("\n{", text.size() / 2) + 1;
  REQUIRE(split < odd);

  TraceReader whole;
  whole.start_at(kBase, true);
  feed_from(whole, text, 0, 4096);
  whole.finish();

  TraceReader first;
  first.start_at(kBase, true);
  first.stop_at({kBase + split});
  feed_from(first, text, 0, 4096);
  REQUIRE(first.stopped());
  REQUIRE(first.covered_end() == kBase + split);
  TraceReader later;
  later.start_at(kBase + split, true);
  feed_from(later, text, split, 4096);
  later.finish();
  std::vector<TraceReader*> ptrs{&later};
  const int merged = ks::merge_ranges(first, ptrs, [&](uint64_t from) {
    FAIL("read on from " << from << ": the later range was refused");
  }, 8192);
  REQUIRE(merged == 1);
  require_same(whole, first, false);
  // The odd event (a negative duration) is sampled where it lies in the file, past 4 GiB.
  bool sampled = false;
  for (size_t r = 0; r < size_t(ks::HealthReason::kCount); ++r) {
    const auto& h = first.model().health.get(ks::HealthReason(r));
    if (!h.count) continue;
    INFO("health " << ks::health_reason_info(ks::HealthReason(r)).id);
    REQUIRE(h.sample_offset == kBase + odd);
    sampled = true;
  }
  REQUIRE(sampled);
  REQUIRE(first.model().event_count == 3001);
}

// ---- the merge order (RangeMerge): every decision the CLI's merge_ranges and the page's
// mergeRanges act on, one path per case, each action and count checked.

namespace {
using ks::MergeAction;
using ks::PieceState;
using ks::RangeMerge;
}  // namespace

TEST_CASE("merge order: every range merged in order, then finished", "[parallel][merge-order]") {
  RangeMerge m({100, 200});
  REQUIRE(m.at(true, 100) == MergeAction::kAskPiece);
  CHECK(m.range() == 0);
  CHECK(m.piece(PieceState::kMerging, true, 100) == MergeAction::kAskPiece);
  CHECK(m.range() == 0);
  CHECK(m.pieces() == 1);
  CHECK(m.piece(PieceState::kMerging, true, 100) == MergeAction::kAskPiece);
  // Done: the first reader now stands where range 0 stopped, the start of range 1.
  REQUIRE(m.piece(PieceState::kDone, true, 200) == MergeAction::kAskPiece);
  CHECK(m.range() == 1);
  CHECK(m.pieces() == 0);
  REQUIRE(m.piece(PieceState::kDone, false, 300) == MergeAction::kFinished);
  CHECK(m.range() == -1);
  CHECK(m.merged() == 2);
  CHECK(m.read_on() == 0);
  CHECK_FALSE(m.broken());
  CHECK(m.reason().empty());
  // A first reader that never stopped (no split confirmed) has nothing to merge.
  RangeMerge none({100});
  CHECK(none.at(false, 0) == MergeAction::kFinished);
  CHECK(none.merged() == 0);
}

TEST_CASE("merge order: the first range refused is read on by the first reader, the next merged", "[parallel][merge-order]") {
  RangeMerge m({100, 200});
  REQUIRE(m.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(m.piece(PieceState::kRefused, true, 100) == MergeAction::kReadOn);
  CHECK(m.from() == 100);
  CHECK(m.range() == -1);
  CHECK(m.read_on() == 1);
  CHECK(m.reason() == "its range was refused");
  // It read on from 100 and stopped at the next split: that range's pieces are asked for.
  REQUIRE(m.at(true, 200) == MergeAction::kAskPiece);
  CHECK(m.range() == 1);
  REQUIRE(m.piece(PieceState::kDone, false, 300) == MergeAction::kFinished);
  CHECK(m.merged() == 1);
  CHECK(m.read_on() == 1);
  CHECK_FALSE(m.broken());
  CHECK(m.reason() == "its range was refused");  // the last reason stays on record
}

TEST_CASE("merge order: a helper lost before its first piece is read on; after it, the file is read again", "[parallel][merge-order]") {
  RangeMerge before({100});
  REQUIRE(before.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(before.lost("The analysis worker stopped (test).") == MergeAction::kReadOn);
  CHECK(before.from() == 100);
  CHECK(before.read_on() == 1);
  CHECK(before.reason() == "its helper was lost (The analysis worker stopped (test).)");
  REQUIRE(before.at(false, 200) == MergeAction::kFinished);
  CHECK_FALSE(before.broken());

  RangeMerge after({100, 200});
  REQUIRE(after.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(after.piece(PieceState::kMerging, true, 100) == MergeAction::kAskPiece);
  REQUIRE(after.lost("helper died") == MergeAction::kReadAgain);
  CHECK(after.broken());
  CHECK(after.merged() == 0);
  CHECK(after.read_on() == 0);
  CHECK(after.reason() == "its helper was lost (helper died)");
  // Final: the other range is not asked for, whatever comes.
  CHECK(after.at(true, 200) == MergeAction::kReadAgain);
  CHECK(after.piece(PieceState::kDone, false, 300) == MergeAction::kReadAgain);
  CHECK(after.range() == -1);
  CHECK(after.merged() == 0);
}

TEST_CASE("merge order: a broken piece, first or later, has the file read again", "[parallel][merge-order]") {
  for (int merging : {0, 2}) {
    INFO(merging << " pieces merged before it");
    RangeMerge m({100});
    REQUIRE(m.at(true, 100) == MergeAction::kAskPiece);
    for (int i = 0; i < merging; ++i) REQUIRE(m.piece(PieceState::kMerging, true, 100) == MergeAction::kAskPiece);
    REQUIRE(m.piece(PieceState::kBroken, true, 100) == MergeAction::kReadAgain);
    CHECK(m.broken());
    CHECK(m.read_on() == 0);
    CHECK(m.reason() == "a piece of it could not be merged");
  }
}

TEST_CASE("merge order: no helper for the range, or a stop where no range starts, is read on", "[parallel][merge-order]") {
  RangeMerge m({100, 200, 300});
  REQUIRE(m.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(m.no_source() == MergeAction::kReadOn);
  CHECK(m.from() == 100);
  CHECK(m.reason() == "no worker read the range after it");
  REQUIRE(m.at(true, 200) == MergeAction::kAskPiece);
  REQUIRE(m.no_source() == MergeAction::kReadOn);
  CHECK(m.from() == 200);
  // Stopped at 250, where no range starts: read on without asking anyone.
  REQUIRE(m.at(true, 250) == MergeAction::kReadOn);
  CHECK(m.from() == 250);
  REQUIRE(m.at(true, 300) == MergeAction::kAskPiece);
  CHECK(m.range() == 2);
  REQUIRE(m.piece(PieceState::kDone, false, 400) == MergeAction::kFinished);
  CHECK(m.read_on() == 3);
  CHECK(m.merged() == 1);
  CHECK_FALSE(m.broken());
}

TEST_CASE("merge order: pieces that end before the range is merged", "[parallel][merge-order]") {
  RangeMerge none({100});
  REQUIRE(none.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(none.ended() == MergeAction::kReadOn);  // nothing changed: read on
  CHECK(none.reason() == "its pieces ended early");
  CHECK(none.read_on() == 1);
  RangeMerge some({100});
  REQUIRE(some.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(some.piece(PieceState::kMerging, true, 100) == MergeAction::kAskPiece);
  REQUIRE(some.ended() == MergeAction::kReadAgain);  // half merged
  CHECK(some.reason() == "its pieces ended early");
  CHECK(some.read_on() == 0);
}

TEST_CASE("merge order: a stop not past the one before is read again, never looped on", "[parallel][merge-order]") {
  RangeMerge m({100, 200});
  REQUIRE(m.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(m.piece(PieceState::kRefused, true, 100) == MergeAction::kReadOn);
  // A reader that read on and stopped at the same split again.
  REQUIRE(m.at(true, 100) == MergeAction::kReadAgain);
  CHECK(m.reason() == "the first range stopped again at 100, not past 100");
  RangeMerge done({100, 200});
  REQUIRE(done.at(true, 200) == MergeAction::kAskPiece);
  REQUIRE(done.piece(PieceState::kDone, true, 100) == MergeAction::kReadAgain);  // a merge that went back
  CHECK(done.merged() == 1);
}

TEST_CASE("merge order: calls that do not answer the last action change nothing", "[parallel][merge-order]") {
  RangeMerge m({100});
  REQUIRE(m.at(true, 100) == MergeAction::kAskPiece);
  REQUIRE(m.no_source() == MergeAction::kReadOn);
  // Not asked for a piece: outcomes of one are ignored until the reader says where it stands.
  CHECK(m.piece(PieceState::kDone, false, 200) == MergeAction::kReadOn);
  CHECK(m.lost("late") == MergeAction::kReadOn);
  CHECK(m.ended() == MergeAction::kReadOn);
  CHECK(m.merged() == 0);
  CHECK(m.read_on() == 1);
  CHECK(m.reason() == "no worker read the range after it");
  CHECK(m.at(false, 200) == MergeAction::kFinished);
  CHECK(m.no_source() == MergeAction::kFinished);
  CHECK(m.read_on() == 1);
}

TEST_CASE("merge order: splits past 4 GiB are matched exactly", "[parallel][merge-order]") {
  const uint64_t a = 5000000007ull, b = a + (uint64_t(1) << 32);  // b and a agree in their low 32 bits
  RangeMerge m({a, b});
  REQUIRE(m.at(true, b) == MergeAction::kAskPiece);
  CHECK(m.range() == 1);
  REQUIRE(m.no_source() == MergeAction::kReadOn);
  CHECK(m.from() == b);
  CHECK(m.at(true, b + 1) == MergeAction::kReadOn);  // not a split
  CHECK(m.from() == b + 1);
}

TEST_CASE("merge_ranges: a later reader that did not finish is no source: the first reads on", "[parallel][merge-order]") {
  const std::string text = kstest::read_fixture("split-points-bare-array.json");
  std::vector<uint64_t> props;
  for (uint64_t p : proposals(text))
    if (p > text.find("aten::add")) props.push_back(p);
  REQUIRE(props.size() >= 1);
  TraceReader first;
  first.stop_at({props[0]});
  feed_from(first, text, 0, 4096);
  REQUIRE(first.stopped());
  TraceReader later;  // read its range, but not finished: its partial model is not whole
  later.start_at(props[0], true);
  feed_from(later, text, props[0], 4096);
  std::vector<TraceReader*> ptrs{&later};
  std::vector<uint64_t> read_from;
  const int merged = ks::merge_ranges(first, ptrs, [&](uint64_t from) {
    read_from.push_back(from);
    feed_from(first, text, from, 4096);
  });
  CHECK(merged == 0);
  CHECK(read_from == std::vector<uint64_t>{props[0]});
  require_same(*read_sequential(text, 4096), first, true);
}
