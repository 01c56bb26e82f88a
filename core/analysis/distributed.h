// The Distributed view (tb_plugin spec §15): a run's ranks side by side. Computed as map, then
// reduce: each rank's trace is reduced on its own to a RankSummary (steps, per-step overlap of
// computation and communication, its collective calls with their time ranges, devices), which is
// small and crosses a worker boundary as an answer in binary form (core/session/views/
// distributed.cpp); the reduce takes the summaries of all ranks, matches each collective across
// them (§15.2) and computes wait time, the communication operations table, stragglers and
// collectives by process group. The CLI (`kinetoscope distributed --jobs N`) and the page (one
// summary per Session, reduced in the worker) run the same two functions and print or show the
// same answers.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/run_gpu_time.h"
#include "core/trace/trace_model.h"
#include "core/util/intervals.h"

namespace ks {

struct DistDevice {
  int64_t id = -1;
  std::string name;
  int64_t memory_bytes = -1;
  std::string compute_capability;  // "8.0"; "" when the trace does not say (or AMD)
};

struct DistStep {
  std::string name;
  int64_t start_ns = 0, end_ns = 0;
  // §7.4: time in the step covered by computation, by communication, and by both.
  int64_t computation_ns = 0, communication_ns = 0, overlap_ns = 0;
};

// One collective call on one rank.
struct DistCall {
  std::string name;         // "nccl:all_reduce"
  std::string group;        // process group (its ranks as written, "[0, 1]", or its name); "" unknown
  int64_t group_size = -1;
  int64_t bytes = -1;       // message size of the call; -1 unknown
  std::string dtype;
  int64_t host_start_ns = 0, host_end_ns = 0;  // the host range (steps are assigned by it)
  int step = -1;            // index into the rank's steps; -1 outside every step
  // The time the call took: tb_plugin mode its host range then the kernels sharing its external
  // id; default mode its kernels on the GPU, or its host range when it launched none (CPU/gloo).
  Ranges ranges;
};

struct RankSummary {
  std::string worker;       // the worker name (from the file name, tb_plugin's rule)
  std::string span;         // "1".."n" (span rank) or "default"
  bool tb_plugin = false;
  int64_t rank = -1, world_size = -1;  // distributedInfo; -1 when absent
  std::string backend;
  bool has_device_properties = false;
  std::vector<DistDevice> devices;  // the GPUs its device work ran on
  std::vector<DistStep> steps;
  bool has_communication = false;   // tb_plugin: the Communication role is not empty
  bool nccl = false, gloo = false;  // libraries seen (tb_plugin drops the records when both)
  // tb_plugin fails the whole run on this rank (an NCCL/Gloo op with Input Dims but no Input type).
  std::string tb_failure;
  std::vector<DistCall> calls;      // sorted by (host start, -host end)
  // Its trace's GPU time (run_gpu_time.h), for the run-level GPU time table; the Distributed
  // view's reduce does not read it. Not present unless the map computed it.
  RankGpuTime gpu_time;
};

// The map step: one rank's summary. `worker` and `span` name it in the run.
RankSummary distributed_rank(const TraceModel& m, std::string_view worker, std::string_view span, bool tb_plugin);

// The reduce's result for one span of a run (docs/contracts.md, `kinetoscope distributed --json`).
// Times in µs; worker indexes are into `workers`.
struct DistOverlap {
  double computation_us = 0, overlapping_us = 0, communication_us = 0, other_us = 0;
};
struct DistWait {
  double transfer_us = 0, synchronizing_us = 0, unmatched_us = 0;  // unmatched: default mode only
};
struct DistCommOp {
  std::string name;
  int64_t calls = 0, total_bytes = 0;
  double avg_bytes = 0, total_latency_us = 0, avg_latency_us = 0, transfer_us = 0, avg_transfer_us = 0;
};
struct DistWorker {
  std::string worker, span, backend, node, process;
  int64_t rank = -1, world_size = -1;
  std::vector<DistDevice> devices;
  std::vector<DistCommOp> commops;  // its communication operations, by name in first-call order
};
struct DistStraggler {
  std::string step;  // "all" (the mean step time) or a step name
  double median_us = 0;
  size_t slowest = 0;  // worker index
  double slowest_us = 0, behind_median_us = 0;
  double behind_median_pct = 0;  // NaN when the median is 0
  std::vector<std::pair<size_t, double>> times_us;  // (worker, step time) of the workers that have the step
};
struct DistCollective {
  std::string process_group, name;
  int64_t group_size = -1, bytes = -1;  // -1 unknown
  int64_t calls = 0;
  uint64_t workers = 0;
  double total_us = 0, avg_us = 0, transfer_us = 0;
};
template <class T>
using ByWorker = std::vector<std::pair<size_t, T>>;
struct DistributedSpan {
  std::string span;
  bool tb_plugin = false;
  bool available = true;
  std::string reason;  // why not available
  std::vector<DistWorker> workers;
  std::vector<std::string> steps;  // step names in first-seen order
  // Keyed by "all" and each step (waittime also "null": the calls outside every step), then by
  // worker, in the order the view lists them; empty when not available.
  std::vector<std::pair<std::string, ByWorker<DistOverlap>>> overlap;
  std::vector<std::pair<std::string, ByWorker<DistWait>>> waittime;
  std::vector<DistStraggler> stragglers;
  std::vector<DistCollective> collectives;  // by total time, longest first
  uint64_t calls = 0, matched = 0;
  std::vector<std::string> notes;  // where matching stopped, and why
};
struct DistributedRun {
  std::string error;  // non-empty: ranks of another mode than the reduce's
  std::vector<DistributedSpan> spans;  // one per span of the run (tb_plugin groups the i-th span of every worker)
};

// The reduce step. Ranks of another mode than `tb_plugin` are refused with `error`.
DistributedRun distributed_reduce(const std::vector<RankSummary>& ranks, bool tb_plugin);

// tb_plugin's worker name and span from a file name: `<worker>[.<span>].pt.trace.json[.gz]`
// (worker matched lazily); other names lose `.json[.gz]` and have no span (span "").
void worker_and_span(std::string_view file_name, std::string& worker, std::string& span);
// The worker and span of each trace of a run, from their file names: the worker as
// worker_and_span gives it, the spans of each worker ranked "1".."n" in string order (tb_plugin's
// rule), "default" for a name without one.
void run_names(const std::vector<std::string>& file_names, std::vector<std::string>& workers, std::vector<std::string>& spans);

}  // namespace ks
