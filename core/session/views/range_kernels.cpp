// The Ranges view's detail of one row: the kernels launched in it (its calls and the ranges inside
// them), by name, longest total first.
#include "core/analysis/ranges.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kRangeKernelsSchema = {
    "range_kernels",
    "RangeKernels",
    "The kernels launched in one row of the Ranges view (`kinetoscope ranges --detail PATH --json`): by name, total "
    "time descending; the whole trace.",
    {{"key", "the row's key (its path, as the ranges view's key column lists it)"}},
    {
        {"name", ColumnType::kString, "", "the kernel's name"},
        {"calls", ColumnType::kCount, "count", "kernels of that name launched in the range"},
        {"total_us", ColumnType::kF64, "us", "their summed duration"},
        {"tensor_cores", ColumnType::kTri, "", "ran on Tensor Cores (Matrix Cores on AMD); unknown: the name does not tell"},
    },
    {{"range", "string", "the row's key"}},
    {"name", "calls", "total_us", "tensor_cores"},
    "kernels",
};

Answer range_kernels_answer(const Session& s, QueryParamsRef params) {
  const std::string_view key = param(params, "key");
  bool found = false;
  const std::vector<RangeKernel> k = range_kernels(s.tree(), s.model(), key, found);
  if (!found) {
    return error_answer(kRangeKernelsSchema, "no range " + std::string(key));
  }
  AnswerBuilder b(kRangeKernelsSchema, k.size());
  JsonWriter w;
  w.value(key);
  b.meta("range", w.take());
  b.rows_here();
  AnswerColumn& name = b.add("name");
  for (const RangeKernel& r : k) name.str.push_back(b.intern(r.name));
  AnswerColumn& calls = b.add("calls");
  for (const RangeKernel& r : k) calls.f64.push_back(double(r.calls));
  AnswerColumn& total = b.add("total_us");
  for (const RangeKernel& r : k) total.f64.push_back(double(r.total_ns) / 1e3);
  AnswerColumn& tc = b.add("tensor_cores");
  for (const RangeKernel& r : k)
    tc.u8.push_back(r.tensor_cores == TcState::kYes ? kTriYes : r.tensor_cores == TcState::kNo ? kTriNo : kTriUnknown);
  return b.take();
}

}  // namespace ks
