// The safe pickle reader (core/snapshot/pickle_reader.h): what it builds from each opcode of
// protocols 2-5, the same events whatever the chunk size, and a sentence (never a crash, never a
// call) for every hostile input: each refused opcode, protocols 0/1, deep nesting, huge memo
// indices, a 2 GB string length, a truncation at every byte.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/snapshot/pickle_reader.h"
#include "test_util.h"

namespace {

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(char(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

// Writes every event as a line: "item <container> [<key>] <value>" and "root <value>".
struct Log final : ks::PickleSink {
  std::string out;
  static std::string val(const ks::PickleReader& r, const ks::PickleValue& v) {
    switch (v.kind) {
      case ks::PickleKind::kNone: return "None";
      case ks::PickleKind::kBool: return v.i ? "True" : "False";
      case ks::PickleKind::kInt: return std::to_string(v.i);
      case ks::PickleKind::kBigInt: return "big:" + std::to_string(v.f);
      case ks::PickleKind::kFloat: return "float:" + std::to_string(v.f);
      case ks::PickleKind::kStr: return "'" + std::string(r.text(v)) + "'";
      case ks::PickleKind::kBytes: return "b'" + std::string(r.text(v)) + "'";
      case ks::PickleKind::kDict: return "dict#" + std::to_string(v.id);
      case ks::PickleKind::kList: return "list#" + std::to_string(v.id);
      case ks::PickleKind::kTuple: return "tuple#" + std::to_string(v.id);
      case ks::PickleKind::kSet: return "set#" + std::to_string(v.id);
      default: return "?";
    }
  }
  void on_item(ks::PickleReader& r, const ks::PickleValue& c, const ks::PickleValue* key, const ks::PickleValue& v) override {
    out += "item " + val(r, c) + (key ? " " + val(r, *key) : std::string()) + " " + val(r, v) + "\n";
  }
  void on_root(ks::PickleReader& r, const ks::PickleValue& v) override { out += "root " + val(r, v) + "\n"; }
};

struct Run {
  Log log;
  ks::PickleReader r{log};
  Run(const std::string& bytes, size_t chunk, bool sized = true) {
    if (sized) r.set_total_size(bytes.size());
    for (size_t i = 0; i < bytes.size(); i += chunk) r.feed(bytes.data() + i, std::min(chunk, bytes.size() - i));
    r.finish();
  }
};

// pickle.dumps({'a': [1, -2, 2**40, -2**40, 2**70, -2**70, 1.5, True, None, 'x', b'y', (1, 2), {}],
//               'b': 'x'}, protocol=4): FRAME, MEMOIZE, BININT/LONG1 both signs, BINFLOAT, a
// memo GET of 'x', TUPLE2, SETITEMS.
const char* kProtocol4 =
    "8004955b000000000000007d94288c0161945d94284b014afeffffff8a060000000000018a060000000000ff8a09000000000000"
    "0000408a090000000000000000c0473ff8000000000000884e8c017894430179944b014b0286947d94658c0162946803752e";

const char* kExpected4 =
    "item tuple#2 1\n"
    "item tuple#2 2\n"
    "item list#1 1\n"
    "item list#1 -2\n"
    "item list#1 1099511627776\n"
    "item list#1 -1099511627776\n"
    "item list#1 big:1180591620717411303424.000000\n"
    "item list#1 big:-1180591620717411303424.000000\n"
    "item list#1 float:1.500000\n"
    "item list#1 True\n"
    "item list#1 None\n"
    "item list#1 'x'\n"
    "item list#1 b'y'\n"
    "item list#1 tuple#2\n"
    "item list#1 dict#3\n"
    "item dict#0 'a' list#1\n"
    "item dict#0 'b' 'x'\n"
    "root dict#0\n";

}  // namespace

TEST_CASE("pickle reader: every value kind of protocol 4, in any chunk size", "[pickle]") {
  const std::string bytes = unhex(kProtocol4);
  for (size_t chunk : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(4 << 20)}) {
    Run run(bytes, chunk);
    INFO("chunk " << chunk);
    CHECK(run.r.error() == "");
    CHECK(run.r.done());
    CHECK(run.r.protocol() == 4);
    CHECK(run.log.out == kExpected4);
  }
}

TEST_CASE("pickle reader: protocols 2 to 5 of the hand-made snapshot give the same events", "[pickle]") {
  std::string first;
  for (int p = 2; p <= 5; ++p) {
    const std::string bytes = kstest::read_fixture("snapshots/hand-made-protocol" + std::to_string(p) + ".pickle");
    REQUIRE(bytes.size() > 100);
    Run run(bytes, 5);
    INFO("protocol " << p);
    CHECK(run.r.error() == "");
    CHECK(run.r.protocol() == p);
    if (p == 2) first = run.log.out;
    CHECK(run.log.out == first);
  }
}

TEST_CASE("pickle reader: each opcode that would run code is refused with its name and offset", "[pickle][hostile]") {
  // Each after "\x80\x04" (byte 2), with enough argument bytes that only the refusal can stop it.
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"GLOBAL", "cos\nsystem\n"},      {"STACK_GLOBAL", "\x93"},   {"REDUCE", "R"},
      {"BUILD", "b"},                   {"INST", "ios\nsystem\n"},  {"OBJ", "o"},
      {"NEWOBJ", "\x81"},               {"NEWOBJ_EX", "\x92"},      {"EXT1", std::string("\x82\x01", 2)},
      {"EXT2", std::string("\x83\x01\x00", 3)}, {"EXT4", std::string("\x84\x01\x00\x00\x00", 5)},
      {"PERSID", "P1\n"},               {"BINPERSID", "Q"},         {"NEXT_BUFFER", "\x97"},
      {"READONLY_BUFFER", "\x98"}};
  for (const auto& [name, op] : ops) {
    Run run(std::string("\x80\x04", 2) + op + "N.", 1);
    INFO(name);
    CHECK(run.r.refused());
    CHECK(run.r.error().find("Refused the pickle's " + name + " opcode") == 0);
    CHECK(run.r.error().find("at byte 2:") != std::string::npos);
    CHECK(run.log.out == "");  // nothing at all reaches the sink
  }
  // Behind values, a MARK and a frame: still its own offset, and nothing of what came before.
  Run late(unhex("800495000000000000000028") + "K\x05" + "cos\nsystem\n", 3);
  CHECK(late.r.error().find("Refused the pickle's GLOBAL opcode (0x63) at byte 14:") == 0);
  CHECK(late.log.out == "");
  // Protocol 2's way of writing bytes calls _codecs.encode: refused too (a snapshot has no bytes).
  Run bytes2(unhex("80027d71002858010000006171015d7102284b014afeffffff8a060000000000018a060000000000ff8a090000000000"
                   "000000408a090000000000000000c0473ff8000000000000884e5801000000787103635f636f646563730a656e636f"
                   "64650a7104580100000079710558060000006c6174696e3171068671075271084b014b028671097d710a6558010000"
                   "0062710b6803752e"),
             64);
  CHECK(bytes2.r.refused());
  CHECK(bytes2.r.error().find("GLOBAL") != std::string::npos);
}

TEST_CASE("pickle reader: protocols 0 and 1 and text opcodes get one sentence", "[pickle][hostile]") {
  for (const char* f : {"snapshots/protocol0.pickle", "snapshots/protocol1.pickle"}) {
    Run run(kstest::read_fixture(f), 4096);
    INFO(f);
    CHECK(run.r.failed());
    CHECK(run.r.error().find("protocol 0 and 1 pickles are not read") != std::string::npos);
    CHECK(run.log.out == "");
  }
  Run text(std::string("\x80\x02I12\n.", 7), 1);
  CHECK(text.r.error() == "The pickle's INT opcode (0x49) at byte 2 belongs to protocol 0, which is not read; write it with protocol 2 or later.");
  Run proto(std::string("\x80\x06N.", 4), 1);
  CHECK(proto.r.error() == "The pickle says it is protocol 6 at byte 0; protocols 2 to 5 are read.");
  Run empty("", 1);
  CHECK(empty.r.error() == "The file is empty.");
}

TEST_CASE("pickle reader: limits against hostile input", "[pickle][hostile]") {
  SECTION("deep nesting: MARKs") {
    Run run(std::string("\x80\x04", 2) + std::string(20000, '('), 4096);
    CHECK(run.r.error() == "The pickle nests deeper than 10000 MARKs at byte 10002.");
  }
  SECTION("deep nesting: lists in lists on the stack") {
    Run run(std::string("\x80\x04", 2) + std::string(ks::PickleReader::kMaxStack + 10, ']'), 1 << 20);
    CHECK(run.r.error() == "More than 4194304 values on the pickle's stack at byte 4194306.");
  }
  SECTION("a huge memo index read") {
    Run run(unhex("80046affffffff2e"), 1);
    CHECK(run.r.error() == "The pickle reads memo index 4294967295 at byte 2, which was never stored (0 entries are).");
  }
  SECTION("a huge memo index stored") {
    Run run(unhex("80044e72ffffffff2e"), 1);
    CHECK(run.r.error() == "The pickle stores memo index 4294967295 at byte 3, past the 0 entries stored so far.");
  }
  SECTION("a 2 GB string length, the file's size known") {
    Run run(unhex("80045800000080") + "abc.", 1);
    CHECK(run.r.error() == "A string of 2147483648 bytes at byte 2 is longer than the 4 bytes left in the file.");
  }
  SECTION("a 2 GB string length, streamed without a size") {
    Run run(unhex("80045800000080") + "abc.", 1, false);
    CHECK(run.r.error() == "A string of 2147483648 bytes at byte 2 is longer than the 1073741824 bytes this reader accepts.");
  }
  SECTION("an 8-byte length beyond everything") {
    Run run(unhex("80048dffffffffffffff7f") + "abc.", 2);
    CHECK(run.r.error().find("A string of 9223372036854775807 bytes at byte 2 is longer than") == 0);
  }
  SECTION("a LONG4 of 1 GB") {
    Run run(unhex("80048b00000040") + "12", 1);
    CHECK(run.r.error() == "An integer of 1073741824 bytes at byte 2 is longer than the 2 bytes left in the file.");
  }
  SECTION("stack underflow and wrong containers") {
    Run a(unhex("8004652e"), 1);  // APPENDS without MARK
    CHECK(a.r.error() == "An opcode at byte 2 needs a MARK and none is open.");
    Run b(unhex("80044e4e612e"), 1);  // APPEND into None
    CHECK(b.r.error() == "The pickle's APPEND at byte 4 puts an item into a value that is not a list.");
    Run c(unhex("80042e"), 1);
    CHECK(c.r.error() == "The pickle's STOP at byte 2 takes 1 value and the stack holds 0.");
    Run d(unhex("8004ff"), 1);
    CHECK(d.r.error() == "Unknown pickle opcode 0xff at byte 2 (the file is corrupt or not a pickle).");
  }
}

TEST_CASE("pickle reader: a truncation at every byte says where and keeps what was complete", "[pickle][hostile]") {
  const std::string bytes = unhex(kProtocol4);
  for (size_t cut = 2; cut < bytes.size(); ++cut) {
    Run run(bytes.substr(0, cut), 3, false);
    INFO("cut at " << cut);
    CHECK(run.r.failed());
    CHECK_FALSE(run.r.refused());
    CHECK(run.r.error().find("The pickle ends at byte " + std::to_string(cut) + " before its STOP opcode") == 0);
    // What it handed on is a prefix of the whole run's items (a salvage adds items below marks).
    if (cut > 12) CHECK(run.log.out.find("root dict#0") != std::string::npos);
  }
}
