// The GPU time view's communication/computation overlap (core/analysis/gpu_overlap.h): HTA's share,
// with the Distributed view's own (tb_plugin's, from the trace's rank summary) beside it. Its
// metadata is what `kinetoscope gpu-time --json` prints (comm_comp_overlap_pct and its parts); its
// one row is the same numbers for the page.
#include <cmath>
#include <string>

#include "core/analysis/distributed.h"
#include "core/analysis/gpu_overlap.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kGpuCommOverlapSchema = {
    "gpu-comm-overlap",
    "GpuCommOverlap",
    "HTA's communication/computation overlap: the share of the communication kernels' time (their union) during which "
    "computation kernels ran too, over HTA's scope (`kinetoscope gpu-time --json`'s comm_comp_overlap_pct, null when there "
    "is no communication kernel), with the Distributed view's overlap of the same trace beside it (tb_plugin's: the "
    "steps' time covered by both, over the time covered by communication). Rows: one, the trace's (not in the JSON).",
    {{"rounding", "ns (default): times as the trace gives them; hta: as HTA loads a trace (whole µs: start up, end down)"}},
    {
        {"communication_us", ColumnType::kF64, "us", "the union of the communication kernels"},
        {"computation_us", ColumnType::kF64, "us", "the union of the computation kernels"},
        {"overlap_us", ColumnType::kF64, "us", "the time both ran"},
        {"overlap_pct", ColumnType::kF64, "percent", "overlap over communication (HTA's); null without communication kernels"},
        {"distributed_overlap_pct", ColumnType::kF64, "percent",
         "the Distributed view's: the steps' time covered by computation and communication over the time covered by "
         "communication; null without communication in a step"},
    },
    {
        {"comm_comp_overlap_pct", "number | null", "HTA's overlap share, percent; null without communication kernels"},
        {"comm_comp_overlap", "{ communication_kernels: number; communication_us: number; computation_us: number; overlap_us: number }",
         "its parts"},
        {"comm_comp_overlap_note", "string | null", "why the share is null, else null"},
        {"distributed_overlap_pct", "number | null", "the Distributed view's overlap share of the same trace, percent"},
    },
    {"communication_us", "computation_us", "overlap_us", "overlap_pct", "distributed_overlap_pct"},
    "",
};

Answer gpu_comm_overlap_answer(const Session& s, QueryParamsRef params) {
  GpuTimeRounding rounding;
  const std::string_view word = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(word, rounding)) return error_answer(kGpuCommOverlapSchema, "unknown rounding: " + std::string(word) + " (ns or hta)");
  const TraceModel& m = s.model();
  const CommCompOverlap o = comm_comp_overlap(s.hta_scoped(rounding));
  // The Distributed view's number: its rank summary's steps (as its reduce sums them).
  const RankSummary rank = distributed_rank(m, "", "", false);
  int64_t dist_comm = 0, dist_overlap = 0;
  for (const DistStep& st : rank.steps) {
    dist_comm += st.communication_ns;
    dist_overlap += st.overlap_ns;
  }
  const double pct = o.has_communication() ? o.pct() : std::nan("");
  const double dist_pct = dist_comm > 0 ? 100.0 * double(dist_overlap) / double(dist_comm) : std::nan("");
  AnswerBuilder b(kGpuCommOverlapSchema, 1);
  {
    JsonWriter w;
    w.value(pct);
    b.meta("comm_comp_overlap_pct", w.take());
  }
  {
    JsonWriter w;
    w.begin_object();
    w.key("communication_kernels").value(o.communication_kernels);
    w.key("communication_us").value(double(o.communication_ns) / 1e3);
    w.key("computation_us").value(double(o.computation_ns) / 1e3);
    w.key("overlap_us").value(double(o.overlap_ns) / 1e3);
    w.end_object();
    b.meta("comm_comp_overlap", w.take());
  }
  {
    JsonWriter w;
    if (o.has_communication()) w.null();
    else
      w.value("The trace has no communication kernel (NCCL, RCCL or gloo) in HTA's scope: there is no communication to "
              "overlap.");
    b.meta("comm_comp_overlap_note", w.take());
  }
  {
    JsonWriter w;
    w.value(dist_pct);
    b.meta("distributed_overlap_pct", w.take());
  }
  b.rows_here();
  b.add("communication_us").f64.push_back(double(o.communication_ns) / 1e3);
  b.add("computation_us").f64.push_back(double(o.computation_ns) / 1e3);
  b.add("overlap_us").f64.push_back(double(o.overlap_ns) / 1e3);
  b.add("overlap_pct").f64.push_back(pct);
  b.add("distributed_overlap_pct").f64.push_back(dist_pct);
  return b.take();
}

}  // namespace ks
