// One file read by several readers at once (docs/contracts.md "One file, several workers"):
// the file is cut into byte ranges at proposed splits, each range is read by its own
// TraceReader (TraceReader::start_at / stop_at), and each later range's partial model is
// merged into the earlier reader so that the result is exactly the model of one sequential
// read: same rows in the same order, same string ids, same counts and health.
//
// A split is only a proposal (propose_split: a '{' after '}' ',' between elements, found
// without knowing where strings are). The earlier range's reader checks it when it gets there
// (its scanner knows whether it stands between two elements of the events array); a split it
// passes without confirming was inside a string, an escape or nested args, and that reader
// reads on: the later range's work is simply not merged.
//
// A partial model crosses workers as bytes: PartialWriter cuts it into pieces (at most
// `max_bytes` each, unless a single string is longer) and PartialMerger applies them in order
// to the earlier reader as they come, so the earlier heap holds its model plus one piece.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace_reader.h"

namespace ks {

// The first '{' at or after buf[from] that follows '}' and ',' with only whitespace between
// them: likely an element of the events array. Returns its index in buf, or SIZE_MAX.
size_t propose_split(const char* buf, size_t n, size_t from = 0);
// The root kind of a file from its first bytes: '[' (true) or '{' (false) after an optional BOM
// and whitespace; -1 when the bytes say neither (then read the file in one range).
int root_is_array(const char* buf, size_t n);

// The split plan, one rule for the CLI and the page's workers (which read the windows from a
// File and ask these through the wasm binding). Range i (1..ranges-1) nominally starts at
// size/ranges*i; its split is the event boundary proposed in the window read there.
std::vector<uint64_t> nominal_splits(uint64_t size, int ranges);
// The splits from the boundary found in each nominal window (found[i]: its index in the window
// read at nominal[i], or -1 for none): kept when inside the file, after its start and past the
// split before (two windows finding the same boundary give one split).
std::vector<uint64_t> choose_splits(const std::vector<uint64_t>& nominal, const std::vector<int64_t>& found, uint64_t size);
// Proposed splits cutting a file of `size` bytes into about `ranges` equal ranges (ascending;
// fewer when a window holds none): the plan above with the windows read by `read_at(offset,
// buf, n)`, which returns the bytes it read there.
std::vector<uint64_t> propose_splits(uint64_t size, int ranges,
                                     const std::function<size_t(uint64_t, char*, size_t)>& read_at);

// The merge order of a split read, written once for every driver (issue 23): merge_ranges below
// (the CLI's threads, the tests), the page's first worker awaiting pieces from helper workers on
// MessagePorts (web/src/worker/split-read.ts mergeRanges, through the wasm binding's RangeMerge),
// tests/golden/wasm_ranges_test.mjs across two heaps. It holds no reader and no bytes: the driver
// says where the first reader stands and how each piece of the expected range went; it says what
// to do next, and keeps the counts and the last reason (the page's MergeOutcome).
//
//   at(stopped, covered_end)  where the first reader stands, at the start and after reading on:
//       not stopped: kFinished. Stopped where range i starts: kAskPiece, range() = i. Stopped
//       where no range starts: kReadOn ("no worker read the range after it").
//   piece(state, stopped, covered_end)  how a piece of range() merged, and where the reader stands
//       after it: merging: kAskPiece again; done: merged() + 1, then as at(); refused (nothing
//       changed): kReadOn; broken: kReadAgain.
//   ended()  its source said it sent every piece, the merge not done; lost(why) its source is
//       gone (its worker died, trapped, stalled or could not read); no_source() nothing read it:
//       before a piece of it was merged kReadOn, after (a half-merged model) kReadAgain.
//   kReadOn: the driver calls read_on() and feeds the first reader from from() until it stops
//       again or the input ends, then at(). kReadAgain (final): the first reader's model is
//       unusable, read the file again in one range. kFinished (final): finish() it.
//
// A stop not past the one before (a reader that would stop at one split for ever) is read again
// in one range rather than looped on. Calls that do not answer the last action change nothing.
enum class MergeAction : uint8_t { kAskPiece, kReadOn, kReadAgain, kFinished };
// A piece's outcome as PartialMerger::add left it (the wasm Session's mergeCommit answer).
enum class PieceState : uint8_t { kMerging, kDone, kRefused, kBroken };

class RangeMerge {
 public:
  // The later ranges' starts (range i starts at splits[i]): the split plan.
  explicit RangeMerge(std::vector<uint64_t> splits);

  MergeAction at(bool stopped, uint64_t covered_end);
  MergeAction piece(PieceState state, bool stopped, uint64_t covered_end);
  MergeAction ended();
  MergeAction lost(std::string_view why);
  MergeAction no_source();

  MergeAction action() const { return action_; }
  // The range to ask a piece of (kAskPiece): an index into the splits; -1 otherwise.
  int range() const { return action_ == MergeAction::kAskPiece ? range_ : -1; }
  // Where to read on from (kReadOn): where the first reader stopped.
  uint64_t from() const { return stop_; }
  // Pieces of range() merged so far.
  int pieces() const { return pieces_; }
  // Ranges merged, times the first reader read on, whether it must read the file again.
  int merged() const { return merged_; }
  int read_on() const { return read_on_; }
  bool broken() const { return action_ == MergeAction::kReadAgain; }
  // Why the first reader last read on or broke off ("" when it did neither).
  const std::string& reason() const { return reason_; }

 private:
  MergeAction give_up(std::string reason);    // nothing of the range merged: read it on
  MergeAction break_off(std::string reason);  // a half-merged model: read again

  std::vector<uint64_t> splits_;
  MergeAction action_ = MergeAction::kFinished;
  int range_ = -1, pieces_ = 0, merged_ = 0, read_on_ = 0;
  uint64_t stop_ = 0;
  bool stopped_once_ = false;
  std::string reason_;
};

// Chains the ranges into `first` and finishes it, in RangeMerge's order: while `first` has
// stopped, merges the finished partial reader that starts where it stopped (through pieces of
// `piece_bytes`), or, when there is none or the merge refuses it, has `first` read on:
// `read_from(offset)` must feed `first` from that offset until it stops again or the input ends
// (without finish()). Returns how many ranges were merged, or -1 when a merge broke part-way
// (then read the file again in one range; `first` is not finished).
int merge_ranges(TraceReader& first, const std::vector<TraceReader*>& later,
                  const std::function<void(uint64_t)>& read_from, size_t piece_bytes = size_t(4) << 20);

// Serializes a finished partial reader (start_at, then finish()).
class PartialWriter {
 public:
  explicit PartialWriter(const TraceReader& partial);
  // Appends the next piece to `out` (cleared first); false when everything was written.
  bool next(std::string& out, size_t max_bytes = size_t(4) << 20);

 private:
  const TraceReader& r_;
  int section_ = 0;
  size_t item_ = 0;
  // the builder's open B events, threads in order, stacks bottom up
  std::vector<const TraceBuilder::OpenBegin*> open_;
  std::vector<std::pair<uint64_t, int64_t>> wide_;
};

// Merges the pieces of the range that starts at `earlier.covered_end()` into `earlier`, which
// must have stopped there. add() returns false when the pieces do not belong here (another
// start, another root: nothing was changed, and the earlier reader may read_on()) or are
// damaged (then the earlier model is unusable: read the file again in one range).
class PartialMerger {
 public:
  explicit PartialMerger(TraceReader& earlier);
  bool add(const char* piece, size_t n);
  bool done() const { return done_; }
  // True when the first piece was refused before anything changed.
  bool refused() const { return refused_; }

  // The merged model's string id of a later range's id, and row of a later table row.
  StringId id(StringId later) const { return later < remap_.size() ? remap_[later] : 0; }
  // The merged model's flow pair (TraceModel::flow_pairs) of a later range's pair index.
  uint32_t pair(uint32_t later) const { return later < pair_remap_.size() ? pair_remap_[later] : 0; }
  uint32_t map_row(size_t table, uint32_t later_row) const;
  // Where the later range's wide durations (TraceModel::wide_durs) start in the merged model's.
  size_t wide_dur_base() const { return wide_dur_base_; }

 private:
  bool apply(int section, const char*& p, const char* end, uint32_t count);
  bool header(const char*& p, const char* end);
  void flush_inserts(size_t table, uint64_t upto);

  TraceReader& r_;
  bool started_ = false, done_ = false, refused_ = false, broken_ = false;
  std::vector<StringId> remap_;
  std::vector<uint32_t> pair_remap_;
  size_t category_items_ = 0, phase_items_ = 0;
  bool tail_stopped_ = false, tail_incomplete_ = false;
  uint64_t tail_cut_ = 0;
  // B/E pairs whose E was in the later range and whose B in an earlier one, by table: filed
  // between the later rows where the E came.
  struct PendingRow {
    uint64_t pos;
    size_t open_index;
    int64_t dur;
  };
  std::vector<std::vector<PendingRow>> inserts_;
  std::vector<size_t> next_insert_;
  std::vector<uint64_t> later_rows_;  // later rows appended so far, by table
  std::vector<uint64_t> base_rows_;   // the earlier table sizes before the merge
  size_t wide_dur_base_ = 0;
  std::vector<std::vector<uint64_t>> inserted_at_;  // positions of inserted rows, by table
  std::vector<TraceBuilder::OpenBegin> resolved_;   // the matched B events
};

}  // namespace ks
