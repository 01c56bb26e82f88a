#include "core/analysis/gpu_idle_gaps.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

IdleGapsResult gpu_idle_gaps(const TraceModel& m, const OpTree& t, const GpuIdleOptions& options, size_t per_stream) {
  return gpu_idle_gaps(m, hta_scoped(m, options.rounding), t, options, per_stream);
}

IdleGapsResult gpu_idle_gaps(const TraceModel& m, const HtaScoped& scoped, const OpTree& t, const GpuIdleOptions& options, size_t per_stream) {
  IdleGapsResult out;
  std::vector<ScopedGpuEvent> events = scoped.events;
  sort_idle_events(events);
  const std::vector<IdleGap> gaps = idle_gaps(events, options);
  // Streams in order of their first event (gpu_idle's order); events are by stream, then start.
  std::vector<std::pair<int64_t, int64_t>> first;  // (first start, stream)
  for (size_t i = 0; i < events.size(); ++i)
    if (i == 0 || events[i].stream != events[i - 1].stream) first.emplace_back(events[i].start_ns, events[i].stream);
  std::stable_sort(first.begin(), first.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out.streams = first.size();
  std::unordered_map<int64_t, std::vector<const IdleGap*>> by_stream;
  for (const IdleGap& g : gaps) by_stream[g.stream].push_back(&g);
  std::vector<size_t> chosen;  // indexes into events of the event after each gap kept
  for (const auto& [start, stream] : first) {
    std::vector<const IdleGap*>& v = by_stream[stream];
    const size_t keep = std::min(per_stream, v.size());
    std::partial_sort(v.begin(), v.begin() + ptrdiff_t(keep), v.end(), [](const IdleGap* a, const IdleGap* b) {
      return a->gap_ns != b->gap_ns ? a->gap_ns > b->gap_ns : a->start_ns < b->start_ns;
    });
    for (size_t i = 0; i < keep; ++i) {
      const IdleGap& g = *v[i];
      const ScopedGpuEvent& e = events[g.next];
      IdleGapRow r;
      r.stream = g.stream;
      r.start_ns = g.start_ns;
      r.gap_ns = g.gap_ns;
      r.category = g.category;
      r.event = e.name;
      r.event_start_ns = e.start_ns;
      out.gaps.push_back(r);
      chosen.push_back(g.next);
    }
  }
  // The runtime (or driver) call of each kept gap's event, by correlation (the first call of an id),
  // and the operator the trees attached it to.
  std::unordered_map<int64_t, size_t> wanted;  // correlation -> launch index (OpTree numbering), SIZE_MAX: not found
  for (size_t k : chosen)
    if (events[k].correlation != kNoId) wanted.emplace(events[k].correlation, SIZE_MAX);
  if (wanted.empty()) return out;
  auto find_calls = [&](const auto& table, size_t base) {
    for (uint32_t i = 0; i < table.size(); ++i) {
      const int64_t c = m.id_value(table[i].correlation);
      if (c == kNoId) continue;
      auto it = wanted.find(c);
      if (it != wanted.end() && it->second == SIZE_MAX) it->second = base + i;
    }
  };
  find_calls(m.runtimes, 0);
  find_calls(m.drivers, m.runtimes.size());
  std::unordered_map<size_t, int32_t> node_of;  // launch index -> node
  for (const auto& [c, launch] : wanted)
    if (launch != SIZE_MAX) node_of.emplace(launch, -1);
  for (size_t n = 0; n < t.nodes.size(); ++n)
    for (int32_t l = t.nodes[n].first_launch; l >= 0; l = t.launches[size_t(l)].next) {
      auto it = node_of.find(size_t(l));
      if (it != node_of.end() && t.nodes[n].type != NodeType::kRoot) it->second = int32_t(n);
    }
  for (size_t i = 0; i < out.gaps.size(); ++i) {
    const ScopedGpuEvent& e = events[chosen[i]];
    if (e.correlation == kNoId) continue;
    const size_t launch = wanted[e.correlation];
    if (launch == SIZE_MAX) continue;
    const SliceRow& call = launch < m.runtimes.size() ? m.runtimes[launch] : m.drivers[launch - m.runtimes.size()];
    out.gaps[i].launch_ns = call.ts_ns;
    out.gaps[i].launch_name = call.name;
    auto it = node_of.find(launch);
    if (it != node_of.end()) out.gaps[i].op_node = it->second;
  }
  return out;
}

}  // namespace ks
