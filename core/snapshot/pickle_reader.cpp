#include "core/snapshot/pickle_reader.h"

#include <cstdio>
#include <cstring>

namespace ks {
namespace {

// Opcodes (Python's Lib/pickle.py names).
enum : uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', FLOAT = 'F', INT = 'I', BININT = 'J',
  BININT1 = 'K', LONG = 'L', BININT2 = 'M', NONE = 'N', PERSID = 'P', BINPERSID = 'Q', REDUCE = 'R',
  STRING = 'S', BINSTRING = 'T', SHORT_BINSTRING = 'U', UNICODE = 'V', BINUNICODE = 'X', APPEND = 'a',
  BUILD = 'b', GLOBAL = 'c', DICT = 'd', EMPTY_DICT = '}', APPENDS = 'e', GET = 'g', BINGET = 'h',
  INST = 'i', LONG_BINGET = 'j', LIST = 'l', EMPTY_LIST = ']', OBJ = 'o', PUT = 'p', BINPUT = 'q',
  LONG_BINPUT = 'r', SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G',
  PROTO = 0x80, NEWOBJ = 0x81, EXT1 = 0x82, EXT2 = 0x83, EXT4 = 0x84, TUPLE1 = 0x85, TUPLE2 = 0x86,
  TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b, BINBYTES = 'B',
  SHORT_BINBYTES = 'C', SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e, EMPTY_SET = 0x8f,
  ADDITEMS = 0x90, FROZENSET = 0x91, NEWOBJ_EX = 0x92, STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95,
  BYTEARRAY8 = 0x96, NEXT_BUFFER = 0x97, READONLY_BUFFER = 0x98,
};

const char* refused_name(uint8_t op) {
  switch (op) {
    case GLOBAL: return "GLOBAL";
    case STACK_GLOBAL: return "STACK_GLOBAL";
    case REDUCE: return "REDUCE";
    case BUILD: return "BUILD";
    case INST: return "INST";
    case OBJ: return "OBJ";
    case NEWOBJ: return "NEWOBJ";
    case NEWOBJ_EX: return "NEWOBJ_EX";
    case EXT1: return "EXT1";
    case EXT2: return "EXT2";
    case EXT4: return "EXT4";
    case PERSID: return "PERSID";
    case BINPERSID: return "BINPERSID";
    case NEXT_BUFFER: return "NEXT_BUFFER";
    case READONLY_BUFFER: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

const char* text_name(uint8_t op) {
  switch (op) {
    case INT: return "INT";
    case LONG: return "LONG";
    case FLOAT: return "FLOAT";
    case STRING: return "STRING";
    case UNICODE: return "UNICODE";
    case PUT: return "PUT";
    case GET: return "GET";
    default: return nullptr;
  }
}

uint64_t le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string hex(uint8_t op) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", op);
  return b;
}

}  // namespace

void PickleReader::fail(std::string why, bool refused) {
  if (!error_.empty()) return;
  // One sentence, as the trace reader's: a capital, a full stop.
  if (!why.empty() && why[0] >= 'a' && why[0] <= 'z') why[0] = char(why[0] - 'a' + 'A');
  if (!why.empty() && why.back() != '.') why += '.';
  error_ = std::move(why);
  refused_ = refused;
}

bool PickleReader::check_length(uint64_t n, size_t header, const char* what) {
  // What the file holds after the opcode and its length field.
  const uint64_t after = consumed_ + header;
  const uint64_t left = total_ > after ? total_ - after : 0;
  if (n > kMaxString || (total_ && n > left)) {
    char b[256];
    if (total_ && n > left)
      std::snprintf(b, sizeof b, "%s of %llu bytes at byte %llu is longer than the %llu bytes left in the file", what,
                    (unsigned long long)n, (unsigned long long)op_at_, (unsigned long long)left);
    else
      std::snprintf(b, sizeof b, "%s of %llu bytes at byte %llu is longer than the %llu bytes this reader accepts", what,
                    (unsigned long long)n, (unsigned long long)op_at_, (unsigned long long)kMaxString);
    fail(b);
    return false;
  }
  return true;
}

void PickleReader::stack_overflow() {
  fail("more than " + std::to_string(kMaxStack) + " values on the pickle's stack at byte " + std::to_string(op_at_));
}

bool PickleReader::tag(const PickleValue& v, uint32_t t) {
  if (!v.is_container() || v.memo == 0 || v.memo > memo_.size()) return false;
  return memo_.tag(v.memo - 1, v.id, t);
}

PickleValue PickleReader::new_container(PickleKind k) {
  PickleValue v;
  if (next_id_ >= kMaxContainers) {
    fail("the pickle makes more than " + std::to_string(kMaxContainers) + " containers at byte " + std::to_string(op_at_) +
         ", more than this reader accepts");
    return v;
  }
  v.kind = k;
  v.id = uint32_t(next_id_++);
  v.memo = 0;
  return v;
}

// Stores the stack's top at memo index idx (== memo_.size(): a new slot); a container learns its slot.
void PickleReader::memoize(size_t idx) {
  PickleValue& top = stack_.back();
  if (top.is_container()) top.memo = uint32_t(idx + 1);
  memo_.set(idx, top);
}

PickleValue PickleReader::add_string(const char* p, size_t n, PickleKind k) {
  PickleValue v;
  v.kind = k;
  v.off = arena_.size();
  v.len = uint32_t(n);
  arena_.append(p, n);
  return v;
}

bool PickleReader::pop_mark(size_t& mark_at) {
  if (marks_.empty()) {
    fail("an opcode at byte " + std::to_string(op_at_) + " needs a MARK and none is open");
    return false;
  }
  mark_at = marks_.back();
  marks_.pop_back();
  return true;
}

// The items stack_[from..] go into c, as APPENDS, SETITEMS, ADDITEMS or a tuple's opcodes put them.
void PickleReader::put_items(const PickleValue& c, size_t from) {
  if (c.kind == PickleKind::kDict) {
    for (size_t i = from; i + 1 < stack_.size(); i += 2) sink_.on_item(*this, c, &stack_[i], stack_[i + 1]);
  } else {
    for (size_t i = from; i < stack_.size(); ++i) sink_.on_item(*this, c, nullptr, stack_[i]);
  }
}

inline bool PickleReader::step() {
  if (!need(1)) return false;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(in_) + pos_;
  const uint8_t op = p[0];
  op_at_ = consumed_;
  size_t used = 1;
  const size_t base = marks_.empty() ? 0 : marks_.back();  // the values of the current MARK frame
  auto at = [&] { return " at byte " + std::to_string(op_at_); };
  auto need_values = [&](size_t n, const char* name) {
    if (stack_.size() - base >= n) return true;
    fail(std::string("the pickle's ") + name + at() + " takes " + std::to_string(n) + " value" + (n > 1 ? "s" : "") +
         " and the stack holds " + std::to_string(stack_.size() - base));
    return false;
  };
  if (!started_) {
    if (op != PROTO) {
      fail("not a pickle of protocol 2 to 5 (it does not begin with the PROTO opcode 0x80 but with byte " + hex(op) +
           "): protocol 0 and 1 pickles are not read; write it with protocol 2 or later");
      return false;
    }
  }
  switch (op) {
    case GLOBAL: case STACK_GLOBAL: case REDUCE: case BUILD: case INST: case OBJ: case NEWOBJ: case NEWOBJ_EX:
    case EXT1: case EXT2: case EXT4: case PERSID: case BINPERSID: case NEXT_BUFFER: case READONLY_BUFFER:
      fail(std::string("refused the pickle's ") + refused_name(op) + " opcode (" + hex(op) + ")" + at() +
               ": it would import or run Python code, and Kinetoscope reads plain data only",
           true);
      return false;
    case INT: case LONG: case FLOAT: case STRING: case UNICODE: case PUT: case GET:
      fail(std::string("the pickle's ") + text_name(op) + " opcode (" + hex(op) + ")" + at() +
           " belongs to protocol 0, which is not read; write it with protocol 2 or later");
      return false;
    case PROTO: {
      if (!need(2)) return false;
      if (p[1] < 2 || p[1] > 5) {
        fail("the pickle says it is protocol " + std::to_string(p[1]) + at() + "; protocols 2 to 5 are read");
        return false;
      }
      protocol_ = p[1];
      started_ = true;
      used = 2;
      break;
    }
    case FRAME:  // protocol 4's framing: a length hint the stream does not need
      if (!need(9)) return false;
      used = 9;
      break;
    case STOP: {
      if (!need_values(1, "STOP")) return false;
      stopped_ = true;
      const PickleValue root = stack_.back();
      sink_.on_root(*this, root);
      break;
    }
    case MARK:
      if (marks_.size() >= kMaxMarks) {
        fail("the pickle nests deeper than " + std::to_string(kMaxMarks) + " MARKs" + at());
        return false;
      }
      marks_.push_back(stack_.size());
      break;
    case POP:
      if (stack_.size() > base) {
        stack_.pop_back();
      } else if (!marks_.empty()) {
        marks_.pop_back();
      } else {
        return need_values(1, "POP");
      }
      break;
    case POP_MARK: {
      size_t m = 0;
      if (!pop_mark(m)) return false;
      stack_.resize(m);
      break;
    }
    case DUP:
      if (!need_values(1, "DUP")) return false;
      push(stack_.back());
      break;
    case NONE: push(PickleValue()); break;
    case NEWTRUE:
    case NEWFALSE: {
      PickleValue v;
      v.kind = PickleKind::kBool;
      v.i = op == NEWTRUE;
      push(v);
      break;
    }
    case BININT:
    case BININT1:
    case BININT2: {
      const int n = op == BININT ? 4 : op == BININT1 ? 1 : 2;
      if (!need(1 + n)) return false;
      PickleValue v;
      v.kind = PickleKind::kInt;
      const uint64_t u = le(p + 1, n);
      v.i = op == BININT ? int64_t(int32_t(uint32_t(u))) : int64_t(u);
      push(v);
      used = 1 + n;
      break;
    }
    case LONG1:
    case LONG4: {
      const int hn = op == LONG1 ? 1 : 4;
      if (!need(1 + hn)) return false;
      const uint64_t n = le(p + 1, hn);
      if (op == LONG4 && (n & 0x80000000u)) {
        fail("the pickle's LONG4" + at() + " has a negative length");
        return false;
      }
      if (!check_length(n, 1 + hn, "an integer")) return false;
      if (!need(1 + hn + n)) return false;
      const unsigned char* d = p + 1 + hn;
      PickleValue v;
      // Two's complement, little-endian: up to 8 bytes it is an int64; longer ones that still fit
      // (sign bytes only above the 8th) too; beyond, a BigInt rounded to a double.
      bool fits = true;
      const bool neg = n > 0 && (d[n - 1] & 0x80);
      for (uint64_t k = 8; k < n; ++k)
        if (d[k] != (neg ? 0xff : 0x00)) fits = false;
      if (n > 8 && fits && bool(d[7] & 0x80) != neg) fits = false;
      if (fits) {
        uint64_t u = n ? le(d, int(n < 8 ? n : 8)) : 0;
        if (n > 0 && n < 8 && neg) u |= ~uint64_t(0) << (8 * n);
        v.kind = PickleKind::kInt;
        v.i = int64_t(u);
      } else {
        double f = 0;
        for (uint64_t k = n; k-- > 0;) f = f * 256 + double(neg ? uint8_t(~d[k]) : d[k]);
        v.kind = PickleKind::kBigInt;
        v.f = neg ? -(f + 1) : f;
      }
      push(v);
      used = size_t(1 + hn + n);
      break;
    }
    case BINFLOAT: {
      if (!need(9)) return false;
      uint64_t u = 0;
      for (int k = 1; k <= 8; ++k) u = (u << 8) | p[k];
      PickleValue v;
      v.kind = PickleKind::kFloat;
      std::memcpy(&v.f, &u, 8);
      push(v);
      used = 9;
      break;
    }
    case SHORT_BINUNICODE:
    case BINUNICODE:
    case BINUNICODE8:
    case SHORT_BINBYTES:
    case BINBYTES:
    case BINBYTES8:
    case BYTEARRAY8:
    case SHORT_BINSTRING:
    case BINSTRING: {
      const int hn = (op == SHORT_BINUNICODE || op == SHORT_BINBYTES || op == SHORT_BINSTRING) ? 1
                     : (op == BINUNICODE8 || op == BINBYTES8 || op == BYTEARRAY8)               ? 8
                                                                                                 : 4;
      if (!need(1 + hn)) return false;
      uint64_t n = le(p + 1, hn);
      if (op == BINSTRING && (n & 0x80000000u)) {
        fail("the pickle's BINSTRING" + at() + " has a negative length");
        return false;
      }
      const bool is_text = op == SHORT_BINUNICODE || op == BINUNICODE || op == BINUNICODE8 || op == SHORT_BINSTRING ||
                           op == BINSTRING;
      if (!check_length(n, 1 + hn, is_text ? "a string" : "a bytes object")) return false;
      if (n > UINT32_MAX) {
        fail("a string of " + std::to_string(n) + " bytes" + at() + " is longer than this reader accepts");
        return false;
      }
      if (!need(1 + hn + n)) return false;
      push(add_string(reinterpret_cast<const char*>(p + 1 + hn), size_t(n), is_text ? PickleKind::kStr : PickleKind::kBytes));
      used = size_t(1 + hn + n);
      break;
    }
    case EMPTY_DICT: push(new_container(PickleKind::kDict)); break;
    case EMPTY_LIST: push(new_container(PickleKind::kList)); break;
    case EMPTY_TUPLE: push(new_container(PickleKind::kTuple)); break;
    case EMPTY_SET: push(new_container(PickleKind::kSet)); break;
    case TUPLE1:
    case TUPLE2:
    case TUPLE3: {
      const size_t n = op - TUPLE1 + 1;
      if (!need_values(n, "TUPLE1/2/3")) return false;
      const PickleValue t = new_container(PickleKind::kTuple);
      put_items(t, stack_.size() - n);
      stack_.resize(stack_.size() - n);
      push(t);
      break;
    }
    case TUPLE:
    case LIST:
    case DICT:
    case FROZENSET: {
      size_t m = 0;
      if (!pop_mark(m)) return false;
      const PickleValue c = new_container(op == TUPLE ? PickleKind::kTuple : op == LIST ? PickleKind::kList
                                                                            : op == DICT ? PickleKind::kDict
                                                                                         : PickleKind::kSet);
      if (op == DICT && (stack_.size() - m) % 2) {
        fail("the pickle's DICT" + at() + " has a key without a value");
        return false;
      }
      put_items(c, m);
      stack_.resize(m);
      push(c);
      break;
    }
    case APPEND:
    case SETITEM: {
      const size_t n = op == APPEND ? 2 : 3;
      if (!need_values(n, op == APPEND ? "APPEND" : "SETITEM")) return false;
      const PickleValue& c = stack_[stack_.size() - n];
      const PickleKind want = op == APPEND ? PickleKind::kList : PickleKind::kDict;
      if (c.kind != want) {
        fail(std::string("the pickle's ") + (op == APPEND ? "APPEND" : "SETITEM") + at() + " puts an item into a value that is not a " +
             (op == APPEND ? "list" : "dict"));
        return false;
      }
      put_items(c, stack_.size() - n + 1);
      stack_.resize(stack_.size() - n + 1);
      break;
    }
    case APPENDS:
    case SETITEMS:
    case ADDITEMS: {
      size_t m = 0;
      if (!pop_mark(m)) return false;
      const PickleKind want = op == APPENDS ? PickleKind::kList : op == SETITEMS ? PickleKind::kDict : PickleKind::kSet;
      const char* name = op == APPENDS ? "APPENDS" : op == SETITEMS ? "SETITEMS" : "ADDITEMS";
      if (m == 0 || stack_[m - 1].kind != want) {
        fail(std::string("the pickle's ") + name + at() + " puts items into a value that is not a " +
             (op == APPENDS ? "list" : op == SETITEMS ? "dict" : "set"));
        return false;
      }
      if (op == SETITEMS && (stack_.size() - m) % 2) {
        fail("the pickle's SETITEMS" + at() + " has a key without a value");
        return false;
      }
      const PickleValue c = stack_[m - 1];
      put_items(c, m);
      stack_.resize(m);
      break;
    }
    case MEMOIZE:
      if (!need_values(1, "MEMOIZE")) return false;
      if (memo_.size() >= kMaxMemo) {
        fail("the pickle's memo grows past " + std::to_string(kMaxMemo) + " entries" + at());
        return false;
      }
      memoize(memo_.size());
      break;
    case BINPUT:
    case LONG_BINPUT: {
      const int n = op == BINPUT ? 1 : 4;
      if (!need(1 + n)) return false;
      const uint64_t idx = le(p + 1, n);
      if (!need_values(1, op == BINPUT ? "BINPUT" : "LONG_BINPUT")) return false;
      if (idx > memo_.size()) {
        fail("the pickle stores memo index " + std::to_string(idx) + at() + ", past the " + std::to_string(memo_.size()) +
             " entries stored so far");
        return false;
      }
      if (idx == memo_.size() && memo_.size() >= kMaxMemo) {
        fail("the pickle's memo grows past " + std::to_string(kMaxMemo) + " entries" + at());
        return false;
      }
      memoize(size_t(idx));
      used = 1 + n;
      break;
    }
    case BINGET:
    case LONG_BINGET: {
      const int n = op == BINGET ? 1 : 4;
      if (!need(1 + n)) return false;
      const uint64_t idx = le(p + 1, n);
      if (idx >= memo_.size()) {
        fail("the pickle reads memo index " + std::to_string(idx) + at() + ", which was never stored (" +
             std::to_string(memo_.size()) + " entries are)");
        return false;
      }
      push(memo_.get(size_t(idx)));
      used = 1 + n;
      break;
    }
    default:
      fail("unknown pickle opcode " + hex(op) + at() + " (the file is corrupt or not a pickle)");
      return false;
  }
  if (failed()) return false;
  pos_ += used;
  consumed_ += used;
  return true;
}

void PickleReader::feed(const char* data, size_t n) {
  if (stopped_ || failed()) return;
  size_t from = 0;  // the chunk is read where it lies from here
  if (!buf_.empty()) {
    // The previous chunk ended inside an opcode: its bytes and the start of this chunk, copied
    // together (64 KiB, more while the opcode needs it), until that opcode is read.
    const size_t tail = buf_.size();
    size_t took = 0;
    while (true) {
      const size_t more = std::min(n - took, std::max<size_t>(took, size_t(1) << 16));
      buf_.append(data + took, more);
      took += more;
      in_ = buf_.data();
      in_size_ = buf_.size();
      while (pos_ < tail && step() && !stopped_) {
      }
      if (pos_ >= tail || stopped_ || failed()) break;
      if (took == n) {  // the opcode goes on into the next chunk
        buf_.erase(0, pos_);
        pos_ = 0;
        in_ = nullptr, in_size_ = 0;
        return;
      }
    }
    const bool over = stopped_ || failed();
    from = over ? 0 : pos_ - tail;
    buf_.clear();
    pos_ = 0;
    if (over) {
      in_ = nullptr, in_size_ = 0;
      return;
    }
  }
  in_ = data + from;
  in_size_ = n - from;
  pos_ = 0;
  while (step() && !stopped_) {
  }
  // What is left (an opcode cut by the chunk's end) waits for the next chunk.
  if (!stopped_ && !failed()) buf_.assign(in_ + pos_, in_size_ - pos_);
  pos_ = 0;
  in_ = nullptr, in_size_ = 0;
}

// After a truncation or a corrupt opcode: put what each open MARK holds into the container below
// it, innermost first (the pickle would have done so at its APPENDS/SETITEMS), and hand the
// bottom of the stack to the sink as the root, so what was read is kept.
void PickleReader::salvage() {
  if (salvaged_ || refused_ || stopped_) return;
  salvaged_ = true;
  while (!marks_.empty()) {
    const size_t m = marks_.back();
    marks_.pop_back();
    // A dict's items hold a key without its value when the value was a list still waiting for
    // its one APPEND (a list of one item, e.g. device_traces of one device): that item goes in.
    if (m > 0 && stack_[m - 1].kind == PickleKind::kDict && (stack_.size() - m) % 2 == 1 && stack_.size() - m >= 3 &&
        stack_[stack_.size() - 2].kind == PickleKind::kList) {
      put_items(stack_[stack_.size() - 2], stack_.size() - 1);
      stack_.resize(stack_.size() - 1);
    }
    if (m > 0 && stack_[m - 1].is_container() && stack_[m - 1].kind != PickleKind::kTuple) {
      const PickleValue c = stack_[m - 1];
      put_items(c, m);
    }
    stack_.resize(m);
  }
  // A pending single SETITEM or APPEND at the bottom ([dict, key, value] or [list, value]).
  if (stack_.size() == 3 && stack_[0].kind == PickleKind::kDict) put_items(stack_[0], 1);
  if (stack_.size() == 2 && stack_[0].kind == PickleKind::kList) put_items(stack_[0], 1);
  if (!stack_.empty()) sink_.on_root(*this, stack_[0]);
}

void PickleReader::finish() {
  if (stopped_ || refused_) return;
  if (!failed()) {
    const uint64_t left = buf_.size();
    if (!started_ && left == 0 && consumed_ == 0) {
      fail("the file is empty");
      return;
    }
    fail("the pickle ends at byte " + std::to_string(consumed_ + left) + " before its STOP opcode (truncated" +
         (left ? ", in the middle of the opcode at byte " + std::to_string(consumed_) : std::string()) +
         "): what was complete is loaded");
  }
  salvage();
}

void PickleReader::release() {
  buf_ = std::string();
  pos_ = 0;
  arena_ = std::string();
  stack_ = {};
  marks_ = {};
  memo_ = PickleMemo();
}

}  // namespace ks
