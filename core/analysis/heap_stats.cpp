#include "core/analysis/heap_stats.h"

#include <malloc.h>

#include "core/util/json_writer.h"

namespace ks {

size_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return mallinfo2().uordblks;
#else
  return size_t(unsigned(mallinfo().uordblks));  // an int: past 2 GB it reads negative
#endif
}

size_t heap_top() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const auto i = mallinfo2();
  return i.arena - i.keepcost;
#else
  const auto i = mallinfo();
  return size_t(unsigned(i.arena)) - size_t(unsigned(i.keepcost));
#endif
}

size_t heap_free_chunks() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return mallinfo2().ordblks;
#else
  return size_t(unsigned(mallinfo().ordblks));
#endif
}

template <class T>
static size_t cap_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

size_t op_tree_bytes(const OpTree& t) {
  return t.nodes.bytes() + cap_bytes(t.roots) + cap_bytes(t.root_spans) + cap_bytes(t.launches) +
         cap_bytes(t.launched) + cap_bytes(t.unlaunched) + cap_bytes(t.tc) + cap_bytes(t.wide);
}

std::string heap_stats_json(const TraceModel& m, const OpTree* const* trees, size_t tree_count) {
  JsonWriter w;
  w.begin_object();
  w.key("in_use").value(uint64_t(heap_in_use()));
  w.key("top").value(uint64_t(heap_top()));
  w.key("free_chunks").value(uint64_t(heap_free_chunks()));
  w.key("events").value(m.event_count);
  w.key("tables").begin_object();
  const std::pair<const char*, size_t> tables[] = {
      {"cpu_ops", m.cpu_ops.bytes()},       {"user_annotations", m.user_annotations.bytes()},
      {"python_functions", m.python_functions.bytes()}, {"gpu_annotations", m.gpu_annotations.bytes()},
      {"runtimes", m.runtimes.bytes()},     {"drivers", m.drivers.bytes()},
      {"kernels", m.kernels.bytes()},       {"memcpys", m.memcpys.bytes()},
      {"memsets", m.memsets.bytes()},       {"memory", m.memory.bytes()},
      {"counters", m.counters.bytes()},     {"flows", m.flows.bytes()},
      {"metadata", m.metadata.bytes()},     {"others", m.others.bytes()},
      {"collectives", m.collectives.bytes()}, {"op_sequences", m.op_sequences.bytes()},
      {"op_stacks", m.cpu_op_stacks.bytes() + m.user_annotation_stacks.bytes() + m.gpu_annotation_stacks.bytes()},
      {"op_modules", m.cpu_op_modules.bytes() + m.user_annotation_modules.bytes() + m.gpu_annotation_modules.bytes()}};
  for (const auto& [name, bytes] : tables) w.key(name).value(uint64_t(bytes));
  w.end_object();
  w.key("strings").begin_object();
  w.key("text").value(uint64_t(m.strings.bytes()));
  w.key("index").value(uint64_t(m.strings.index_bytes()));
  w.key("count").value(uint64_t(m.strings.size()));
  w.end_object();
  w.key("counts").value(uint64_t(cap_bytes(m.category_counts) + cap_bytes(m.phase_counts)));
  w.key("model").value(uint64_t(m.table_bytes() + m.strings.index_bytes()));
  w.key("trees").begin_array();
  for (size_t i = 0; i < tree_count; ++i) {
    if (trees[i]) w.value(uint64_t(op_tree_bytes(*trees[i])));
    else w.null();
  }
  w.end_array();
  // Each tree's structures, for the benchmark's per-structure table (null: not built).
  w.key("tree_parts").begin_array();
  for (size_t i = 0; i < tree_count; ++i) {
    const OpTree* t = trees[i];
    if (!t) {
      w.null();
      continue;
    }
    w.begin_object();
    w.key("node_count").value(uint64_t(t->nodes.size()));
    w.key("nodes").value(uint64_t(t->nodes.bytes()));
    w.key("launches").value(uint64_t(cap_bytes(t->launches)));
    w.key("launched").value(uint64_t(cap_bytes(t->launched) + cap_bytes(t->unlaunched)));
    w.key("roots").value(uint64_t(cap_bytes(t->roots) + cap_bytes(t->root_spans)));
    w.key("tc").value(uint64_t(cap_bytes(t->tc)));
    w.key("wide").value(uint64_t(cap_bytes(t->wide)));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ks
