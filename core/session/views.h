// The views a Session answers: one registration line each (views.cpp), the schema and answer
// function in core/session/views/<view>.cpp. The page, the CLI and kinetoscope_schema (the
// generated TypeScript types and docs/contracts.md tables) all read this list.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/kernels.h"
#include "core/analysis/memory.h"
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

}  // namespace ks
