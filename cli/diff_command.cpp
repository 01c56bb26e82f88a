#include "cli/diff_command.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/analysis/diff.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/steps.h"
#include "core/session/session.h"

namespace ks {

int run_diff_command(int argc, char** argv, const char* usage) {
  bool json = false, tb = false, gate = false;
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
  if (gate && json) return fail("--fail-if-slower prints one line, not JSON");

  // Each side a Session (core/session/session.h): its steps' breakdown for the gate, its Diff
  // trees (with the user's record_function ranges, not with tb_plugin) for the view.
  Session base({tb}), exp({tb});
  if (!load_trace(files[0], base.reader()) || !load_trace(files[1], exp.reader())) return 1;
  const std::string base_file = base_name(files[0]), exp_file = base_name(files[1]);
  if (gate) {
    double from = 0, to = 0;
    diff_metric_ns(base.breakdown(), metric, from);
    diff_metric_ns(exp.breakdown(), metric, to);
    bool slower = false;
    std::printf("%s\n", diff_gate_line(metric, from, to, pct, slower).c_str());
    return slower ? 3 : 0;
  }
  const DiffResult d = diff_trees(base.diff_tree(), base.model(), exp.diff_tree(), exp.model(), tb);
  if (json) std::printf("%s\n", diff_json(d, base_file, exp_file).c_str());
  else std::fputs(diff_text(d, base_file, exp_file).c_str(), stdout);
  if (!d.compared) {
    std::fprintf(stderr, "kinetoscope diff: %s\n", d.error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace ks
