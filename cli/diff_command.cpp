#include "cli/diff_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/diff.h"
#include "core/session/session.h"
#include "core/session/views.h"

namespace ks {

namespace {

// A change in percent ("+12.5 %"), "new" from nothing, "0.0 %" from nothing to nothing: of the
// nanoseconds the columns' microseconds were made from (exact below 2^52 ns, so the text is what it
// was when it was printed from the analysis).
std::string change_text(double from_us, double to_us) {
  const double from = double(std::llround(from_us * 1e3)), to = double(std::llround(to_us * 1e3));
  char buf[64];
  if (from == 0) std::snprintf(buf, sizeof buf, "%s", to == 0 ? "0.0 %" : "new");
  else std::snprintf(buf, sizeof buf, "%+.1f %%", (to - from) / from * 100);
  return buf;
}

// The text: both names, then one line per node (the tree's rows in pre-order, indented by depth)
// with both sides' host and device time (us) and the change; or the sentence of a failed
// comparison.
std::string diff_text(const Answer& tree) {
  std::string out = "baseline " + answer_meta_string(tree, "baseline") + ", experiment " + answer_meta_string(tree, "experiment") + "\n";
  if (!tree.error.empty()) return out + "  " + tree.error + "\n";
  char buf[200];
  std::snprintf(buf, sizeof buf, "  %-9s %12s %12s %9s %12s %12s %9s  %s\n", "path", "host base", "host exp", "change",
                "device base", "device exp", "change", "node (us)");
  out += buf;
  const AnswerColumn &path = *tree.column("path"), &name = *tree.column("name"), &depth = *tree.column("depth"),
                     &exp_name = *tree.column("experiment_name"), &host_b = *tree.column("baseline_duration_us"),
                     &host_e = *tree.column("experiment_duration_us"), &dev_b = *tree.column("baseline_device_duration_us"),
                     &dev_e = *tree.column("experiment_device_duration_us");
  for (size_t r = 0; r < tree.rows; ++r) {
    const std::string& p = tree.strings[path.str[r]];
    std::string line(512 + p.size() + 2 * size_t(std::max(0, depth.i32[r])), '\0');
    const int n = std::snprintf(line.data(), line.size(), "  %-9s %12.1f %12.1f %9s %12.1f %12.1f %9s  %*s", p.c_str(), host_b.f64[r],
                                host_e.f64[r], change_text(host_b.f64[r], host_e.f64[r]).c_str(), dev_b.f64[r], dev_e.f64[r],
                                change_text(dev_b.f64[r], dev_e.f64[r]).c_str(), depth.i32[r] * 2, "");
    line.resize(size_t(std::max(0, n)));
    out += line;
    const std::string& own = tree.strings[name.str[r]];
    out += own;
    if (tree.strings[exp_name.str[r]] != own) out += " | " + tree.strings[exp_name.str[r]];
    out += '\n';
  }
  return out;
}

}  // namespace

int run_diff_command(int argc, char** argv, const char* usage) {
  bool json = false, csv = false, operators = false, tb = false, gate = false;
  double pct = 0;
  std::string metric = "step";
  std::vector<std::string> files;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "kinetoscope diff: %s\n%s", why.c_str(), usage);
    return 2;
  };
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--json") json = true;
    else if (a == "--csv") csv = true;
    else if (a == "--operators") operators = true;
    else if (a == "--tb-plugin") tb = true;
    else if (a == "--fail-if-slower" && more) {
      char* end = nullptr;
      pct = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end || pct < 0) return fail("--fail-if-slower takes a percentage (a number >= 0)");
      gate = true;
    } else if (a == "--metric" && more) metric = argv[++i];
    else if (a.size() > 1 && a[0] == '-') return fail("unknown option " + a);
    else files.push_back(a);
  }
  if (files.size() != 2) return fail("give two traces: BASELINE EXPERIMENT");
  bool known = false;
  std::string names;
  for (const std::string& n : diff_metric_names()) {
    known |= n == metric;
    names += (names.empty() ? "" : ", ") + n;
  }
  if (!known) return fail("--metric " + metric + " is not one of " + names);
  if (gate && (json || csv)) return fail("--fail-if-slower prints one line, not JSON or CSV");
  if (json && csv) return fail("--json or --csv, not both");
  if (operators && !csv) return fail("--operators goes with --csv (the operators' rows; --json nests them in the tree)");

  // Each side a Session (core/session/session.h): its steps' breakdown for the gate; the Diff
  // view is asked of the baseline's with the experiment's (the diff and diff_operators answers).
  Session base({tb}), exp({tb});
  if (!load_trace(files[0], base.reader()) || !load_trace(files[1], exp.reader())) return 1;
  if (gate) {
    double from = 0, to = 0;
    diff_metric_ns(base.breakdown(), metric, from);
    diff_metric_ns(exp.breakdown(), metric, to);
    bool slower = false;
    std::printf("%s\n", diff_gate_line(metric, from, to, pct, slower).c_str());
    return slower ? 3 : 0;
  }
  const QueryParams params = {{"baseline", base_name(files[0])}, {"experiment", base_name(files[1])}};
  const Answer tree = base.query("diff", params, exp);
  if (json) std::printf("%s\n", diff_json(tree, base.query("diff_operators", params, exp)).c_str());
  else if (csv && tree.error.empty()) std::fputs(answer_csv(operators ? base.query("diff_operators", params, exp) : tree).c_str(), stdout);
  else if (!csv) std::fputs(diff_text(tree).c_str(), stdout);
  if (!tree.error.empty()) {
    std::fprintf(stderr, "kinetoscope diff: %s\n", tree.error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace ks
