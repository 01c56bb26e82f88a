#include "core/session/views.h"

namespace ks {

const std::vector<ViewDef>& views() {
  static const std::vector<ViewDef> list = {
      {&kOperatorsSchema, &operators_answer},
      {&kKernelsSchema, &kernels_answer},
      {&kRangesSchema, &ranges_answer},
      {&kOperatorDetailSchema, &operator_detail_answer},
      {&kOperatorKernelsSchema, &operator_kernels_answer},
      {&kKernelDetailSchema, &kernel_detail_answer},
      {&kKernelOperatorsSchema, &kernel_operators_answer},
      {&kKernelLaunchesSchema, &kernel_launches_answer},
      {&kRangeKernelsSchema, &range_kernels_answer},
      {&kModulesSchema, &modules_answer},
      {&kModuleTreeSchema, &module_tree_answer},
      {&kModulePresenceSchema, &module_presence_answer},
      {&kDistributedRankSchema, &distributed_rank_answer},
      {&kDistributedSchema, &distributed_answer},
      {&kDistributedCommopsSchema, &distributed_commops_answer},
      {&kDistributedStragglersSchema, &distributed_stragglers_answer},
      {&kDistributedCollectivesSchema, &distributed_collectives_answer},
      {&kSummarySchema, &summary_answer},
      {&kStepsSchema, &steps_answer},
      {&kGpuMetricsSchema, &gpu_metrics_answer},
      {&kGpuSummarySchema, &gpu_summary_answer},
      {&kOverviewSchema, &overview_answer},
      {&kTrimSchema, nullptr},
      {&kMemoryDevicesSchema, &memory_devices_query},
      {&kMemoryStatsSchema, &memory_stats_query},
      {&kMemoryEventsSchema, &memory_events_query},
      {&kMemoryCurveSchema, &memory_curve_query},
      {&kMemoryAliveSchema, &memory_alive_query},
      {&kDiffSchema, nullptr, &diff_answer},
      {&kDiffOperatorsSchema, nullptr, &diff_operators_answer},
      {&kFlopsSchema, &flops_answer},
      {&kRooflineSchema, &roofline_answer},
      {&kDevicePeaksSchema, &device_peaks_answer},
      {&kGpuTimeSchema, &gpu_time_answer},
      {&kGpuIdleSchema, &gpu_idle_answer},
      {&kGpuIdleIntervalsSchema, &gpu_idle_intervals_answer},
      {&kGpuKernelTypesSchema, &gpu_kernel_types_answer},
      {&kGpuTopKernelsSchema, &gpu_top_kernels_answer},

      {&kGpuIdleGapsSchema, &gpu_idle_gaps_answer},
      {&kGpuKernelSequencesSchema, &gpu_kernel_sequences_answer},
      {&kGpuCriticalPathSchema, &gpu_critical_path_answer},
      {&kGpuRecommendationsSchema, &gpu_recommendations_answer},
      {&kGpuCommOverlapSchema, &gpu_comm_overlap_answer},
      {&kGpuLaunchStatsSchema, &gpu_launch_stats_answer},
      {&kGpuLaunchOperatorsSchema, &gpu_launch_operators_answer},
      {&kGpuLaunchesSchema, &gpu_launches_answer},
      {&kGpuQueueSchema, &gpu_queue_answer},
      {&kGpuMemoryBandwidthSchema, &gpu_memory_bandwidth_answer},
      {&kGpuCounterSeriesSchema, &gpu_counter_series_answer},
      {&kGpuCounterTrackSchema, &gpu_counter_track_answer},
  };
  return list;
}

}  // namespace ks
