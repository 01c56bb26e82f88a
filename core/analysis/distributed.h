// The Distributed view (tb_plugin spec §15): a run's ranks side by side. Computed as map, then
// reduce: each rank's trace is reduced on its own to a RankSummary (steps, per-step overlap of
// computation and communication, its collective calls with their time ranges, devices), which is
// small and can cross a process or worker boundary as JSON; the reduce takes the summaries of all
// ranks, matches each collective across them (§15.2) and computes wait time, the communication
// operations table, stragglers and collectives by process group. The CLI (`kinetoscope
// distributed --jobs N`) and the page (one summary per Session, reduced in the worker) run the
// same two functions.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
};

// The map step: one rank's summary. `worker` and `span` name it in the run.
RankSummary distributed_rank(const TraceModel& m, std::string_view worker, std::string_view span, bool tb_plugin);

// RankSummary <-> JSON (the form that crosses from a worker or a process to the reduce).
std::string rank_summary_json(const RankSummary& r);
// false and a sentence in `error` when the text is not a rank summary.
bool parse_rank_summary(std::string_view json, RankSummary& out, std::string& error);

// The reduce step: the view's JSON for each span of the run, one object per line (docs/contracts.md,
// `kinetoscope distributed --json`). Ranks of another mode than `tb_plugin` are refused in the output's
// "error".
std::string distributed_json(const std::vector<RankSummary>& ranks, bool tb_plugin);

// tb_plugin's worker name and span from a file name: `<worker>[.<span>].pt.trace.json[.gz]`
// (worker matched lazily); other names lose `.json[.gz]` and have no span (span "").
void worker_and_span(std::string_view file_name, std::string& worker, std::string& span);

}  // namespace ks
