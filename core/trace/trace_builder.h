// TraceBuilder: files decoded events into the TraceModel's tables. Stateful helpers live here:
// the kind of each category (cached per interned id), B/E stacks per thread, the span.
#pragma once
#include <array>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trace/event_decoder.h"
#include "core/trace/trace_model.h"

namespace ks {

class TraceBuilder : public EventSink {
 public:
  explicit TraceBuilder(TraceModel& model) : m_(model) {}
  void on_event(const RawEvent& e, uint64_t offset) override;
  // Closes what is still open (unclosed B events), computes the span. Call once.
  void finish();
  // A later range of the file (trace_reader.h, start_at): an E with no B open on its thread in
  // this range may close a B of an earlier range, so it is kept (pending_ends_) for the merge
  // instead of being counted as unmatched.
  void set_partial(bool on) { partial_ = on; }

  struct OpenBegin {
    EventKind kind;
    CpuOpRow row;
    StringId call_stack = 0;  // the row's own is kept apart (TraceModel::call_stack)
    uint64_t offset;
  };
  // An E kept by a partial builder: its thread, time and offset, and the size of every slice
  // table when it came (its row goes there, between the later range's rows, once matched).
  struct PendingEnd {
    StringId pid = 0, tid = 0;
    int64_t ts_ns = 0;
    uint64_t offset = 0;
    std::array<uint64_t, static_cast<size_t>(EventKind::kCount)> table_rows{};
  };

 private:
  friend class PartialWriter;
  friend class PartialMerger;
  EventKind kind_of(StringId cat);
  void add_slice(EventKind kind, const RawEvent& e, StringId cat, int64_t ts, int64_t dur);
  void add_sync_wait(const RawArgs& a, size_t row);
  void add_collective(EventKind kind, size_t row, const RawArgs& a);
  void add_instant(const RawEvent& e, StringId cat, int64_t ts, char phase);
  void note_span(int64_t ts, int64_t end);
  // The row of a B closed by its E, filed as an X event would be.
  void add_begin_end(const OpenBegin& ob, int64_t dur);
  size_t slice_table_rows(EventKind kind) const;

  // Interning hashes the text and probes the pool's table, while events repeat a few cats,
  // phases, threads and names over and over: each field keeps the ids it met last in a few
  // ways, one chosen by the text's length and three of its bytes, each pointing at the pool's
  // own copy of the text (stable: the pool never moves a text). A text equal to its way's is
  // that id (a compare of a few bytes instead of a hash and a probe). Ids are the pool's, in the
  // same first-seen order, so the model does not change.
  template <size_t kWays>
  struct RecentIds {
    static_assert((kWays & (kWays - 1)) == 0, "a power of two");
    struct Way {
      const char* text = nullptr;
      uint32_t size = 0;
      StringId id = 0;
    };
    Way ways[kWays];
  };
  template <size_t kWays>
  StringId intern_cached(RecentIds<kWays>& recent, std::string_view s);
  RecentIds<8> recent_cat_, recent_ph_, recent_pid_, recent_flow_name_;
  RecentIds<16> recent_tid_;
  RecentIds<64> recent_name_;
  // A phase is one character but for malformed traces: its id by that character (0: not met yet).
  std::array<StringId, 256> phase_ids_{};
  StringId phase_id(std::string_view ph);
  // The index of a flow's (cat, name) or (pid, tid) pair in TraceModel::flow_pairs, the last
  // pair of each kind remembered (flows come in runs of one name and thread: a hash lookup
  // each, for a third of a modern trace's events, was most of what a flow cost).
  struct LastPair {
    uint64_t key = UINT64_MAX;
    uint32_t index = 0;
  };
  uint32_t flow_pair(StringId a, StringId b);
  uint32_t flow_pair(LastPair& last, StringId a, StringId b);
  LastPair last_names_pair_, last_thread_pair_;
  std::unordered_map<uint64_t, uint32_t> flow_pair_index_;

  TraceModel& m_;
  std::vector<int8_t> kind_by_cat_;  // -1: not yet classified
  std::map<std::pair<StringId, StringId>, std::vector<OpenBegin>> open_;
  int64_t min_ts_ = INT64_MAX, max_end_ = INT64_MIN;
  int64_t min_any_ = INT64_MAX, max_any_ = INT64_MIN;  // instants, counters: used when no slices
  int64_t record_window_end_ = INT64_MIN;
  uint64_t record_window_end_offset_ = 0;
  bool partial_ = false;
  std::vector<PendingEnd> pending_ends_;
};

}  // namespace ks
