#include "core/trace/model_merge.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "core/trace/row_fields.h"

namespace ks {

namespace {

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The pieces' sections, in the order they are written and applied: strings and the wide
// durations before anything that holds ids or durations, the flows' (cat, name) / (pid, tid) pairs before the flow rows, the pending E events before the later range's open B events (which go on top
// of the stacks they leave), the collectives and the ops' sequence numbers after the tables they point into.
enum Section : int {
  kHeader = 0,
  kStrings,
  kWideDurs,
  kFlowPairs,
  kCategoryCounts,
  kPhaseCounts,
  kMembers,
  kPendingEnds,
  kOpenBegins,
  kTable0,  // + table id (row_fields.h), the collectives last
  kWideArgs = kTable0 + int(kTableCount),
  kEnd,
};

constexpr uint64_t kMagic = 0x4b53504152544c32ull;  // "KSPARTL2"
constexpr uint32_t kHealthReasons = uint32_t(HealthReason::kCount);
constexpr uint32_t kKinds = uint32_t(EventKind::kCount);

// Rows cross as their bytes: both sides are the same build. The layout word makes a piece of
// another build refuse to merge instead of misreading rows.
uint32_t layout_word() {
  uint32_t h = 2166136261u;
  for (size_t s : {sizeof(SliceRow), sizeof(CpuOpRow), sizeof(PythonFunctionRow), sizeof(CollectiveRow), sizeof(SyncWaitRow),
                   sizeof(KernelRow), sizeof(MemcpyRow), sizeof(OpSequenceRow), sizeof(MemoryRow), sizeof(CounterRow),
                   sizeof(FlowRow), sizeof(MetadataRow), sizeof(InstantRow),
                   sizeof(TraceBuilder::OpenBegin), sizeof(TraceBuilder::PendingEnd), size_t(kKinds),
                   size_t(kHealthReasons)})
    h = (h ^ uint32_t(s)) * 16777619u;
  return h;
}

struct Header {
  uint64_t magic;
  uint32_t layout;
  uint8_t root_is_array, tail_stopped, tail_incomplete, old_naming;
  uint64_t range_start, tail_cut, bytes_read, event_count;
  uint64_t kind_counts[kKinds];
  int64_t min_ts, max_end, min_any, max_any, record_window_end;
  uint64_t record_window_end_offset;
  HealthEntry health[kHealthReasons];
};
static_assert(std::is_trivially_copyable_v<Header>);

template <class T> void put(std::string& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
void put_text(std::string& out, std::string_view s) {
  put(out, uint64_t(s.size()));
  out.append(s);
}

template <class T> bool get(const char*& p, const char* end, T& v) {
  if (size_t(end - p) < sizeof(T)) return false;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return true;
}
bool get_text(const char*& p, const char* end, std::string_view& s) {
  uint64_t n = 0;
  if (!get(p, end, n) || uint64_t(end - p) < n) return false;
  s = {p, size_t(n)};
  p += n;
  return true;
}

// Calls f(table) for the table with id `t`.
template <class Model, class F> void with_table(Model& m, size_t t, F&& f) {
  for_each_table(m, [&](size_t id, auto& table) {
    if (id == t) f(table);
  });
}

// The ops' call stacks and module hierarchies in row order again (TraceModel::op_arg searches
// them): a B/E pair whose B came in an earlier range and its E in this one is filed among this
// range's rows (flush_inserts) before this range's own entries are appended, so its call stack can
// come before entries of lower rows.
template <class Table> void sort_by_row(Table& t) {
  bool sorted = true;
  for (size_t i = 1; i < t.size() && sorted; ++i) sorted = t[i - 1].row < t[i].row;
  if (sorted) return;
  std::vector<std::remove_reference_t<decltype(t[0])>> rows(t.begin(), t.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.row < b.row; });
  for (size_t i = 0; i < rows.size(); ++i) t[i] = rows[i];
}
void sort_op_args(TraceModel& m) {
  sort_by_row(m.cpu_op_stacks);
  sort_by_row(m.cpu_op_modules);
  sort_by_row(m.user_annotation_stacks);
  sort_by_row(m.user_annotation_modules);
  sort_by_row(m.gpu_annotation_stacks);
  sort_by_row(m.gpu_annotation_modules);
  sort_by_row(m.cpu_op_concrete);
}

// Maps a later range's ids to the merged model's.
template <class M> struct Remap {
  const M& merger;
  template <class T> void num(T&) {}
  void str(StringId& id) { id = merger.id(id); }
  void flow(FlowId& f) {
    if (f & kFlowIdText) f = merger.id(f & ~kFlowIdText) | kFlowIdText;
  }
  void id(PackedId& p) {
    if (p != kPackedAbsent && (uint32_t(p) & kPackedText)) p = PackedId(merger.id(uint32_t(p) & ~kPackedText) | kPackedText);
  }
  void pair(uint32_t& p) { p = merger.pair(p); }
  void row(EventKind kind, uint32_t& r) { r = merger.map_row(slice_table_of(kind), r); }
  void dur(PackedDur& d) {
    if (uint32_t(d) & kWideDur) d = PackedDur(kWideDur | uint32_t(merger.wide_dur_base() + (uint32_t(d) & ~kWideDur)));
  }
};

}  // namespace

size_t propose_split(const char* buf, size_t n, size_t from) {
  for (size_t i = from; i < n; ++i) {
    if (buf[i] != '{') continue;
    size_t j = i;
    while (j > 0 && is_space(buf[j - 1])) --j;
    if (j == 0 || buf[j - 1] != ',') continue;
    --j;
    while (j > 0 && is_space(buf[j - 1])) --j;
    if (j > 0 && buf[j - 1] == '}') return i;
  }
  return SIZE_MAX;
}

int root_is_array(const char* buf, size_t n) {
  size_t i = 0;
  if (n >= 3 && static_cast<unsigned char>(buf[0]) == 0xEF && static_cast<unsigned char>(buf[1]) == 0xBB &&
      static_cast<unsigned char>(buf[2]) == 0xBF)
    i = 3;
  while (i < n && is_space(buf[i])) ++i;
  if (i < n && buf[i] == '[') return 1;
  if (i < n && buf[i] == '{') return 0;
  return -1;
}

std::vector<uint64_t> nominal_splits(uint64_t size, int ranges) {
  std::vector<uint64_t> out;
  for (int i = 1; i < ranges; ++i) out.push_back(size / uint64_t(ranges) * uint64_t(i));
  return out;
}

std::vector<uint64_t> choose_splits(const std::vector<uint64_t>& nominal, const std::vector<int64_t>& found, uint64_t size) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < nominal.size() && i < found.size(); ++i) {
    if (found[i] < 0) continue;
    const uint64_t at = nominal[i] + uint64_t(found[i]);
    if (at > 0 && at < size && (out.empty() || at > out.back())) out.push_back(at);
  }
  return out;
}

std::vector<uint64_t> propose_splits(uint64_t size, int ranges,
                                     const std::function<size_t(uint64_t, char*, size_t)>& read_at) {
  const std::vector<uint64_t> nominal = nominal_splits(size, ranges);
  std::vector<int64_t> found;
  std::string window(size_t(1) << 20, '\0');
  for (uint64_t n : nominal) {
    const size_t got = read_at(n, window.data(), window.size());
    const size_t at = propose_split(window.data(), got);
    found.push_back(at == SIZE_MAX ? -1 : int64_t(at));
  }
  return choose_splits(nominal, found, size);
}

// ---- the merge order ----------------------------------------------------------------------

RangeMerge::RangeMerge(std::vector<uint64_t> splits) : splits_(std::move(splits)) {}

MergeAction RangeMerge::at(bool stopped, uint64_t covered_end) {
  if (action_ == MergeAction::kReadAgain) return action_;
  pieces_ = 0;
  range_ = -1;
  if (!stopped) return action_ = MergeAction::kFinished;
  // Each merge and each read on moves the stop to a later split; one that does not would be
  // asked for the same range, or read on from the same offset, for ever.
  if (stopped_once_ && covered_end <= stop_)
    return break_off("the first range stopped again at " + std::to_string(covered_end) + ", not past " +
                     std::to_string(stop_));
  stopped_once_ = true;
  stop_ = covered_end;
  const auto it = std::find(splits_.begin(), splits_.end(), covered_end);
  if (it == splits_.end()) return give_up("no worker read the range after it");
  range_ = int(it - splits_.begin());
  return action_ = MergeAction::kAskPiece;
}

MergeAction RangeMerge::piece(PieceState state, bool stopped, uint64_t covered_end) {
  if (action_ != MergeAction::kAskPiece) return action_;
  switch (state) {
    case PieceState::kMerging: ++pieces_; return action_;
    case PieceState::kDone: ++merged_; return at(stopped, covered_end);
    // Refused by the header check, before anything changed: the first reader reads it itself.
    case PieceState::kRefused: return give_up("its range was refused");
    case PieceState::kBroken: break;
  }
  return break_off("a piece of it could not be merged");
}

// The pieces did not make a whole range, or stopped coming: harmless before the first one was
// merged (nothing changed), a half-merged model after.
MergeAction RangeMerge::ended() {
  if (action_ != MergeAction::kAskPiece) return action_;
  return pieces_ ? break_off("its pieces ended early") : give_up("its pieces ended early");
}

MergeAction RangeMerge::lost(std::string_view why) {
  if (action_ != MergeAction::kAskPiece) return action_;
  std::string reason = "its helper was lost (" + std::string(why) + ")";
  return pieces_ ? break_off(std::move(reason)) : give_up(std::move(reason));
}

MergeAction RangeMerge::no_source() {
  if (action_ != MergeAction::kAskPiece) return action_;
  std::string reason = "no worker read the range after it";
  return pieces_ ? break_off(std::move(reason)) : give_up(std::move(reason));
}

MergeAction RangeMerge::give_up(std::string reason) {
  reason_ = std::move(reason);
  ++read_on_;
  return action_ = MergeAction::kReadOn;
}

MergeAction RangeMerge::break_off(std::string reason) {
  reason_ = std::move(reason);
  return action_ = MergeAction::kReadAgain;
}

int merge_ranges(TraceReader& first, const std::vector<TraceReader*>& later,
                  const std::function<void(uint64_t)>& read_from, size_t piece_bytes) {
  std::vector<uint64_t> splits;
  for (const TraceReader* r : later) splits.push_back(r->range_start());
  RangeMerge order(std::move(splits));
  std::string piece;
  // The writer of the range being merged and the merger into `first`, made at its first piece.
  std::optional<PartialWriter> writer;
  std::optional<PartialMerger> merger;
  MergeAction next = order.at(first.stopped(), first.covered_end());
  for (;;) {
    if (next == MergeAction::kReadOn) {
      first.read_on();
      read_from(order.from());
      next = order.at(first.stopped(), first.covered_end());
      continue;
    }
    if (next != MergeAction::kAskPiece) break;
    const TraceReader* source = later[size_t(order.range())];
    if (!source->finished() || source->failed()) {
      next = order.no_source();
      continue;
    }
    if (order.pieces() == 0) {
      writer.emplace(*source);
      merger.emplace(first);
    }
    if (!writer->next(piece, piece_bytes)) {
      next = order.ended();
      continue;
    }
    const bool ok = merger->add(piece.data(), piece.size());
    const PieceState state = merger->done()      ? PieceState::kDone
                             : merger->refused() ? PieceState::kRefused
                             : ok                ? PieceState::kMerging
                                                 : PieceState::kBroken;
    next = order.piece(state, first.stopped(), first.covered_end());
  }
  if (next == MergeAction::kReadAgain) return -1;
  first.finish();
  return order.merged();
}

// ---- writer ------------------------------------------------------------------------------

PartialWriter::PartialWriter(const TraceReader& partial) : r_(partial) {
  for (const auto& [thread, stack] : r_.builder_.open_)
    for (const TraceBuilder::OpenBegin& ob : stack) open_.push_back(&ob);
  for (const auto& kv : r_.model().wide_args) wide_.push_back(kv);
  std::sort(wide_.begin(), wide_.end());
}

bool PartialWriter::next(std::string& out, size_t max_bytes) {
  out.clear();
  const TraceModel& m = r_.model();
  const TraceBuilder& b = r_.builder_;
  while (section_ <= kEnd) {
    if (section_ == kHeader || section_ == kEnd) {
      out.push_back(char(section_));
      put(out, uint32_t(section_ == kHeader));
      if (section_ == kHeader) {
        Header h{};
        h.magic = kMagic;
        h.layout = layout_word();
        h.root_is_array = r_.root_is_array_;
        h.tail_stopped = r_.tail_.stopped;
        h.tail_incomplete = r_.tail_.incomplete;
        h.old_naming = m.old_naming;
        h.range_start = r_.range_start_;
        h.tail_cut = r_.tail_.cut;
        h.bytes_read = m.bytes_read;
        h.event_count = m.event_count;
        for (uint32_t k = 0; k < kKinds; ++k) h.kind_counts[k] = m.kind_counts[k];
        h.min_ts = b.min_ts_;
        h.max_end = b.max_end_;
        h.min_any = b.min_any_;
        h.max_any = b.max_any_;
        h.record_window_end = b.record_window_end_;
        h.record_window_end_offset = b.record_window_end_offset_;
        for (uint32_t k = 0; k < kHealthReasons; ++k) h.health[k] = m.health.get(HealthReason(k));
        put(out, h);
      }
      ++section_;
      item_ = 0;
      if (section_ > kEnd) return true;
      continue;
    }
    // How many items the section has, the bytes of item i, and writing it.
    size_t count = 0;
    auto size_of = [&](size_t i) -> size_t {
      switch (section_) {
        case kStrings: return 8 + m.strings.get(StringId(i)).size();
        case kWideDurs: return 8;
        case kFlowPairs: return 8;
        case kMembers: {
          const auto& d = r_.deferred_members_[i];
          return 24 + d.key.size() + d.value.size();
        }
        case kWideArgs: return 16;
        case kPendingEnds: return sizeof(TraceBuilder::PendingEnd);
        case kOpenBegins: return sizeof(TraceBuilder::OpenBegin);
        case kCategoryCounts:
        case kPhaseCounts: return 8;
        default: {
          size_t row = 0;
          with_table(m, size_t(section_ - kTable0), [&](const auto& t) { row = sizeof(t[0]); });
          return row;
        }
      }
    };
    auto write = [&](size_t i) {
      switch (section_) {
        case kStrings: put_text(out, m.strings.get(StringId(i))); break;
        case kWideDurs: put(out, m.wide_durs[i]); break;
        case kFlowPairs: put(out, m.flow_pairs[i].first); put(out, m.flow_pairs[i].second); break;
        case kCategoryCounts: put(out, m.category_counts[i]); break;
        case kPhaseCounts: put(out, m.phase_counts[i]); break;
        case kMembers: {
          const auto& d = r_.deferred_members_[i];
          put_text(out, d.key);
          put_text(out, d.value);
          put(out, d.offset);
          break;
        }
        case kPendingEnds: put(out, b.pending_ends_[i]); break;
        case kOpenBegins: put(out, *open_[i]); break;
        case kWideArgs: put(out, wide_[i].first); put(out, wide_[i].second); break;
        default: with_table(m, size_t(section_ - kTable0), [&](const auto& t) { put(out, t[i]); });
      }
    };
    switch (section_) {
      case kStrings: count = m.strings.size(); break;
      case kWideDurs: count = m.wide_durs.size(); break;
      case kFlowPairs: count = m.flow_pairs.size(); break;
      case kCategoryCounts: count = m.category_counts.size(); break;
      case kPhaseCounts: count = m.phase_counts.size(); break;
      case kMembers: count = r_.deferred_members_.size(); break;
      case kPendingEnds: count = b.pending_ends_.size(); break;
      case kOpenBegins: count = open_.size(); break;
      case kWideArgs: count = wide_.size(); break;
      default: with_table(m, size_t(section_ - kTable0), [&](const auto& t) { count = t.size(); });
    }
    if (item_ >= count) {
      ++section_;
      item_ = 0;
      continue;
    }
    // A record of as many items as fit; a single item larger than a piece gets one of its own.
    if (!out.empty() && out.size() + 5 + size_of(item_) > max_bytes) return true;
    const size_t at = out.size();
    out.push_back(char(section_));
    put(out, uint32_t(0));
    uint32_t k = 0;
    while (item_ < count && k < UINT32_MAX) {
      if (k > 0 && out.size() + size_of(item_) > max_bytes) break;
      write(item_);
      ++item_;
      ++k;
    }
    std::memcpy(&out[at + 1], &k, 4);
    if (item_ < count) return true;  // the piece is full
  }
  return !out.empty();
}

// ---- merger ------------------------------------------------------------------------------

PartialMerger::PartialMerger(TraceReader& earlier) : r_(earlier) {}

uint32_t PartialMerger::map_row(size_t table, uint32_t later_row) const {
  const auto& ins = inserts_[table];
  const size_t before = size_t(std::upper_bound(ins.begin(), ins.end(), uint64_t(later_row),
                                                [](uint64_t v, const PendingRow& p) { return v < p.pos; }) -
                               ins.begin());
  return uint32_t(base_rows_[table] + later_row + before);
}

void PartialMerger::flush_inserts(size_t table, uint64_t upto) {
  auto& ins = inserts_[table];
  size_t& next = next_insert_[table];
  while (next < ins.size() && ins[next].pos <= upto) {
    r_.builder_.add_begin_end(resolved_[ins[next].open_index], ins[next].dur);
    ++next;
  }
}

bool PartialMerger::header(const char*& p, const char* end) {
  Header h;
  if (!get(p, end, h)) return false;
  TraceModel& m = r_.model();
  const bool earlier_array = r_.feed_.scanner().root() == ChunkScanner::RootKind::kArray;
  if (h.magic != kMagic || h.layout != layout_word() || !r_.stopped_ || r_.finished_ ||
      h.range_start != r_.covered_end_ || bool(h.root_is_array) != earlier_array) {
    refused_ = true;
    return false;
  }
  tail_stopped_ = h.tail_stopped;
  tail_incomplete_ = h.tail_incomplete;
  tail_cut_ = h.tail_cut;
  m.bytes_read += h.bytes_read;
  m.event_count += h.event_count;
  for (uint32_t k = 0; k < kKinds; ++k) m.kind_counts[k] += h.kind_counts[k];
  m.old_naming = m.old_naming || h.old_naming;
  TraceBuilder& b = r_.builder_;
  b.min_ts_ = std::min(b.min_ts_, h.min_ts);
  b.max_end_ = std::max(b.max_end_, h.max_end);
  b.min_any_ = std::min(b.min_any_, h.min_any);
  b.max_any_ = std::max(b.max_any_, h.max_any);
  if (h.record_window_end != INT64_MIN) {
    b.record_window_end_ = h.record_window_end;
    b.record_window_end_offset_ = h.record_window_end_offset;
  }
  for (uint32_t k = 0; k < kHealthReasons; ++k)
    m.health.add_earliest(HealthReason(k), h.health[k].sample_offset, h.health[k].count);
  inserts_.assign(kTableCount, {});
  next_insert_.assign(kTableCount, 0);
  later_rows_.assign(kTableCount, 0);
  base_rows_.assign(kTableCount, 0);
  for_each_table(m, [&](size_t id, const auto& t) { base_rows_[id] = t.size(); });
  wide_dur_base_ = m.wide_durs.size();
  return true;
}

bool PartialMerger::apply(int section, const char*& p, const char* end, uint32_t count) {
  TraceModel& m = r_.model();
  TraceBuilder& b = r_.builder_;
  for (uint32_t i = 0; i < count; ++i) {
    switch (section) {
      case kStrings: {
        std::string_view s;
        if (!get_text(p, end, s)) return false;
        remap_.push_back(m.strings.intern(s));
        break;
      }
      case kWideDurs: {
        int64_t d = 0;
        if (!get(p, end, d)) return false;
        m.wide_durs.push_back(d);
        break;
      }
      case kFlowPairs: {
        StringId a = 0, c = 0;
        if (!get(p, end, a) || !get(p, end, c)) return false;
        // Through the builder's own index: a pair new to the earlier range is appended (later
        // pairs in their first-seen order, as one read would), and a read_on() after this merge
        // finds it.
        pair_remap_.push_back(b.flow_pair(id(a), id(c)));
        break;
      }
      case kCategoryCounts:
      case kPhaseCounts: {
        uint64_t n = 0;
        if (!get(p, end, n)) return false;
        auto& counts = section == kCategoryCounts ? m.category_counts : m.phase_counts;
        // Item i of this section is the count of the later id (items so far + i).
        const size_t later = section == kCategoryCounts ? category_items_++ : phase_items_++;
        if (n == 0) break;
        const StringId to = id(StringId(later));
        if (counts.size() <= to) counts.resize(size_t(to) + 1, 0);
        counts[to] += n;
        break;
      }
      case kMembers: {
        std::string_view key, value;
        uint64_t offset = 0;
        if (!get_text(p, end, key) || !get_text(p, end, value) || !get(p, end, offset)) return false;
        r_.read_member(key, value, offset);
        break;
      }
      case kPendingEnds: {
        TraceBuilder::PendingEnd pe;
        if (!get(p, end, pe)) return false;
        // The stack of its thread as the earlier ranges left it: its E closes the top B.
        auto it = b.open_.find({id(pe.pid), id(pe.tid)});
        if (it == b.open_.end() || it->second.empty()) {
          m.health.add_earliest(HealthReason::kUnmatchedEnd, pe.offset);
          break;
        }
        const TraceBuilder::OpenBegin ob = it->second.back();
        it->second.pop_back();
        int64_t dur = pe.ts_ns - ob.row.s.ts_ns;
        if (dur < 0) {
          m.health.add_earliest(HealthReason::kNegativeDuration, pe.offset);
          dur = 0;
        }
        inserts_[slice_table_of(ob.kind)].push_back({pe.table_rows[size_t(ob.kind)], resolved_.size(), dur});
        resolved_.push_back(ob);
        break;
      }
      case kOpenBegins: {
        TraceBuilder::OpenBegin ob;
        if (!get(p, end, ob)) return false;
        Remap<PartialMerger> remap{*this};
        visit_fields(ob.row, remap);
        remap.str(ob.call_stack);
        b.open_[{ob.row.s.pid, ob.row.s.tid}].push_back(ob);
        break;
      }
      case kWideArgs: {
        uint64_t key = 0;
        int64_t value = 0;
        if (!get(p, end, key) || !get(p, end, value)) return false;
        const auto table = EventKind(key >> 40);
        const auto field = WideField((key >> 32) & 0xff);
        const uint32_t row = map_row(slice_table_of(table), uint32_t(key & 0xffffffffu));
        m.wide_args[TraceModel::wide_key(table, field, row)] = value;
        break;
      }
      default: {
        if (section < kTable0 || section >= kWideArgs) return false;
        const size_t t = size_t(section - kTable0);
        bool ok = true;
        with_table(m, t, [&](auto& table) {
          std::remove_reference_t<decltype(table[0])> row;
          if (!get(p, end, row)) {
            ok = false;
            return;
          }
          Remap<PartialMerger> remap{*this};
          visit_fields(row, remap);
          flush_inserts(t, later_rows_[t]);
          table.push_back(row);
          ++later_rows_[t];
        });
        if (!ok) return false;
      }
    }
  }
  return true;
}

bool PartialMerger::add(const char* piece, size_t n) {
  if (done_ || broken_ || refused_) return false;
  const char* p = piece;
  const char* end = piece + n;
  while (p < end) {
    uint8_t section = 0;
    uint32_t count = 0;
    if (!get(p, end, section) || !get(p, end, count)) break;
    if (!started_) {
      if (section != kHeader || count != 1 || !header(p, end)) {
        refused_ = true;  // nothing changed yet
        return false;
      }
      started_ = true;
      continue;
    }
    if (section == kEnd) {
      for (size_t t = 0; t < kTableCount; ++t) flush_inserts(t, UINT64_MAX);
      sort_op_args(r_.model());
      if (tail_stopped_) {
        r_.stopped_ = true;
        r_.covered_end_ = tail_cut_;
      } else {
        r_.stopped_ = false;
        r_.merged_end_ = true;
        r_.tail_ = {false, tail_incomplete_, tail_cut_};
      }
      done_ = true;
      return p == end;
    }
    if (!apply(section, p, end, count)) break;
  }
  if (p != end) {
    broken_ = true;
    return false;
  }
  return true;
}

}  // namespace ks
