// The Diff view's schemas and answers: core/analysis/diff.h's comparison of two traces (the
// baseline, the Session asked, and the experiment, the other Session given to the query) as two
// answers of the same parameters, one computation for both (Session::shared):
// - `diff`: the diff tree's nodes in pre-order (parent and depth columns), each with both sides'
//   numbers as columns of one prefix per side (`baseline_…`, `experiment_…`), declared once here
//   for the two;
// - `diff_operators`: each node side's operators by name, a row each, in the node's order and,
//   within a side, in the order the analysis collected them (post-order, first call first).
// A node's operators are a list per side of varying length, so they are a table of their own and
// not columns of the node: the page reads the rows of the node it shows, `kinetoscope diff
// --json` nests them back under each side (diff_json, the one printer of the nested shape).
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/diff.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

constexpr std::string_view kSides[] = {"baseline", "experiment"};

// A side's columns, each declared once with the side's name as its prefix.
struct SideColumn {
  std::string_view field;  // the --json key in the side's object
  ColumnType type;
  std::string_view unit;
  std::string_view description;
};
constexpr SideColumn kSideColumns[] = {
    {"name", ColumnType::kString, "", "its tree node's name, CompositeNodes for several nodes, Blank for none"},
    {"nodes", ColumnType::kCount, "count", "the tree nodes on this side"},
    {"threads", ColumnType::kCount, "count", "the threads those nodes ran on"},
    {"duration_us", ColumnType::kF64, "us", "Σ the nodes' host spans"},
    {"device_duration_us", ColumnType::kF64, "us", "Σ the nodes' device total (kernels, copies, sets they launched)"},
    {"total_duration_us", ColumnType::kF64, "us", "Σ per node its device total, or its host span when it has none"},
};

// The names the schemas hold their side columns by ("baseline_duration_us", ...): string_views
// into these strings, made once before the schemas.
const std::vector<std::string>& side_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (std::string_view side : kSides)
      for (const SideColumn& c : kSideColumns) v.push_back(std::string(side) + "_" + std::string(c.field));
    return v;
  }();
  return names;
}

const std::vector<std::string>& side_descriptions() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> v;
    for (std::string_view side : kSides)
      for (const SideColumn& c : kSideColumns) v.push_back("the " + std::string(side) + "'s side: " + std::string(c.description));
    return v;
  }();
  return texts;
}

const std::vector<ParamSpec> kDiffParams = {
    {"baseline", "the baseline's name as the answer gives it (the CLI: its file name); absent: \"\""},
    {"experiment", "the experiment's name, the same way"},
};

ViewSchema make_diff_schema() {
  ViewSchema s;
  s.view = "diff";
  s.type_name = "Diff";
  s.description =
      "Two traces' operator trees compared (tb_plugin's Diff view), asked of the baseline's Session with the "
      "experiment's (`kinetoscope diff --json` nests these rows and diff_operators'): the diff tree's nodes in "
      "pre-order, both sides' numbers per node. Its error: a trace without host operators to compare.";
  s.params = kDiffParams;
  s.columns = {
      {"path", ColumnType::kString, "", "the node's place: 0 for the root, <parent's path>-<index> below"},
      {"name", ColumnType::kString, "", "the baseline side's name, or the experiment's when the baseline is blank"},
      {"role", ColumnType::kString, "",
       "main, autograd, communication, dataloader or other on the nodes that stand for one role's threads; null on the others"},
      {"parent", ColumnType::kI32, "", "the parent's row, -1 at the root", false},
      {"depth", ColumnType::kI32, "", "0 at the root", false},
  };
  const std::vector<std::string>& names = side_column_names();
  const std::vector<std::string>& texts = side_descriptions();
  for (size_t i = 0; i < names.size(); ++i) {
    const SideColumn& c = kSideColumns[i % std::size(kSideColumns)];
    s.columns.push_back({names[i], c.type, c.unit, texts[i]});
  }
  s.meta = {
      {"baseline", "string", "the baseline's name (the parameter)"},
      {"experiment", "string", "the experiment's name (the parameter)"},
  };
  s.csv = {"path", "name", "role", "depth"};
  for (const std::string& n : names) s.csv.push_back(n);
  s.rows_key = "tree";
  s.tree_parent = "parent";
  return s;
}

ViewSchema make_diff_operators_schema() {
  ViewSchema s;
  s.view = "diff_operators";
  s.type_name = "DiffOperators";
  s.description =
      "The operators below each side of each node of the diff view (the nodes themselves included when they are "
      "operators), grouped by name, as the Operator view counts them: rows by node, the baseline's before the "
      "experiment's, each side's in collection order (post-order, first call first). A blank side has none.";
  s.params = kDiffParams;
  s.columns = {
      {"node", ColumnType::kI32, "", "the diff answer's row of the node", false},
      {"side", ColumnType::kString, "", "baseline or experiment", false},
      {"name", ColumnType::kString, "", "the operator's name"},
      {"calls", ColumnType::kCount, "count", "its calls below the side's nodes"},
      {"host_duration_us", ColumnType::kF64, "us", "host total time of those calls"},
      {"device_duration_us", ColumnType::kF64, "us", "device total time of those calls"},
      {"self_host_duration_us", ColumnType::kF64, "us", "host self time of those calls"},
      {"self_device_duration_us", ColumnType::kF64, "us", "device self time of those calls"},
  };
  s.csv = {"node", "side", "name", "calls", "host_duration_us", "device_duration_us", "self_host_duration_us", "self_device_duration_us"};
  s.rows_key = "aggs";
  return s;
}

// Rows in pre-order, as the tree is: each node, then its children.
struct FlatNode {
  const DiffNode* node;
  int32_t parent, depth;
};
void flatten(const DiffNode& n, int32_t parent, int32_t depth, std::vector<FlatNode>& out) {
  out.push_back({&n, parent, depth});
  const int32_t self = int32_t(out.size() - 1);
  for (const DiffNode& c : n.children) flatten(c, self, depth + 1, out);
}

void add_names(AnswerBuilder& b, std::string_view baseline, std::string_view experiment) {
  std::string v;
  append_json_escaped(v, baseline);
  b.meta("baseline", v);
  v.clear();
  append_json_escaped(v, experiment);
  b.meta("experiment", v);
  b.rows_here();
}

// An answer of `schema` that says why the traces could not be compared, with their names.
Answer not_compared(const ViewSchema& schema, const DiffResult& d, std::string_view baseline, std::string_view experiment) {
  AnswerBuilder b(schema, 0);
  add_names(b, baseline, experiment);
  Answer a = b.take();
  a.error = d.error;
  return a;
}

// The comparison of `s` (baseline) with `other` (experiment), kept on `s` for the view's second
// answer while both are read to the end.
template <class F>
Answer with_diff(const Session& s, const Session& other, QueryParamsRef params, const ViewSchema& schema, F&& answer) {
  const std::string baseline(param(params, "baseline")), experiment(param(params, "experiment"));
  if (s.tb_plugin() != other.tb_plugin()) {
    DiffResult refused;
    refused.error = "the baseline and the experiment are read in different modes (one tb_plugin's): compare two Sessions of one mode";
    return not_compared(schema, refused, baseline, experiment);
  }
  auto build = [&] { return diff_trees(s.diff_tree(), s.model(), other.diff_tree(), other.model(), s.tb_plugin()); };
  if (!s.reader().finished() || !other.reader().finished()) return answer(build(), baseline, experiment);
  const std::string key = "diff " + std::to_string(other.serial());
  return answer(s.shared<DiffResult>("diff", key, build), baseline, experiment);
}

}  // namespace

const ViewSchema kDiffSchema = make_diff_schema();
const ViewSchema kDiffOperatorsSchema = make_diff_operators_schema();

Answer diff_answer(const Session& s, const Session& other, QueryParamsRef params) {
  return with_diff(s, other, params, kDiffSchema, [](const DiffResult& d, std::string_view baseline, std::string_view experiment) {
    if (!d.compared) return not_compared(kDiffSchema, d, baseline, experiment);
    std::vector<FlatNode> rows;
    flatten(d.root, -1, 0, rows);
    AnswerBuilder b(kDiffSchema, rows.size());
    add_names(b, baseline, experiment);
    AnswerColumn& path = b.add("path");
    AnswerColumn& name = b.add("name");
    AnswerColumn& role = b.add("role");
    AnswerColumn& parent = b.add("parent");
    AnswerColumn& depth = b.add("depth");
    for (const FlatNode& f : rows) {
      path.str.push_back(b.intern(f.node->path));
      name.str.push_back(b.intern(f.node->name));
      role.str.push_back(f.node->role ? b.intern(thread_role_name(*f.node->role)) : kNullString);
      parent.i32.push_back(f.parent);
      depth.i32.push_back(f.depth);
    }
    const std::vector<std::string>& names = side_column_names();
    for (size_t k = 0; k < names.size(); ++k) {
      AnswerColumn& col = b.add(names[k]);
      const size_t field = k % std::size(kSideColumns);
      for (const FlatNode& f : rows) {
        const DiffSide& side = k < std::size(kSideColumns) ? f.node->baseline : f.node->experiment;
        switch (field) {
          case 0: col.str.push_back(b.intern(side.name)); break;
          case 1: col.f64.push_back(double(side.nodes)); break;
          case 2: col.f64.push_back(double(side.threads)); break;
          case 3: col.f64.push_back(double(side.host_ns) / 1e3); break;
          case 4: col.f64.push_back(double(side.device_ns) / 1e3); break;
          default: col.f64.push_back(double(side.total_ns) / 1e3); break;
        }
      }
    }
    return b.take();
  });
}

Answer diff_operators_answer(const Session& s, const Session& other, QueryParamsRef params) {
  return with_diff(s, other, params, kDiffOperatorsSchema, [](const DiffResult& d, std::string_view baseline, std::string_view experiment) {
    if (!d.compared) return not_compared(kDiffOperatorsSchema, d, baseline, experiment);
    std::vector<FlatNode> nodes;
    flatten(d.root, -1, 0, nodes);
    size_t rows = 0;
    for (const FlatNode& f : nodes) rows += f.node->baseline.aggs.size() + f.node->experiment.aggs.size();
    AnswerBuilder b(kDiffOperatorsSchema, rows);
    AnswerColumn& node = b.add("node");
    AnswerColumn& side = b.add("side");
    AnswerColumn& name = b.add("name");
    AnswerColumn& calls = b.add("calls");
    AnswerColumn& host = b.add("host_duration_us");
    AnswerColumn& device = b.add("device_duration_us");
    AnswerColumn& self_host = b.add("self_host_duration_us");
    AnswerColumn& self_device = b.add("self_device_duration_us");
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (size_t k = 0; k < 2; ++k) {
        const uint32_t side_id = b.intern(kSides[k]);
        for (const DiffAgg& a : k == 0 ? nodes[i].node->baseline.aggs : nodes[i].node->experiment.aggs) {
          node.i32.push_back(int32_t(i));
          side.str.push_back(side_id);
          name.str.push_back(b.intern(a.name));
          calls.f64.push_back(double(a.calls));
          host.f64.push_back(double(a.host_total_ns) / 1e3);
          device.f64.push_back(double(a.device_total_ns) / 1e3);
          self_host.f64.push_back(double(a.host_self_ns) / 1e3);
          self_device.f64.push_back(double(a.device_self_ns) / 1e3);
        }
      }
    }
    return b.take();
  });
}

// {"baseline": NAME, "experiment": NAME, "tree": NODE} (docs/contracts.md, Diff), NODE the tree
// answer's row with its side columns as two objects (each with its operators' rows as "aggs")
// and its children nested; a comparison that failed: {"baseline", "experiment", "error", "tree": null}.
std::string diff_json(const Answer& tree, const Answer& operators) {
  std::string out = "{\"baseline\":";
  out += answer_meta(tree, "baseline");
  out += ",\"experiment\":";
  out += answer_meta(tree, "experiment");
  if (!tree.error.empty() || !operators.error.empty()) {
    out += ",\"error\":";
    append_json_escaped(out, tree.error.empty() ? operators.error : tree.error);
    return out + ",\"tree\":null}";
  }
  out += ",\"tree\":";
  // Each node side's operator rows [from, to), which are in node order, the baseline's first.
  std::vector<std::pair<size_t, size_t>> ranges(2 * tree.rows, {0, 0});
  const AnswerColumn* op_node = operators.column("node");
  const AnswerColumn* op_side = operators.column("side");
  for (size_t r = 0; r < operators.rows && op_node && op_side; ++r) {
    const size_t k = 2 * size_t(op_node->i32[r]) + (operators.strings[op_side->str[r]] == kSides[0] ? 0 : 1);
    if (k >= ranges.size()) continue;
    if (ranges[k].second == 0) ranges[k].first = r;
    ranges[k].second = r + 1;
  }
  // The node's own columns, then each side's (their prefix left out of the key).
  std::vector<const AnswerColumn*> own;
  std::vector<std::pair<std::string_view, const AnswerColumn*>> sides[2];
  for (const AnswerColumn& c : tree.columns) {
    if (!c.spec->in_json) continue;
    bool in_side = false;
    for (size_t k = 0; k < 2; ++k) {
      const std::string_view n = c.spec->name;
      if (n.size() > kSides[k].size() && n.starts_with(kSides[k]) && n[kSides[k].size()] == '_') {
        sides[k].push_back({n.substr(kSides[k].size() + 1), &c});
        in_side = true;
      }
    }
    if (!in_side) own.push_back(&c);
  }
  const AnswerColumn* parent = tree.column("parent");
  std::vector<int32_t> open;  // rows whose "children" array is open, innermost last
  auto close_to = [&](int32_t p) {
    while (!open.empty() && open.back() != p) {
      out += "]}";
      open.pop_back();
    }
  };
  for (size_t r = 0; r < tree.rows; ++r) {
    const int32_t p = parent ? parent->i32[r] : -1;
    close_to(p);
    if (r > 0 && out.back() != '[') out += ',';
    out += '{';
    bool first = true;
    for (const AnswerColumn* c : own) {
      if (!first) out += ',';
      first = false;
      append_json_escaped(out, c->spec->name);
      out += ':' + answer_cell_json(tree, *c, r);
    }
    for (size_t k = 0; k < 2; ++k) {
      out += ',';
      append_json_escaped(out, kSides[k]);
      out += ":{";
      for (const auto& [key, c] : sides[k]) {
        append_json_escaped(out, key);
        out += ':' + answer_cell_json(tree, *c, r) + ',';
      }
      const auto [from, to] = ranges[2 * r + k];
      out += "\"aggs\":" + answer_rows_json(operators, from, to) + '}';
    }
    out += ",\"children\":[";
    open.push_back(int32_t(r));
  }
  close_to(-1);
  return out + '}';
}

}  // namespace ks
