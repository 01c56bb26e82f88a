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
#include "core/analysis/recommendations.h"
#include "core/analysis/step_breakdown.h"
#include "core/session/answer.h"
#include "core/session/view_schema.h"

namespace ks {

class Session;
using QueryParamsRef = const std::map<std::string, std::string, std::less<>>&;

struct ViewDef {
  const ViewSchema* schema;
  // Null: the view is answered by something other than a loaded trace (trim: a trimmer reading
  // the file again); a Session's query of it answers with an error.
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

}  // namespace ks
