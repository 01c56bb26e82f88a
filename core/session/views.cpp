#include "core/session/views.h"

namespace ks {

const std::vector<ViewDef>& views() {
  static const std::vector<ViewDef> list = {
      {&kOperatorsSchema, &operators_answer},
      {&kKernelsSchema, &kernels_answer},
      {&kRangesSchema, &ranges_answer},
      {&kDistributedRankSchema, &distributed_rank_answer},
      {&kDistributedSchema, &distributed_answer},
      {&kDistributedCommopsSchema, &distributed_commops_answer},
      {&kDistributedStragglersSchema, &distributed_stragglers_answer},
      {&kDistributedCollectivesSchema, &distributed_collectives_answer},
  };
  return list;
}

}  // namespace ks
