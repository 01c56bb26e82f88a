#include "core/analysis/critical_path.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/analysis/gpu_time.h"

namespace ks {

const char* path_bound_name(PathBound b) {
  switch (b) {
    case PathBound::kCpu: return "cpu";
    case PathBound::kLaunchOverhead: return "launch_overhead";
    case PathBound::kGpuCompute: return "gpu_compute";
    case PathBound::kGpuComm: return "gpu_comm";
    case PathBound::kKernelKernel: return "kernel_kernel";
    case PathBound::kDataLoading: return "data_loading";
    case PathBound::kNone: return "sync";
  }
  return "";
}

namespace {

enum class EdgeType : uint8_t { kSpan, kDependency, kLaunch, kKernelKernel, kSync };

// An event of the graph: a host range or a GPU event.
struct Ev {
  EventKind kind;
  uint32_t row;
  int64_t start, end;
  StringId name;
  int64_t stream = -1;  // -1: host
  StringId pid = 0, tid = 0;  // a host range's thread
  int32_t start_node = -1, end_node = -1;
  bool blocking = false, data_loading = false, comm = false;
};

struct Node {
  int64_t ts;
  int32_t ev;
  bool is_start;
};

struct Edge {
  int32_t from, to;
  int64_t weight;
  EdgeType type;
  int32_t ev;  // the event the edge's time is charged to (kSpan), else the event it leads to
};

int64_t stream_of_tid(std::string_view tid) {
  if (tid.starts_with("stream ")) tid.remove_prefix(7);
  int64_t v = -1;
  const auto [p, ec] = std::from_chars(tid.data(), tid.data() + tid.size(), v);
  return ec == std::errc() && p == tid.data() + tid.size() ? v : -1;
}

bool is_blocking_call(std::string_view n) {
  return n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventSynchronize" ||
         n == "cudaEventQuery" || n == "cudaMemcpy" || n == "cudaMemcpyAsync";
}

class Graph {
 public:
  std::vector<Ev> evs;
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  uint64_t negative = 0;

  int32_t add_nodes(size_t e) {
    evs[e].start_node = int32_t(nodes.size());
    nodes.push_back({evs[e].start, int32_t(e), true});
    evs[e].end_node = int32_t(nodes.size());
    nodes.push_back({evs[e].end, int32_t(e), false});
    return evs[e].start_node;
  }
  void edge(int32_t from, int32_t to, EdgeType type, int32_t ev, bool zero = false) {
    int64_t w = 0;
    if (!zero && type != EdgeType::kDependency && type != EdgeType::kSync) {
      w = nodes[size_t(to)].ts - nodes[size_t(from)].ts;
      if (w < 0) {
        ++negative;
        w = 0;
      }
    }
    edges.push_back({from, to, w, type, ev});
  }
};

}  // namespace

CriticalPathResult critical_path(const TraceModel& m, const StepsResult& steps, size_t step) {
  CriticalPathResult out;
  // Without ProfilerStep ranges the window is the whole trace (HTA's annotation "").
  const bool whole = !steps.from_profiler_steps;
  int64_t ws = std::numeric_limits<int64_t>::min(), we = std::numeric_limits<int64_t>::max();
  if (!whole) {
    if (step >= steps.steps.size()) return out;
    const Step& st = steps.steps[step];
    if (st.on_gpu_stream || st.host_end_ns <= st.host_start_ns) return out;
    ws = st.host_start_ns;
    we = st.host_end_ns;
    out.step_index = step;
  }
  out.whole_trace = whole;

  Graph g;
  std::unordered_map<StringId, uint8_t> blocking_name;  // 1 no, 2 yes
  auto blocking = [&](StringId id) {
    uint8_t& b = blocking_name[id];
    if (!b) b = is_blocking_call(m.strings.get(id)) ? 2 : 1;
    return b == 2;
  };
  // The host ranges that start in the window with a duration, by thread.
  struct HostRef {
    StringId pid, tid;
    size_t ev;
  };
  std::vector<HostRef> host;
  std::unordered_map<int64_t, size_t> launch_of;  // correlation -> ev of its runtime/driver call
  auto take_host = [&](const SliceRow& s, EventKind kind, uint32_t row) {
    const int64_t ts = s.ts_ns, dur = m.dur_ns(s);
    if (ts < ws || ts >= we || dur <= 0) return;
    Ev e{kind, row, ts, ts + dur, s.name};
    e.pid = s.pid;
    e.tid = s.tid;
    e.blocking = (kind == EventKind::kRuntime || kind == EventKind::kDriver) && blocking(s.name);
    host.push_back({s.pid, s.tid, g.evs.size()});
    if (kind == EventKind::kRuntime || kind == EventKind::kDriver) {
      const int64_t c = m.id_value(s.correlation);
      if (c != kNoId) launch_of.emplace(c, g.evs.size());
    }
    g.evs.push_back(e);
  };
  for (uint32_t i = 0; i < m.cpu_ops.size(); ++i) take_host(m.cpu_ops[i].s, EventKind::kCpuOp, i);
  for (uint32_t i = 0; i < m.user_annotations.size(); ++i) take_host(m.user_annotations[i].s, EventKind::kUserAnnotation, i);
  for (uint32_t i = 0; i < m.runtimes.size(); ++i) take_host(m.runtimes[i], EventKind::kRuntime, i);
  for (uint32_t i = 0; i < m.drivers.size(); ++i) take_host(m.drivers[i], EventKind::kDriver, i);
  for (const HostRef& h : host) g.add_nodes(h.ev);
  if (host.empty()) return out;
  out.has_step = true;
  if (whole) {
    ws = we = g.evs.front().start;
    for (const Ev& e : g.evs) {
      ws = std::min(ws, e.start);
      we = std::max(we, e.end);
    }
  }
  out.window_start_ns = ws;
  out.window_end_ns = we;

  // Each thread's nesting, walked depth first: by thread, then start, the longer (outer) first.
  std::stable_sort(host.begin(), host.end(), [&](const HostRef& a, const HostRef& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.tid != b.tid) return a.tid < b.tid;
    const Ev &x = g.evs[a.ev], &y = g.evs[b.ev];
    if (x.start != y.start) return x.start < y.start;
    return x.end > y.end;
  });
  for (size_t i = 0; i < host.size();) {
    size_t j = i;
    while (j < host.size() && host[j].pid == host[i].pid && host[j].tid == host[i].tid) ++j;
    std::vector<int32_t> stack;
    int32_t last = -1, last_top_end = -1;
    auto exit_top = [&] {
      const int32_t e = stack.back();
      stack.pop_back();
      Ev& x = g.evs[size_t(e)];
      // Charged to the event left (its own time after its last child) or, from its start, itself.
      g.edge(last, x.end_node, EdgeType::kSpan, e, x.blocking);
      if (stack.empty()) {
        last = -1;
        last_top_end = x.end_node;
      } else {
        last = x.end_node;
      }
    };
    for (size_t k = i; k < j; ++k) {
      const int32_t e = int32_t(host[k].ev);
      Ev& x = g.evs[size_t(e)];
      while (!stack.empty() && g.evs[size_t(stack.back())].end <= x.start) exit_top();
      // A range that outlives its parent is not nested (as the operator trees drop it).
      if (!stack.empty() && x.end > g.evs[size_t(stack.back())].end) continue;
      if (stack.empty() && last_top_end >= 0) g.edge(last_top_end, x.start_node, EdgeType::kDependency, e);
      if (last >= 0) {
        // From a start: that event's time (the parent before this child); from an end: the
        // parent's time between two children.
        const Node& u = g.nodes[size_t(last)];
        g.edge(last, x.start_node, EdgeType::kSpan, u.is_start ? u.ev : stack.back());
      }
      x.data_loading = m.strings.get(x.name).starts_with("enumerate(DataLoader)") ||
                       (!stack.empty() && g.evs[size_t(stack.back())].data_loading);
      stack.push_back(e);
      last = x.start_node;
    }
    while (!stack.empty()) exit_top();
    i = j;
  }

  // The GPU events launched from the window, and the CUDA syncs of its calls.
  struct GpuItem {
    int64_t key;  // start (a sync: its end, so it follows the work it waited for)
    size_t ev;
    int32_t launch;  // ev of the runtime call (a sync: the sync's runtime call)
    bool sync;
    int64_t sync_end;
    StringId sync_name;
    uint32_t sync_row = 0;  // its row in `others`
  };
  std::vector<GpuItem> items;
  auto take_gpu = [&](const SliceRow& s, EventKind kind, uint32_t row, int64_t stream, bool copy) {
    if (stream == -1) return;
    const int64_t c = m.id_value(s.correlation);
    auto it = c == kNoId ? launch_of.end() : launch_of.find(c);
    if (it == launch_of.end()) return;
    Ev e{kind, row, int64_t(s.ts_ns), int64_t(s.ts_ns) + std::max<int64_t>(m.dur_ns(s), 0), s.name};
    e.stream = stream;
    e.comm = classify_gpu_work(m.strings.get(s.name), copy) == GpuWorkKind::kCommunication;
    items.push_back({e.start, g.evs.size(), int32_t(it->second), false, 0, 0, 0});
    g.evs.push_back(e);
    g.add_nodes(g.evs.size() - 1);
  };
  for (uint32_t i = 0; i < m.kernels.size(); ++i) take_gpu(m.kernels[i].s, EventKind::kKernel, i, m.kernels[i].stream, false);
  for (uint32_t i = 0; i < m.memcpys.size(); ++i) take_gpu(m.memcpys[i].s, EventKind::kMemcpy, i, m.memcpys[i].stream, true);
  for (uint32_t i = 0; i < m.memsets.size(); ++i) take_gpu(m.memsets[i].s, EventKind::kMemset, i, m.memsets[i].stream, true);
  out.gpu_events = items.size();
  for (uint32_t row = 0; row < m.others.size(); ++row) {
    const InstantRow& r = m.others[row];
    if (r.dur_ns < 0 || m.strings.get(r.cat) != "cuda_sync") continue;
    const int64_t c = m.id_value(r.correlation);
    auto it = c == kNoId ? launch_of.end() : launch_of.find(c);
    if (it == launch_of.end()) continue;
    GpuItem s{r.ts_ns + r.dur_ns, SIZE_MAX, int32_t(it->second), true, r.ts_ns + r.dur_ns, r.name, row};
    s.ev = size_t(stream_of_tid(m.strings.get(r.tid)) + 1);  // the sync's stream + 1 (0: none)
    items.push_back(s);
  }
  std::stable_sort(items.begin(), items.end(), [](const GpuItem& a, const GpuItem& b) { return a.key < b.key; });

  // Event waits (HTA's rule), where the sync events say what they wait on (SyncWaitRow): the GPU
  // event a CUDA event stands for is the last one launched onto the recorded stream before the
  // cudaEventRecord call (by its call's start, on any thread); a Stream Wait Event makes the next
  // GPU event launched onto the waiting stream from the thread of its cudaStreamWaitEvent wait for
  // it (a GPU-to-GPU edge, `waits_on`), an Event Sync with one makes its call wait for it.
  std::unordered_map<size_t, int32_t> waits_on;          // ev of a GPU event -> ev of the GPU event it waits for
  std::unordered_map<uint32_t, int32_t> event_sync_on;   // others row of an Event Sync -> ev it waits for
  if (!m.sync_waits.empty()) {
    std::unordered_map<int64_t, int64_t> record_start;  // cudaEventRecord correlation -> its call's start
    for (const SyncWaitRow& w : m.sync_waits) {
      const int64_t c = m.id_value(w.record_correlation);
      if (c != kNoId) record_start.emplace(c, INT64_MIN);
    }
    for (const SliceRow& r : m.runtimes) {
      auto it = record_start.find(m.id_value(r.correlation));
      if (it != record_start.end() && m.strings.get(r.name) == "cudaEventRecord") it->second = r.ts_ns;
    }
    // Per stream, and per (thread, stream), the GPU events by their launch call's start.
    struct Launched {
      int64_t call_start;
      int32_t ev;
    };
    std::unordered_map<int64_t, std::vector<Launched>> by_stream;
    std::map<std::tuple<StringId, StringId, int64_t>, std::vector<Launched>> by_thread;
    for (const GpuItem& it : items) {
      if (it.sync) continue;
      const Ev& call = g.evs[size_t(it.launch)];
      const Launched l{call.start, int32_t(it.ev)};
      by_stream[g.evs[it.ev].stream].push_back(l);
      by_thread[{call.pid, call.tid, g.evs[it.ev].stream}].push_back(l);
    }
    auto by_call = [](const Launched& a, const Launched& b) { return a.call_start < b.call_start; };
    for (auto& [k, v] : by_stream) std::stable_sort(v.begin(), v.end(), by_call);
    for (auto& [k, v] : by_thread) std::stable_sort(v.begin(), v.end(), by_call);
    for (const GpuItem& it : items) {
      if (!it.sync) continue;
      const std::string_view name = m.strings.get(it.sync_name);
      if (name != "Stream Wait Event" && name != "Event Sync") continue;
      // The sync_waits rows are in row order: a binary search by index (the table's iterator is forward only).
      size_t lo = 0, hi = m.sync_waits.size();
      while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (m.sync_waits[mid].row < it.sync_row) lo = mid + 1;
        else hi = mid;
      }
      if (lo == m.sync_waits.size() || m.sync_waits[lo].row != it.sync_row || m.sync_waits[lo].wait_on_stream < 0) continue;
      const SyncWaitRow* w = &m.sync_waits[lo];
      auto rec = record_start.find(m.id_value(w->record_correlation));
      auto on = by_stream.find(w->wait_on_stream);
      if (rec == record_start.end() || rec->second == INT64_MIN || on == by_stream.end()) continue;
      auto src = std::upper_bound(on->second.begin(), on->second.end(), Launched{rec->second, 0}, by_call);
      if (src == on->second.begin()) continue;  // nothing launched onto it before the record (or out of the window)
      const int32_t from = (src - 1)->ev;
      if (name == "Event Sync") {
        event_sync_on[it.sync_row] = from;
        continue;
      }
      const Ev& call = g.evs[size_t(it.launch)];
      const int64_t waiting = int64_t(it.ev) - 1;  // the sync's stream: the one that waits
      auto next = by_thread.find({call.pid, call.tid, waiting});
      if (waiting < 0 || waiting == w->wait_on_stream || next == by_thread.end()) continue;
      auto dest = std::lower_bound(next->second.begin(), next->second.end(), Launched{call.start, 0}, by_call);
      if (dest == next->second.end()) continue;
      // Forward in time only: a skewed clock must not make the graph cyclic.
      if (g.evs[size_t(from)].end <= g.evs[size_t(dest->ev)].start) waits_on[size_t(dest->ev)] = from;
    }
  }

  std::unordered_map<int64_t, int32_t> last_on;  // stream -> ev of its last GPU event so far
  for (const GpuItem& it : items) {
    if (it.sync) {
      const std::string_view name = m.strings.get(it.sync_name);
      const int32_t target = g.evs[size_t(it.launch)].end_node;
      auto sync_from = [&](int32_t ev) {
        g.edge(g.evs[size_t(ev)].end_node, target, EdgeType::kSync, it.launch);
        ++out.sync_edges;
      };
      if (name == "Stream Sync") {
        auto l = last_on.find(int64_t(it.ev) - 1);
        if (l != last_on.end()) sync_from(l->second);
      } else if (name == "Context Sync") {
        for (const auto& [stream, ev] : last_on) sync_from(ev);
      } else if (auto on = event_sync_on.find(it.sync_row); on != event_sync_on.end()) {
        if (g.evs[size_t(on->second)].end <= it.sync_end) sync_from(on->second);
      } else if (name == "Event Sync") {
        int32_t best = -1;
        for (const auto& [stream, ev] : last_on) {
          const int64_t end = g.evs[size_t(ev)].end;
          if (end <= it.sync_end && (best < 0 || end > g.evs[size_t(best)].end)) best = ev;
        }
        if (best >= 0) sync_from(best);
      }
      continue;
    }
    const int32_t e = int32_t(it.ev);
    const Ev& x = g.evs[it.ev];
    const Ev& launch = g.evs[size_t(it.launch)];
    g.edge(x.start_node, x.end_node, EdgeType::kSpan, e);
    auto prev = last_on.find(x.stream);
    // An event wait: the edge from the event waited for (0), and the launch or the gap on the stream
    // only where they came after it ended (HTA's rule).
    auto wait = waits_on.find(it.ev);
    const int64_t wait_end = wait == waits_on.end() ? INT64_MIN : g.evs[size_t(wait->second)].end;
    if (wait != waits_on.end()) {
      g.edge(g.evs[size_t(wait->second)].end_node, x.start_node, EdgeType::kSync, e);
      ++out.wait_edges;
    }
    if ((prev == last_on.end() || g.evs[size_t(prev->second)].end < launch.start) && wait_end < launch.start)
      g.edge(launch.start_node, x.start_node, EdgeType::kLaunch, e);
    else if (prev != last_on.end() && wait_end < g.evs[size_t(prev->second)].end)
      g.edge(g.evs[size_t(prev->second)].end_node, x.start_node, EdgeType::kKernelKernel, e);
    last_on[x.stream] = e;
  }
  out.nodes = g.nodes.size();
  out.edges = g.edges.size();
  out.negative_edges = g.negative;

  // The longest path: nodes in a topological order (Kahn's, the earlier node first among the ready
  // ones), each reached by its heaviest way in.
  const size_t n = g.nodes.size();
  std::vector<uint32_t> indegree(n, 0), first_out(n + 1, 0);
  for (const Edge& e : g.edges) {
    ++indegree[size_t(e.to)];
    ++first_out[size_t(e.from) + 1];
  }
  for (size_t i = 0; i < n; ++i) first_out[i + 1] += first_out[i];
  std::vector<uint32_t> out_edges(g.edges.size());
  {
    std::vector<uint32_t> fill(first_out.begin(), first_out.end() - 1);
    for (uint32_t k = 0; k < g.edges.size(); ++k) out_edges[fill[size_t(g.edges[k].from)]++] = k;
  }
  std::vector<int64_t> dist(n, 0);
  std::vector<int32_t> via(n, -1);  // the edge into the node on its heaviest way
  std::vector<uint32_t> ready;
  for (uint32_t v = 0; v < n; ++v)
    if (!indegree[v]) ready.push_back(v);
  auto later = [&](uint32_t a, uint32_t b) { return g.nodes[a].ts != g.nodes[b].ts ? g.nodes[a].ts > g.nodes[b].ts : a > b; };
  std::make_heap(ready.begin(), ready.end(), later);
  int32_t best = -1;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later);
    const uint32_t u = ready.back();
    ready.pop_back();
    if (best < 0 || dist[u] > dist[size_t(best)]) best = int32_t(u);
    for (uint32_t k = first_out[u]; k < first_out[u + 1]; ++k) {
      const Edge& e = g.edges[out_edges[k]];
      const size_t v = size_t(e.to);
      if (via[v] < 0 || dist[u] + e.weight > dist[v]) {
        dist[v] = dist[u] + e.weight;
        via[v] = int32_t(out_edges[k]);
      }
      if (--indegree[v] == 0) {
        ready.push_back(uint32_t(v));
        std::push_heap(ready.begin(), ready.end(), later);
      }
    }
  }
  if (best < 0) return out;
  out.total_ns = dist[size_t(best)];
  std::vector<int32_t> chain;
  for (int32_t v = best; via[size_t(v)] >= 0; v = g.edges[size_t(via[size_t(v)])].from) chain.push_back(via[size_t(v)]);
  std::reverse(chain.begin(), chain.end());

  for (int32_t k : chain) {
    const Edge& e = g.edges[size_t(k)];
    if (e.type == EdgeType::kDependency) continue;
    const Ev& x = g.evs[size_t(e.ev)];
    PathSegment s;
    s.start_ns = g.nodes[size_t(e.from)].ts;
    s.end_ns = g.nodes[size_t(e.to)].ts;
    s.time_ns = e.weight;
    s.name = x.name;
    s.stream = x.stream;
    switch (e.type) {
      case EdgeType::kSpan:
        s.kind = x.kind;
        s.row = x.row;
        s.bound = x.stream >= 0 ? (x.comm ? PathBound::kGpuComm : PathBound::kGpuCompute)
                                : (x.data_loading ? PathBound::kDataLoading : PathBound::kCpu);
        break;
      case EdgeType::kLaunch: s.bound = PathBound::kLaunchOverhead; break;
      case EdgeType::kKernelKernel: s.bound = PathBound::kKernelKernel; break;
      case EdgeType::kSync:
        s.bound = PathBound::kNone;
        s.kind = x.kind;
        s.row = x.row;
        s.stream = g.evs[size_t(g.nodes[size_t(e.from)].ev)].stream;
        break;
      case EdgeType::kDependency: break;
    }
    if (s.bound != PathBound::kNone) out.by_bound[size_t(s.bound)] += s.time_ns;
    // Consecutive edges charged to the same event make one part (a range's time around its children).
    PathSegment* back = out.path.empty() ? nullptr : &out.path.back();
    if (back && e.type == EdgeType::kSpan && back->bound == s.bound && back->kind == s.kind && back->row == s.row &&
        back->end_ns == s.start_ns) {
      back->end_ns = s.end_ns;
      back->time_ns += s.time_ns;
      continue;
    }
    out.path.push_back(s);
  }
  return out;
}

}  // namespace ks
