#include "core/analysis/step_breakdown.h"

#include <unordered_set>

#include "core/util/heartbeat.h"

namespace ks {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// A yes or no about a model string (a name, a category), worked out once per distinct string:
// the same few names and categories stand on millions of rows.
template <class Pred>
class StringFlag {
 public:
  StringFlag(const TraceModel& m, Pred pred) : m_(m), pred_(pred), known_(m.strings.size(), -1) {}
  bool operator()(StringId id) {
    int8_t& k = known_[id];
    if (k < 0) k = pred_(m_.strings.get(id)) ? 1 : 0;
    return k == 1;
  }

 private:
  const TraceModel& m_;
  Pred pred_;
  std::vector<int8_t> known_;
};

// The category of the Python tracer's events that count as host work ("python", not python_function).
bool is_python_category(std::string_view cat) { return cat == "python"; }

}  // namespace

const char* role_name(Role r) {
  static const char* const kNames[] = {"kernel",  "memcpy",     "memset",   "communication",
                                       "runtime", "dataloader", "cpu_exec", "other"};
  return kNames[static_cast<size_t>(r)];
}

bool is_communication_op(std::string_view name) {
  for (std::string_view lib : {"nccl:", "gloo:"}) {
    if (!starts_with(name, lib)) continue;
    const std::string_view op = name.substr(lib.size());
    return op == "broadcast" || op == "reduce" || op == "all_reduce" || op == "all_gather" ||
           op == "reduce_scatter";
  }
  return false;
}

bool is_collective_kernel(std::string_view name) {
  return starts_with(name, "ncclDevKernel_") || starts_with(name, "ncclKernel_");
}

bool is_dataloader_op(std::string_view name) {
  return (starts_with(name, "enumerate(DataLoader)#") && ends_with(name, ".__next__")) ||
         starts_with(name, "enumerate(DataPipe)#");
}

std::unordered_set<int64_t> communication_external_ids(const TraceModel& m) {
  std::unordered_set<int64_t> ids;
  StringFlag is_comm(m, is_communication_op);
  StringFlag is_python(m, is_python_category);
  auto collect = [&](const auto& table) {
    for (const auto& r : table)
      if (is_comm(r.s.name)) ids.insert(m.id_value(r.s.external_id));
  };
  collect(m.cpu_ops);
  collect(m.user_annotations);
  collect(m.gpu_annotations);
  for (const PythonFunctionRow& r : m.python_functions)
    if (is_python(r.s.cat) && is_comm(r.s.name)) ids.insert(m.id_value(r.s.external_id));
  return ids;
}

bool has_compute_kernels(const TraceModel& m) {
  const std::unordered_set<int64_t> comm = communication_external_ids(m);
  for (const KernelRow& k : m.kernels)
    if (m.id_value(k.s.external_id) == kNoId || !comm.count(m.id_value(k.s.external_id))) return true;
  return false;
}

std::array<Ranges, kRoleCount> role_ranges(const TraceModel& m, const StepOptions& options) {
  // Each table is walked once, into the roles it can give. The role that takes (nearly) all of a
  // table — Kernel, Memcpy, Memset, Runtime, CPU Exec — is reserved at the table's size up front:
  // pushed one by one, the vectors doubled (up to half unused, three times a vector's size while
  // it grew: ~13 B/event of the Overview's peak on the modern shape, issue 12 §4). The few rows
  // of Communication and DataLoader grow as they come. Each role is merged once its last table is
  // in, so the raw ranges held at once are CPU Exec's (a third of the events) beside the others'
  // merged ones. (Before, a first walk of every table counted each role for an exact reserve, and
  // a walk per role collected it: twice the walks, a third of the step-time breakdown in wasm.)
  // What a name makes of a host range, looked up once per distinct name.
  enum : uint8_t { kUnknown, kStep, kLoader, kComm, kPlain };
  std::vector<uint8_t> host_class(m.strings.size(), kUnknown);
  auto host_class_of = [&](StringId id) {
    uint8_t& c = host_class[id];
    if (c == kUnknown) {
      const std::string_view name = m.strings.get(id);
      c = starts_with(name, "ProfilerStep#") ? kStep : is_dataloader_op(name) ? kLoader
          : is_communication_op(name) ? kComm : kPlain;
    }
    return c;
  };
  StringFlag is_collective(m, is_collective_kernel);  // a collective kernel's name

  std::array<Ranges, kRoleCount> ranges;
  auto add = [&](Role r, const SliceRow& s) {
    ranges[size_t(r)].push_back({s.ts_ns, s.ts_ns + m.dur_ns(s)});
    heartbeat();  // every event: minutes on a 10 GB trace in wasm (core/util/heartbeat.h)
  };
  auto merge = [&](Role r) { ranges[size_t(r)] = merge_ranges(std::move(ranges[size_t(r)])); };

  // Kernels launched by a collective op (same external id) are Communication. PyTorch 2.x no
  // longer links a kernel to its op that way (External id holds the correlation), so by default
  // NCCL/RCCL kernels are also known by name; tb_plugin's reading counts them as Kernel.
  {
    const std::unordered_set<int64_t> comm_ids = communication_external_ids(m);
    const bool by_name = !options.tb_plugin_gpu_annotations;
    ranges[size_t(Role::kKernel)].reserve(m.kernels.size());
    for (const KernelRow& k : m.kernels) {
      const bool comm = (m.id_value(k.s.external_id) != kNoId && comm_ids.count(m.id_value(k.s.external_id))) || (by_name && is_collective(k.s.name));
      add(comm ? Role::kCommunication : Role::kKernel, k.s);
    }
  }
  merge(Role::kKernel);
  merge(Role::kCommunication);  // the kernels' part; the host's is added below
  ranges[size_t(Role::kMemcpy)].reserve(m.memcpys.size());
  for (const MemcpyRow& r : m.memcpys) add(Role::kMemcpy, r.s);
  merge(Role::kMemcpy);
  ranges[size_t(Role::kMemset)].reserve(m.memsets.size());
  for (const MemcpyRow& r : m.memsets) add(Role::kMemset, r.s);
  merge(Role::kMemset);
  ranges[size_t(Role::kRuntime)].reserve(m.runtimes.size());
  for (const SliceRow& r : m.runtimes) add(Role::kRuntime, r);
  merge(Role::kRuntime);

  // Host ranges: cpu ops, user annotations (and GPU annotations the tb_plugin way), and "python"
  // events (not python_function).
  StringFlag is_python(m, is_python_category);
  size_t python_rows = 0;
  for (const PythonFunctionRow& r : m.python_functions) python_rows += is_python(r.s.cat);
  ranges[size_t(Role::kCpuExec)].reserve(m.cpu_ops.size() + m.user_annotations.size() + python_rows +
                                         (options.tb_plugin_gpu_annotations ? m.gpu_annotations.size() : 0));
  auto host = [&](const SliceRow& s, bool dataloader_allowed) {
    switch (host_class_of(s.name)) {
      case kStep: return;  // a step, not a role
      case kLoader: add(dataloader_allowed ? Role::kDataLoader : Role::kCpuExec, s); return;
      case kComm: add(Role::kCommunication, s); return;
      default: add(Role::kCpuExec, s); return;
    }
  };
  for (const CpuOpRow& r : m.cpu_ops) host(r.s, true);
  for (const CpuOpRow& r : m.user_annotations) host(r.s, true);
  if (options.tb_plugin_gpu_annotations)
    for (const CpuOpRow& r : m.gpu_annotations) host(r.s, true);
  for (const PythonFunctionRow& r : m.python_functions)
    if (is_python(r.s.cat)) host(r.s, false);
  merge(Role::kCpuExec);
  merge(Role::kDataLoader);
  merge(Role::kCommunication);
  return ranges;
}

StepBreakdown step_breakdown(const TraceModel& m, const StepsResult& found, const StepOptions& options) {
  StepBreakdown out;
  std::array<Ranges, kRoleCount> ranges = role_ranges(m, options);

  Ranges steps;
  for (const Step& s : found.steps) steps.push_back({s.start_ns, s.end_ns});
  // Priority: each role keeps only the time no earlier role took. tb_plugin's quirk is kept:
  // when earlier roles covered every step completely, the next role starts over from all steps.
  std::array<Ranges, kRoleCount> counted;
  Ranges slots;
  for (size_t r = 0; r < size_t(Role::kOther); ++r) {
    out.roles[r] = {ranges[r].size(), ranges_sum(ranges[r])};
    if (!slots.empty()) {
      counted[r] = intersect_ranges(slots, ranges[r]);
    } else {
      counted[r] = ranges[r];
      slots = merge_ranges(steps);
    }
    slots = subtract_ranges(slots, counted[r]);
  }
  counted[size_t(Role::kOther)] = slots;

  for (const Step& s : found.steps) {
    StepCosts c;
    c.step = s;
    c.total_ns = s.end_ns - s.start_ns;
    for (size_t r = 0; r < kRoleCount; ++r) c.ns[r] = overlap_sum(counted[r], s.start_ns, s.end_ns);
    out.steps.push_back(c);
  }
  if (!out.steps.empty()) {
    const double n = double(out.steps.size());
    for (const StepCosts& c : out.steps) {
      for (size_t r = 0; r < kRoleCount; ++r) out.average_ns[r] += double(c.ns[r]) / n;
      out.average_total_ns += double(c.total_ns) / n;
    }
  }
  return out;
}

}  // namespace ks
