// Sorting the Overview's big arrays where they come in long sorted runs (a thread's runtime
// calls by time or by correlation id, a stream's kernels): sort_runs(first, last, less) leaves
// [first, last) exactly as std::sort(first, last, less) would for a strict total order `less`
// (a total order has one sorted sequence), but when the input is a few long runs it merges
// neighbouring runs (std::inplace_merge, whose buffer is at most the shorter run) instead of
// sorting: O(n log runs) sequential work instead of O(n log n) comparisons with the sort's
// scattered moves. Inputs of many short runs go to std::sort.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace ks {

template <class T, class Less>
void sort_runs(T* first, T* last, Less less) {
  const size_t n = size_t(last - first);
  if (n < 2) return;
  // Where each run starts (a run: no element less than the one before it).
  std::vector<size_t> starts{0};
  for (size_t i = 1; i < n; ++i) {
    if (less(first[i], first[i - 1])) {
      starts.push_back(i);
      if (starts.size() > 64 && starts.size() * 64 > n) {  // many short runs: no gain in merging
        std::sort(first, last, less);
        return;
      }
    }
  }
  // Neighbouring runs merged pairwise, round after round, until one is left.
  while (starts.size() > 1) {
    std::vector<size_t> next;
    next.reserve(starts.size() / 2 + 1);
    for (size_t k = 0; k < starts.size(); k += 2) {
      next.push_back(starts[k]);
      if (k + 1 < starts.size()) {
        const size_t end = k + 2 < starts.size() ? starts[k + 2] : n;
        std::inplace_merge(first + starts[k], first + starts[k + 1], first + end, less);
      }
    }
    starts.swap(next);
  }
}

}  // namespace ks
