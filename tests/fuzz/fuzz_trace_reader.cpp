// libFuzzer target for the whole load path (scanner, decoder, builder, summary), every view
// computed from the model (steps, breakdown, GPU metrics, operator trees in both modes, operator
// and kernel tables, overview, memory) and the trimmer. Beyond "no crash", it checks two promises:
// the chunk size never changes the result (of the reader or the trimmer), the decoder's fast path
// gives what simdjson gives, what the trimmer writes is a trace the reader loads, and a read in
// byte ranges merged into one model (core/trace/model_merge.h) gives the sequential summary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/session/views.h"
#include "core/analysis/kernels.h"
#include "core/analysis/memory.h"
#include "core/analysis/operators.h"
#include "core/analysis/overview.h"
#include "core/analysis/summary.h"
#include "core/trace/model_merge.h"
#include "core/trace/trace_reader.h"
#include "core/trace/trace_trimmer.h"

namespace {
std::string load(const uint8_t* data, size_t size, size_t chunk, bool& failed, bool fast_path = true) {
  ks::TraceReader r;
  r.set_fast_path(fast_path);
  for (size_t i = 0; i < size && !r.failed(); i += chunk)
    r.feed(reinterpret_cast<const char*>(data) + i, std::min(chunk, size - i));
  r.finish();
  failed = r.failed();
  if (failed) return r.error();
  const ks::TraceModel& m = r.model();
  std::string out = ks::answer_json(ks::summary_model_answer(m, "f", r.error()));
  for (bool tb : {false, true}) {
    ks::StepOptions options;
    options.tb_plugin_gpu_annotations = tb;
    const ks::StepsResult steps = ks::find_steps(m, options);
    const ks::StepBreakdown b = ks::step_breakdown(m, steps, options);
    const ks::GpuMetricsResult g = ks::gpu_metrics(m, steps);
    const ks::OpTree tree = ks::build_op_tree(m, {tb});
    out += ks::answer_json(ks::overview_inputs_answer({m, b, g, tree, tb}, "f"));
    out += ks::answer_json(ks::operator_table_answer(ks::operator_table(tree, m, ks::OpGroupBy::kNameAndShape), m));
    out += ks::answer_json(ks::kernel_table_answer(ks::kernel_table(tree, m, ks::KernelGroupBy::kProps), m));
    out += ks::answer_csv(ks::kernel_table_answer(ks::kernel_table(tree, m, ks::KernelGroupBy::kName), m));
    // The Memory view: tables of the whole trace and of a window, the drawn curve, the alive list.
    const ks::MemoryIndex x = ks::build_memory_index(m, tree, {tb});
    for (const ks::MemoryWindow& w : {ks::MemoryWindow{}, ks::memory_window_us(x, 1, 50)}) {
      out += ks::answer_json(ks::memory_devices_answer(x, m, w));
      out += ks::answer_json(ks::memory_stats_answer(x, tree, m, w, -1));
      out += ks::answer_csv(ks::memory_events_answer(x, tree, m, w, -1));
      out += ks::answer_json(ks::memory_curve_answer(x, m, w, -1, 0));
    }
    for (size_t d = 0; d < x.devices.size(); ++d) {
      out += ks::answer_json(ks::memory_stats_answer(x, tree, m, {}, int(d)));
      out += ks::answer_json(ks::memory_curve_answer(x, m, {}, int(d), 7));
      out += ks::answer_json(ks::memory_alive_answer(x, tree, m, int(d), x.devices[d].peak_ts_ns, 5));
    }
  }
  return out;
}

// The trimmer over [start_ns, end_ns], fed in `chunk`-byte pieces: its output, or its error.
std::string trim(const uint8_t* data, size_t size, size_t chunk, int64_t start_ns, int64_t end_ns, bool& failed) {
  ks::TraceTrimmer t(start_ns, end_ns);
  for (size_t i = 0; i < size && !t.failed(); i += chunk) {
    const size_t n = std::min(chunk, size - i);
    std::memcpy(t.prepare(n), data + i, n);
    t.commit(n);
  }
  if (!t.failed()) t.finish();
  failed = t.failed();
  return failed ? t.error() : t.output();
}
// The summary of a read in ranges starting at `splits` (ascending; any offsets: the check sorts
// them out), each fed in `chunk`-byte pieces, merged through pieces of 61 bytes.
std::string ranged_summary(const uint8_t* data, size_t size, size_t chunk, std::vector<uint64_t> splits) {
  const char* text = reinterpret_cast<const char*>(data);
  auto feed_from = [&](ks::TraceReader& r, uint64_t from) {
    for (size_t i = size_t(from); i < size && !r.failed() && !r.stopped(); i += chunk)
      r.feed(text + i, std::min(chunk, size - i));
  };
  const int root = ks::root_is_array(text, std::min<size_t>(size, 4096));
  if (root < 0) splits.clear();
  ks::TraceReader first;
  first.stop_at(splits);
  feed_from(first, 0);
  std::vector<std::unique_ptr<ks::TraceReader>> later;
  std::vector<ks::TraceReader*> ptrs;
  for (size_t i = 0; i < splits.size(); ++i) {
    later.push_back(std::make_unique<ks::TraceReader>());
    later.back()->start_at(splits[i], root == 1);
    later.back()->stop_at({splits.begin() + long(i) + 1, splits.end()});
    feed_from(*later.back(), splits[i]);
    later.back()->finish();
    ptrs.push_back(later.back().get());
  }
  if (ks::merge_ranges(first, ptrs, [&](uint64_t from) { feed_from(first, from); }, 61) < 0) std::abort();
  return ks::answer_json(ks::summary_model_answer(first.model(), "f", first.error()));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = 1 + data[0] % 61;  // the first byte picks a chunk size
  data += 1;
  size -= 1;
  bool failed_whole = false, failed_chunked = false;
  const std::string whole = load(data, size, size ? size : 1, failed_whole);
  const std::string chunked = load(data, size, chunk, failed_chunked);
  if (failed_whole != failed_chunked || whole != chunked) std::abort();
  // The decoder's fast path (plain events read without simdjson) must give what simdjson gives.
  bool failed_slow = false;
  const std::string slow = load(data, size, chunk, failed_slow, false);
  if (failed_slow != failed_whole || slow != whole) std::abort();
  // Ranges: a proposed split and an arbitrary offset, both picked by the first byte.
  if (!failed_whole && size > 2) {
    const char* text = reinterpret_cast<const char*>(data);
    std::vector<uint64_t> splits;
    const size_t proposed = ks::propose_split(text, size, (chunk * 97) % size);
    const size_t arbitrary = 1 + (chunk * 131) % (size - 1);
    if (proposed != SIZE_MAX) splits.push_back(proposed);
    if (arbitrary != proposed) splits.push_back(arbitrary);
    std::sort(splits.begin(), splits.end());
    ks::TraceReader seq;
    for (size_t i = 0; i < size && !seq.failed(); i += chunk) seq.feed(text + i, std::min(chunk, size - i));
    seq.finish();
    if (ranged_summary(data, size, chunk, splits) != ks::answer_json(ks::summary_model_answer(seq.model(), "f", seq.error()))) std::abort();
  }

  // The trimmer, over a window the input's first byte also picks (µs-scale times as fixtures
  // have, in ns): the same output whatever the chunk size, and a trace the reader loads.
  const int64_t start_ns = int64_t(chunk % 7) * 1000, end_ns = start_ns + int64_t(chunk) * 5000;
  bool trim_failed_whole = false, trim_failed_chunked = false;
  const std::string t_whole = trim(data, size, size ? size : 1, start_ns, end_ns, trim_failed_whole);
  const std::string t_chunked = trim(data, size, chunk, start_ns, end_ns, trim_failed_chunked);
  if (trim_failed_whole != trim_failed_chunked || t_whole != t_chunked) std::abort();
  if (!trim_failed_whole) {
    bool reload_failed = false;
    load(reinterpret_cast<const uint8_t*>(t_whole.data()), t_whole.size(), t_whole.size() ? t_whole.size() : 1,
         reload_failed);
    if (reload_failed) std::abort();
  }
  return 0;
}
