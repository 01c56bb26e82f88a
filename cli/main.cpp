// kinetoscope: the command-line face of the core. Reads traces exactly as the browser does
// (same chunked reader), prints the views as text or JSON.
#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/diff_command.h"
#include "cli/file_source.h"
#include "cli/view_command.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/kernels.h"
#include "core/analysis/modules.h"
#include "core/analysis/operators.h"
#include "core/analysis/overview.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/step_scope.h"
#include "core/analysis/summary.h"
#include "core/analysis/tensor_cores.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/trace/trace_trimmer.h"
#include "core/util/format_pct.h"

int run_distributed(int argc, char** argv);  // cli/distributed_command.cpp
int run_rank_summary(int argc, char** argv);  // cli/rank_summary_command.cpp

namespace {

const char kUsage[] =
    "usage: kinetoscope summary [--json] [--chunk-bytes N] TRACE...\n"
    "       kinetoscope steps [--json] [--tb-plugin] TRACE...\n"
    "       kinetoscope gpus [--json] [--step N] [--tb-plugin] TRACE...\n"
    "       kinetoscope overview [--json] [--tb-plugin] TRACE...\n"
    "       kinetoscope operators [--json|--csv] [--group-by op|op+shape|op+stack] [--step N] [--peak DEVICE] [--tb-plugin] TRACE...\n"
    "       kinetoscope operators --detail NAME [--group-by op+shape --input-shape SHAPE] [--json]\n"
    "                             [--step N] [--tb-plugin] TRACE...\n"
    "       kinetoscope kernels [--json|--csv] [--group-by name|props] [--step N] [--peak DEVICE] [--tb-plugin] TRACE...\n"
    "       kinetoscope kernels --detail NAME [--group-by props --operator OP [--grid X,Y,Z]\n"
    "                           [--block X,Y,Z] [--registers N] [--shared-memory N]] [--json]\n"
    "                           [--step N] [--tb-plugin] TRACE...\n"
    "       kinetoscope trim (--step N | --from-us T --to-us T) [-o OUT [--json]] TRACE\n"
    "       kinetoscope modules [--json|--csv] [--tb-plugin] TRACE...\n"
    "       kinetoscope ranges [--json|--csv] TRACE...\n"
    "       kinetoscope ranges --detail PATH [--json] TRACE...\n"
    "       kinetoscope distributed [--json] [--jobs N] [--tb-plugin] DIR|TRACE...\n"
    "       kinetoscope rank-summary [--json] [--jobs N] [--tb-plugin] -o DIR DIR|TRACE...\n"
    "       kinetoscope distributed --from-summaries [--json] [--tb-plugin] DIR|SUMMARY...\n"
    "       kinetoscope --version\n"
    "       kinetoscope memory [--json|--csv [--events]] [--device NAME] [--from-us T --to-us T]\n"
    "                          [--tb-plugin] TRACE...\n"
    "       kinetoscope flops [--json|--csv] [--step N] [--peak DEVICE] TRACE...\n"
    "       kinetoscope snapshot [--json] [--device N] [--at-us T] FILE...\n"
    "       kinetoscope diff [--json|--csv [--operators]] [--tb-plugin] BASELINE EXPERIMENT\n"
    "       kinetoscope diff --fail-if-slower PCT [--metric M] [--tb-plugin] BASELINE EXPERIMENT\n"
    "\n"
    "  summary   what each trace holds: schema, devices, distributed info, time span,\n"
    "            events per category and phase, and trace health (skipped/repaired events).\n"
    "            --json prints one JSON object per file, one per line.\n"
    "\n"
    "  steps     the steps (ProfilerStep#N, extended to the end of their GPU work) and the\n"
    "            step-time breakdown: kernel, memcpy, memset, communication, runtime,\n"
    "            dataloader, CPU exec, other, per step and on average (times in us).\n"
    "            --tb-plugin also counts ProfilerStep and annotation ranges on GPU streams,\n"
    "            as tb_plugin does (see docs/compatibility.md).\n"
    "\n"
    "  gpus      per GPU over the steps: utilization, est. SM efficiency, est. achieved\n"
    "            occupancy, and the utilization timeline (--json). --step N: over step N's\n"
    "            time, with the Tensor Core share of the kernels it issued (the Overview's GPU\n"
    "            summary when that step is chosen).\n"
    "\n"
    "  overview  steps with their breakdown and average, the GPU summary (vendor, architecture,\n"
    "            the share of kernel time on Tensor Cores, Matrix Cores on AMD), the\n"
    "            trace-wide shares and the recommendations with their evidence.\n"
    "\n"
    "  operators operators grouped by name (--group-by op, default) or name and input shape\n"
    "            (op+shape) or name and call stack (op+stack): calls, host and device self/total\n"
    "            time (us), Tensor Core shares. --detail NAME: that group's kernels (its own\n"
    "            launches) and call stacks. A call stack is the operator's \"Call stack\" (PyTorch\n"
    "            1.x) or the python_function frames around it (2.x, with_stack=True), innermost\n"
    "            first, without the profiler's own frames.\n"
    "\n"
    "  kernels   kernels grouped by name (--group-by name, default) or by launch properties and\n"
    "            launching operator (props): calls, total/mean/min/max (us), Tensor Core use\n"
    "            (yes, no, ? when the name does not tell, with the rule that decided), blocks\n"
    "            per SM, est. achieved occupancy. --detail NAME: that row's launching operators,\n"
    "            launch properties and the call stacks of the operators that launched it\n"
    "            (a props row is named by --operator and the properties, 0 or absent where\n"
    "            the row has none).\n"
    "\n"
    "            --step N (operators, kernels): only the work step N issued (N: a name\n"
    "            `steps` lists): operators that started in the step, with their device time,\n"
    "            and the kernels they launched (docs/contracts.md).\n"
    "\n"
    "  trim      writes a valid trace holding only a time window: step N (as `steps` finds it)\n"
    "            or [--from-us, --to-us] (absolute trace time): top-level members, metadata,\n"
    "            events overlapping the window, flows wholly inside it (to stdout or -o OUT).\n"
    "            --json (with -o): its report on stdout, what it kept and dropped by kind of event.\n"
    "\n"
    "  modules   the nn.Module hierarchy (python_function frames recorded with with_modules or\n"
    "            with_stack) and PyTorch Lightning's [pl][module] modules: per module its\n"
    "            occurrences, operators directly under it, host and device total/self time (us),\n"
    "            summed over its calls; and how many backward passes fwdbwd flows put under a\n"
    "            module's .backward node.\n"
    "  ranges    the record_function(\"name\") ranges (user_annotation) as a tree, ProfilerStep\n"
    "            left out: per place in the tree its calls, host total/self, the device time of\n"
    "            the work launched on the range's thread while it was open (total/self), its\n"
    "            Tensor Core share, and its GPU-side copy (gpu_user_annotation) with the device\n"
    "            work inside it (us). --detail PATH: the kernels launched in that row.\n"
    "  distributed  the Distributed view of a run (one trace per rank): computation/communication\n"
    "            overlap, data transfer vs synchronizing time of collectives matched across ranks,\n"
    "            communication operations, stragglers (`kinetoscope distributed --help`).\n"
    "  rank-summary  the Distributed view's map step alone: each trace's rank summary written to\n"
    "            -o DIR; `distributed --from-summaries DIR` reduces them to the same answer (the map\n"
    "            can run on other machines: scripts/fleet; `kinetoscope rank-summary --help`).\n"
    "  memory    the Memory view (needs profile_memory=True): per device (CPU, GPU0, ...) the\n"
    "            peaks, the statistics per operator (calls, size increase, allocations; bytes),\n"
    "            with --json also the events (allocation/release pairs) and the curve. Times are\n"
    "            us from the trace's first event (origin_us); --from-us/--to-us keep a window\n"
    "            (inclusive). --csv prints the statistics, --csv --events the events.\n"
    "  flops     FLOPs counted from the operators' recorded shapes (record_shapes=True) with\n"
    "            PyTorch's flop_counter formulas: per step FLOPs, TFLOP/s and MFU against the\n"
    "            device's dense peak; per operator and dtype FLOPs, bytes, TFLOP/s, % of peak,\n"
    "            intensity (`kinetoscope flops --help`, docs/flops.md).\n"
    "  snapshot  CUDA memory snapshots (torch.cuda.memory._dump_snapshot pickles, read without\n"
    "            running their code): per device the history's counts, the peak allocated memory\n"
    "            and the allocation sites holding it, each out-of-memory event, the state at the\n"
    "            dump (`kinetoscope snapshot --help`).\n"
    "\n"
    "  diff      two traces' operator trees side by side, matched at their dataloader,\n"
    "            optimizer, module and ProfilerStep ranges: per node both sides' host and\n"
    "            device time (us) and their operators by name (--csv: the nodes; --csv\n"
    "            --operators: each node side's operators). --fail-if-slower PCT: one line,\n"
    "            exit status 3 when the experiment's per-step METRIC (step, kernel, memcpy,\n"
    "            memset, communication, runtime, dataloader, cpu_exec, other; default step) is\n"
    "            more than PCT % above the baseline's, else 0.\n"
    "\n"
    "  --jobs N     (every command but distributed) read each plain .json trace with N threads,\n"
    "               in byte ranges merged into one model: the same numbers, sooner on many cores;\n"
    "               .json.gz is read in one (a gzip stream cannot be entered part-way).\n"
    "  --tb-plugin  link and count as tb_plugin does, quirks included, with its 2021 Tensor Core\n"
    "               list and its recommendation sentences (docs/compatibility.md).\n"
    "  --csv        the operators/kernels/modules table as CSV instead of text.\n"
    "\n"
    "TRACE is a PyTorch profiler trace (*.pt.trace.json or .json.gz; gzip is detected by content).\n";

using ks::base_name;
using ks::load_trace;

using ks::for_each_session;

int run_summary(int argc, char** argv) {
  bool json = false;
  size_t chunk = 4 << 20;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--chunk-bytes" && i + 1 < argc) chunk = std::stoul(argv[++i]);
    else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope summary: unknown option %s\n%s", a.c_str(), kUsage);
      return 2;
    } else files.push_back(a);
  }
  if (files.empty() || chunk == 0) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int status = 0;
  for (const std::string& path : files) {
    ks::TraceReader reader;
    const std::string open_problem = ks::read_file_into(path, reader, chunk);
    const std::string error = open_problem.empty() ? reader.error() : open_problem;
    if (!error.empty()) status = 1;
    const std::string name = base_name(path);
    if (json) {
      // The summary view's answer, with the error of a file that could not be opened too.
      std::printf("%s\n", ks::answer_json(ks::summary_model_answer(reader.model(), name, error)).c_str());
    } else {
      std::fputs(ks::summary_text(reader.model(), name, error).c_str(), stdout);
    }
  }
  return status;
}

// The GPUs of a gpu_metrics or gpu_summary answer (`step` non-empty) as text, read from its columns:
// per GPU its utilization, est. SM efficiency and occupancy when some kernel recorded them, and in
// a step's summary the Tensor Core (`term`) share with the share nothing could tell.
void print_gpus(const std::string& name, const ks::Answer& a, const std::string& step, std::string_view term) {
  if (step.empty()) std::printf("%s: %zu GPU%s with kernels, over the steps' window\n", name.c_str(), a.rows, a.rows == 1 ? "" : "s");
  else std::printf("%s: step %s, %zu GPU%s with kernels\n", name.c_str(), step.c_str(), a.rows, a.rows == 1 ? "" : "s");
  const ks::AnswerColumn* tc = a.column("tensor_core_pct");
  const ks::AnswerColumn* unknown = a.column("tensor_core_unknown_pct");
  for (size_t r = 0; r < a.rows; ++r) {
    std::printf("  GPU %d: utilization %s", a.column("device")->i32[r], ks::format_pct(a.column("utilization_pct")->f64[r]).c_str());
    const double sm = a.column("sm_efficiency_pct")->f64[r], occ = a.column("achieved_occupancy_pct")->f64[r];
    if (!std::isnan(sm)) std::printf(", est. SM efficiency %s", ks::format_pct(sm).c_str());
    if (!std::isnan(occ)) std::printf(", est. achieved occupancy %s", ks::format_pct(occ).c_str());
    if (tc && !std::isnan(tc->f64[r])) {
      std::printf(", %.*s %s", int(term.size()), term.data(), ks::format_pct(tc->f64[r]).c_str());
      if (unknown->f64[r] > 0) std::printf(" (+ %s unknown)", ks::format_pct(unknown->f64[r]).c_str());
    }
    std::printf("\n");
  }
}

int run_step_views(const char* command, int argc, char** argv) {
  const bool gpus = !std::strcmp(command, "gpus");
  bool json = false;
  ks::StepOptions options;
  std::vector<std::string> files;
  std::optional<std::string> step;  // gpus --step N
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--tb-plugin") options.tb_plugin_gpu_annotations = true;
    else if (gpus && a == "--step" && i + 1 < argc) step = argv[++i];
    else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope %s: unknown option %s\n%s", command, a.c_str(), kUsage);
      return 2;
    } else files.push_back(a);
  }
  if (files.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int status = 0;
  const int loaded = for_each_session(files, options.tb_plugin_gpu_annotations, [&](const std::string& name, const ks::Session& session) {
    const ks::StepsResult& steps = session.steps();
    if (gpus) {
      // gpu_metrics over the steps' window, or one step's GPU summary: its window and the kernels
      // it issued (step_scope.h), as the Overview's GPU summary shows a chosen step.
      ks::QueryParams params{{"file", name}};
      if (step) params["step"] = *step;
      if (step && step->empty()) {
        std::fprintf(stderr, "%s: --step takes a step's name (`kinetoscope steps` lists them).\n", name.c_str());
        status = 1;
        return;
      }
      const ks::Answer a = session.query(step ? "gpu_summary" : "gpu_metrics", params);
      if (!a.error.empty()) {
        std::fprintf(stderr, "%s: %s.\n", name.c_str(), a.error.c_str());
        status = 1;
        return;
      }
      if (json) std::printf("%s\n", ks::answer_json(a).c_str());
      else print_gpus(name, a, step ? *step : "", ks::matrix_units_term(ks::trace_accelerator(session.model())));
      return;
    }
    if (json) {
      std::printf("%s\n", ks::answer_json(session.query("steps", {{"file", name}})).c_str());
      return;
    }
    const ks::StepBreakdown& b = session.breakdown();
    std::printf("%s: %zu step%s%s (us)\n", name.c_str(), b.steps.size(), b.steps.size() == 1 ? "" : "s",
                steps.from_profiler_steps ? "" : ", no ProfilerStep: the whole trace");
    std::printf("  %-8s %12s", "step", "total");
    for (size_t r = 0; r < ks::kRoleCount; ++r) std::printf(" %13s", ks::role_name(ks::Role(r)));
    std::printf("\n");
    auto row = [&](const std::string& label, double total, const auto& ns) {
      std::printf("  %-8s %12.1f", label.c_str(), total / 1e3);
      for (size_t r = 0; r < ks::kRoleCount; ++r) std::printf(" %13.1f", double(ns[r]) / 1e3);
      std::printf("\n");
    };
    for (const ks::StepCosts& c : b.steps) row(c.step.name, double(c.total_ns), c.ns);
    row("average", b.average_total_ns, b.average_ns);
  });
  return loaded | status;
}

// A call stack as the trace holds it ("a.py(1): f;b.py(2): g"), one frame a line.
void print_frames(std::string_view frames) {
  for (size_t at = 0; at <= frames.size();) {
    const size_t semi = std::min(frames.find(';', at), frames.size());
    if (semi > at) std::printf("      %.*s\n", int(semi - at), frames.data() + at);
    at = semi + 1;
  }
}

void print_operator_detail(const std::string& name, const std::string& op, const std::string& shape, const std::string& step,
                           const ks::Answer& stacks, const ks::Answer& kernels) {
  std::printf("%s: operator %s%s%s%s%s\n", name.c_str(), op.c_str(), shape.empty() ? "" : " ", shape.c_str(),
              step.empty() ? "" : ", step ", step.c_str());
  std::printf("  kernels it launched (us):\n  %10s %14s  %s\n", "calls", "total", "kernel");
  const ks::AnswerColumn& kname = *kernels.column("name");
  for (size_t r = 0; r < kernels.rows; ++r)
    std::printf("  %10llu %14.1f  %s\n", (unsigned long long)kernels.column("calls")->f64[r], kernels.column("total_us")->f64[r],
                kernels.strings[kname.str[r]].c_str());
  std::printf("  call stacks (us):\n");
  const ks::AnswerColumn& frames = *stacks.column("call_stack");
  for (size_t r = 0; r < stacks.rows; ++r) {
    std::printf("  %llu calls, device self %.1f, host self %.1f:\n", (unsigned long long)stacks.column("calls")->f64[r],
                stacks.column("device_self_us")->f64[r], stacks.column("host_self_us")->f64[r]);
    print_frames(stacks.strings[frames.str[r]]);
  }
  // The calls without one, by why (call_stacks.h's reasons, as the answer's no_stack lists them).
  const std::string_view no_stack = ks::answer_meta(stacks, "no_stack");
  for (size_t r = 1; r <= size_t(ks::NoStackReason::kAutograd); ++r) {
    const ks::NoStackReason why = ks::NoStackReason(r);
    const size_t at = no_stack.find("\"reason\":\"" + std::string(ks::no_stack_word(why)) + "\"");
    const size_t calls_at = at == std::string_view::npos ? at : no_stack.find("\"calls\":", at);
    if (calls_at == std::string_view::npos) continue;
    const unsigned long long calls = std::strtoull(std::string(no_stack.substr(calls_at + 8, 24)).c_str(), nullptr, 10);
    std::printf("  %llu call%s without one: %s\n", calls, calls == 1 ? "" : "s", ks::no_stack_text(why));
  }
}

void print_kernel_detail(const std::string& name, const ks::KernelKey& key, const std::string& step, const ks::Answer& stacks,
                         const ks::Answer& operators, const ks::Answer& launches) {
  auto meta = [&](const char* k) { return ks::answer_meta_number(stacks, k); };
  const bool found = ks::answer_meta(stacks, "mean_us") != "null";
  std::printf("%s: kernel %s%s%s%s%s: %llu calls, total %.1f us", name.c_str(), key.name.c_str(),
              key.group_by == ks::KernelGroupBy::kProps ? " <- " : "", key.op.c_str(), step.empty() ? "" : ", step ",
              step.c_str(), (unsigned long long)meta("calls"), meta("total_us"));
  if (found) std::printf(", mean %.2f, min %.1f, max %.1f", meta("mean_us"), meta("min_us"), meta("max_us"));
  std::printf("\n  launched by (us):\n  %10s %14s  %s\n", "calls", "total", "operator");
  for (size_t r = 0; r < operators.rows; ++r)
    std::printf("  %10llu %14.1f  %s\n", (unsigned long long)operators.column("calls")->f64[r], operators.column("total_us")->f64[r],
                operators.strings[operators.column("name")->str[r]].c_str());
  std::printf("  launch properties (us):\n  %10s %14s  %-16s %-16s %10s %14s\n", "calls", "total", "grid", "block",
              "registers", "shared memory");
  auto dims = [](const int32_t* v) {
    return v[0] != ks::kNullI32 ? "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]"
                                : std::string("-");
  };
  for (size_t r = 0; r < launches.rows; ++r)
    std::printf("  %10llu %14.1f  %-16s %-16s %10d %14d\n", (unsigned long long)launches.column("calls")->f64[r],
                launches.column("total_us")->f64[r], dims(&launches.column("grid")->i32[3 * r]).c_str(),
                dims(&launches.column("block")->i32[3 * r]).c_str(), launches.column("registers_per_thread")->i32[r],
                launches.column("shared_memory")->i32[r]);
  std::printf("  call stacks of the launching operators (us):\n");
  for (size_t r = 0; r < stacks.rows; ++r) {
    std::printf("  %s: %llu calls, %.1f\n", stacks.strings[stacks.column("operator")->str[r]].c_str(),
                (unsigned long long)stacks.column("calls")->f64[r], stacks.column("total_us")->f64[r]);
    print_frames(stacks.strings[stacks.column("call_stack")->str[r]]);
  }
}

// The operator table as text, read from its answer's columns.
void print_operators(const std::string& name, const ks::Answer& a, const std::string& step) {
  std::printf("%s: %zu operator group%s%s%s (us)\n", name.c_str(), a.rows, a.rows == 1 ? "" : "s",
              step.empty() ? "" : " in step ", step.c_str());
  std::printf("  %10s %14s %14s %14s %14s  %s\n", "calls", "device self", "device total", "host self", "host total", "name");
  const ks::AnswerColumn& names = *a.column("name");
  const ks::AnswerColumn& shapes = *a.column("input_shape");
  const ks::AnswerColumn* stacks = a.column("call_stack");
  const auto& calls = a.column("calls")->f64;
  const auto& dself = a.column("device_self_us")->f64;
  const auto& dtotal = a.column("device_total_us")->f64;
  const auto& hself = a.column("host_self_us")->f64;
  const auto& htotal = a.column("host_total_us")->f64;
  for (size_t r = 0; r < a.rows; ++r) {
    const bool shape = shapes.str[r] != ks::kNullString && !a.strings[shapes.str[r]].empty();
    std::printf("  %10llu %14.1f %14.1f %14.1f %14.1f  %s%s%s\n", (unsigned long long)calls[r], dself[r], dtotal[r], hself[r],
                htotal[r], a.strings[names.str[r]].c_str(), shape ? " " : "", shape ? a.strings[shapes.str[r]].c_str() : "");
    if (!stacks) continue;
    const std::string& frames = a.strings[stacks->str[r]];
    if (frames.empty()) std::printf("      (no call stack)\n");
    else print_frames(frames);
  }
}

// The kernel table as text, read from its answer's columns.
void print_kernels(const std::string& name, const ks::Answer& a, const std::string& step) {
  std::printf("%s: %zu kernel group%s%s%s (us)\n", name.c_str(), a.rows, a.rows == 1 ? "" : "s", step.empty() ? "" : " in step ",
              step.c_str());
  std::printf("  %10s %14s %12s %12s %12s %3s  %s\n", "calls", "total", "mean", "min", "max", "TC", "name");
  const ks::AnswerColumn& names = *a.column("name");
  const ks::AnswerColumn& ops = *a.column("operator");
  const auto& tc = a.column("tensor_cores")->u8;
  const auto& calls = a.column("calls")->f64;
  const auto& total = a.column("total_us")->f64;
  const auto& mean = a.column("mean_us")->f64;
  const auto& min = a.column("min_us")->f64;
  const auto& max = a.column("max_us")->f64;
  for (size_t r = 0; r < a.rows; ++r) {
    const bool op = ops.str[r] != ks::kNullString && !a.strings[ops.str[r]].empty();
    std::printf("  %10llu %14.1f %12.2f %12.1f %12.1f %3s  %s%s%s\n", (unsigned long long)calls[r], total[r], mean[r], min[r],
                max[r], tc[r] == ks::kTriYes ? "yes" : tc[r] == ks::kTriNo ? "no" : "?", a.strings[names.str[r]].c_str(),
                op ? " <- " : "", op ? a.strings[ops.str[r]].c_str() : "");
  }
}

// overview, operators, kernels: the views read from the operator trees.
int run_tree_views(const std::string& command, int argc, char** argv) {
  bool json = false, csv = false, tb = false;
  std::string group_by = command == "kernels" ? "name" : "op";
  std::string step, detail, input_shape, peak;
  bool has_step = false, has_detail = false, has_shape = false, has_props = false;
  ks::KernelKey kernel_key;
  auto usage = [&](const char* why) {
    std::fprintf(stderr, "kinetoscope %s: %s\n%s", command.c_str(), why, kUsage);
    return 2;
  };
  const bool table = command != "overview";
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--json") json = true;
    else if (a == "--csv" && table) csv = true;
    else if (a == "--tb-plugin") tb = true;
    else if (a == "--group-by" && more && table) group_by = argv[++i];
    else if (a == "--step" && more && table) { step = argv[++i]; has_step = true; }
    else if (a == "--peak" && more && table) peak = argv[++i];  // the FLOPs columns' peak row (issue 25)
    else if (a == "--detail" && more && table) { detail = argv[++i]; has_detail = true; }
    else if (a == "--input-shape" && more && command == "operators") { input_shape = argv[++i]; has_shape = true; }
    else if (a == "--operator" && more && command == "kernels") { kernel_key.op = argv[++i]; has_props = true; }
    else if ((a == "--grid" || a == "--block") && more && command == "kernels") {
      if (!ks::parse_launch_dims(argv[++i], a == "--grid" ? kernel_key.grid : kernel_key.block)) return usage((a + " takes X,Y,Z").c_str());
      has_props = true;
    } else if ((a == "--registers" || a == "--shared-memory") && more && command == "kernels") {
      if (!ks::parse_launch_int(argv[++i], a == "--registers" ? kernel_key.registers_per_thread : kernel_key.shared_memory))
        return usage((a + " takes a whole number").c_str());
      has_props = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage(("unknown option " + a).c_str());
    } else files.push_back(a);
  }
  ks::OpGroupBy op_group = ks::OpGroupBy::kName;
  ks::KernelGroupBy kernel_group = ks::KernelGroupBy::kName;
  const bool group_ok = command == "operators" ? ks::parse_op_group_by(group_by, op_group)
                        : command == "kernels" ? ks::parse_kernel_group_by(group_by, kernel_group) : true;
  if (!group_ok) {
    std::fprintf(stderr, "kinetoscope %s: --group-by %s is not one of %s\n", command.c_str(), group_by.c_str(),
                 command == "operators" ? "op, op+shape, op+stack" : "name, props");
    return 2;
  }
  if (files.empty() || (json && csv)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  // A detail names one row of the table: its grouping's key, nothing more or less.
  if (has_detail && csv) return usage("--detail prints JSON (--json) or text, not CSV");
  if ((has_shape || has_props) && !has_detail) return usage("--input-shape, --operator and the launch properties name a --detail row");
  if (has_shape && op_group != ks::OpGroupBy::kNameAndShape) return usage("--input-shape goes with --group-by op+shape");
  if (command == "operators" && has_detail && op_group == ks::OpGroupBy::kNameAndStack)
    return usage("--detail lists a group's call stacks: use it with --group-by op or op+shape");
  if (command == "operators" && has_detail && op_group == ks::OpGroupBy::kNameAndShape && !has_shape)
    return usage("a --group-by op+shape row is named with --input-shape too");
  if (command == "kernels" && has_detail && kernel_group == ks::KernelGroupBy::kProps && kernel_key.op.empty())
    return usage("a --group-by props row is named with --operator too");
  if (command == "kernels" && has_props && kernel_group != ks::KernelGroupBy::kProps)
    return usage("--operator and the launch properties go with --group-by props");
  kernel_key.group_by = kernel_group;
  kernel_key.name = detail;
  int status = 0;
  const int loaded = for_each_session(files, tb, [&](const std::string& name, const ks::Session& session) {
    const ks::TraceModel& m = session.model();
    if (command == "overview") {
      if (json) {
        std::printf("%s\n", ks::answer_json(session.query("overview", {{"file", name}})).c_str());
        return;
      }
      const ks::OverviewInputs in = session.overview_inputs();
      const ks::StepBreakdown& b = in.steps;
      const ks::GpuMetricsResult& g = in.gpus;
      std::printf("%s: %zu step%s, average %.1f us; %zu GPU%s\n", name.c_str(), b.steps.size(),
                  b.steps.size() == 1 ? "" : "s", b.average_total_ns / 1e3, g.gpus.size(), g.gpus.size() == 1 ? "" : "s");
      const ks::TcShare share = ks::tc_kernel_share(m, tb);
      if (share.total_ns > 0)
        std::printf("  %s: %s of all kernel time, %s unknown\n",
                    std::string(ks::matrix_units_term(ks::trace_accelerator(m))).c_str(),
                    ks::format_pct(*share.ratio() * 100).c_str(), ks::format_pct(*share.unknown_ratio() * 100).c_str());
      for (const ks::Recommendation& r : ks::recommendations(in)) std::printf("  - %s\n", r.text.c_str());
      return;
    }
    if (!has_detail) {
      // The tables: the Session's answer, printed as JSON, CSV or text.
      ks::QueryParams params{{"group_by", group_by}};
      if (has_step) params["step"] = step;
      if (!peak.empty()) params["peak"] = peak;
      const ks::Answer a = session.query(command, params);
      if (!a.error.empty()) {
        std::fprintf(stderr, "%s: %s.\n", name.c_str(), a.error.c_str());
        status = 1;
        return;
      }
      if (json) std::printf("%s\n", ks::answer_json(a).c_str());
      else if (csv) std::fputs(ks::answer_csv(a).c_str(), stdout);
      else if (command == "operators") print_operators(name, a, has_step ? step : "");
      else print_kernels(name, a, has_step ? step : "");
      return;
    }
    // A row's detail: the Session's answers (the row's lists are views of their own), printed as
    // one JSON object or as text.
    ks::QueryParams params{{"group_by", group_by}, {"name", detail}};
    if (has_step) params["step"] = step;
    if (command == "operators") {
      if (has_shape) params["input_shape"] = input_shape;
    } else if (kernel_group == ks::KernelGroupBy::kProps) {
      auto dims = [](const std::array<int32_t, 3>& d) {
        return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
      };
      params["operator"] = kernel_key.op;
      params["grid"] = dims(kernel_key.grid);
      params["block"] = dims(kernel_key.block);
      params["registers"] = std::to_string(kernel_key.registers_per_thread);
      params["shared_memory"] = std::to_string(kernel_key.shared_memory);
    }
    const bool ops = command == "operators";
    const ks::Answer a = session.query(ops ? "operator_detail" : "kernel_detail", params);
    const ks::Answer b = session.query(ops ? "operator_kernels" : "kernel_operators", params);
    const ks::Answer c = ops ? ks::Answer() : session.query("kernel_launches", params);
    for (const ks::Answer* x : {&a, &b, &c}) {
      if (x->error.empty()) continue;
      std::fprintf(stderr, "%s: %s.\n", name.c_str(), x->error.c_str());
      status = 1;
      return;
    }
    if (json) std::printf("%s\n", (ops ? ks::answer_json(a, {&b}) : ks::answer_json(a, {&b, &c})).c_str());
    else if (ops) print_operator_detail(name, detail, input_shape, step, a, b);
    else print_kernel_detail(name, kernel_key, step, a, b, c);
  });
  return loaded | status;
}

int run_trim(int argc, char** argv) {
  std::string step, out_path, path;
  double from_us = 0, to_us = 0;
  bool have_from = false, have_to = false, json = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--step" && i + 1 < argc) step = argv[++i];
    else if (a == "--from-us" && i + 1 < argc) { from_us = std::strtod(argv[++i], nullptr); have_from = true; }
    else if (a == "--to-us" && i + 1 < argc) { to_us = std::strtod(argv[++i], nullptr); have_to = true; }
    else if (a == "-o" && i + 1 < argc) out_path = argv[++i];
    else if (a == "--json") json = true;
    else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope trim: unknown option %s\n%s", a.c_str(), kUsage);
      return 2;
    } else if (path.empty()) path = a;
    else { std::fputs(kUsage, stderr); return 2; }
  }
  if (path.empty() || (step.empty() && !(have_from && have_to)) || (!step.empty() && (have_from || have_to))) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (json && out_path.empty()) {
    std::fprintf(stderr, "kinetoscope trim: --json prints the report on stdout, so the trace needs -o OUT\n%s", kUsage);
    return 2;
  }
  int64_t start_ns = 0, end_ns = 0;
  if (!step.empty()) {
    ks::Session session;
    if (!load_trace(path, session.reader())) return 1;
    const ks::StepsResult& steps = session.steps();
    const auto it = std::find_if(steps.steps.begin(), steps.steps.end(), [&](const ks::Step& s) { return s.name == step; });
    if (it == steps.steps.end()) {
      std::fprintf(stderr, "%s: %s.\n", base_name(path).c_str(), ks::unknown_step_message(steps, step).c_str());
      return 1;
    }
    start_ns = it->start_ns;
    end_ns = it->end_ns;
  } else {
    start_ns = int64_t(std::floor(from_us)) * 1000;
    end_ns = int64_t(std::ceil(to_us)) * 1000;
  }
  ks::TraceTrimmer trimmer(start_ns, end_ns);
  const std::string open_problem = ks::read_file_into(path, trimmer);
  trimmer.finish();
  const std::string error = open_problem.empty() ? trimmer.error() : open_problem;
  if (!error.empty()) {
    std::fprintf(stderr, "%s: %s\n", base_name(path).c_str(), error.c_str());
    return 1;
  }
  std::FILE* out = out_path.empty() ? stdout : std::fopen(out_path.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "kinetoscope trim: cannot write %s\n", out_path.c_str());
    return 1;
  }
  std::fwrite(trimmer.output().data(), 1, trimmer.output().size(), out);
  if (out != stdout) std::fclose(out);
  // The bytes are a trace; what was kept and dropped is the trim view's answer.
  const ks::Answer report = ks::trim_report_answer(trimmer);
  if (json) std::printf("%s\n", ks::answer_json(report).c_str());
  std::fprintf(stderr, "%s: kept %llu of %llu events\n", base_name(path).c_str(),
               (unsigned long long)trimmer.kept_events(), (unsigned long long)trimmer.total_events());
  return 0;
}

// modules: the Module view's tables (core/analysis/modules.h).
int run_modules(int argc, char** argv) {
  bool json = false, csv = false, tb = false;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") json = true;
    else if (a == "--csv") csv = true;
    else if (a == "--tb-plugin") tb = true;
    else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "kinetoscope modules: unknown option %s\n%s", a.c_str(), kUsage);
      return 2;
    } else files.push_back(a);
  }
  if (files.empty() || (json && csv)) {
    std::fprintf(stderr, "kinetoscope modules: %s\n%s", files.empty() ? "no TRACE given" : "--json or --csv, not both", kUsage);
    return 2;
  }
  int status = 0;
  const int loaded = for_each_session(files, tb, [&](const std::string& name, const ks::Session& session) {
    // The two tables are the Session's answers (the modules view, table modules or lightning).
    const ks::Answer mods = session.query("modules", {{"table", "modules"}});
    const ks::Answer pl = session.query("modules", {{"table", "lightning"}});
    const std::string_view error = ks::answer_meta(mods, "error");
    const bool has_modules = ks::answer_meta(mods, "has_modules") == "true";
    const bool has_lightning = ks::answer_meta(mods, "has_lightning") == "true";
    if (error != "null") {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), ks::answer_meta_string(mods, "error").c_str());
      status = 1;
    }
    if (json) {
      std::string out = "{\"file\":";
      ks::append_json_escaped(out, name);
      out += ",\"rows\":" + ks::answer_rows_json(mods);
      out += ",\"lightning\":" + (has_lightning ? ks::answer_rows_json(pl) : std::string("null"));
      out += ",\"backward\":" + std::string(ks::answer_meta(mods, "backward"));
      out += ",\"error\":" + std::string(error) + "}";
      std::printf("%s\n", out.c_str());
      return;
    }
    if (csv) {
      std::fputs((ks::answer_csv(mods) + ks::answer_csv(pl, false)).c_str(), stdout);
      return;
    }
    auto table = [&](const ks::Answer& t, const char* what) {
      std::printf("%s: %zu %s row%s (us)\n", name.c_str(), t.rows, what, t.rows == 1 ? "" : "s");
      if (!t.rows) return;
      std::printf("  %8s %9s %14s %14s %14s %14s  %s\n", "calls", "operators", "host total", "host self", "device total",
                  "device self", "module");
      auto col = [&](const char* c) -> const std::vector<double>& { return t.column(c)->f64; };
      for (size_t r = 0; r < t.rows; ++r)
        std::printf("  %8llu %9llu %14.1f %14.1f %14.1f %14.1f  %*s%s\n", (unsigned long long)col("occurrences")[r],
                    (unsigned long long)col("operators")[r], col("host_total_us")[r], col("host_self_us")[r],
                    col("device_total_us")[r], col("device_self_us")[r], t.column("depth")->i32[r] * 2, "",
                    t.strings[t.column("name")->str[r]].c_str());
    };
    if (!has_modules && !has_lightning) {
      std::printf("%s: no module information (record with torch.profiler.profile(with_modules=True) or with_stack=True;\n"
                  "  PyTorch Lightning's PyTorchProfiler adds [pl][module] ranges)\n", name.c_str());
      return;
    }
    if (has_modules) table(mods, "module");
    if (has_lightning) table(pl, "Lightning module");
    auto count = [&](const char* field) { return (unsigned long long)ks::answer_meta_number(mods, "backward", field); };
    if (count("flows"))
      std::printf("%s: %llu fwdbwd flows, %llu backward passes regrouped under modules\n", name.c_str(), count("flows"),
                  count("regrouped"));
  });
  return loaded | status;
}

}  // namespace

int run_memory(int argc, char** argv);  // cli/memory_command.cpp
int run_ranges(int argc, char** argv);  // cli/ranges_command.cpp
int run_flops(int argc, char** argv);   // cli/flops_command.cpp
int run_snapshot(int argc, char** argv);  // cli/snapshot_command.cpp

int main(int argc, char** argv) {
  // The binary and the rank summaries it writes (scripts/fleet compares its workers' to its own).
  if (argc == 2 && !std::strcmp(argv[1], "--version")) {
    std::printf("kinetoscope %s (rank summary 1)\n", KS_VERSION);
    return 0;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    std::fputs(views_usage(kUsage).c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  // --jobs N: threads reading one trace (byte ranges merged into one model); `distributed`'s
  // own --jobs counts traces read at a time.
  if (std::strcmp(argv[1], "distributed") != 0 && std::strcmp(argv[1], "rank-summary") != 0) {
    int kept = 2;
    for (int i = 2; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) {
        const long v = std::strtol(argv[i + 1], nullptr, 10);
        if (v < 1 || v > 64) {
          std::fprintf(stderr, "kinetoscope: --jobs takes a whole number from 1 to 64\n");
          return 2;
        }
        ks::set_read_jobs(unsigned(v));
        ++i;
        continue;
      }
      argv[kept++] = argv[i];
    }
    argc = kept;
  }
  if (!std::strcmp(argv[1], "summary")) return run_summary(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "steps") || !std::strcmp(argv[1], "gpus"))
    return run_step_views(argv[1], argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "trim")) return run_trim(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "modules")) return run_modules(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "distributed")) return run_distributed(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "rank-summary")) return run_rank_summary(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "memory")) return run_memory(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "ranges")) return run_ranges(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "flops")) return run_flops(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "snapshot")) return run_snapshot(argc - 2, argv + 2);
  if (!std::strcmp(argv[1], "diff")) return ks::run_diff_command(argc - 2, argv + 2, kUsage);
  if (!std::strcmp(argv[1], "overview") || !std::strcmp(argv[1], "operators") || !std::strcmp(argv[1], "kernels"))
    return run_tree_views(argv[1], argc - 2, argv + 2);
  if (const ks::ViewDef* v = find_view(argv[1])) return run_view_command(*v, argc - 2, argv + 2, kUsage);
  std::fprintf(stderr, "kinetoscope: unknown command %s\n%s", argv[1], kUsage);
  return 2;
}
