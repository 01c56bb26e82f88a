// The event fast path (event_fast_path.h), which reads plain events without simdjson's
// On-Demand to make the wasm core faster, must read every event exactly as On-Demand does, or
// decline it. These tests compare the decoder's
// output — every field of every RawEvent, its offset, and the health counters — with the fast
// path on and off, on hand-made events full of the quirks that could part them (quotes,
// backslashes and braces in strings, escapes, unicode, odd whitespace, duplicate keys, numbers
// written as strings), on every fixture in tests/data, and with chunk boundaries at every
// offset of a small trace.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace/event_decoder.h"
#include "core/trace/event_fast_path.h"
#include "core/trace/scan_feed.h"
#include "core/util/numbers.h"
#include "core/session/views.h"
#include "test_util.h"

namespace {

// Everything the decoder hands over, as text (the views die when on_event returns).
std::string dump(const ks::RawEvent& e, uint64_t offset) {
  std::ostringstream o;
  auto sv = [&](const char* name, std::string_view v) { o << name << "=[" << v << "] "; };
  auto num = [&](const char* name, double v) { o << name << "=" << v << " "; };
  o << "@" << offset << " ";
  sv("ph", e.ph); sv("cat", e.cat); sv("name", e.name); sv("pid", e.pid); sv("tid", e.tid);
  sv("id", e.id); sv("bp", e.bp); sv("ts", e.ts); sv("dur", e.dur);
  o << "has=" << e.has_ph << e.has_cat << e.has_ts << e.has_dur << e.has_id << " ";
  // What the builder takes as ts and dur: the fast path works them out as it reads the number.
  for (const auto& ns : {ks::us_to_ns(e.ts, e.ts_read, e.ts_ns), ks::us_to_ns(e.dur, e.dur_read, e.dur_ns)}) {
    if (ns) o << "ns=" << *ns << " ";
    else o << "ns=none ";
  }
  const ks::RawArgs& a = e.args;
  for (int64_t v : {a.external_id, a.correlation, a.device, a.stream, a.registers_per_thread,
                    a.shared_memory, a.bytes, a.sequence_number, a.fwd_thread_id, a.python_id,
                    a.python_parent_id, a.python_module_id, a.device_type, a.device_id, a.addr,
                    a.mem_bytes, a.total_allocated, a.total_reserved, a.in_msg_nelems,
                    a.out_msg_nelems, a.group_size})
    o << v << ",";
  num("bps", a.blocks_per_sm); num("wps", a.warps_per_sm); num("occ", a.occupancy_pct);
  num("bw", a.bandwidth_gbps);
  o << "grid=" << a.grid[0] << "," << a.grid[1] << "," << a.grid[2] << " ";
  o << "block=" << a.block[0] << "," << a.block[1] << "," << a.block[2] << " ";
  sv("dims", a.input_dims); sv("type", a.input_type); sv("stack", a.call_stack);
  sv("module", a.module_hierarchy); sv("concrete", a.concrete_inputs); sv("coll", a.collective_name); sv("dtype", a.dtype);
  sv("pg", a.process_group_name); sv("ranks", a.process_group_ranks); sv("meta", a.meta_value);
  for (int i = 0; i < a.numeric_count; ++i)
    o << "num[" << a.numeric_keys[size_t(i)] << "]=[" << a.numeric_tokens[size_t(i)] << "] ";
  return o.str();
}

struct Recorder : ks::EventSink {
  std::vector<std::string> events;
  void on_event(const ks::RawEvent& e, uint64_t offset) override { events.push_back(dump(e, offset)); }
};

std::string health_dump(const ks::TraceHealth& h) {
  std::ostringstream o;
  for (size_t r = 0; r < size_t(ks::HealthReason::kCount); ++r) {
    const auto& e = h.get(ks::HealthReason(r));
    o << e.count << "@" << e.sample_offset << " ";
  }
  return o.str();
}

struct Decoded {
  std::vector<std::string> events;
  std::string health;
  uint64_t direct = 0;  // events read straight from the buffer
};

// Top-level members as the decoder hands them over.
struct Members {
  std::vector<std::string> seen;
  ks::EventDecoder::MemberFn fn() {
    return [this](std::string_view k, std::string_view v, uint64_t at) {
      seen.push_back(std::string(k) + "=" + std::string(v) + "@" + std::to_string(at));
    };
  }
};

// Scanner + decoder as TraceReader runs them (EventDecoder::read), in chunks of `chunk` bytes.
// The fast path on: events read straight from the buffer where they can be, the rest found by
// the scanner; off: every event found by the scanner and read by simdjson.
Decoded decode(const std::string& text, size_t chunk, bool fast) {
  ks::ScanFeed feed;
  ks::EventDecoder decoder;
  decoder.set_fast_path(fast);
  ks::TraceHealth health;
  Recorder rec;
  Members members;
  auto process = [&](bool final) {
    decoder.read(feed, final, rec, health, members.fn());
    feed.release();
  };
  for (size_t i = 0; i < text.size() && !feed.scanner().failed(); i += chunk) {
    const size_t n = std::min(chunk, text.size() - i);
    std::memcpy(feed.prepare(n), text.data() + i, n);
    feed.commit(n);
    process(false);
  }
  if (!feed.scanner().failed()) process(true);
  // The members go with the events (TraceReader reads both): compared as one list.
  for (std::string& m : members.seen) rec.events.push_back("member " + m);
  return {std::move(rec.events), health_dump(health), decoder.direct_events()};
}

void require_same(const std::string& text, size_t chunk) {
  const Decoded slow = decode(text, text.size() ? text.size() : 1, false);
  const Decoded fast = decode(text, chunk, true);
  REQUIRE(fast.events.size() == slow.events.size());
  for (size_t i = 0; i < fast.events.size(); ++i) {
    INFO("event " << i);
    REQUIRE(fast.events[i] == slow.events[i]);
  }
  REQUIRE(fast.health == slow.health);
}

// Events that stress what the two readers could disagree on. Some the fast path reads, some it
// must decline (escapes, unicode, control characters, bare N/A, bad numbers): either way the
// decoder's output must be simdjson's.
const char* const kEvents[] = {
    R"J({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":10.5,"dur":3,"args":{"External id":7,"Input Dims":[[2, 3], []] ,"Input type":["float", ""],"Sequence number":4,"Fwd thread id":1,"Ev Idx":0}})J",
    R"J({ "ph" : "X" , "cat" : "kernel" , "name" : "void k<{[\"x\"]}>()" , "pid" : 0 , "tid" : "stream 7" , "ts" : 1712195495519689.047 , "dur" : 2.250 , "args" : { "correlation" : 9 , "grid" : [ 4 , 1 , 1 ] , "block" : [256,1] , "registers per thread" : 32 , "est. achieved occupancy %" : 50 } })J",
    R"J({"ph":"X","cat":"kernel","name":"braces {} [] and \"quotes\" and \\ backslash","pid":0,"tid":7,"ts":1,"dur":2,"args":{"grid":[1,2,3,4],"block":"256","device":"0","stream":7.0}})J",
    R"J({"ph":"X","cat":"cpu_op","name":"names with { [ , : ] } inside","pid":"p","tid":"t","ts":"12.5","dur":"3","args":{"Call stack":"a.py(1): f;b.py(2): g","Module Hierarchy":"top.mod"}})J",
    R"J({"ph":"X","cat":"cpu_op","name":"caf\u00e9 \ud83d\ude00 escaped","pid":1,"tid":1,"ts":1,"dur":1})J",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"caf\xc3\xa9 \xf0\x9f\x98\x80 raw utf-8\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad \xff byte\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"tab\there\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}",
    R"J({"ph":"X","cat":"cpu_op","name":"n/a","pid":1,"tid":1,"ts":1,"dur":N/A})J",
    R"J({"ph":"X","cat":"cpu_op","name":"dups","pid":1,"pid":2,"tid":1,"ts":1,"ts":null,"dur":1,"args":{"External id":1,"External id":"2","external id":3}})J",
    R"J({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":5,"s":"t","args":{"Device Type":1,"Device Id":0,"Addr":94269,"Bytes":-512,"Total Allocated":1024,"Total Reserved":2048}})J",
    R"J({"ph":"C","name":"util","pid":0,"ts":7,"args":{"a":1,"b":2.5e3,"c":-0.0,"d":"3","e":true,"f":null,"g":[1],"h":{"x":1},"i":1E+2 }})J",
    R"J({"ph":"C","name":"many","pid":0,"ts":7,"args":{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}})J",
    R"J({"ph":"f","id":1,"pid":1,"tid":1,"ts":1,"cat":"fwdbwd","name":"fwdbwd","bp":"e"})J",
    R"J({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"thread 1 (python)"}})J",
    R"J({"ph":"M","name":"process_labels","pid":1,"args":{"labels":"GPU 0"}})J",
    R"J({"ph":"X","cat":"cpu_op","name":true,"pid":false,"tid":null,"ts":1,"dur":1,"id":12,"bp":{"a":[]},"args":[1,2]})J",
    R"J({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":1,"dur":1,"args":{"bytes":1048576,"memory bandwidth (GB/s)":12.5,"device":0}})J",
    R"J({"ph":"X","cat":"cpu_op","name":"nccl:all_reduce","pid":1,"tid":1,"ts":1,"dur":1,"args":{"Collective name":"allreduce","dtype":"Float","In msg nelems":10,"Out msg nelems":10,"Group size":2,"Process Group Name":"0","Process Group Ranks":[0, 1]  }})J",
    R"J({"ph":"X","cat":"python_function","name":"f","pid":1,"tid":1,"ts":1,"dur":1,"args":{"Python id":3,"Python parent id":2,"Python module id":1}})J",
    R"J({"ph":"X","cat":"cpu_op","name":"numbers","pid":01,"tid":-,"ts":1.,"dur":.5})J",
    R"J({"ph":"X","cat":"cpu_op","name":"big","pid":123456789012345678901234567890,"tid":1,"ts":1e400,"dur":-3})J",
    R"J({"ph":"X","cat":"cpu_op","name":"literal","pid":nul,"tid":tru,"ts":1,"dur":1})J",
    R"J({"ph":"X","cat":"cpu_op","name":"trailing comma","pid":1,"tid":1,"ts":1,"dur":1,})J",
    R"J({"ph":"X","name":"deep","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}})J",
    R"J({})J",
    R"J({"ph":"B","pid":1,"tid":1,"ts":1,"name":"b"})J",
    R"J({"ph":"E","pid":1,"tid":1,"ts":2})J",
    "{\"ph\"\t:\r\n\"X\",\n  \"cat\": \"cpu_op\",\n  \"name\": \"crlf\",\n  \"pid\": 1,\n  \"tid\": 1,\n  \"ts\": 1 ,\n  \"dur\": 2\n}",
    // A declined event with numeric args right before an accepted one: each keeps its own.
    R"J({"ph":"C","name":"caf\u00e9","pid":0,"ts":7,"args":{"z":9,"y":8}})J",
    R"J({"ph":"C","name":"cafe","pid":0,"ts":8,"args":{"a":1,"b":2}})J",
};

std::string trace_of(const std::vector<std::string>& events, const char* sep = ",\n") {
  std::string t = R"({"schemaVersion":1,"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) {
    if (i) t += sep;
    t += events[i];
  }
  t += "]}";
  return t;
}

}  // namespace

TEST_CASE("the SIMD string scan finds what the scalar one finds", "[fast_path]") {
  // Every length up to 80 with one special byte at every position, over plain text.
  const unsigned char specials[] = {'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff, ' ', 'a', '{', '}'};
  for (size_t n = 0; n <= 80; ++n) {
    for (size_t at = 0; at <= n; ++at) {
      for (unsigned char s : specials) {
        std::string text(n + 16, 'x');
        if (at < n) text[at] = char(s);
        INFO("n " << n << " at " << at << " byte " << int(s));
        REQUIRE(ks::find_string_special(text.data(), n) == ks::find_string_special_scalar(text.data(), n));
      }
    }
  }
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text(1 + rng() % 100, ' ');
    for (char& c : text) c = char(rng() % 8 == 0 ? rng() % 256 : 'a' + rng() % 26);
    REQUIRE(ks::find_string_special(text.data(), text.size()) ==
            ks::find_string_special_scalar(text.data(), text.size()));
  }
}

TEST_CASE("the fast path reads plain events and declines the rest", "[fast_path]") {
  ks::RawEvent e;
  REQUIRE(ks::read_event_fast(kEvents[0], e));
  CHECK(e.name == "aten::mm");
  CHECK(e.ts == "10.5");
  CHECK(e.args.input_dims == "[[2, 3], []] ");  // raw_json(): up to the next comma, as simdjson
  ks::RawEvent escaped;
  CHECK_FALSE(ks::read_event_fast(kEvents[2], escaped));  // backslashes: simdjson unescapes
  ks::RawEvent utf8;
  CHECK_FALSE(ks::read_event_fast(kEvents[5], utf8));     // non-ASCII: simdjson validates
  ks::RawEvent trailing;
  CHECK_FALSE(ks::read_event_fast(kEvents[23], trailing));  // not JSON
}

TEST_CASE("the fast path gives what simdjson gives, event by event", "[fast_path]") {
  for (const char* ev : kEvents) {
    INFO(ev);
    require_same(trace_of({ev}), 1 << 20);
  }
  // All together (runs of declined events between accepted ones), also with junk between.
  const std::vector<std::string> all(std::begin(kEvents), std::end(kEvents));
  require_same(trace_of(all), 1 << 20);
  require_same(trace_of(all, ", 5, "), 1 << 20);
  require_same(trace_of(all, ",,"), 1 << 20);
}

TEST_CASE("the fast path gives what simdjson gives with a chunk boundary at every offset", "[fast_path]") {
  std::vector<std::string> some;
  for (size_t i : {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 13, 16, 28, 29, 30})
    some.emplace_back(kEvents[i]);
  const std::string text = trace_of(some);
  const Decoded slow = decode(text, text.size(), false);
  for (size_t split = 1; split < text.size(); ++split) {
    INFO("split at " << split);
    // Two chunks: the boundary at `split`.
    ks::ScanFeed feed;
    ks::EventDecoder decoder;
    ks::TraceHealth health;
    Recorder rec;
    Members members;
    for (const auto& [from, to] : {std::pair<size_t, size_t>{0, split}, {split, text.size()}}) {
      std::memcpy(feed.prepare(to - from), text.data() + from, to - from);
      feed.commit(to - from);
      decoder.read(feed, false, rec, health, members.fn());
      feed.release();
    }
    decoder.read(feed, true, rec, health, members.fn());
    for (std::string& m : members.seen) rec.events.push_back("member " + m);
    REQUIRE(rec.events == slow.events);
    REQUIRE(health_dump(health) == slow.health);
  }
  for (size_t chunk : {1, 2, 3, 7, 64, 65, 200}) {
    INFO("chunk " << chunk);
    require_same(text, chunk);
  }
}

TEST_CASE("events are read straight from the buffer, and again after one the fast path declines", "[fast_path]") {
  // 3,000 plain events in chunks of 4,093 bytes: only an event a chunk boundary cuts, and one
  // the fast path declines (every 50th here, escaped) with the rest of its chunk, go the
  // scanner's way; the next chunk is read directly again. Either way the events, members and
  // health are simdjson's.
  for (bool with_declined : {false, true}) {
    INFO("declined events: " << with_declined);
    std::vector<std::string> events;
    for (int i = 0; i < 3000; ++i) events.emplace_back(with_declined && i % 50 == 7 ? kEvents[4] : kEvents[0]);
    const std::string text = trace_of(events);
    const size_t chunks = text.size() / 4093 + 1;
    const Decoded fast = decode(text, 4093, true);
    const Decoded slow = decode(text, text.size(), false);
    REQUIRE(fast.events == slow.events);
    REQUIRE(fast.health == slow.health);
    CHECK(slow.direct == 0);
    if (!with_declined) {
      CHECK(fast.direct >= events.size() - chunks);
    } else {
      // A chunk holds ~19 events and a declined one every 50: most chunks hold none.
      CHECK(fast.direct > events.size() / 2);
      CHECK(fast.direct < events.size() - chunks);
    }
  }
}

TEST_CASE("the fast path gives what simdjson gives on every fixture", "[fast_path]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const char* dir : {"tests/data", "tests/data/hostile"}) {
    const fs::path p(kstest::repo_path(dir));
    if (!fs::is_directory(p)) continue;
    for (const auto& f : fs::directory_iterator(p))
      if (f.is_regular_file() && f.path().extension() == ".json" && f.file_size() < (8u << 20))
        files.push_back(f.path());
  }
  REQUIRE(files.size() > 20);
  for (const auto& f : files) {
    INFO(f.string());
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    require_same(ss.str(), 4 << 20);
    require_same(ss.str(), 4093);
  }
}

TEST_CASE("the reader's summary is the same with the fast path off", "[fast_path]") {
  const std::vector<std::string> all(std::begin(kEvents), std::end(kEvents));
  for (const std::string& text : {trace_of(all), kstest::read_fixture("ns-fractional-timestamps.json"),
                                  kstest::read_fixture("big-ints-and-non-ascii.json")}) {
    ks::TraceReader fast, slow;
    slow.set_fast_path(false);
    kstest::feed_all(fast, text, 1000);
    kstest::feed_all(slow, text, text.size());
    REQUIRE(ks::answer_json(ks::summary_model_answer(fast.model(), "f", fast.error())) == ks::answer_json(ks::summary_model_answer(slow.model(), "f", slow.error())));
  }
}

TEST_CASE("the fast path's ts, dur and integer args are the numbers' own parse", "[fast_path]") {
  // The fast path adds up a number's digits as it reads them (ts and dur in ns, ints truncated);
  // simdjson's path parses the tokens. Random numbers of every length, sign, decimal count and
  // exponent, at the edges of int64 and of parse_us_to_ns's range and rounding.
  kstest::Random rng{31};
  auto number = [&]() {
    std::string t = rng.below(4) == 0 ? "-" : "";
    const int int_digits = 1 + int(rng.below(22));
    t += rng.below(8) == 0 ? '0' : char('1' + rng.below(9));
    if (t.back() != '0')
      for (int d = 1; d < int_digits; ++d) t += char('0' + rng.below(10));
    if (rng.below(2)) {
      t += '.';
      const int frac = 1 + int(rng.below(7));
      for (int d = 0; d < frac; ++d) t += char('0' + rng.below(10));
    }
    if (rng.below(8) == 0) t += (rng.below(2) ? "e" : "E-") + std::to_string(rng.below(25));
    return t;
  };
  std::vector<std::string> events;
  for (const char* edge : {"9223372036854775", "9223372036854775.807", "9223372036854775.8075", "9223372036854776",
                           "999999999999999999", "999999999999999999.9995", "1000000000000000000", "-0.0005",
                           "0.0004999", "-9223372036854775.808", "922337203685477580", "9223372036854775807",
                           // digit runs that end exactly at, just before and just after 8 and 16
                           // (read eight at a time, then one by one)
                           "12345678", "1234567", "123456789", "1234567812345678", "123456781234567.5",
                           "12345678123456789.25", "99999999999999999999", "10000000.0001", "-87654321e3"})
    events.push_back(std::string(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)") + edge +
                     R"(,"dur":)" + edge + R"(,"args":{"correlation":)" + edge + R"(,"External id":)" + edge + "}}");
  for (int i = 0; i < 20000; ++i)
    events.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + number() + R"(,"dur":)" + number() +
                     R"(,"args":{"correlation":)" + number() + R"(,"device":)" + number() + "}}");
  require_same(trace_of(events), 1 << 20);
}

TEST_CASE("the fast path gives what simdjson gives on mutated events", "[fast_path]") {
  // One byte of an event replaced by a character that matters to a JSON reader: whatever the
  // fast path makes of the result (read or declined), the decoder's output is simdjson's.
  const char bytes[] = {'"', '{', '}', '[', ']', ',', ':', ' ', '\\', '0', '-', '.', 'e', '1', 'a',
                        'n', 't', '\t', '\n', char(0x80), char(0xc3), char(0x01)};
  std::mt19937 rng(99);
  for (const char* ev : kEvents) {
    const std::string base(ev);
    for (int trial = 0; trial < 150; ++trial) {
      std::string m = base;
      m[rng() % m.size()] = bytes[rng() % sizeof bytes];
      if (trial % 3 == 0) m.erase(rng() % m.size(), 1);
      INFO(m);
      require_same(trace_of({m}), 1 << 20);
    }
  }
}
