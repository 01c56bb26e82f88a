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
// reader's arena (offset, length); containers are their id and the memo slot they were last
// stored in, so that a sink can tag that slot at once (PickleReader::tag).
struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  uint32_t len = 0;  // strings and bytes: their length; containers: the sink's tag (0: none)
  union {
    int64_t i;     // kBool (0/1), kInt
    double f;      // kFloat, kBigInt (an int beyond 64 bits, rounded)
    uint64_t off;  // kStr, kBytes: offset in the arena
    struct {
      uint32_t id;    // containers: their id, 0, 1, 2... in the order they were made
      uint32_t memo;  // containers: 1 + the memo index they were last stored at (0: none)
    };
  };
  PickleValue() : i(0) {}
  bool is_container() const { return kind >= PickleKind::kDict && kind <= PickleKind::kSet; }
  bool is_int() const { return kind == PickleKind::kInt || kind == PickleKind::kBool; }
};

// The pickle's memo in 8 bytes a slot (a 50 M-entry snapshot memoizes every dict, list and
// string: 100 M+ slots): the kind in the top 4 bits, below it an int of 60 bits, a string's arena
// offset (40 bits) and length (20), or a container's id (32) and tag (28). A value that does not
// fit (a float, a wide int, a long string, a big tag) is kept whole in a side table.
class PickleMemo {
 public:
  size_t size() const { return slots_.size(); }
  void set(size_t idx, const PickleValue& v) {  // idx <= size()
    const uint64_t s = encode(v);
    if (idx == slots_.size()) slots_.push_back(s);
    else slots_[idx] = s;
  }
  PickleValue get(size_t idx) const {
    const uint64_t s = slots_[idx];
    const auto kind = PickleKind(s >> 60);
    const uint64_t pay = s & kPay;
    if (uint8_t(kind) == kWide) return wide_[pay];
    PickleValue v;
    v.kind = kind;
    switch (kind) {
      case PickleKind::kBool:
      case PickleKind::kInt: v.i = int64_t(pay << 4) >> 4; break;
      case PickleKind::kStr:
      case PickleKind::kBytes: v.off = pay >> 20, v.len = uint32_t(pay & 0xfffff); break;
      case PickleKind::kDict:
      case PickleKind::kList:
      case PickleKind::kTuple:
      case PickleKind::kSet: v.id = uint32_t(pay >> 28), v.len = uint32_t(pay & 0xfffffff), v.memo = uint32_t(idx + 1); break;
      default: break;
    }
    return v;
  }
  // Sets the tag of the container at idx when it is the container id; false when it is not.
  bool tag(size_t idx, uint32_t id, uint32_t tag) {
    PickleValue v = get(idx);
    if (!v.is_container() || v.id != id) return false;
    v.len = tag;
    set(idx, v);
    return true;
  }
  size_t bytes() const { return slots_.bytes() + wide_.capacity() * sizeof(PickleValue); }

 private:
  static constexpr uint8_t kWide = 15;
  static constexpr uint64_t kPay = (uint64_t(1) << 60) - 1;
  uint64_t wide(const PickleValue& v) {
    wide_.push_back(v);
    return (uint64_t(kWide) << 60) | (wide_.size() - 1);
  }
  uint64_t encode(const PickleValue& v) {
    const uint64_t k = uint64_t(v.kind) << 60;
    switch (v.kind) {
      case PickleKind::kBool:
      case PickleKind::kInt:
        if (v.i >= -(int64_t(1) << 59) && v.i < (int64_t(1) << 59)) return k | (uint64_t(v.i) & kPay);
        return wide(v);
      case PickleKind::kStr:
      case PickleKind::kBytes:
        if (v.off < (uint64_t(1) << 40) && v.len < (1u << 20)) return k | (v.off << 20) | v.len;
        return wide(v);
      case PickleKind::kDict:
      case PickleKind::kList:
      case PickleKind::kTuple:
      case PickleKind::kSet:
        if (v.len < (1u << 28)) return k | (uint64_t(v.id) << 28) | v.len;
        return wide(v);
      case PickleKind::kNone:
      case PickleKind::kMark: return k;
      default: return wide(v);
    }
  }
  ChunkedTable<uint64_t> slots_;
  std::vector<PickleValue> wide_;
};

// The pickle machine's stack: a plain growing array whose push is a store and a compare (it runs
// for nearly every opcode; std::vector's push_back was not inlined there and cost a sixth).
class PickleStack {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  PickleValue& back() { return data_[n_ - 1]; }
  PickleValue& operator[](size_t i) { return data_[i]; }
  const PickleValue& operator[](size_t i) const { return data_[i]; }
  void pop_back() { --n_; }
  void resize(size_t n) { n_ = n; }  // shrinks only
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  void push_back(const PickleValue& v) {
    if (n_ == data_.size()) [[unlikely]] grow();
    data_[n_++] = v;
  }

 private:
  void grow() { data_.resize(data_.empty() ? 1024 : data_.size() * 2); }
  std::vector<PickleValue> data_;
  size_t n_ = 0;
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
  static constexpr size_t kMaxMemo = size_t(1) << 28;   // memo entries (8 bytes each: 2 GB)
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
  // Tags container v in the memo slot it was stored at with a number of the sink's (what the
  // container became: a frame, a stack), so that a later GET hands the tag back and the sink
  // needs no map of its own. False when v was never memoized, or its slot holds another value
  // since (then no GET can hand it back). Copies already on the stack keep no tag.
  bool tag(const PickleValue& v, uint32_t tag);
  // Pickles make at most this many containers (their ids are 32-bit): 4 G empty dicts alone
  // would be a 4 GB file.
  static constexpr uint64_t kMaxContainers = UINT32_MAX;
  std::string_view text(const PickleValue& v) const {
    return (v.kind == PickleKind::kStr || v.kind == PickleKind::kBytes) ? std::string_view(arena_).substr(v.off, v.len)
                                                                        : std::string_view();
  }

 private:
  // Runs the opcode at buf_[pos..]: false when it needs more bytes or failed. Inlined into
  // feed's loop: called once per opcode (tens of millions), a call's prologue cost a fifth.
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  inline bool step();
  void fail(std::string why, bool refused = false);
  bool need(size_t n) const { return in_size_ - pos_ >= n; }
  bool check_length(uint64_t n, size_t header, const char* what);
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  void push(const PickleValue& v) {
    if (stack_.size() >= kMaxStack) [[unlikely]] return stack_overflow();
    stack_.push_back(v);
  }
  void stack_overflow();
  bool pop_mark(size_t& mark_at);
  PickleValue new_container(PickleKind k);
  PickleValue add_string(const char* p, size_t n, PickleKind k);
  void put_items(const PickleValue& c, size_t from);
  void salvage();

  PickleSink& sink_;
  std::string buf_;   // unread bytes: the tail of the previous chunk (an opcode cut in two)
  // What step() reads, from pos_: buf_, or the chunk being fed where it lies (not copied).
  const char* in_ = nullptr;
  size_t in_size_ = 0;
  size_t pos_ = 0;
  uint64_t consumed_ = 0;  // file offset of buf_[pos_]
  uint64_t op_at_ = 0;
  uint64_t total_ = 0;
  std::string arena_;
  PickleStack stack_;
  std::vector<size_t> marks_;
  PickleMemo memo_;  // in blocks: no 3x peak while a multi-GB pickle's memo grows
  uint64_t next_id_ = 0;
  void memoize(size_t idx);
  int protocol_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  bool refused_ = false;
  bool salvaged_ = false;
  std::string error_;
};

}  // namespace ks
