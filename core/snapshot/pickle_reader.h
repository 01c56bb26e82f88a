// A safe, streaming reader of Python pickles (protocols 2-5) that builds data only: it is fed the
// file in chunks (any size; an opcode or a string may straddle two) and tells a sink, event by
// event, which item went into which container, so that the sink keeps only what it needs and a
// multi-GB pickle never becomes a tree in memory.
//
// Why events rather than a tree: a CUDA allocator snapshot is a few lists of millions of small
// dicts whose frames are shared through the pickle's memo. A generic tree (a node per dict, key
// and value) would be larger than the file; the snapshot model (core/snapshot/snapshot_model.h)
// turns each dict into a row of columns when it is put into its list, and drops it.
//
// How the events go: the reader runs the pickle's stack machine, but a container on its stack (or
// in its memo) is only a number, its id, in the order containers were made. When APPEND(S),
// SETITEM(S), ADDITEMS or TUPLE* put items into a container the sink hears on_item(container,
// key, value) for each, values being scalars (their text valid during the call) or container ids.
// The standard Pickler fills a container before it is put into its parent, so a sink sees a
// dict's items, then the dict going into its list, then the list into its parent. A memo GET of
// a container gives the same id again (a frame shared by many stacks).
//
// It never runs code: GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ(_EX), EXT1/2/4,
// PERSID/BINPERSID and the out-of-band buffers of protocol 5 are refused with one sentence naming
// the opcode and its byte offset (the real snapshots of PyTorch 2.11 hold no global at all:
// tests/data/README.md). Protocols 0 and 1 (text opcodes, no PROTO header) are refused too.
// Against hostile input: at most kMaxMarks open MARKs, kMaxStack values on the stack, memo
// indices only next to those already stored, a string or bytes length checked against the bytes
// the file has left (when its size is known) and kMaxString.
//
// A truncated or corrupt pickle (it ends early, an unknown opcode, a GET of what was never
// stored) stops the reader there; finish() then completes what the stack holds as the pickle
// would have (items above each MARK go into the container below it) so the sink keeps what was
// read, and error() says what was lost and where. Refused opcodes load nothing (refused()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/chunked_table.h"

namespace ks {

enum class PickleKind : uint8_t { kNone, kBool, kInt, kBigInt, kFloat, kStr, kBytes, kDict, kList, kTuple, kSet, kMark };

// One value on the pickle's stack or in its memo: 16 bytes. Strings and bytes live in the
// reader's arena (offset, length); containers are their id.
struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  uint32_t len = 0;  // strings and bytes: their length; containers: the sink's tag (0: none)
  union {
    int64_t i;     // kBool (0/1), kInt
    double f;      // kFloat, kBigInt (an int beyond 64 bits, rounded)
    uint64_t off;  // kStr, kBytes: offset in the arena
    uint64_t id;   // containers: their id, 0, 1, 2... in the order they were made
  };
  PickleValue() : i(0) {}
  bool is_container() const { return kind >= PickleKind::kDict && kind <= PickleKind::kSet; }
  bool is_int() const { return kind == PickleKind::kInt || kind == PickleKind::kBool; }
};

class PickleReader;

class PickleSink {
 public:
  virtual ~PickleSink() = default;
  // An item went into container c: a dict's key and value, or (key null) a list's, tuple's or
  // set's next value. Text of r.text(value) stays valid until the next event.
  virtual void on_item(PickleReader& r, const PickleValue& c, const PickleValue* key, const PickleValue& value) = 0;
  // STOP: the pickle's value (or, after a truncation, what the stack's bottom held).
  virtual void on_root(PickleReader& r, const PickleValue& v) = 0;
};

class PickleReader {
 public:
  static constexpr size_t kMaxMarks = 10000;           // nesting depth
  static constexpr size_t kMaxStack = size_t(1) << 22;  // values on the stack
  static constexpr size_t kMaxMemo = size_t(1) << 28;   // memo entries (16 bytes each: 4 GB)
  static constexpr uint64_t kMaxString = uint64_t(1) << 30;

  explicit PickleReader(PickleSink& sink) : sink_(sink) {}
  // The file's size when known: a string longer than what is left is refused at once.
  void set_total_size(uint64_t bytes) { total_ = bytes; }
  void feed(const char* data, size_t n);
  void finish();
  // Frees the memo, the stack, the strings and the unread bytes (after finish: what the sink
  // kept is all that is needed; text() answers nothing after).
  void release();

  bool done() const { return stopped_; }      // STOP was read
  bool failed() const { return !error_.empty(); }
  bool refused() const { return refused_; }   // an opcode that would run code: nothing loaded
  const std::string& error() const { return error_; }
  uint64_t bytes_read() const { return consumed_; }
  uint64_t op_offset() const { return op_at_; }  // byte offset of the opcode being run
  int protocol() const { return protocol_; }
  // Tags container `id` in the memo with a number of the sink's (what the container became: a
  // frame, a stack), so that a later GET hands the tag back and the sink needs no map of its own.
  // Looks at the last kTagReach memo entries only (the Pickler memoizes a container as it makes
  // it, and a sink tags it when it is put in its parent): false when the memo does not hold it
  // there. Copies already on the stack keep no tag: a sink keeps its own map for those.
  static constexpr size_t kTagReach = 64;
  bool tag(uint64_t id, uint32_t tag);
  std::string_view text(const PickleValue& v) const {
    return (v.kind == PickleKind::kStr || v.kind == PickleKind::kBytes) ? std::string_view(arena_).substr(v.off, v.len)
                                                                        : std::string_view();
  }

 private:
  // Runs the opcodes complete in buf_[pos..]: returns false when it needs more bytes.
  bool step();
  void fail(std::string why, bool refused = false);
  bool need(size_t n) const { return buf_.size() - pos_ >= n; }
  bool check_length(uint64_t n, size_t header, const char* what);
  void push(const PickleValue& v) {
    if (stack_.size() >= kMaxStack) return stack_overflow();
    stack_.push_back(v);
  }
  void stack_overflow();
  bool pop_mark(size_t& mark_at);
  PickleValue new_container(PickleKind k);
  PickleValue add_string(const char* p, size_t n, PickleKind k);
  void put_items(const PickleValue& c, size_t from);
  void salvage();

  PickleSink& sink_;
  std::string buf_;   // unread bytes (the tail of the previous chunk, then this one)
  size_t pos_ = 0;
  uint64_t consumed_ = 0;  // file offset of buf_[pos_]
  uint64_t op_at_ = 0;
  uint64_t total_ = 0;
  std::string arena_;
  std::vector<PickleValue> stack_;
  std::vector<size_t> marks_;
  ChunkedTable<PickleValue> memo_;  // in blocks: no 3x peak while a multi-GB pickle's memo grows
  uint64_t next_id_ = 0;
  int protocol_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  bool refused_ = false;
  bool salvaged_ = false;
  std::string error_;
};

}  // namespace ks
