#include "core/session/views.h"

namespace ks {

const std::vector<ViewDef>& views() {
  static const std::vector<ViewDef> list = {
      {&kOperatorsSchema, &operators_answer},
      {&kKernelsSchema, &kernels_answer},
      {&kRangesSchema, &ranges_answer},
      {&kGpuTimeSchema, &gpu_time_answer},
  };
  return list;
}

}  // namespace ks
