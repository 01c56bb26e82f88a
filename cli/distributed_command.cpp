// `kinetoscope distributed`: the Distributed view of a run. Map: each rank file is read and
// reduced to its RankSummary in one of N threads, and its model is freed as soon as the summary
// is taken (so memory holds N models at most, plus the summaries). Reduce: the summaries of all
// ranks, matched across ranks (core/analysis/distributed.h), printed from the answers the page
// reads (core/session/views/distributed.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/distributed.h"
#include "core/session/views.h"
#include "core/trace/trace_reader.h"
#include "simdjson.h"

namespace {

const char kHelp[] =
    "usage: kinetoscope distributed [--json] [--gpu-time] [--jobs N] [--tb-plugin] DIR|TRACE...\n"
    "       kinetoscope distributed --from-summaries [--json] [--gpu-time] [--tb-plugin] DIR|SUMMARY...\n"
    "\n"
    "  The Distributed view of a run: one trace per rank (DIR: the *.pt.trace.json[.gz] files in\n"
    "  it, else its *.json[.gz] files). Per worker and step: computation, overlapping,\n"
    "  communication and other time; data transfer vs synchronizing time of each collective\n"
    "  matched across the ranks; the communication operations; step time per worker with the\n"
    "  slowest rank; collectives by process group and message size.\n"
    "  --jobs N     read N traces at a time (threads; default: the number of cores).\n"
    "  --tb-plugin  tb_plugin's reading, its empty view included (docs/compatibility.md).\n"
    "  --json       one JSON object per span of the run, one per line (docs/contracts.md).\n"
    "  --from-summaries  reduce the rank summaries `kinetoscope rank-summary -o DIR` wrote (DIR:\n"
    "               its *.ks-summary files) instead of reading traces: the same answer.\n"
    "  --gpu-time   instead, the run's GPU time per rank: each trace's idle, compute and\n"
    "               non-compute time and shares, overall and per step, and its communication/\n"
    "               computation overlap, as `kinetoscope gpu-time` gives them (--json: one\n"
    "               object per span, a row per rank and step; docs/contracts.md).\n";

using ks::base_name;

// Fields the text view can do without (a missing one prints as empty or 0).
void ignore(simdjson::error_code) {}

double field(simdjson::dom::element o, std::initializer_list<const char*> path) {
  simdjson::dom::element e = o;
  for (const char* k : path)
    if (e[k].get(e)) return 0;
  double v = 0;
  if (e.get_double().get(v)) return 0;
  return v;
}

// The view for people: per span, the averages per worker, the communication table, the slowest
// rank and what could not be matched.
void print_text(const std::string& json_lines) {
  simdjson::dom::parser parser;
  size_t at = 0;
  while (at < json_lines.size()) {
    const size_t nl = json_lines.find('\n', at);
    const std::string line = json_lines.substr(at, nl - at);
    at = nl == std::string::npos ? json_lines.size() : nl + 1;
    simdjson::dom::element v;
    if (parser.parse(line).get(v)) continue;
    std::string_view error;
    if (!v["error"].get_string().get(error)) {
      std::printf("%.*s\n", int(error.size()), error.data());
      continue;
    }
    std::string_view span;
    ignore(v["span"].get_string().get(span));
    simdjson::dom::array workers;
    ignore(v["workers"].get_array().get(workers));
    std::printf("span %.*s: %zu worker%s\n", int(span.size()), span.data(), workers.size(), workers.size() == 1 ? "" : "s");
    bool available = false;
    ignore(v["available"].get_bool().get(available));
    if (!available) {
      std::string_view reason;
      ignore(v["reason"].get_string().get(reason));
      std::printf("  no distributed view: %.*s\n", int(reason.size()), reason.data());
      continue;
    }
    std::printf("  per step, on average (us)  %12s %12s %12s %12s %12s %12s\n", "computation", "overlapping",
                "communication", "other", "transfer", "synchronizing");
    for (simdjson::dom::element wk : workers) {
      std::string_view name;
      ignore(wk["worker"].get_string().get(name));
      const std::string n(name);
      std::printf("  %-26s %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f\n", n.c_str(),
                  field(v, {"overlap", "all", n.c_str(), "computation_us"}), field(v, {"overlap", "all", n.c_str(), "overlapping_us"}),
                  field(v, {"overlap", "all", n.c_str(), "communication_us"}), field(v, {"overlap", "all", n.c_str(), "other_us"}),
                  field(v, {"waittime", "all", n.c_str(), "transfer_us"}), field(v, {"waittime", "all", n.c_str(), "synchronizing_us"}));
    }
    simdjson::dom::object commops;
    ignore(v["commops"].get_object().get(commops));
    std::printf("  communication operations (us)\n  %-26s %-24s %8s %16s %14s %14s\n", "worker", "name", "calls", "total bytes",
                "latency", "transfer");
    for (auto [worker, rows] : commops) {
      simdjson::dom::array arr;
      if (rows.get_array().get(arr)) continue;
      for (simdjson::dom::element r : arr) {
        std::string_view name;
        ignore(r["name"].get_string().get(name));
        std::printf("  %-26.*s %-24.*s %8.0f %16.0f %14.1f %14.1f\n", int(worker.size()), worker.data(), int(name.size()),
                    name.data(), field(r, {"calls"}), field(r, {"total_bytes"}), field(r, {"total_latency_us"}),
                    field(r, {"transfer_us"}));
      }
    }
    simdjson::dom::array stragglers;
    if (!v["stragglers"].get_array().get(stragglers))
      for (simdjson::dom::element s : stragglers) {
        std::string_view step, worker;
        ignore(s["step"].get_string().get(step));
        if (step != "all") continue;
        ignore(s["slowest_worker"].get_string().get(worker));
        std::printf("  slowest worker: %.*s, %.1f us per step, %.1f us behind the median\n", int(worker.size()), worker.data(),
                    field(s, {"slowest_us"}), field(s, {"behind_median_us"}));
      }
    simdjson::dom::array notes;
    if (!v["matching"]["notes"].get_array().get(notes))
      for (simdjson::dom::element note : notes) {
        std::string_view t;
        if (!note.get_string().get(t)) std::printf("  note: %.*s\n", int(t.size()), t.data());
      }
  }
}

// The run's GPU time for people: per span, a line per rank (its trace's row).
void print_gpu_time(const ks::DistributedRunAnswers& run) {
  if (!run.error.empty()) {
    std::printf("error: %s\n", run.error.c_str());
    return;
  }
  for (const ks::DistributedSpanAnswers& s : run.spans) {
    const ks::Answer& a = s.gpu_time;
    std::printf("GPU time per rank, span %s\n", ks::answer_meta_string(a, "span").c_str());
    std::printf("  %-32s %6s %12s %8s %10s %14s %10s\n", "worker", "rank", "span ms", "idle %", "compute %", "non-compute %",
                "overlap %");
    const ks::AnswerColumn *worker = a.column("worker"), *rank = a.column("rank"), *scope = a.column("scope"),
                           *span = a.column("span_us"), *idle = a.column("idle_pct"), *compute = a.column("compute_pct"),
                           *non = a.column("non_compute_pct"), *overlap = a.column("comm_comp_overlap_pct");
    auto num = [](double v, double scale) {
      char buf[32];
      if (std::isnan(v)) return std::string("-");
      std::snprintf(buf, sizeof buf, "%.2f", v / scale);
      return std::string(buf);
    };
    for (size_t r = 0; r < a.rows; ++r) {
      if (a.strings[scope->str[r]] != "trace") continue;
      const std::string rk = rank->i32[r] == ks::kNullI32 ? "-" : std::to_string(rank->i32[r]);
      std::printf("  %-32s %6s %12s %8s %10s %14s %10s\n", a.strings[worker->str[r]].c_str(), rk.c_str(),
                  num(span->f64[r], 1e3).c_str(), num(idle->f64[r], 1).c_str(), num(compute->f64[r], 1).c_str(),
                  num(non->f64[r], 1).c_str(), num(overlap->f64[r], 1).c_str());
    }
  }
}

void print_run(const ks::DistributedRunAnswers& run, bool json, bool gpu_time) {
  if (gpu_time) {
    if (json) std::fputs(ks::distributed_run_gpu_time_json(run).c_str(), stdout);
    else print_gpu_time(run);
    return;
  }
  const std::string out = ks::distributed_run_json(run);
  if (json) std::fputs(out.c_str(), stdout);
  else print_text(out);
}

}  // namespace

// The *.ks-summary files of a folder, sorted.
std::vector<std::string> folder_summaries(const std::string& dir, std::string& error) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && name.size() > 11 && name.compare(name.size() - 11, 11, ".ks-summary") == 0)
      out.push_back(e.path().string());
  }
  if (ec) error = dir + ": " + ec.message();
  std::sort(out.begin(), out.end());
  if (out.empty() && error.empty()) error = dir + ": no rank summaries (*.ks-summary) in it";
  return out;
}

// Reads the summaries in `files`: each one's trace name gives its worker and span as
// `distributed` on the traces would name them.
int reduce_summaries(const std::vector<std::string>& files, bool json, bool tb, bool gpu_time, int status) {
  std::vector<ks::RankSummary> loaded;
  std::vector<std::string> names;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ks::RankSummary r;
    std::string name, error;
    if (!in.good() && !in.eof()) error = "cannot read it";
    else ks::read_rank_summary_file(bytes, name, r, error);
    if (!error.empty()) {
      std::fprintf(stderr, "%s: %s\n", base_name(f).c_str(), error.c_str());
      status = 1;
      continue;
    }
    names.push_back(std::move(name));
    loaded.push_back(std::move(r));
  }
  if (loaded.empty()) {
    if (files.empty()) std::fprintf(stderr, "kinetoscope distributed: no rank summary to read\n");
    return 1;
  }
  std::vector<std::string> workers, spans;
  ks::run_names(names, workers, spans);
  for (size_t i = 0; i < loaded.size(); ++i) {
    loaded[i].worker = workers[i];
    loaded[i].span = spans[i];
  }
  print_run(ks::distributed_run_answers(loaded, tb), json, gpu_time);
  return status;
}

int run_distributed(int argc, char** argv) {
  bool json = false, tb = false, from_summaries = false, gpu_time = false;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> inputs;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--tb-plugin") tb = true;
    else if (a == "--from-summaries") from_summaries = true;
    else if (a == "--gpu-time") gpu_time = true;
    else if (a == "--jobs" && i + 1 < argc) {
      if (!ks::parse_trace_jobs("distributed", argv[++i], jobs)) return 2;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope distributed: unknown option %s\n%s", a.c_str(), kHelp);
      return 2;
    } else inputs.push_back(a);
  }
  if (inputs.empty()) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  int status = 0;
  const std::vector<std::string> files = ks::expand_inputs(inputs, status, from_summaries ? &folder_summaries : &ks::folder_traces);
  if (from_summaries) return reduce_summaries(files, json, tb, gpu_time, status);
  // Worker and span names as tb_plugin gives them: spans ranked 1..n per worker in string order.
  std::vector<std::string> names;
  for (const std::string& f : files) names.push_back(base_name(f));
  std::vector<std::string> workers, spans;
  ks::run_names(names, workers, spans);

  // Map in `jobs` threads; each model lives only while its summary is taken.
  std::vector<ks::RankSummary> summaries(files.size());
  const std::vector<std::string> errors = ks::read_each_in_threads(files, jobs, [&](size_t i, const ks::TraceReader& reader) {
    summaries[i] = ks::distributed_rank(reader.model(), workers[i], spans[i], tb);
    if (gpu_time) summaries[i].gpu_time = ks::rank_gpu_time(reader.model());
  });

  std::vector<ks::RankSummary> loaded;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!errors[i].empty()) {
      std::fprintf(stderr, "%s: %s\n", base_name(files[i]).c_str(), errors[i].c_str());
      status = 1;
      continue;
    }
    loaded.push_back(std::move(summaries[i]));
  }
  if (loaded.empty()) {
    if (files.empty()) std::fprintf(stderr, "kinetoscope distributed: no trace to read\n");
    return 1;
  }
  print_run(ks::distributed_run_answers(loaded, tb), json, gpu_time);
  return status;
}
