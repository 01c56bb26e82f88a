#include "core/analysis/distributed.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "core/analysis/accelerator.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/steps.h"

namespace ks {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view strip_quotes(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

// "[[2, 3], [], [4]]" -> {{2, 3}, {}, {4}}; false when the text is not a list of int lists.
bool parse_dims_list(std::string_view t, std::vector<std::vector<int64_t>>& out) {
  size_t i = 0;
  auto skip = [&] { while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t')) ++i; };
  skip();
  if (i >= t.size() || t[i] != '[') return false;
  ++i;
  for (;;) {
    skip();
    if (i < t.size() && t[i] == ']') return true;
    if (i >= t.size() || t[i] != '[') return false;
    ++i;
    std::vector<int64_t> dims;
    for (;;) {
      skip();
      if (i < t.size() && t[i] == ']') { ++i; break; }
      char* end = nullptr;
      const std::string num(t.substr(i, std::min<size_t>(24, t.size() - i)));
      const long long v = std::strtoll(num.c_str(), &end, 10);
      if (end == num.c_str()) return false;
      dims.push_back(v);
      i += size_t(end - num.c_str());
      skip();
      if (i < t.size() && t[i] == ',') ++i;
    }
    out.push_back(std::move(dims));
    skip();
    if (i < t.size() && t[i] == ',') ++i;
  }
}

// "[\"float\", \"\"]" -> {"float", ""}.
std::vector<std::string> parse_string_list(std::string_view t) {
  std::vector<std::string> out;
  size_t i = 0;
  while ((i = t.find('"', i)) != std::string_view::npos) {
    const size_t j = t.find('"', i + 1);
    if (j == std::string_view::npos) break;
    out.emplace_back(t.substr(i + 1, j - i - 1));
    i = j + 1;
  }
  return out;
}

// tb_plugin's element sizes by Input type (spec §15.2); anything else counts 0.
int64_t tb_element_size(std::string_view type) {
  if (type == "long int") return 8;
  if (type == "float" || type == "int") return 4;
  if (type == "c10::Half" || type == "c10::BFloat16") return 2;
  if (type == "unsigned char") return 1;
  return 0;
}

// Element sizes of the dtypes record_param_comms writes ("Float", "BFloat16", ...) and of the
// C++ type names of Input type; -1 when unknown.
int64_t element_size(std::string_view t) {
  static const std::pair<std::string_view, int64_t> kSizes[] = {
      {"Float", 4}, {"float", 4}, {"Double", 8}, {"double", 8}, {"Half", 2}, {"c10::Half", 2},
      {"BFloat16", 2}, {"c10::BFloat16", 2}, {"Long", 8}, {"long", 8}, {"long int", 8}, {"int64_t", 8},
      {"Int", 4}, {"int", 4}, {"Short", 2}, {"short", 2}, {"Char", 1}, {"signed char", 1}, {"Byte", 1},
      {"unsigned char", 1}, {"Bool", 1}, {"bool", 1}, {"ComplexFloat", 8}, {"c10::complex<float>", 8},
      {"ComplexDouble", 16}, {"c10::complex<double>", 16}, {"ComplexHalf", 4}};
  for (const auto& [name, size] : kSizes)
    if (t == name) return size;
  if (starts_with(t, "Float8") || starts_with(t, "c10::Float8")) return 1;
  return -1;
}

// Bytes of a call from Input Dims x Input type; `tb` uses tb_plugin's short type table.
int64_t input_bytes(std::string_view dims_text, std::string_view types_text, bool tb) {
  std::vector<std::vector<int64_t>> dims;
  if (!parse_dims_list(dims_text, dims)) return tb ? 0 : -1;
  const std::vector<std::string> types = parse_string_list(types_text);
  int64_t total = 0;
  bool known = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const std::string_view type = i < types.size() ? std::string_view(types[i]) : std::string_view();
    int64_t size = tb ? tb_element_size(type) : element_size(type);
    if (size < 0) continue;
    known = true;
    int64_t n = 1;
    for (int64_t d : dims[i]) n *= d;
    total += n * size;
  }
  return tb || known ? total : -1;
}

void sort_ranges(Ranges& r) {
  std::stable_sort(r.begin(), r.end(),
                   [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
}

void sort_calls(std::vector<DistCall>& calls) {
  std::stable_sort(calls.begin(), calls.end(), [](const DistCall& a, const DistCall& b) {
    return a.host_start_ns != b.host_start_ns ? a.host_start_ns < b.host_start_ns : a.host_end_ns > b.host_end_ns;
  });
}

// tb_plugin's two cursors (spec §15.1): a call inside step i gets it; one that starts at or after
// the step's end moves to the next step; one straddling the end stays without a step.
void assign_steps(std::vector<DistCall>& calls, const std::vector<DistStep>& steps) {
  size_t s = 0;
  for (DistCall& c : calls) {
    while (s < steps.size()) {
      if (c.host_start_ns >= steps[s].start_ns && c.host_end_ns <= steps[s].end_ns) {
        c.step = int(s);
        break;
      }
      if (c.host_start_ns >= steps[s].end_ns) {
        ++s;
        continue;
      }
      break;  // straddles
    }
  }
}

// tb_plugin mode (spec §15.1): node-creating events named nccl:/gloo: broadcast, reduce,
// all_reduce, all_gather, reduce_scatter, keyed by external id (last wins), each with its own host
// range first and then, when NCCL is in use, every kernel sharing its external id.
void tb_calls(const TraceModel& m, RankSummary& r) {
  struct Cand {
    int64_t ts, end, ext;
    StringId name, dims, types;
  };
  std::vector<Cand> cands;
  auto scan = [&](const ChunkedTable<CpuOpRow>& t) {
    for (const CpuOpRow& row : t)
      if (is_communication_op(m.strings.get(row.s.name)))
        cands.push_back({row.s.ts_ns, row.s.ts_ns + m.dur_ns(row.s), m.id_value(row.s.external_id), row.s.name, row.input_dims, row.input_type});
  };
  scan(m.cpu_ops);
  scan(m.user_annotations);
  scan(m.gpu_annotations);  // tb_plugin reads gpu_user_annotation as a user annotation
  for (const PythonFunctionRow& row : m.python_functions)
    if (m.strings.get(row.s.cat) == "python" && is_communication_op(m.strings.get(row.s.name)))
      cands.push_back({row.s.ts_ns, row.s.ts_ns + m.dur_ns(row.s), m.id_value(row.s.external_id), row.s.name, 0, 0});
  std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.ts < b.ts; });
  std::unordered_map<int64_t, size_t> by_ext;  // the last candidate with each external id wins
  for (size_t i = 0; i < cands.size(); ++i) {
    const std::string_view n = m.strings.get(cands[i].name);
    (starts_with(n, "nccl:") ? r.nccl : r.gloo) = true;
    by_ext[cands[i].ext] = i;
  }
  if (r.nccl && r.gloo) return;  // tb_plugin discards the records
  std::vector<size_t> kept;
  for (size_t i = 0; i < cands.size(); ++i)
    if (by_ext[cands[i].ext] == i) kept.push_back(i);
  std::unordered_map<int64_t, size_t> call_of_ext;
  for (size_t i : kept) {
    const Cand& c = cands[i];
    DistCall call;
    call.name = std::string(m.strings.get(c.name));
    call.host_start_ns = c.ts;
    call.host_end_ns = c.end;
    call.ranges.push_back({c.ts, c.end});
    const std::string_view dims = m.strings.get(c.dims), types = m.strings.get(c.types);
    if (!dims.empty() && types.empty() && r.tb_failure.empty())
      r.tb_failure = call.name + " has Input Dims but no Input type: tb_plugin fails the whole run";
    call.bytes = dims.empty() ? 0 : input_bytes(dims, types, true);
    call_of_ext[c.ext] = r.calls.size();
    r.calls.push_back(std::move(call));
  }
  if (r.nccl)
    for (const KernelRow& k : m.kernels) {
      auto it = call_of_ext.find(m.id_value(k.s.external_id));
      if (it != call_of_ext.end()) r.calls[it->second].ranges.push_back({k.s.ts_ns, k.s.ts_ns + m.dur_ns(k.s)});
    }
  for (DistCall& c : r.calls) sort_ranges(c.ranges);
}

bool is_collective_range(std::string_view n) { return starts_with(n, "nccl:") || starts_with(n, "gloo:"); }

// Default mode: a collective call is a host range named nccl:* / gloo:* (any collective, all_to_all
// and _all_gather_base included), or a record_param_comms that holds none (its "Collective name"
// names it). Its process group, size and dtype come from the record_param_comms around it (PyTorch
// 2.x), its time from the kernels launched inside it on its thread (PyTorch 2.x links no external
// id), or its own host range when it launched none (gloo on CPU).
void default_calls(const TraceModel& m, RankSummary& r, std::vector<char>& comm_kernel) {
  // Collective args by (table, row).
  std::unordered_map<uint64_t, const CollectiveRow*> args;
  auto key = [](EventKind k, uint32_t row) { return (uint64_t(k) << 32) | row; };
  for (const CollectiveRow& c : m.collectives) args[key(c.kind, c.row)] = &c;
  struct Host {
    int64_t ts, end;
    StringId pid, tid;
    EventKind kind;
    uint32_t row;
    bool param_comms;
  };
  std::vector<Host> hosts;
  auto scan = [&](const ChunkedTable<CpuOpRow>& t, EventKind kind) {
    for (uint32_t i = 0; i < t.size(); ++i) {
      const CpuOpRow& row = t[i];
      const std::string_view n = m.strings.get(row.s.name);
      const bool pc = n == "record_param_comms";
      if (is_collective_range(n) || pc)
        hosts.push_back({row.s.ts_ns, row.s.ts_ns + m.dur_ns(row.s), row.s.pid, row.s.tid, kind, i, pc});
    }
  };
  scan(m.cpu_ops, EventKind::kCpuOp);
  scan(m.user_annotations, EventKind::kUserAnnotation);
  std::stable_sort(hosts.begin(), hosts.end(), [](const Host& a, const Host& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.end > b.end;
  });
  const std::string prefix = r.backend.empty() ? std::string("c10d") : r.backend;
  // Pair each nccl:/gloo: range with the record_param_comms enclosing it on its thread.
  std::vector<char> used(hosts.size(), 0);
  struct Pending {
    size_t host;
    const CollectiveRow* args;
  };
  std::vector<Pending> found;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const Host& h = hosts[i];
    if (h.param_comms) continue;
    const CollectiveRow* a = nullptr;
    auto own = args.find(key(h.kind, h.row));
    if (own != args.end()) a = own->second;
    for (size_t j = i; j-- > 0;) {  // the innermost record_param_comms that started before and holds it
      const Host& p = hosts[j];
      if (!p.param_comms || p.pid != h.pid || p.tid != h.tid || p.end < h.end || p.ts > h.ts) continue;
      used[j] = 1;
      if (!a) {
        auto pa = args.find(key(p.kind, p.row));
        if (pa != args.end()) a = pa->second;
      }
      break;
    }
    found.push_back({i, a});
  }
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (!hosts[i].param_comms || used[i]) continue;
    auto pa = args.find(key(hosts[i].kind, hosts[i].row));
    if (pa == args.end()) continue;
    const std::string_view coll = m.strings.get(pa->second->collective_name);
    if (coll.empty() || coll == "wait") continue;  // work.wait(): not a collective
    found.push_back({i, pa->second});
  }
  std::sort(found.begin(), found.end(), [](const Pending& a, const Pending& b) { return a.host < b.host; });
  for (const Pending& f : found) {
    const Host& h = hosts[f.host];
    const CpuOpRow& row = h.kind == EventKind::kCpuOp ? m.cpu_ops[h.row] : m.user_annotations[h.row];
    DistCall c;
    c.name = h.param_comms ? prefix + ":" + std::string(m.strings.get(f.args->collective_name))
                           : std::string(m.strings.get(row.s.name));
    c.host_start_ns = h.ts;
    c.host_end_ns = h.end;
    if (f.args) {
      const CollectiveRow& a = *f.args;
      c.group = std::string(strip_quotes(m.strings.get(a.process_group_ranks)));
      if (c.group.empty()) c.group = std::string(m.strings.get(a.process_group_name));
      c.group_size = a.group_size;
      c.dtype = std::string(m.strings.get(a.dtype));
      const int64_t size = element_size(c.dtype);
      if (a.in_msg_nelems != kNoId && size > 0) c.bytes = a.in_msg_nelems * size;
    }
    if (c.bytes < 0 && row.input_dims) c.bytes = input_bytes(m.strings.get(row.input_dims), m.strings.get(row.input_type), false);
    r.calls.push_back(std::move(c));
  }

  // Kernels launched inside a call, on its thread (calls are in `found` order: hosts are sorted
  // by start, then longest first, as sort_calls sorts calls).
  std::map<std::pair<StringId, StringId>, std::vector<size_t>> by_thread;  // call indexes by host start
  for (size_t c = 0; c < found.size(); ++c) by_thread[{hosts[found[c].host].pid, hosts[found[c].host].tid}].push_back(c);
  const LaunchLinks links = link_launches(m, true);
  for (size_t l = 0; l < links.launches(); ++l) {
    const SliceRow& launch = l < m.runtimes.size() ? m.runtimes[l] : m.drivers[l - m.runtimes.size()];
    auto t = by_thread.find({launch.pid, launch.tid});
    if (t == by_thread.end()) continue;
    const std::vector<size_t>& idx = t->second;
    auto it = std::upper_bound(idx.begin(), idx.end(), launch.ts_ns,
                               [&](int64_t ts, size_t c) { return ts < r.calls[c].host_start_ns; });
    if (it == idx.begin()) continue;
    DistCall& call = r.calls[*(it - 1)];
    if (launch.ts_ns >= call.host_end_ns) continue;
    for (DeviceRef d : links.of(l)) {
      if (d.kind != EventKind::kKernel) continue;
      const SliceRow& k = m.kernels[d.row].s;
      call.ranges.push_back({k.ts_ns, k.ts_ns + m.dur_ns(k)});
      comm_kernel[d.row] = 1;
    }
  }
  for (DistCall& c : r.calls) {
    if (c.ranges.empty()) c.ranges.push_back({c.host_start_ns, c.host_end_ns});
    sort_ranges(c.ranges);
    (starts_with(c.name, "gloo:") ? r.gloo : r.nccl) = true;
  }
}

}  // namespace

void worker_and_span(std::string_view file, std::string& worker, std::string& span) {
  const size_t slash = file.find_last_of('/');
  if (slash != std::string_view::npos) file = file.substr(slash + 1);
  span.clear();
  std::string_view base = file;
  bool trace_named = false;
  for (std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
    if (base.size() > suffix.size() && base.substr(base.size() - suffix.size()) == suffix) {
      base = base.substr(0, base.size() - suffix.size());
      trace_named = true;
      break;
    }
  }
  if (!trace_named) {
    for (std::string_view suffix : {".json.gz", ".json", ".gz"})
      if (base.size() > suffix.size() && base.substr(base.size() - suffix.size()) == suffix) {
        base = base.substr(0, base.size() - suffix.size());
        break;
      }
    worker = std::string(base);
    return;
  }
  // The span is the last ".digits" group (the worker is matched lazily), the worker not empty.
  const size_t dot = base.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0 && dot + 1 < base.size() &&
      std::all_of(base.begin() + long(dot) + 1, base.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    worker = std::string(base.substr(0, dot));
    span = std::string(base.substr(dot + 1));
  } else {
    worker = std::string(base);
  }
}

RankSummary distributed_rank(const TraceModel& m, std::string_view worker, std::string_view span, bool tb) {
  RankSummary r;
  r.worker = std::string(worker);
  r.span = std::string(span);
  r.tb_plugin = tb;
  if (m.distributed.present) {
    r.rank = m.distributed.rank;
    r.world_size = m.distributed.world_size;
    r.backend = m.distributed.backend;
  }
  // Devices: tb_plugin counts the pids of GPU events and indexes deviceProperties by position;
  // the default mode uses the device each kernel, copy and set ran on and the entry with that id.
  r.has_device_properties = !m.devices.empty() && !(tb && m.devices_from_compute_properties);
  std::set<int64_t> used;
  auto add_device = [&](const SliceRow& s, int32_t device) {
    if (tb) {
      const std::string_view pid = m.strings.get(s.pid);
      char* end = nullptr;
      const std::string text(pid);
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (end != text.c_str()) used.insert(v);
    } else if (device >= 0) {
      used.insert(device);
    }
  };
  for (const KernelRow& k : m.kernels) add_device(k.s, k.device);
  for (const MemcpyRow& c : m.memcpys) add_device(c.s, c.device);
  for (const MemcpyRow& c : m.memsets) add_device(c.s, c.device);
  if (r.has_device_properties)
    for (int64_t id : used) {
      const DeviceInfo* d = nullptr;
      if (tb) {
        if (id >= 0 && size_t(id) < m.devices.size()) d = &m.devices[size_t(id)];
      } else {
        for (const DeviceInfo& info : m.devices)
          if (info.id == id) d = &info;
      }
      DistDevice out;
      out.id = id;
      if (d) {
        out.name = d->name;
        out.memory_bytes = d->memory_bytes;
        out.compute_capability = tb ? (d->compute_major >= 0 ? std::to_string(d->compute_major) + "." +
                                                                   std::to_string(std::max(d->compute_minor, 0))
                                                             : std::string())
                                    : compute_capability_text(*d);
      }
      r.devices.push_back(std::move(out));
    }

  StepOptions options;
  options.tb_plugin_gpu_annotations = tb;
  const StepsResult steps = find_steps(m, options);
  const std::array<Ranges, kRoleCount> roles = role_ranges(m, options);
  r.has_communication = !roles[size_t(Role::kCommunication)].empty();

  Ranges computation, communication;
  if (tb) {
    tb_calls(m, r);
    // §7.4: kernels (or, without any, CPU Exec) against the Communication role.
    computation = !roles[size_t(Role::kKernel)].empty() ? roles[size_t(Role::kKernel)] : roles[size_t(Role::kCpuExec)];
    communication = roles[size_t(Role::kCommunication)];
  } else {
    std::vector<char> comm_kernel(m.kernels.size(), 0);
    default_calls(m, r, comm_kernel);
    Ranges comm, comp;
    for (const DistCall& c : r.calls) comm.insert(comm.end(), c.ranges.begin(), c.ranges.end());
    for (size_t i = 0; i < m.kernels.size(); ++i) {
      const SliceRow& k = m.kernels[i].s;
      if (comm_kernel[i] || is_collective_kernel(m.strings.get(k.name))) comm.push_back({k.ts_ns, k.ts_ns + m.dur_ns(k)});
      else comp.push_back({k.ts_ns, k.ts_ns + m.dur_ns(k)});
    }
    if (comp.empty()) {
      // No GPU computation: the host operators' time, but not the ranges that are the collectives
      // themselves or wrap them (record_param_comms, c10d::*), nor steps and data loading.
      for (const CpuOpRow& op : m.cpu_ops) {
        const std::string_view n = m.strings.get(op.s.name);
        if (starts_with(n, "ProfilerStep#") || n == "record_param_comms" || starts_with(n, "c10d::") ||
            is_collective_range(n) || is_dataloader_op(n))
          continue;
        comp.push_back({op.s.ts_ns, op.s.ts_ns + m.dur_ns(op.s)});
      }
    }
    computation = merge_ranges(std::move(comp));
    communication = merge_ranges(std::move(comm));
  }
  const Ranges both = intersect_ranges(computation, communication);
  for (const Step& s : steps.steps) {
    DistStep d;
    d.name = s.name;
    d.start_ns = s.start_ns;
    d.end_ns = s.end_ns;
    d.computation_ns = overlap_sum(computation, s.start_ns, s.end_ns);
    d.communication_ns = overlap_sum(communication, s.start_ns, s.end_ns);
    d.overlap_ns = overlap_sum(both, s.start_ns, s.end_ns);
    r.steps.push_back(std::move(d));
  }
  sort_calls(r.calls);
  assign_steps(r.calls, r.steps);
  return r;
}

// ---------------------------------------------------------------------------------------------
// The reduce.

namespace {

struct CallState {
  bool matched = false;
  Ranges real;  // the transfer part of each range (matched calls)
};

struct Group {
  std::string span;
  std::vector<const RankSummary*> ranks;
};

double us(int64_t ns) { return double(ns) / 1e3; }

// "[0, 1, 2]" -> {0, 1, 2}; false when not a list of integers.
bool parse_rank_list(std::string_view t, std::vector<int64_t>& out) {
  t = strip_quotes(t);
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') return false;
  t = t.substr(1, t.size() - 2);
  std::string s(t);
  const char* p = s.c_str();
  while (*p) {
    while (*p == ' ' || *p == ',') ++p;
    if (!*p) break;
    char* end = nullptr;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p) return false;
    out.push_back(v);
    p = end;
  }
  return true;
}

std::string size_text(int64_t bytes) {
  if (bytes < 0) return "unknown size";
  char buf[64];
  if (bytes >= (int64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  else if (bytes >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024);
  else std::snprintf(buf, sizeof buf, "%lld B", (long long)bytes);
  return buf;
}

std::string who(const RankSummary& r) {
  return r.rank >= 0 ? "rank " + std::to_string(r.rank) : r.worker;
}

// A collective whose message every rank must give the same size (sizes of gathers, scatters and
// all-to-alls may differ by design).
bool same_size_collective(std::string_view name) {
  const size_t colon = name.find(':');
  const std::string_view op = colon == std::string_view::npos ? name : name.substr(colon + 1);
  return op == "all_reduce" || op == "allreduce" || op == "broadcast" || op == "reduce";
}

// tb_plugin's node and process from a worker name ("anything_digits", greedy), spec §15.3.
void node_and_process(const std::string& worker, int& counter, std::string& node, std::string& process) {
  for (size_t i = worker.size(); i-- > 0;) {
    if (worker[i] != '_' || i + 1 >= worker.size() || !std::isdigit(static_cast<unsigned char>(worker[i + 1]))) continue;
    size_t j = i + 1;
    while (j < worker.size() && std::isdigit(static_cast<unsigned char>(worker[j]))) ++j;
    node = worker.substr(0, i);
    process = worker.substr(i + 1, j - i - 1);
    return;
  }
  node = worker;
  process = std::to_string(counter++);
}

DistributedSpan reduce_group(const Group& g, bool tb) {
  const std::vector<const RankSummary*>& ranks = g.ranks;
  const size_t n = ranks.size();
  DistributedSpan out;
  out.span = g.span;
  out.tb_plugin = tb;

  std::vector<std::string>& notes = out.notes;
  std::string unavailable;
  std::vector<std::vector<CallState>> state(n);
  for (size_t i = 0; i < n; ++i) state[i].resize(ranks[i]->calls.size());

  // Matching (§15.2) and each matched call's transfer part: the last m of each of its ranges,
  // m the shortest duration of that range over the ranks.
  auto split = [&](const std::vector<std::pair<size_t, size_t>>& members) -> bool {
    const size_t nr = ranks[members[0].first]->calls[members[0].second].ranges.size();
    for (const auto& [w_, c] : members)
      if (ranks[w_]->calls[c].ranges.size() != nr) return false;
    for (size_t j = 0; j < nr; ++j) {
      int64_t shortest = INT64_MAX;
      for (const auto& [w_, c] : members) {
        const Range& x = ranks[w_]->calls[c].ranges[j];
        shortest = std::min(shortest, x.end - x.start);
      }
      for (const auto& [w_, c] : members) {
        const Range& x = ranks[w_]->calls[c].ranges[j];
        state[w_][c].real.push_back({x.end - shortest, x.end});
      }
    }
    for (const auto& [w_, c] : members) state[w_][c].matched = true;
    return true;
  };
  size_t matched_calls = 0, total_calls = 0;
  for (const RankSummary* r : ranks) total_calls += r->calls.size();
  if (tb) {
    // tb_plugin: every worker has communication and the same number of records, each record the
    // same number of ranges, else no view at all.
    for (const RankSummary* r : ranks) {
      if (!r->tb_failure.empty()) unavailable = r->worker + ": " + r->tb_failure;
      else if (unavailable.empty() && r->nccl && r->gloo)
        unavailable = r->worker + " uses both NCCL and Gloo: tb_plugin drops its collectives";
      else if (unavailable.empty() && (!r->has_communication || r->calls.empty()))
        unavailable = r->worker + " has no communication tb_plugin recognises (nccl:/gloo: broadcast, reduce, all_reduce, "
                                  "all_gather, reduce_scatter)";
    }
    if (unavailable.empty())
      for (const RankSummary* r : ranks)
        if (r->calls.size() != ranks[0]->calls.size())
          unavailable = "the workers recorded different numbers of collectives (" + ranks[0]->worker + " " +
                        std::to_string(ranks[0]->calls.size()) + ", " + r->worker + " " + std::to_string(r->calls.size()) +
                        "): tb_plugin shows no distributed view";
    if (unavailable.empty())
      for (size_t c = 0; c < ranks[0]->calls.size() && unavailable.empty(); ++c) {
        std::vector<std::pair<size_t, size_t>> members;
        for (size_t i = 0; i < n; ++i) members.push_back({i, c});
        if (!split(members))
          unavailable = "collective " + std::to_string(c + 1) + " has different numbers of kernels on the workers: "
                        "tb_plugin shows no distributed view";
      }
    if (unavailable.empty()) matched_calls = total_calls;
    else
      for (auto& s : state)
        for (CallState& c : s) c = CallState{};
  } else {
    // Per process group, the k-th call of every member rank is the same collective. Stop at the
    // first call where they disagree (or a rank has no more): later calls stay unmatched.
    std::map<std::string, std::vector<std::vector<size_t>>> seq;  // group -> per rank, its calls
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < ranks[i]->calls.size(); ++c) {
        auto& v = seq[ranks[i]->calls[c].group];
        v.resize(n);
        v[i].push_back(c);
      }
    for (auto& [group, per_rank] : seq) {
      std::vector<size_t> members;
      std::vector<int64_t> listed;
      const bool have_ranks = std::all_of(ranks.begin(), ranks.end(), [](const RankSummary* r) { return r->rank >= 0; });
      if (have_ranks && parse_rank_list(group, listed)) {
        for (size_t i = 0; i < n; ++i)
          if (std::find(listed.begin(), listed.end(), ranks[i]->rank) != listed.end()) members.push_back(i);
      } else {
        for (size_t i = 0; i < n; ++i)
          if (!per_rank[i].empty()) members.push_back(i);
      }
      if (members.empty()) continue;
      // A long rank list is shortened in sentences: "[0, 1, 2, …, 63] (64 ranks)".
      std::string shown = group;
      if (listed.size() > 8) {
        shown = "[";
        for (size_t j = 0; j < 3; ++j) shown += std::to_string(listed[j]) + ", ";
        shown += "…, " + std::to_string(listed.back()) + "] (" + std::to_string(listed.size()) + " ranks)";
      }
      const std::string label = group.empty() ? std::string("the collectives without a process group")
                                              : "process group " + shown;
      size_t k = 0, uneven = 0;
      for (;; ++k) {
        bool all_have = true, any_has = false;
        for (size_t i : members) {
          all_have &= k < per_rank[i].size();
          any_has |= k < per_rank[i].size();
        }
        if (!any_has) break;
        if (!all_have) {
          // Ranks grouped by how many calls they have left, a few of each named.
          std::map<size_t, std::vector<size_t>> by_left;
          for (size_t i : members) by_left[per_rank[i].size() - std::min(k, per_rank[i].size())].push_back(i);
          std::string text = label + ": matched " + std::to_string(k) + " calls; then";
          bool first_group = true;
          for (auto it = by_left.rbegin(); it != by_left.rend(); ++it) {
            const std::vector<size_t>& g = it->second;
            text += first_group ? " " : "; ";
            first_group = false;
            for (size_t j = 0; j < g.size() && j < 4; ++j) text += (j ? ", " : "") + who(*ranks[g[j]]);
            if (g.size() > 4) text += " and " + std::to_string(g.size() - 4) + " more ranks";
            text += (g.size() == 1 ? " has " : " have ") + (it->first ? std::to_string(it->first) + " more" : std::string("none"));
          }
          text += " (different numbers of calls: a trace cut short, or different schedules)";
          notes.push_back(text);
          break;
        }
        const DistCall& first = ranks[members[0]]->calls[per_rank[members[0]][k]];
        std::string differ;
        for (size_t i : members) {
          const DistCall& c = ranks[i]->calls[per_rank[i][k]];
          if (c.name != first.name ||
              (same_size_collective(c.name) && c.bytes >= 0 && first.bytes >= 0 && c.bytes != first.bytes))
            differ = who(*ranks[members[0]]) + " " + first.name + " of " + size_text(first.bytes) + ", " + who(*ranks[i]) +
                     " " + c.name + " of " + size_text(c.bytes);
          if (!differ.empty()) break;
        }
        if (!differ.empty()) {
          notes.push_back(label + ": matched " + std::to_string(k) + " calls; call " + std::to_string(k + 1) +
                          " differs (" + differ + "), so it and the calls after it are not paired");
          break;
        }
        std::vector<std::pair<size_t, size_t>> tuple;
        for (size_t i : members) tuple.push_back({i, per_rank[i][k]});
        if (split(tuple)) matched_calls += tuple.size();
        else ++uneven;
      }
      if (uneven)
        notes.push_back(label + ": " + std::to_string(uneven) +
                        " matched calls launched different numbers of kernels on the ranks; their time is not split");
    }
  }
  out.available = unavailable.empty();
  out.reason = unavailable;

  // Workers and devices (tb_plugin's gpuinfo: node and process from the worker name).
  int counter = 0;
  for (const RankSummary* r : ranks) {
    DistWorker wk;
    node_and_process(r->worker, counter, wk.node, wk.process);
    wk.worker = r->worker;
    wk.rank = r->rank;
    wk.span = r->span;
    wk.world_size = r->world_size;
    wk.backend = r->backend;
    wk.devices = r->devices;
    out.workers.push_back(std::move(wk));
  }

  std::vector<std::string>& step_names = out.steps;
  for (const RankSummary* r : ranks)
    for (const DistStep& s : r->steps)
      if (std::find(step_names.begin(), step_names.end(), s.name) == step_names.end()) step_names.push_back(s.name);

  // Overlap (§7.4, §15.3): [computation only, overlapping, communication only, other].
  if (unavailable.empty()) {
    auto entry = [](double comp, double ov, double comm, double other) { return DistOverlap{comp, ov, comm, other}; };
    auto& all = out.overlap.emplace_back("all", ByWorker<DistOverlap>{}).second;
    for (size_t i = 0; i < n; ++i) {
      const RankSummary* r = ranks[i];
      double sum[4] = {0, 0, 0, 0};
      for (const DistStep& s : r->steps) {
        sum[0] += us(s.computation_ns - s.overlap_ns);
        sum[1] += us(s.overlap_ns);
        sum[2] += us(s.communication_ns - s.overlap_ns);
        sum[3] += us(s.end_ns - s.start_ns + s.overlap_ns - s.computation_ns - s.communication_ns);
      }
      const double steps = double(std::max<size_t>(1, r->steps.size()));
      double v[4];
      for (int k = 0; k < 4; ++k) v[k] = tb ? std::trunc(sum[k] / steps) : sum[k] / steps;
      all.push_back({i, entry(v[0], v[1], v[2], v[3])});
    }
    for (const std::string& name : step_names) {
      auto& per = out.overlap.emplace_back(name, ByWorker<DistOverlap>{}).second;
      for (size_t i = 0; i < n; ++i)
        for (const DistStep& s : ranks[i]->steps)
          if (s.name == name) {
            per.push_back({i, entry(us(s.computation_ns - s.overlap_ns), us(s.overlap_ns), us(s.communication_ns - s.overlap_ns),
                                    us(s.end_ns - s.start_ns + s.overlap_ns - s.computation_ns - s.communication_ns))});
            break;
          }
    }
  }

  // Wait time: per step (and outside every step: "null"), transfer and synchronizing time of the
  // matched calls; the default mode adds the time of calls it could not match.
  struct Wait {
    int64_t total = 0, real = 0, unmatched = 0;
  };
  std::vector<std::map<int, Wait>> waits(n);  // step index (-1: none) -> wait
  for (size_t i = 0; i < n && unavailable.empty(); ++i) {
    std::map<int, std::array<Ranges, 3>> parts;  // step -> matched, real, unmatched
    for (size_t c = 0; c < ranks[i]->calls.size(); ++c) {
      const DistCall& call = ranks[i]->calls[c];
      auto& p = parts[call.step];
      if (state[i][c].matched) {
        p[0].insert(p[0].end(), call.ranges.begin(), call.ranges.end());
        p[1].insert(p[1].end(), state[i][c].real.begin(), state[i][c].real.end());
      } else {
        p[2].insert(p[2].end(), call.ranges.begin(), call.ranges.end());
      }
    }
    for (auto& [step, p] : parts)
      waits[i][step] = {ranges_sum(merge_ranges(p[0])), ranges_sum(merge_ranges(p[1])), ranges_sum(merge_ranges(p[2]))};
  }
  auto step_key = [&](const RankSummary& r, int step) { return step < 0 ? std::string("null") : r.steps[size_t(step)].name; };
  if (unavailable.empty()) {
    auto entry = [](double transfer, double sync, double unmatched) { return DistWait{transfer, sync, unmatched}; };
    auto& all = out.waittime.emplace_back("all", ByWorker<DistWait>{}).second;
    for (size_t i = 0; i < n; ++i) {
      double sum[3] = {0, 0, 0};
      size_t keys = 0;
      for (const auto& [step, wt] : waits[i]) {
        // tb_plugin averages over the step keys it has (calls outside every step included); the
        // default mode averages the steps' numbers over all of the rank's steps.
        if (!tb && step < 0 && !ranks[i]->steps.empty()) continue;
        sum[0] += us(wt.real);
        sum[1] += us(wt.total - wt.real);
        sum[2] += us(wt.unmatched);
        ++keys;
      }
      const double d = tb ? double(std::max<size_t>(1, keys)) : double(std::max<size_t>(1, ranks[i]->steps.size()));
      if (tb) all.push_back({i, entry(std::trunc(sum[0] / d), std::trunc(sum[1] / d), 0)});
      else all.push_back({i, entry(sum[0] / d, sum[1] / d, sum[2] / d)});
    }
    std::vector<std::string> keys;
    for (size_t i = 0; i < n; ++i)
      for (const auto& [step, wt] : waits[i]) {
        const std::string k = step_key(*ranks[i], step);
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      }
    for (const std::string& k : keys) {
      auto& per = out.waittime.emplace_back(k, ByWorker<DistWait>{}).second;
      for (size_t i = 0; i < n; ++i)
        for (const auto& [step, wt] : waits[i])
          if (step_key(*ranks[i], step) == k) {
            per.push_back({i, entry(us(wt.real), us(wt.total - wt.real), us(wt.unmatched))});
            break;
          }
    }
  }

  // Communication operations per worker, by name in first-call order.
  if (unavailable.empty())
    for (size_t i = 0; i < n; ++i) {
      struct Op {
        std::string name;
        int64_t calls = 0, bytes = 0;
        Ranges ranges, real;
      };
      std::vector<Op> ops;
      for (size_t c = 0; c < ranks[i]->calls.size(); ++c) {
        const DistCall& call = ranks[i]->calls[c];
        auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == call.name; });
        if (it == ops.end()) {
          Op op;
          op.name = call.name;
          it = ops.insert(ops.end(), std::move(op));
        }
        ++it->calls;
        it->bytes += std::max<int64_t>(0, call.bytes);
        it->ranges.insert(it->ranges.end(), call.ranges.begin(), call.ranges.end());
        it->real.insert(it->real.end(), state[i][c].real.begin(), state[i][c].real.end());
      }
      std::vector<DistCommOp>& rows = out.workers[i].commops;
      for (const Op& o : ops) {
        const double latency = us(ranges_sum(merge_ranges(o.ranges))), transfer = us(ranges_sum(merge_ranges(o.real)));
        const double calls = double(o.calls);
        DistCommOp row;
        row.name = o.name;
        row.calls = o.calls;
        row.total_bytes = o.bytes;
        row.avg_bytes = tb ? std::nearbyint(double(o.bytes) / calls) : double(o.bytes) / calls;
        row.total_latency_us = latency;
        row.avg_latency_us = tb ? std::nearbyint(latency / calls) : latency / calls;
        row.transfer_us = transfer;
        row.avg_transfer_us = tb ? std::nearbyint(transfer / calls) : transfer / calls;
        rows.push_back(std::move(row));
      }
    }

  // Stragglers: each step's time on every worker, the slowest and its distance from the median.
  auto straggler = [&](const std::string& label, const std::vector<std::pair<size_t, double>>& times) {
    if (times.empty()) return;
    std::vector<double> sorted;
    for (const auto& t : times) sorted.push_back(t.second);
    std::sort(sorted.begin(), sorted.end());
    const size_t m = sorted.size();
    const double median = m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
    size_t slow = 0;
    for (size_t k = 1; k < times.size(); ++k)
      if (times[k].second > times[slow].second) slow = k;
    DistStraggler s;
    s.step = label;
    s.median_us = median;
    s.slowest = times[slow].first;
    s.slowest_us = times[slow].second;
    s.behind_median_us = times[slow].second - median;
    s.behind_median_pct = median > 0 ? (times[slow].second - median) / median * 100 : std::nan("");
    s.times_us = times;
    out.stragglers.push_back(std::move(s));
  };
  {
    std::vector<std::pair<size_t, double>> mean;
    for (size_t i = 0; i < n; ++i) {
      if (ranks[i]->steps.empty()) continue;
      double sum = 0;
      for (const DistStep& s : ranks[i]->steps) sum += us(s.end_ns - s.start_ns);
      mean.push_back({i, sum / double(ranks[i]->steps.size())});
    }
    straggler("all", mean);
    for (const std::string& name : step_names) {
      std::vector<std::pair<size_t, double>> times;
      for (size_t i = 0; i < n; ++i)
        for (const DistStep& s : ranks[i]->steps)
          if (s.name == name) {
            times.push_back({i, us(s.end_ns - s.start_ns)});
            break;
          }
      straggler(name, times);
    }
  }

  // Collectives by process group, name and message size, over all workers.
  struct Coll {
    std::string group, name;
    int64_t group_size = -1, bytes = -1, calls = 0;
    std::set<size_t> workers;
    int64_t total_ns = 0, transfer_ns = 0;
  };
  std::vector<Coll> colls;
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < ranks[i]->calls.size(); ++c) {
      const DistCall& call = ranks[i]->calls[c];
      auto it = std::find_if(colls.begin(), colls.end(), [&](const Coll& x) {
        return x.group == call.group && x.name == call.name && x.bytes == call.bytes;
      });
      if (it == colls.end()) {
        Coll x;
        x.group = call.group;
        x.name = call.name;
        x.group_size = call.group_size;
        x.bytes = call.bytes;
        it = colls.insert(colls.end(), std::move(x));
      }
      ++it->calls;
      it->workers.insert(i);
      it->total_ns += ranges_sum(merge_ranges(call.ranges));
      if (state[i][c].matched) it->transfer_ns += ranges_sum(merge_ranges(state[i][c].real));
    }
  std::stable_sort(colls.begin(), colls.end(), [](const Coll& a, const Coll& b) { return a.total_ns > b.total_ns; });
  for (const Coll& c : colls) {
    DistCollective row;
    row.process_group = c.group;
    row.group_size = c.group_size;
    row.name = c.name;
    row.bytes = c.bytes;
    row.calls = c.calls;
    row.workers = uint64_t(c.workers.size());
    row.total_us = us(c.total_ns);
    row.avg_us = us(c.total_ns) / double(c.calls);
    row.transfer_us = us(c.transfer_ns);
    out.collectives.push_back(std::move(row));
  }

  out.calls = uint64_t(total_calls);
  out.matched = uint64_t(matched_calls);
  return out;
}

}  // namespace

DistributedRun distributed_reduce(const std::vector<RankSummary>& ranks, bool tb) {
  DistributedRun run;
  for (const RankSummary& r : ranks)
    if (r.tb_plugin != tb) {
      run.error = r.worker + ": its summary was made " + (r.tb_plugin ? "with" : "without") + " --tb-plugin, the reduce " +
                  (tb ? "with" : "without") + " it";
      return run;
    }
  // One view per span key (tb_plugin groups the i-th span of every worker together).
  std::vector<Group> groups;
  for (const RankSummary& r : ranks) {
    const std::string span = r.span.empty() ? std::string("default") : r.span;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.span == span; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{span, {}});
    it->ranks.push_back(&r);
  }
  auto numeric = [](const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit); };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) {
    if (numeric(a.span) && numeric(b.span)) return std::stoll(a.span) < std::stoll(b.span);
    return numeric(a.span) && !numeric(b.span);
  });
  for (Group& g : groups) {
    // tb_plugin lists workers by name; the default mode by declared rank, then name.
    std::stable_sort(g.ranks.begin(), g.ranks.end(), [&](const RankSummary* a, const RankSummary* b) {
      if (!tb && a->rank != b->rank && a->rank >= 0 && b->rank >= 0) return a->rank < b->rank;
      if (!tb && (a->rank >= 0) != (b->rank >= 0)) return a->rank >= 0;
      return a->worker < b->worker;
    });
    run.spans.push_back(reduce_group(g, tb));
  }
  return run;
}

void run_names(const std::vector<std::string>& file_names, std::vector<std::string>& workers, std::vector<std::string>& spans) {
  const size_t n = file_names.size();
  workers.assign(n, {});
  spans.assign(n, {});
  std::map<std::string, std::vector<std::string>> spans_of;
  for (size_t i = 0; i < n; ++i) {
    worker_and_span(file_names[i], workers[i], spans[i]);
    if (!spans[i].empty()) spans_of[workers[i]].push_back(spans[i]);
  }
  for (auto& [w, s] : spans_of) std::sort(s.begin(), s.end());
  for (size_t i = 0; i < n; ++i) {
    if (spans[i].empty()) {
      spans[i] = "default";
      continue;
    }
    const auto& s = spans_of[workers[i]];
    spans[i] = std::to_string(std::lower_bound(s.begin(), s.end(), spans[i]) - s.begin() + 1);
  }
}

}  // namespace ks
