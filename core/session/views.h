// The views a Session answers: one registration line each (views.cpp), the schema and answer
// function in core/session/views/<view>.cpp. The page, the CLI and kinetoscope_schema (the
// generated TypeScript types and docs/contracts.md tables) all read this list.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/distributed.h"
#include "core/analysis/kernels.h"
#include "core/analysis/memory.h"
#include "core/analysis/operators.h"
#include "core/analysis/recommendations.h"
#include "core/analysis/step_breakdown.h"
#include "core/session/answer.h"
#include "core/session/view_schema.h"

namespace ks {

class Session;
class SnapshotSession;
struct DevicePeak;
using QueryParamsRef = const std::map<std::string, std::string, std::less<>>&;

struct ViewDef {
  const ViewSchema* schema;
  // Null: the view is answered by something other than a loaded trace (trim: a trimmer reading
  // the file again) or is a view of two traces; a Session's query of it answers with an error.
  Answer (*answer)(const Session& s, QueryParamsRef params);
  // A view of two traces (the Diff view: `s` the baseline, `other` the experiment), asked with
  // Session::query(view, params, other).
  Answer (*pair)(const Session& s, const Session& other, QueryParamsRef params) = nullptr;
  // A view of a memory snapshot (core/session/snapshot_session.h), asked of a SnapshotSession.
  Answer (*snapshot)(const SnapshotSession& s, QueryParamsRef params) = nullptr;
};

const std::vector<ViewDef>& views();

// Each view file's schema and answer (declared here so views.cpp needs no header per view), and
// the answer of a table computed already (tests, the fuzzer).
extern const ViewSchema kOperatorsSchema;
Answer operators_answer(const Session& s, QueryParamsRef params);
// The FLOPs of a table row's counted calls (issue 25), and its five columns (flops, flop_dtype,
// tflops_per_s, pct_of_peak, intensity; null where none was counted), as the operators and
// kernels answers add them.
struct FlopTotals {
  double flops = 0, bytes = 0, device_ns = 0;
  std::map<FlopDtype, double> by_dtype;
};
void add_flop_columns(AnswerBuilder& b, const std::vector<FlopTotals>& rows, const DevicePeak* peak);
Answer operator_table_answer(const OperatorTable& t, const TraceModel& m, const std::vector<FlopTotals>* flops = nullptr,
                             const DevicePeak* peak = nullptr);
extern const ViewSchema kKernelsSchema;
Answer kernels_answer(const Session& s, QueryParamsRef params);
Answer kernel_table_answer(const KernelTable& t, const TraceModel& m, const std::vector<FlopTotals>* flops = nullptr,
                           const DevicePeak* peak = nullptr);
extern const ViewSchema kRangesSchema;
Answer ranges_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kOperatorKernelsSchema;
Answer operator_kernels_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kOperatorDetailSchema;
Answer operator_detail_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kKernelOperatorsSchema;
Answer kernel_operators_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kKernelLaunchesSchema;
Answer kernel_launches_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kKernelDetailSchema;
Answer kernel_detail_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kRangeKernelsSchema;
Answer range_kernels_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kModulesSchema;
Answer modules_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kModuleTreeSchema;
Answer module_tree_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kModulePresenceSchema;
Answer module_presence_answer(const Session& s, QueryParamsRef params);

// The Distributed view (views/distributed.cpp). The map: a trace's rank summary as an answer,
// which crosses to the reduce in its binary form (answer_bytes) and is read back from it.
extern const ViewSchema kDistributedRankSchema;
Answer distributed_rank_answer(const Session& s, QueryParamsRef params);
Answer rank_summary_answer(const RankSummary& r, int64_t origin_ns);
bool rank_summary_from_answer(const Answer& a, RankSummary& out, std::string& error);
bool rank_summary_from_bytes(std::string_view bytes, RankSummary& out, std::string& error);
// A rank summary file (`kinetoscope rank-summary -o DIR`, the map step run anywhere — a Dask
// worker, another machine — and reduced by `kinetoscope distributed --from-summaries`): the
// trace's file name (its worker and span are given by the whole run's names, at the reduce) and
// the summary's binary form, after a magic line. read_rank_summary_file says in `error` why bytes
// are not one.
std::string rank_summary_file(std::string_view trace_name, const RankSummary& r, int64_t origin_ns);
bool read_rank_summary_file(std::string_view bytes, std::string& trace_name, RankSummary& out, std::string& error);
// The reduce: a run's rank summaries to, per span, four answers. These views are a run's, not a
// trace's: a Session asked for one answers with an error sentence.
extern const ViewSchema kDistributedSchema, kDistributedCommopsSchema, kDistributedStragglersSchema,
    kDistributedCollectivesSchema;
Answer distributed_answer(const Session& s, QueryParamsRef params);
Answer distributed_commops_answer(const Session& s, QueryParamsRef params);
Answer distributed_stragglers_answer(const Session& s, QueryParamsRef params);
Answer distributed_collectives_answer(const Session& s, QueryParamsRef params);
struct DistributedSpanAnswers {
  Answer workers, commops, stragglers, collectives;
  Answer gpu_time;  // the run's GPU time per rank (views/run_gpu_time.cpp), not part of `distributed --json`
};
struct DistributedRunAnswers {
  std::string error;  // a summary that is not one, or of another mode: no spans
  std::vector<DistributedSpanAnswers> spans;
};
DistributedRunAnswers distributed_run_answers(const std::vector<RankSummary>& ranks, bool tb_plugin);
// From the rank summaries' binary forms; the first that is not one is named in `error`.
DistributedRunAnswers distributed_run_answers(const std::vector<std::string_view>& summaries, bool tb_plugin);
// `kinetoscope distributed --json`: a line per span, or one {"error"} line.
std::string distributed_run_json(const DistributedRunAnswers& run);
// The run's GPU time per rank (views/run_gpu_time.cpp): the reduce's fifth answer per span, from
// the GPU time each rank summary carries (its metadata "gpu_time", written and read back here).
// `kinetoscope distributed --gpu-time --json`: a line per span, or one {"error"} line.
extern const ViewSchema kRunGpuTimeSchema;
Answer run_gpu_time_session_answer(const Session& s, QueryParamsRef params);
Answer run_gpu_time_answer(const DistributedSpan& span, const std::vector<RankSummary>& ranks);
std::string rank_gpu_time_json(const RankGpuTime& g);
bool rank_gpu_time_from_json(std::string_view json, int64_t origin, RankGpuTime& g, std::string& error);
std::string distributed_run_gpu_time_json(const DistributedRunAnswers& run);
extern const ViewSchema kFlopsSchema;
Answer flops_answer(const Session& s, QueryParamsRef params);
// The flops answer's `device` (the GPU, its peak row and why, its dense peaks): the roofline's too.
std::string flops_device_json(const TraceModel& m, const DevicePeak* peak, std::string_view matched_by);
extern const ViewSchema kRooflineSchema;
Answer roofline_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kDevicePeaksSchema;
Answer device_peaks_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kSummarySchema;
Answer summary_answer(const Session& s, QueryParamsRef params);
Answer summary_model_answer(const TraceModel& m, std::string_view file, std::string_view error);
extern const ViewSchema kStepsSchema;
Answer steps_answer(const Session& s, QueryParamsRef params);
// The steps' columns (steps and overview share them), their rows and their average's JSON.
std::vector<ColumnSpec> step_columns();
void add_step_rows(AnswerBuilder& b, const StepBreakdown& sb);
std::string step_average_json(const StepBreakdown& sb);
extern const ViewSchema kGpuMetricsSchema;
Answer gpu_metrics_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kGpuSummarySchema;
Answer gpu_summary_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kOverviewSchema;
Answer overview_answer(const Session& s, QueryParamsRef params);
Answer overview_inputs_answer(const OverviewInputs& in, std::string_view file);
class TraceTrimmer;
extern const ViewSchema kTrimSchema;
Answer trim_report_answer(const TraceTrimmer& t);
// The Memory view (views/memory.cpp): each answer of the Session, and of an index built already
// (`device` -1: every device).
extern const ViewSchema kMemoryDevicesSchema, kMemoryStatsSchema, kMemoryEventsSchema, kMemoryCurveSchema, kMemoryAliveSchema;
Answer memory_devices_query(const Session& s, QueryParamsRef params);
Answer memory_stats_query(const Session& s, QueryParamsRef params);
Answer memory_events_query(const Session& s, QueryParamsRef params);
Answer memory_curve_query(const Session& s, QueryParamsRef params);
Answer memory_alive_query(const Session& s, QueryParamsRef params);
Answer memory_devices_answer(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w);
Answer memory_stats_answer(const MemoryIndex& x, const OpTree& t, const TraceModel& m, const MemoryWindow& w, int device);
Answer memory_events_answer(const MemoryIndex& x, const OpTree& t, const TraceModel& m, const MemoryWindow& w, int device);
// `columns` 0: every point; else drawn over that many pixel columns (memory_curve_downsampled).
Answer memory_curve_answer(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w, int device, int columns);
Answer memory_alive_answer(const MemoryIndex& x, const OpTree& t, const TraceModel& m, int device, int64_t at_ns, size_t limit);
// The Diff view (views/diff.cpp): two answers of the same parameters, asked of the baseline's
// Session with the experiment's, one computation for both (Session::shared): `diff` the tree's
// nodes, `diff_operators` each node side's operators. `kinetoscope diff --json` nests them.
extern const ViewSchema kDiffSchema, kDiffOperatorsSchema;
Answer diff_answer(const Session& s, const Session& other, QueryParamsRef params);
Answer diff_operators_answer(const Session& s, const Session& other, QueryParamsRef params);
std::string diff_json(const Answer& tree, const Answer& operators);
extern const ViewSchema kGpuTimeSchema;
Answer gpu_time_answer(const Session& s, QueryParamsRef params);
// The temporal breakdown's columns of a row each (span_us, idle_us, compute_us, non_compute_us,
// their shares, events, span_start_us, span_end_us), computed one way for the gpu-time view and
// the run's per-rank run-gpu-time (views/gpu_time.cpp): t[i] null or without GPU work gives null
// times and shares; events[i] is the events column; times are from origin_ns[i].
struct TemporalBreakdown;
void add_temporal_breakdown_columns(AnswerBuilder& b, const std::vector<const TemporalBreakdown*>& t,
                                    const std::vector<double>& events, const std::vector<int64_t>& origin_ns);
// HTA's idle time and kernel breakdowns (views/gpu_idle.cpp, views/gpu_kernels.cpp), shown in the
// GPU time tab and printed by `kinetoscope gpu-time --json` with it.
extern const ViewSchema kGpuIdleSchema, kGpuIdleIntervalsSchema, kGpuKernelTypesSchema, kGpuTopKernelsSchema;
Answer gpu_idle_answer(const Session& s, QueryParamsRef params);
Answer gpu_idle_intervals_answer(const Session& s, QueryParamsRef params);
Answer gpu_kernel_types_answer(const Session& s, QueryParamsRef params);
Answer gpu_top_kernels_answer(const Session& s, QueryParamsRef params);
// The largest idle gaps, frequent kernel sequences, critical path and recommendations
// (views/gpu_idle_gaps.cpp, gpu_kernel_sequences.cpp, gpu_critical_path.cpp, gpu_recommendations.cpp).
extern const ViewSchema kGpuIdleGapsSchema, kGpuKernelSequencesSchema, kGpuCriticalPathSchema, kGpuRecommendationsSchema;
Answer gpu_idle_gaps_answer(const Session& s, QueryParamsRef params);
Answer gpu_kernel_sequences_answer(const Session& s, QueryParamsRef params);
Answer gpu_critical_path_answer(const Session& s, QueryParamsRef params);
Answer gpu_recommendations_answer(const Session& s, QueryParamsRef params);
// HTA's communication/computation overlap, kernel launch statistics, queue length and memory
// bandwidth (views/gpu_overlap.cpp, gpu_launches.cpp, gpu_queue.cpp), in the GPU time tab and
// `kinetoscope gpu-time --json`.
extern const ViewSchema kGpuCommOverlapSchema, kGpuLaunchStatsSchema, kGpuLaunchOperatorsSchema, kGpuLaunchesSchema,
    kGpuQueueSchema, kGpuMemoryBandwidthSchema, kGpuCounterSeriesSchema, kGpuCounterTrackSchema;
Answer gpu_comm_overlap_answer(const Session& s, QueryParamsRef params);
Answer gpu_launch_stats_answer(const Session& s, QueryParamsRef params);
Answer gpu_launch_operators_answer(const Session& s, QueryParamsRef params);
Answer gpu_launches_answer(const Session& s, QueryParamsRef params);
Answer gpu_queue_answer(const Session& s, QueryParamsRef params);
Answer gpu_memory_bandwidth_answer(const Session& s, QueryParamsRef params);
Answer gpu_counter_series_answer(const Session& s, QueryParamsRef params);
// The memory snapshot's views (views/snapshot.cpp, issue 26), answered by a SnapshotSession:
// its numbers per device, out-of-memory events and sites (`kinetoscope snapshot --json` is
// assembled from these three), the active memory timeline per pixel column and the peak.
extern const ViewSchema kSnapshotSummarySchema, kSnapshotOomsSchema, kSnapshotSitesSchema, kSnapshotPeakSchema,
    kSnapshotPeakTreeSchema, kSnapshotTimelineSchema, kSnapshotTimelineColumnsSchema;
Answer snapshot_summary_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_ooms_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_sites_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_peak_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_peak_tree_answer(const SnapshotSession& s, QueryParamsRef params);
// What the page's other pages ask of a snapshot (views/snapshot_link.cpp): one side of a comparison
// of two snapshots, and what the history held in a trace's time range.
extern const ViewSchema kSnapshotCompareSideSchema, kSnapshotWindowSchema;
Answer snapshot_compare_side_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_window_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_timeline_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_timeline_columns_answer(const SnapshotSession& s, QueryParamsRef params);
// A moment's allocator state and the kinds of memory (views/snapshot_state.cpp).
extern const ViewSchema kSnapshotStateSchema, kSnapshotStateSegmentsSchema, kSnapshotCategoriesSchema,
    kSnapshotCategoriesSeriesSchema, kSnapshotMemoryTimelineSchema, kSnapshotMemoryTimelineSeriesSchema;
Answer snapshot_state_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_state_segments_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_categories_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_categories_series_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_memory_timeline_answer(const SnapshotSession& s, QueryParamsRef params);
Answer snapshot_memory_timeline_series_answer(const SnapshotSession& s, QueryParamsRef params);
Answer gpu_counter_track_answer(const Session& s, QueryParamsRef params);

}  // namespace ks
