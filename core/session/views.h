// The views a Session answers: one registration line each (views.cpp), the schema and answer
// function in core/session/views/<view>.cpp. The page, the CLI and kinetoscope_schema (the
// generated TypeScript types and docs/contracts.md tables) all read this list.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/kernels.h"
#include "core/analysis/operators.h"
#include "core/session/answer.h"
#include "core/session/view_schema.h"

namespace ks {

class Session;
using QueryParamsRef = const std::map<std::string, std::string, std::less<>>&;

struct ViewDef {
  const ViewSchema* schema;
  Answer (*answer)(const Session& s, QueryParamsRef params);
};

const std::vector<ViewDef>& views();

// Each view file's schema and answer (declared here so views.cpp needs no header per view), and
// the answer of a table computed already (tests, the fuzzer).
extern const ViewSchema kOperatorsSchema;
Answer operators_answer(const Session& s, QueryParamsRef params);
Answer operator_table_answer(const OperatorTable& t, const TraceModel& m);
extern const ViewSchema kKernelsSchema;
Answer kernels_answer(const Session& s, QueryParamsRef params);
Answer kernel_table_answer(const KernelTable& t, const TraceModel& m);
extern const ViewSchema kRangesSchema;
Answer ranges_answer(const Session& s, QueryParamsRef params);
extern const ViewSchema kGpuTimeSchema;
Answer gpu_time_answer(const Session& s, QueryParamsRef params);

}  // namespace ks
