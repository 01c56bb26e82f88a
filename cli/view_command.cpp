// `kinetoscope VIEW [--json|--csv] [--profile] [--PARAM VALUE]... TRACE...`: every view of
// core/session/views.h that has no command of its own is printed from its answer here, so a new
// view needs no line in the CLI. --json is the answer's object with the file's name first, one
// line per trace; --csv the schema's CSV columns; the text a table of the answer's columns under
// its metadata. --profile adds, on stderr, the CPU seconds of the read and of each answer.
#include "cli/view_command.h"

#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/file_source.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace {

// A parameter as an option: group_by -> --group-by.
std::string option_of(std::string_view param) {
  std::string o = "--";
  for (char c : param) o += c == '_' ? '-' : c;
  return o;
}

std::string cell_text(const ks::Answer& a, const ks::AnswerColumn& c, size_t row) {
  char buf[64];
  switch (c.spec->type) {
    case ks::ColumnType::kF64: {
      const double v = c.f64[row];
      if (std::isnan(v)) return "-";
      std::snprintf(buf, sizeof buf, c.spec->unit == "percent" ? "%.2f" : c.spec->unit == "us" ? "%.1f" : "%g", v);
      return buf;
    }
    case ks::ColumnType::kCount: return std::to_string(uint64_t(c.f64[row]));
    case ks::ColumnType::kI32: return c.i32[row] == ks::kNullI32 ? "-" : std::to_string(c.i32[row]);
    case ks::ColumnType::kI32x3:
      if (c.i32[3 * row] == ks::kNullI32) return "-";
      return "[" + std::to_string(c.i32[3 * row]) + ", " + std::to_string(c.i32[3 * row + 1]) + ", " + std::to_string(c.i32[3 * row + 2]) + "]";
    case ks::ColumnType::kString: return c.str[row] == ks::kNullString ? "-" : a.strings[c.str[row]];
    case ks::ColumnType::kTri: return c.u8[row] == ks::kTriYes ? "yes" : c.u8[row] == ks::kTriNo ? "no" : "?";
    case ks::ColumnType::kBool: return c.u8[row] ? "yes" : "no";
  }
  return "";
}

// The answer as text: its metadata (the values that are not null), then its columns as a table,
// numbers right-aligned, the last text column left-aligned.
void print_text(const std::string& name, const ks::Answer& a) {
  std::printf("%s: %s, %zu row%s\n", name.c_str(), std::string(a.schema->view).c_str(), a.rows, a.rows == 1 ? "" : "s");
  for (const auto& [key, value] : a.meta)
    if (value != "null") std::printf("  %s: %s\n", key.c_str(), value.c_str());
  if (!a.rows) return;
  std::vector<const ks::AnswerColumn*> cols;
  for (const ks::AnswerColumn& c : a.columns)
    if (c.spec->in_json && c.present) cols.push_back(&c);
  std::vector<std::vector<std::string>> cells(cols.size());
  std::vector<size_t> width(cols.size());
  for (size_t i = 0; i < cols.size(); ++i) {
    width[i] = cols[i]->spec->name.size();
    for (size_t r = 0; r < a.rows; ++r) {
      cells[i].push_back(cell_text(a, *cols[i], r));
      width[i] = std::max(width[i], cells[i].back().size());
    }
  }
  auto line = [&](auto text) {
    std::string out = " ";
    for (size_t i = 0; i < cols.size(); ++i) {
      const std::string t = text(i);
      const bool left = cols[i]->spec->type == ks::ColumnType::kString;
      const std::string pad(width[i] - t.size(), ' ');
      out += ' ';
      out += left ? t + (i + 1 < cols.size() ? pad : "") : pad + t;
    }
    std::printf("%s\n", out.c_str());
  };
  line([&](size_t i) { return std::string(cols[i]->spec->name); });
  for (size_t r = 0; r < a.rows; ++r) line([&](size_t i) { return cells[i][r]; });
}

// Views printed with another's: `kinetoscope gpu-time` prints HTA's idle time and kernel
// breakdowns with the temporal breakdown (--json: their rows under their rows_key, before its
// own; text: each answer in turn; --csv: the view's own table). Their parameters are the
// command's options too.
std::vector<std::string_view> companions_of(std::string_view view) {
  if (view == "gpu-time")
    return {"gpu-idle", "gpu-idle-intervals", "gpu-kernel-types", "gpu-top-kernels", "gpu-comm-overlap", "gpu-launch-stats",
            "gpu-launch-operators", "gpu-queue", "gpu-memory-bandwidth", "gpu-idle-gaps", "gpu-kernel-sequences",
            "gpu-critical-path", "gpu-recommendations"};
  return {};
}

// --profile: the process's CPU time (user, system) so far, to say on stderr what the read and
// each answer cost.
struct CpuTime {
  double user = 0, system = 0;
  static CpuTime now() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return {s(u.ru_utime), s(u.ru_stime)};
  }
  CpuTime operator-(const CpuTime& o) const { return {user - o.user, system - o.system}; }
};

void print_profile_line(std::string_view what, const CpuTime& t) {
  std::fprintf(stderr, "  %-22.*s %7.3f %7.3f %7.3f\n", int(what.size()), what.data(), t.user, t.system, t.user + t.system);
}

}  // namespace

const ks::ViewDef* find_view(std::string_view name) {
  // A snapshot's views are printed by `kinetoscope snapshot` (cli/snapshot_command.cpp).
  for (const ks::ViewDef& v : ks::views())
    if (v.schema->view == name && !v.snapshot) return &v;
  return nullptr;
}

std::string views_usage(std::string_view usage) {
  std::string out;
  for (const ks::ViewDef& v : ks::views()) {
    if (v.snapshot) continue;  // `kinetoscope snapshot` prints them
    const ks::ViewSchema& s = *v.schema;
    const std::string command = "kinetoscope " + std::string(s.view) + " ";
    if (usage.find(command) != std::string_view::npos) continue;
    if (out.empty())
      out = "\nThe other views, each printed from its answer (--json: one object per trace, \"file\" first;\n"
            "--csv: its table; text: its metadata and table; --profile: on stderr, the CPU seconds,\n"
            "user and system, of each trace's read and of each answer, the graph's parts a view asks\n"
            "first, such as the operator trees, in that view's):\n";
    std::vector<const ks::ParamSpec*> params;
    for (const ks::ParamSpec& p : s.params) params.push_back(&p);
    for (std::string_view c : companions_of(s.view))
      for (const ks::ParamSpec& p : find_view(c)->schema->params) {
        bool seen = false;
        for (const ks::ParamSpec* q : params) seen = seen || q->name == p.name;
        if (!seen) params.push_back(&p);
      }
    out += "       " + command + "[--json|--csv] [--profile]";
    for (const ks::ParamSpec* p : params) out += " [" + option_of(p->name) + " VALUE]";
    out += " TRACE...\n            " + std::string(s.description) + "\n";
    for (std::string_view c : companions_of(s.view))
      out += "            With " + std::string(c) + ": " + std::string(find_view(c)->schema->description) + "\n";
    for (const ks::ParamSpec* p : params) out += "            " + option_of(p->name) + ": " + std::string(p->description) + "\n";
  }
  return out;
}

int run_view_command(const ks::ViewDef& view, int argc, char** argv, const char* usage) {
  const ks::ViewSchema& s = *view.schema;
  const std::string command(s.view);
  bool json = false, csv = false, profile = false;
  ks::QueryParams params;
  std::vector<std::string> files;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "kinetoscope %s: %s\n%s", command.c_str(), why.c_str(), usage);
    return 2;
  };
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      json = true;
      continue;
    }
    if (a == "--csv") {
      csv = true;
      continue;
    }
    if (a == "--profile") {
      profile = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      const ks::ParamSpec* p = nullptr;
      for (const ks::ParamSpec& q : s.params)
        if (option_of(q.name) == a) p = &q;
      for (std::string_view c : companions_of(s.view))
        for (const ks::ParamSpec& q : find_view(c)->schema->params)
          if (!p && option_of(q.name) == a) p = &q;
      if (!p) return fail("unknown option " + a);
      if (i + 1 >= argc) return fail(a + " takes a value");
      params[std::string(p->name)] = argv[++i];
      continue;
    }
    files.push_back(a);
  }
  if (files.empty()) return fail("no TRACE given");
  if (json && csv) return fail("--json or --csv, not both");
  int status = 0;
  CpuTime mark;
  auto print = [&](const std::string& name, const ks::Session& session) {
    // --profile: each step's CPU seconds on stderr (the graph's parts a view asks first, such as
    // the operator trees, counted in that view's).
    const CpuTime read_end = CpuTime::now();
    auto timed = [&](std::string_view view) {
      const CpuTime t0 = CpuTime::now();
      ks::Answer answer = session.query(view, params);
      if (profile) print_profile_line(view, CpuTime::now() - t0);
      return answer;
    };
    if (profile) {
      std::fprintf(stderr, "%s: CPU seconds            user  system   total\n", name.c_str());
      print_profile_line("read", read_end - mark);
    }
    const ks::Answer a = timed(command);
    std::vector<ks::Answer> with;
    std::string error = a.error;
    for (std::string_view c : companions_of(s.view)) {
      with.push_back(timed(c));
      if (error.empty()) error = with.back().error;
    }
    if (!error.empty()) {
      std::fprintf(stderr, "%s: %s.\n", name.c_str(), error.c_str());
      status = 1;
      return;
    }
    if (json) {
      std::string file = "{\"file\":";
      ks::append_json_escaped(file, name);
      // The companions' rows come before the view's own (gpu-time's four; any other view has none).
      std::vector<const ks::Answer*> before;
      for (const ks::Answer& w : with) before.push_back(&w);
      const std::string body = ks::answer_json(a, before);
      std::printf("%s%s%s\n", file.c_str(), body.size() > 2 ? "," : "", body.c_str() + 1);
    } else if (csv) {
      std::fputs(ks::answer_csv(a).c_str(), stdout);
    } else {
      print_text(name, a);
      for (const ks::Answer& w : with) print_text(name, w);
    }
    if (profile) {
      const CpuTime end = CpuTime::now();
      print_profile_line("answers and output", end - read_end);
      print_profile_line("total", end - mark);
    }
  };
  int loaded = 0;
  for (const std::string& file : files) {  // one at a time, for --profile's read of each
    mark = CpuTime::now();
    loaded |= ks::for_each_session({file}, false, print);
  }
  return loaded | status;
}
