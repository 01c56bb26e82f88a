#include "core/session/views.h"

namespace ks {

const std::vector<ViewDef>& views() {
  static const std::vector<ViewDef> list = {
      {&kOperatorsSchema, &operators_answer},
      {&kKernelsSchema, &kernels_answer},
      {&kRangesSchema, &ranges_answer},
      {&kMemoryDevicesSchema, &memory_devices_query},
      {&kMemoryStatsSchema, &memory_stats_query},
      {&kMemoryEventsSchema, &memory_events_query},
      {&kMemoryCurveSchema, &memory_curve_query},
      {&kMemoryAliveSchema, &memory_alive_query},
  };
  return list;
}

}  // namespace ks
