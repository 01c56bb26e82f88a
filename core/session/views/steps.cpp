// The steps view's schema and answer: core/analysis/step_breakdown.h's steps as rows (each
// step's window and the time each role took in it), their average and each role's merged ranges
// as metadata. The Overview's answer has the same rows (step_columns, add_step_rows).
#include <array>
#include <string>
#include <vector>

#include "core/analysis/step_breakdown.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

// "kernel_us", ...: each role's column name, kept alive for the schema's string_views.
const std::array<std::string, kRoleCount>& role_columns() {
  static const std::array<std::string, kRoleCount> names = [] {
    std::array<std::string, kRoleCount> out;
    for (size_t r = 0; r < kRoleCount; ++r) out[r] = std::string(role_name(Role(r))) + "_us";
    return out;
  }();
  return names;
}

const char* const kRoleDescriptions[kRoleCount] = {
    "time a kernel ran (on any GPU)",
    "time a memory copy ran, and no kernel",
    "time a memset ran, and no kernel or copy",
    "time a collective (NCCL, gloo) ran, and none of the above",
    "time in the CUDA runtime (launches, syncs) on the host, and none of the above",
    "time in the DataLoader, and none of the above",
    "time in other host work (operators), and none of the above",
    "the rest of the step: nothing of the above",
};

ViewSchema make_steps_schema() {
  ViewSchema s;
  s.view = "steps";
  s.type_name = "Steps";
  s.description =
      "The steps (ProfilerStep#N, extended to the end of their GPU work; the whole trace as one when it has none) and "
      "the step-time breakdown: each moment of a step goes to the first role busy then, in the order of the columns "
      "(`kinetoscope steps --json`). Rows: the steps in time order.";
  s.params = {{"file", "the name the answer gives the file (its `file`); absent: \"\""}};
  s.columns = step_columns();
  s.meta = {
      {"file", "string", "the file's name (the `file` parameter)"},
      {"average", "{ total_us: number } & Record<string, number>", "the same durations averaged over the steps (all 0 without steps)"},
      {"roles", "Record<string, { merged: number; sum_us: number }>",
       "each role but other over the whole trace: its ranges merged, and their total (us)"},
  };
  s.csv = {"name", "start_us", "end_us", "total_us"};
  for (const std::string& c : role_columns()) s.csv.push_back(c);
  s.rows_key = "steps";
  return s;
}

}  // namespace

std::vector<ColumnSpec> step_columns() {
  std::vector<ColumnSpec> c = {
      {"name", ColumnType::kString, "", "the step's name: ProfilerStep#N's N"},
      {"start_us", ColumnType::kF64, "us", "its start (absolute µs)"},
      {"end_us", ColumnType::kF64, "us", "its end, at the end of the GPU work it issued (absolute µs)"},
      {"total_us", ColumnType::kF64, "us", "end_us - start_us"},
  };
  for (size_t r = 0; r < kRoleCount; ++r) c.push_back({role_columns()[r], ColumnType::kF64, "us", kRoleDescriptions[r]});
  return c;
}

void add_step_rows(AnswerBuilder& b, const StepBreakdown& sb) {
  AnswerColumn& name = b.add("name");
  for (const StepCosts& c : sb.steps) name.str.push_back(b.intern(c.step.name));
  AnswerColumn& start = b.add("start_us");
  for (const StepCosts& c : sb.steps) start.f64.push_back(double(c.step.start_ns) / 1e3);
  AnswerColumn& end = b.add("end_us");
  for (const StepCosts& c : sb.steps) end.f64.push_back(double(c.step.end_ns) / 1e3);
  AnswerColumn& total = b.add("total_us");
  for (const StepCosts& c : sb.steps) total.f64.push_back(double(c.total_ns) / 1e3);
  for (size_t r = 0; r < kRoleCount; ++r) {
    AnswerColumn& role = b.add(role_columns()[r]);
    for (const StepCosts& c : sb.steps) role.f64.push_back(double(c.ns[r]) / 1e3);
  }
}

std::string step_average_json(const StepBreakdown& sb) {
  JsonWriter w;
  w.begin_object();
  w.key("total_us").value(sb.average_total_ns / 1e3);
  for (size_t r = 0; r < kRoleCount; ++r) w.key(role_columns()[r]).value(sb.average_ns[r] / 1e3);
  w.end_object();
  return w.take();
}

const ViewSchema kStepsSchema = make_steps_schema();

Answer steps_answer(const Session& s, QueryParamsRef params) {
  const StepBreakdown& sb = s.breakdown();
  AnswerBuilder b(kStepsSchema, sb.steps.size());
  {
    JsonWriter w;
    w.value(param(params, "file"));
    b.meta("file", w.take());
  }
  b.rows_here();
  b.meta("average", step_average_json(sb));
  {
    JsonWriter w;
    w.begin_object();
    for (size_t r = 0; r < size_t(Role::kOther); ++r) {
      w.key(role_name(Role(r))).begin_object();
      w.key("merged").value(uint64_t(sb.roles[r].merged));
      w.key("sum_us").value(double(sb.roles[r].sum_ns) / 1e3);
      w.end_object();
    }
    w.end_object();
    b.meta("roles", w.take());
  }
  add_step_rows(b, sb);
  return b.take();
}

}  // namespace ks
