// A model table as columns: what crosses into JS as typed arrays (one per column) plus the
// string table, never as rows of objects (per-row binding calls are ~10x slower at 100k rows).
// Times are ns since the trace's start, as doubles: exact for 104 days.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace_model.h"

namespace ks {

struct Column {
  enum class Type : uint8_t { kF64, kI32, kU32 };  // kU32: string ids
  std::string name;
  Type type = Type::kF64;
  std::vector<double> f64;
  std::vector<int32_t> i32;
  std::vector<uint32_t> u32;
};

// The slice tables by kind name: cpu_op, user_annotation, gpu_annotation, python_function,
// runtime, driver, kernel, memcpy, memset. Empty for other names. Absent ids are NaN.
std::vector<Column> table_columns(const TraceModel& m, std::string_view kind);

}  // namespace ks
