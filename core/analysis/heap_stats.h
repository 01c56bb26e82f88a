// Where the memory goes (issue 12 §4): bytes held by each model table, the string pool and the
// operator trees, and the allocator's bytes in use. For the benchmarks (`kinetoscope heap-stats`
// is not a view: nothing on the page shows it); the numbers are capacities, what the heap holds.
#pragma once
#include <cstddef>
#include <string>

#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

// Bytes the allocator has handed out and not taken back (dlmalloc's mallinfo in wasm, glibc's
// natively): the live heap, without the free space a wasm heap keeps after a peak.
size_t heap_in_use();
// Bytes from the allocator's first to the end of its last chunk in use (mallinfo's arena less the
// free top chunk): what the heap must hold at this moment, holes between the chunks included. The
// wasm heap is at least this (plus its growth step); in_use tells how much of it is holes.
size_t heap_top();
// Free chunks below the top (mallinfo's ordblks): how many pieces the holes come in.
size_t heap_free_chunks();

size_t op_tree_bytes(const OpTree& t);

// {"in_use": bytes, "top": bytes (heap_top), "free_chunks": n, "events": n, "tables": {"cpu_ops": bytes, ...}, "strings": {"text": bytes,
// "index": bytes, "count": n}, "model": total, "trees": [bytes of each tree given], "tree_parts":
// [{"node_count", "nodes", "launches", "launched", "roots", "tc", "wide"} of each tree given, or null]}.
std::string heap_stats_json(const TraceModel& m, const OpTree* const* trees, size_t tree_count);

}  // namespace ks
