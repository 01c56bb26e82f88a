// The Module view's schemas and answers (core/analysis/modules.h): its two tables (nn.Module and
// Lightning), each a tree in pre-order with its parent column; one thread's tree for the flame
// graph and the operator tree; and whether the trace has anything for the view (cheap: the page
// decides on it whether to show the tab).
#include "core/analysis/modules.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

ViewSchema make_modules_schema() {
  ViewSchema s;
  s.view = "modules";
  s.type_name = "Modules";
  s.description =
      "One table of the Module view (`kinetoscope modules --json`: `rows` is the nn.Module table, `lightning` "
      "Lightning's): per module its calls, the operators directly under it, host and device total/self time summed "
      "over its calls, and the backward time fwdbwd flows charge to it; rows in hierarchy pre-order, the whole trace.";
  s.params = {{"table", "modules (default: the nn.Module hierarchy) or lightning (PyTorch Lightning's [pl][module] ranges)"}};
  s.columns = {
      {"table", ColumnType::kString, "", "modules or lightning: the table the row is of", false},
      {"name", ColumnType::kString, "", "the module's name, without tb_plugin's \"nn.Module: \" prefix"},
      {"path", ColumnType::kString, "", "names from the top of the hierarchy, joined by \"/\""},
      {"key", ColumnType::kString, "", "unique per row: names and module ids from the top (\"MyModule#0/Linear#1\")"},
      {"id", ColumnType::kCount, "", "its `Python module id` (Lightning: 0)"},
      {"depth", ColumnType::kI32, "", "0 at the top"},
      {"parent", ColumnType::kI32, "", "the parent's row, -1 at the top"},
      {"occurrences", ColumnType::kCount, "count", "calls of the module"},
      {"operators", ColumnType::kCount, "count", "operators directly under it, summed over its calls"},
      {"host_total_us", ColumnType::kF64, "us", "host time of its calls"},
      {"host_self_us", ColumnType::kF64, "us", "host time not in child modules"},
      {"device_total_us", ColumnType::kF64, "us", "GPU time of the work its calls launched"},
      {"device_self_us", ColumnType::kF64, "us", "GPU time not in child modules"},
      {"backward_host_us", ColumnType::kF64, "us", "host span of the backward passes fwdbwd flows charge to it (0 without flows)"},
      {"backward_device_us", ColumnType::kF64, "us", "device time of those backward passes"},
      {"in_trees", ColumnType::kBool, "", "some call of it is in the operator trees (false: its numbers are zeros; tb_plugin fails then)"},
  };
  s.meta = {
      {"has_modules", "boolean", "the trace has nn.Module frames (the modules table has rows)"},
      {"has_lightning", "boolean", "the trace has Lightning modules (the lightning table has rows; --json's lightning is null without)"},
      {"backward",
       "{ flows: number; regrouped: number; flows_charged: number; flows_outside_modules: number; flows_shared_pass: number; "
       "flows_no_pass: number; none_why: string | null }",
       "what became of the fwdbwd flows (modules.h): backward passes regrouped under modules, flows charged, started "
       "outside every module, led to a pass another flow took, or to none; none_why: why nothing could be charged"},
      {"error", "string | null", "tb_plugin mode: why tb_plugin would show no Module view"},
  };
  s.csv = {"table", "name", "path", "id", "depth", "occurrences", "operators", "host_total_us", "host_self_us",
           "device_total_us", "device_self_us", "backward_host_us", "backward_device_us"};
  s.tree_parent = "parent";
  s.json_flat = true;
  return s;
}

ViewSchema make_module_tree_schema() {
  ViewSchema s;
  s.view = "module_tree";
  s.type_name = "ModuleTree";
  s.description =
      "One thread's tree as the Module view draws it (the flame graph and the operator tree): steps, module frames, "
      "operators, and on the main thread the backward passes under `<module>.backward`; rows in pre-order.";
  s.params = {{"tid", "the thread (absent or \"\": the main thread, else the first listed)"}};
  s.columns = {
      {"name", ColumnType::kString, "", "the node's name"},
      {"kind", ColumnType::kString, "", "module, backward, pl_module, pl_profile, step, operator or other"},
      {"start_us", ColumnType::kF64, "us", "start, from the trace start"},
      {"end_us", ColumnType::kF64, "us", "end, from the trace start"},
      {"depth", ColumnType::kI32, "", "0 at the top"},
      {"parent", ColumnType::kI32, "", "the parent's row, -1 at the top"},
      {"row", ColumnType::kI32, "", "the module table's row of its module (module, backward: the forward's; pl_module: the lightning table's), else -1"},
      {"host_total_us", ColumnType::kF64, "us", "host time"},
      {"host_self_us", ColumnType::kF64, "us", "host time not in child nodes"},
      {"device_total_us", ColumnType::kF64, "us", "GPU time of what it launched"},
      {"device_self_us", ColumnType::kF64, "us", "GPU time not in child nodes"},
  };
  s.meta = {
      {"threads", "{ tid: string; main: boolean; modules: number; nodes: number }[]",
       "the threads holding modules (and the main thread), in tree order: their module nodes and all nodes"},
      {"tid", "string", "the thread of the rows"},
  };
  s.rows_key = "nodes";
  s.tree_parent = "parent";
  return s;
}

}  // namespace

const ViewSchema kModulesSchema = make_modules_schema();
const ViewSchema kModuleTreeSchema = make_module_tree_schema();
const ViewSchema kModulePresenceSchema = {
    "module_presence",
    "ModulePresence",
    "Whether the trace has anything for the Module view, without building it (a scan of names and args): no rows.",
    {},
    {},
    {{"modules", "boolean", "nn.Module frames are in the trace"}, {"lightning", "boolean", "Lightning [pl][module] ranges are"}},
    {},
};

Answer modules_answer(const Session& s, QueryParamsRef params) {
  const std::string_view which = param(params, "table", "modules");
  if (which != "modules" && which != "lightning") {
    return error_answer(kModulesSchema, "unknown table: " + std::string(which) + " (modules or lightning)");
  }
  const ModuleView& v = s.modules();
  const ModuleTable& t = which == "lightning" ? v.lightning : v.modules;
  AnswerBuilder b(kModulesSchema, t.rows.size());
  b.rows_here();
  b.meta("has_modules", v.has_modules ? "true" : "false");
  b.meta("has_lightning", v.has_lightning ? "true" : "false");
  {
    JsonWriter w;
    w.begin_object();
    w.key("flows").value(v.backward_flows);
    w.key("regrouped").value(v.backward_regrouped);
    w.key("flows_charged").value(v.flows_charged);
    w.key("flows_outside_modules").value(v.flows_outside_modules);
    w.key("flows_shared_pass").value(v.flows_shared_pass);
    w.key("flows_no_pass").value(v.flows_no_pass);
    w.key("none_why");
    if (v.backward_none_why.empty()) w.null();
    else w.value(v.backward_none_why);
    w.end_object();
    b.meta("backward", w.take());
  }
  {
    JsonWriter w;
    if (v.error.empty()) w.null();
    else w.value(v.error);
    b.meta("error", w.take());
  }
  AnswerColumn& table = b.add("table");
  const uint32_t table_id = b.intern(which);
  table.str.assign(t.rows.size(), table_id);
  auto text = [&](std::string_view col, auto get) {
    AnswerColumn& c = b.add(col);
    for (const ModuleRow& r : t.rows) c.str.push_back(b.intern(get(r)));
  };
  text("name", [](const ModuleRow& r) -> const std::string& { return r.name; });
  text("path", [](const ModuleRow& r) -> const std::string& { return r.path; });
  text("key", [](const ModuleRow& r) -> const std::string& { return r.key; });
  auto number = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (const ModuleRow& r : t.rows) c.f64.push_back(value(r));
  };
  number("id", [](const ModuleRow& r) { return double(r.module_id); });
  AnswerColumn& depth = b.add("depth");
  for (const ModuleRow& r : t.rows) depth.i32.push_back(r.depth);
  AnswerColumn& parent = b.add("parent");
  for (const ModuleRow& r : t.rows) parent.i32.push_back(r.parent);
  number("occurrences", [](const ModuleRow& r) { return double(r.occurrences); });
  number("operators", [](const ModuleRow& r) { return double(r.operators); });
  number("host_total_us", [](const ModuleRow& r) { return double(r.host_total_ns) / 1e3; });
  number("host_self_us", [](const ModuleRow& r) { return double(r.host_self_ns) / 1e3; });
  number("device_total_us", [](const ModuleRow& r) { return double(r.device_total_ns) / 1e3; });
  number("device_self_us", [](const ModuleRow& r) { return double(r.device_self_ns) / 1e3; });
  number("backward_host_us", [](const ModuleRow& r) { return double(r.backward_host_ns) / 1e3; });
  number("backward_device_us", [](const ModuleRow& r) { return double(r.backward_device_ns) / 1e3; });
  AnswerColumn& in_trees = b.add("in_trees");
  for (const ModuleRow& r : t.rows) in_trees.u8.push_back(r.in_trees ? 1 : 0);
  return b.take();
}

Answer module_tree_answer(const Session& s, QueryParamsRef params) {
  const std::string_view tid = param(params, "tid");
  const ModuleView& v = s.modules();
  const TraceModel& m = s.model();
  const ThreadTree* pick = nullptr;
  for (const ThreadTree& t : v.threads)
    if (tid.empty() ? t.main : t.tid == tid) pick = &t;
  if (!pick && tid.empty() && !v.threads.empty()) pick = &v.threads.front();
  if (!pick && !tid.empty()) {
    return error_answer(kModuleTreeSchema, "no thread " + std::string(tid) + " with modules in this trace");
  }
  static const std::vector<ViewNode> none;
  const std::vector<ViewNode>& nodes = pick ? pick->nodes : none;
  AnswerBuilder b(kModuleTreeSchema, nodes.size());
  {
    JsonWriter w;
    w.begin_array();
    for (const ThreadTree& t : v.threads) {
      w.begin_object();
      w.key("tid").value(t.tid);
      w.key("main").value(t.main);
      w.key("modules").value(uint64_t(t.modules));
      w.key("nodes").value(uint64_t(t.nodes.size()));
      w.end_object();
    }
    w.end_array();
    b.meta("threads", w.take());
  }
  {
    JsonWriter w;
    w.value(pick ? std::string_view(pick->tid) : std::string_view());
    b.meta("tid", w.take());
  }
  b.rows_here();
  AnswerColumn& name = b.add("name");
  for (const ViewNode& n : nodes) name.str.push_back(b.intern(n.name));
  AnswerColumn& kind = b.add("kind");
  for (const ViewNode& n : nodes) kind.str.push_back(b.intern(view_node_kind_name(n.kind)));
  auto number = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (const ViewNode& n : nodes) c.f64.push_back(value(n));
  };
  number("start_us", [&](const ViewNode& n) { return double(n.start_ns - m.start_ns) / 1e3; });
  number("end_us", [&](const ViewNode& n) { return double(n.end_ns - m.start_ns) / 1e3; });
  auto whole = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (const ViewNode& n : nodes) c.i32.push_back(value(n));
  };
  whole("depth", [](const ViewNode& n) { return n.depth; });
  whole("parent", [](const ViewNode& n) { return n.parent; });
  whole("row", [](const ViewNode& n) { return n.row; });
  number("host_total_us", [](const ViewNode& n) { return double(n.host_total_ns) / 1e3; });
  number("host_self_us", [](const ViewNode& n) { return double(n.host_self_ns) / 1e3; });
  number("device_total_us", [](const ViewNode& n) { return double(n.device_total_ns) / 1e3; });
  number("device_self_us", [](const ViewNode& n) { return double(n.device_self_ns) / 1e3; });
  return b.take();
}

Answer module_presence_answer(const Session& s, QueryParamsRef) {
  const ModulePresence p = module_presence(s.model());
  AnswerBuilder b(kModulePresenceSchema, 0);
  b.rows_here();
  b.meta("modules", p.modules ? "true" : "false");
  b.meta("lightning", p.lightning ? "true" : "false");
  return b.take();
}

}  // namespace ks
