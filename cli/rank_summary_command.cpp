// `kinetoscope rank-summary -o DIR TRACE...`: the Distributed view's map step on its own. Each
// trace is read and reduced to its rank summary (the one the page's run view reduces), written to
// DIR as `<trace file name>.ks-summary`; `kinetoscope distributed --from-summaries DIR` reduces
// them to the same answer as `kinetoscope distributed` on the traces. A summary needs only its own
// trace, so the map can run anywhere (scripts/fleet runs it on Dask workers) and only the small
// summaries travel.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/distributed.h"
#include "core/session/views.h"
#include "core/trace/trace_health.h"
#include "core/trace/trace_reader.h"
#include "core/util/json_writer.h"

namespace {

const char kHelp[] =
    "usage: kinetoscope rank-summary [--json] [--jobs N] [--tb-plugin] -o DIR DIR|TRACE...\n"
    "\n"
    "  The Distributed view's map step: each trace (a folder: its traces, as `distributed` finds\n"
    "  them) reduced to its rank summary — steps, per-step computation/communication overlap,\n"
    "  collective calls, devices, and its GPU time (temporal breakdown overall and per step,\n"
    "  communication/computation overlap, as `kinetoscope gpu-time`) — written to DIR as\n"
    "  <trace file name>.ks-summary (kilobytes to a few MB). `kinetoscope distributed --from-summaries DIR` reduces them to the same answer\n"
    "  as `kinetoscope distributed` on the traces.\n"
    "  --jobs N     read N traces at a time (threads; default: the number of cores).\n"
    "  --tb-plugin  summaries in tb_plugin's reading (reduce them with --tb-plugin too).\n"
    "  --json       one line per trace: {\"file\", \"status\": \"ok\", \"summary\", \"rank\", \"world_size\",\n"
    "               \"steps\", \"calls\", \"bytes\", \"problems\"} (problems: what a damaged trace lost,\n"
    "               one sentence each; its summary holds what was complete) or {\"file\",\n"
    "               \"status\": \"failed\", \"error\"}.\n"
    "  A trace that cannot be read is said on stderr (and in --json); the others are written;\n"
    "  the exit status is then 1.\n";

struct Outcome {
  std::string error;  // non-empty: the trace could not be summarized
  std::string path;   // the summary file written
  int64_t rank = -1, world_size = -1;
  size_t steps = 0, calls = 0, bytes = 0;
  // What the trace lost (its health's error-severity reasons, one sentence each): the summary
  // holds what was complete, as the page loads it.
  std::vector<std::string> problems;
};

// Writes `bytes` to `path` through a temporary name, so that a reader never sees half a summary.
std::string write_whole(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".part";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return "cannot write " + tmp;
    f.write(bytes.data(), std::streamsize(bytes.size()));
    if (!f.flush()) return "cannot write " + tmp;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return ec ? "cannot write " + path + ": " + ec.message() : std::string();
}

std::string outcome_json(const std::string& file, const Outcome& o) {
  ks::JsonWriter w;
  w.begin_object().key("file").value(file);
  if (!o.error.empty()) {
    w.key("status").value("failed").key("error").value(o.error);
  } else {
    w.key("status").value("ok").key("summary").value(o.path);
    w.key("rank").value(o.rank).key("world_size").value(o.world_size);
    w.key("steps").value(int64_t(o.steps)).key("calls").value(int64_t(o.calls)).key("bytes").value(int64_t(o.bytes));
    w.key("problems").begin_array();
    for (const std::string& p : o.problems) w.value(p);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

}  // namespace

int run_rank_summary(int argc, char** argv) {
  bool json = false, tb = false;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string out_dir;
  std::vector<std::string> inputs;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--tb-plugin") tb = true;
    else if (a == "-o" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--jobs" && i + 1 < argc) {
      if (!ks::parse_trace_jobs("rank-summary", argv[++i], jobs)) return 2;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope rank-summary: unknown option %s\n%s", a.c_str(), kHelp);
      return 2;
    } else inputs.push_back(a);
  }
  if (inputs.empty() || out_dir.empty()) {
    std::fprintf(stderr, "kinetoscope rank-summary: %s\n%s", out_dir.empty() ? "-o DIR is required" : "no trace given", kHelp);
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec || !std::filesystem::is_directory(out_dir, ec)) {
    std::fprintf(stderr, "kinetoscope rank-summary: cannot make the folder %s%s%s\n", out_dir.c_str(), ec ? ": " : "",
                 ec ? ec.message().c_str() : "");
    return 1;
  }
  int status = 0;
  const std::vector<std::string> files = ks::expand_inputs(inputs, status);

  // Each summary needs its trace alone: the worker is named from the file name, the span left as
  // the file name has it (the reduce ranks the spans of the whole run).
  std::vector<Outcome> outcomes(files.size());
  const std::vector<std::string> read_errors = ks::read_each_in_threads(files, jobs, [&](size_t i, const ks::TraceReader& reader) {
    Outcome& o = outcomes[i];
    const std::string name = ks::base_name(files[i]);
    std::string worker, span;
    ks::worker_and_span(name, worker, span);
    ks::RankSummary r = ks::distributed_rank(reader.model(), worker, span.empty() ? "default" : span, tb);
    r.gpu_time = ks::rank_gpu_time(reader.model());
    const std::string bytes = ks::rank_summary_file(name, r, reader.model().start_ns);
    o.path = (std::filesystem::path(out_dir) / (name + ".ks-summary")).string();
    o.error = write_whole(o.path, bytes);
    o.rank = r.rank;
    o.world_size = r.world_size;
    for (size_t k = 0; k < size_t(ks::HealthReason::kCount); ++k) {
      const auto reason = ks::HealthReason(k);
      const ks::HealthReasonInfo& info = ks::health_reason_info(reason);
      if (info.severity == ks::Severity::kError && reader.model().health.get(reason).count) o.problems.emplace_back(info.message);
    }
    o.steps = r.steps.size();
    o.calls = r.calls.size();
    o.bytes = bytes.size();
  });
  for (size_t i = 0; i < files.size(); ++i)
    if (!read_errors[i].empty()) outcomes[i].error = read_errors[i];

  for (size_t i = 0; i < files.size(); ++i) {
    const Outcome& o = outcomes[i];
    const std::string name = ks::base_name(files[i]);
    if (!o.error.empty()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), o.error.c_str());
      status = 1;
    }
    if (json) std::printf("%s\n", outcome_json(name, o).c_str());
    else if (o.error.empty())
    {
      std::printf("%s: rank %lld, %zu step%s, %zu collective call%s -> %s (%zu bytes)\n", name.c_str(), (long long)o.rank,
                  o.steps, o.steps == 1 ? "" : "s", o.calls, o.calls == 1 ? "" : "s", o.path.c_str(), o.bytes);
      for (const std::string& p : o.problems) std::printf("  %s\n", p.c_str());
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "kinetoscope rank-summary: no trace to read\n");
    return 1;
  }
  return status;
}
