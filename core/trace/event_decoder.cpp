#include "core/trace/event_decoder.h"

#include <cstring>
#include <string>
#include <utility>

#include "core/trace/event_fast_path.h"
#include "core/trace/ondemand_values.h"
#include "core/util/numbers.h"
#include "simdjson.h"

namespace ks {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

namespace {

using namespace ondemand_values;

error_code get_dim3(od::value& v, std::array<int32_t, 3>& out) {
  od::json_type t;
  if (auto err = v.type().get(t)) return err;
  if (t != od::json_type::array) return SUCCESS;
  od::array arr;
  if (auto err = v.get_array().get(arr)) return err;
  int i = 0;
  for (auto el : arr) {
    od::value ev;
    if (auto err = std::move(el).get(ev)) return err;
    int64_t n = 0;
    if (auto err = get_int(ev, n)) return err;
    if (i < 3) out[size_t(i)] = static_cast<int32_t>(n);
    ++i;
  }
  return SUCCESS;
}

error_code get_raw(od::value& v, std::string_view& out) {
  od::json_type t;
  if (auto err = v.type().get(t)) return err;
  if (t == od::json_type::string) return v.get_string().get(out);
  return v.raw_json().get(out);
}

error_code decode_args(od::value& v, RawArgs& a) {
  od::json_type t;
  if (auto err = v.type().get(t)) return err;
  if (t != od::json_type::object) return SUCCESS;
  od::object obj;
  if (auto err = v.get_object().get(obj)) return err;
  return for_each_field(obj, [&](std::string_view k, od::value& fv) -> error_code {
    error_code err = SUCCESS;
    if (k == "External id" || k == "external id") err = get_int(fv, a.external_id);
    else if (k == "correlation") err = get_int(fv, a.correlation);
    else if (k == "device") err = get_int(fv, a.device);
    else if (k == "stream") err = get_int(fv, a.stream);
    else if (k == "grid") err = get_dim3(fv, a.grid);
    else if (k == "block") err = get_dim3(fv, a.block);
    else if (k == "registers per thread") err = get_int(fv, a.registers_per_thread);
    else if (k == "shared memory") err = get_int(fv, a.shared_memory);
    else if (k == "blocks per SM") err = get_double(fv, a.blocks_per_sm);
    else if (k == "warps per SM") err = get_double(fv, a.warps_per_sm);
    else if (k == "est. achieved occupancy %") err = get_double(fv, a.occupancy_pct);
    else if (k == "bytes") err = get_int(fv, a.bytes);
    else if (k == "memory bandwidth (GB/s)") err = get_double(fv, a.bandwidth_gbps);
    else if (k == "Input Dims" || k == "Input dims") err = get_raw(fv, a.input_dims);
    else if (k == "Input type") err = get_raw(fv, a.input_type);
    else if (k == "Concrete Inputs") err = get_raw(fv, a.concrete_inputs);
    else if (k == "Call stack") err = scalar_text(fv, a.call_stack);
    else if (k == "Module Hierarchy") err = scalar_text(fv, a.module_hierarchy);
    else if (k == "Sequence number") err = get_int(fv, a.sequence_number);
    else if (k == "Fwd thread id") err = get_int(fv, a.fwd_thread_id);
    else if (k == "Python id") err = get_int(fv, a.python_id);
    else if (k == "Python parent id") err = get_int(fv, a.python_parent_id);
    else if (k == "Python module id") err = get_int(fv, a.python_module_id);
    else if (k == "Device Type") err = get_int(fv, a.device_type);
    else if (k == "Device Id") err = get_int(fv, a.device_id);
    else if (k == "Addr") err = get_int(fv, a.addr);
    else if (k == "Bytes") err = get_int(fv, a.mem_bytes);
    else if (k == "Total Allocated") err = get_int(fv, a.total_allocated);
    else if (k == "Total Reserved") err = get_int(fv, a.total_reserved);
    else if (k == "Collective name") err = scalar_text(fv, a.collective_name);
    else if (k == "dtype") err = scalar_text(fv, a.dtype);
    else if (k == "Process Group Name") err = scalar_text(fv, a.process_group_name);
    else if (k == "Process Group Ranks") err = get_raw(fv, a.process_group_ranks);
    else if (k == "In msg nelems") err = get_int(fv, a.in_msg_nelems);
    else if (k == "Out msg nelems") err = get_int(fv, a.out_msg_nelems);
    else if (k == "Group size") err = get_int(fv, a.group_size);
    else if (k == "name" || k == "labels") err = scalar_text(fv, a.meta_value);
    else {
      od::json_type ft;
      if ((err = fv.type().get(ft))) return err;
      if (ft == od::json_type::number && a.numeric_room()) {
        a.numeric_keys[size_t(a.numeric_count)] = k;
        a.numeric_tokens[size_t(a.numeric_count)] = fv.raw_json_token();
        ++a.numeric_count;
      }
    }
    return err;
  });
}

error_code decode_object(od::object obj, RawEvent& e) {
  return for_each_field(obj, [&](std::string_view k, od::value& v) -> error_code {
    error_code err = SUCCESS;
    if (k == "ph") {
      err = scalar_text(v, e.ph);
      e.has_ph = !e.ph.empty();
    } else if (k == "cat") {
      err = scalar_text(v, e.cat);
      e.has_cat = true;
    } else if (k == "name") {
      err = scalar_text(v, e.name);
    } else if (k == "pid") {
      err = scalar_text(v, e.pid);
    } else if (k == "tid") {
      err = scalar_text(v, e.tid);
    } else if (k == "ts") {
      err = number_token(v, e.ts, e.has_ts);
    } else if (k == "dur") {
      err = number_token(v, e.dur, e.has_dur);
    } else if (k == "id") {
      err = scalar_text(v, e.id);
      e.has_id = true;
    } else if (k == "bp") {
      err = scalar_text(v, e.bp);
    } else if (k == "args") {
      err = decode_args(v, e.args);
    }
    return err;
  });
}

// Rewrites one event so a strict parser reads what its writer meant: bare N/A becomes "N/A",
// raw control characters inside strings become \u00XX escapes, bytes that are not UTF-8 become
// '?'. (tb_plugin does the first two with Python's json module.)
struct RepairFlags {
  bool bare_na = false, control_chars = false, invalid_utf8 = false;
};

size_t utf8_sequence_length(const unsigned char* p, size_t avail) {
  const unsigned char c = p[0];
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
  if (n == 0 || n > avail) return 0;
  for (size_t i = 1; i < n; ++i)
    if ((p[i] & 0xC0) != 0x80) return 0;
  return n;
}

void repair(std::string_view in, std::string& out, RepairFlags& flags) {
  out.clear();
  out.reserve(in.size() + 16);
  bool in_str = false, esc = false;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned char c = p[i];
    if (c >= 0x80) {
      const size_t n = utf8_sequence_length(p + i, in.size() - i);
      if (n == 0 || !in_str) {
        out.push_back('?');
        flags.invalid_utf8 = true;
      } else {
        out.append(in.data() + i, n);
        i += n - 1;
      }
      esc = false;
      continue;
    }
    if (in_str) {
      if (esc) {
        esc = false;
        out.push_back(char(c));
      } else if (c == '\\') {
        esc = true;
        out.push_back(char(c));
      } else if (c == '"') {
        in_str = false;
        out.push_back(char(c));
      } else if (c < 0x20) {
        static const char hex[] = "0123456789abcdef";
        out += "\\u00";
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
        flags.control_chars = true;
      } else {
        out.push_back(char(c));
      }
    } else if (c == '"') {
      in_str = true;
      out.push_back('"');
    } else if (c == 'N' && in.substr(i, 3) == "N/A") {
      out += "\"N/A\"";
      i += 2;
      flags.bare_na = true;
    } else {
      out.push_back(char(c));
    }
  }
}

}  // namespace

struct EventDecoder::Impl {
  od::parser parser;
  std::string batch;   // '[' events ']' + padding
  std::string single;  // one event + padding
  std::string repaired;
  NumericScratch numeric;       // events read by simdjson
  NumericScratch fast_numeric;  // events read by the fast path (kept while a declined run is read)

  static void pad(std::string& s) { s.append(simdjson::SIMDJSON_PADDING, ' '); }

  // Decodes spans[first..] as one document; returns how many events reached the sink.
  // `give_up` is set when the run cannot be resumed one event further (a failure of the
  // whole document, or elements that do not line up with spans).
  size_t run(const char* buf, const std::vector<ChunkScanner::Span>& spans, size_t first,
             uint64_t base, EventSink& sink, bool& give_up) {
    give_up = false;
    const size_t begin = spans[first].begin, end = spans.back().end;
    batch.clear();
    batch.reserve(end - begin + 2 + simdjson::SIMDJSON_PADDING);
    batch.push_back('[');
    batch.append(buf + begin, end - begin);
    batch.push_back(']');
    const size_t len = batch.size();
    pad(batch);
    od::document doc;
    if (parser.iterate(batch.data(), len, batch.size()).get(doc)) {
      give_up = true;
      return 0;
    }
    od::array arr;
    if (doc.get_array().get(arr)) {
      give_up = true;
      return 0;
    }
    size_t k = 0;
    for (auto el : arr) {
      if (first + k >= spans.size()) {  // more elements than spans: junk between events
        give_up = true;
        return k;
      }
      od::object obj;
      if (el.get_object().get(obj)) {
        give_up = true;
        return k;
      }
      RawEvent e;
      numeric.attach(e.args);
      if (decode_object(obj, e)) return k;
      // On-Demand trusts structure it has not validated, so around a malformed event it can
      // see other boundaries than the scanner's. An event counts only where both agree; else
      // the rest goes one by one, so a neighbour never changes how an event is read.
      const char* at = nullptr;
      if (doc.current_location().get(at) ||
          at != batch.data() + 1 + (spans[first + k].end - begin)) {
        give_up = true;
        return k;
      }
      sink.on_event(e, base + spans[first + k].begin);
      ++k;
    }
    if (first + k < spans.size()) give_up = true;
    return k;
  }

  bool parse_one(std::string_view text, RawEvent& e) {
    numeric.attach(e.args);
    single.assign(text.data(), text.size());
    pad(single);
    od::document doc;
    if (parser.iterate(single.data(), text.size(), single.size()).get(doc)) return false;
    od::object obj;
    if (doc.get_object().get(obj)) return false;
    if (decode_object(obj, e)) return false;
    return doc.at_end();
  }

  void one(const char* buf, const ChunkScanner::Span& span, uint64_t base, EventSink& sink,
           TraceHealth& health) {
    const std::string_view text(buf + span.begin, span.end - span.begin);
    const uint64_t offset = base + span.begin;
    {
      RawEvent e;
      if (parse_one(text, e)) {
        sink.on_event(e, offset);
        return;
      }
    }
    RepairFlags flags;
    std::string fixed;
    repair(text, fixed, flags);
    RawEvent e;
    if ((flags.bare_na || flags.control_chars || flags.invalid_utf8) && parse_one(fixed, e)) {
      if (flags.bare_na) health.add(HealthReason::kRepairedBareNA, offset);
      if (flags.control_chars) health.add(HealthReason::kRepairedControlChars, offset);
      if (flags.invalid_utf8) health.add(HealthReason::kRepairedInvalidUtf8, offset);
      sink.on_event(e, offset);
      return;
    }
    health.add(HealthReason::kMalformedEvent, offset);
  }
};

EventDecoder::EventDecoder() : impl_(new Impl) {}
EventDecoder::~EventDecoder() = default;
void EventDecoder::free_buffers() { impl_.reset(new Impl); }

void EventDecoder::decode(const char* buf, const std::vector<ChunkScanner::Span>& spans,
                          uint64_t base_offset, EventSink& sink, TraceHealth& health) {
  if (!fast_path_) {
    decode_simdjson(buf, spans, base_offset, sink, health);
    return;
  }
  // Declined events are handed to simdjson in runs, before the next accepted one, so the sink
  // sees events in file order. A run holds consecutive spans, so the text between them (junk
  // included) is what the simdjson path always saw.
  declined_.clear();
  for (const ChunkScanner::Span& s : spans) {
    RawEvent e;
    impl_->fast_numeric.attach(e.args);
    if (read_event_fast(std::string_view(buf + s.begin, s.end - s.begin), e)) {
      if (!declined_.empty()) {
        decode_simdjson(buf, declined_, base_offset, sink, health);
        declined_.clear();
      }
      sink.on_event(e, base_offset + s.begin);
    } else {
      declined_.push_back(s);
    }
  }
  if (!declined_.empty()) decode_simdjson(buf, declined_, base_offset, sink, health);
}

void EventDecoder::read(ScanFeed& feed, bool final, EventSink& sink, TraceHealth& health, const MemberFn& on_member) {
  bool direct = fast_path_;
  for (;;) {
    const bool not_taken = direct && read_direct(feed, sink);
    feed.scan(final, health, direct);
    const uint64_t base = feed.base_offset();
    for (const auto& mem : feed.members()) on_member(feed.text(mem.key), feed.text(mem.value), base + mem.value.begin);
    if (!feed.events().empty()) decode(feed.data(), feed.events(), base, sink, health);
    if (!feed.scanner().paused()) return;
    // The scan paused after the element the fast path did not take, so it was whole: declined.
    if (not_taken) direct = false;
  }
}

bool EventDecoder::read_direct(ScanFeed& feed, EventSink& sink) {
  ChunkScanner& scanner = feed.scanner();
  const char* buf = feed.data();
  const char* end = buf + feed.size();
  const uint64_t base = feed.base_offset();
  for (;;) {
    const size_t at = scanner.next_object(buf, feed.size(), base);
    if (at == ChunkScanner::npos) return false;
    RawEvent e;
    impl_->fast_numeric.attach(e.args);
    const char* q = read_event_prefix(buf + at, end, e);
    if (!q) return true;  // declined, or it runs past the bytes held
    sink.on_event(e, base + at);
    ++direct_events_;
    scanner.took_object(size_t(q - buf));
  }
}

void EventDecoder::decode_simdjson(const char* buf, const std::vector<ChunkScanner::Span>& spans,
                                   uint64_t base_offset, EventSink& sink, TraceHealth& health) {
  size_t i = 0;
  int failures = 0;
  bool per_event = false;
  while (i < spans.size()) {
    if (!per_event) {
      bool give_up = false;
      i += impl_->run(buf, spans, i, base_offset, sink, give_up);
      if (i >= spans.size()) break;
      // Event i failed inside an otherwise good run: read it alone, then resume the run.
      // After a second failure (or a failure of the whole run) go one by one: a chunk full of
      // bad events must not be re-parsed once per event.
      per_event = give_up || ++failures >= 2;
      if (!per_event) {
        impl_->one(buf, spans[i], base_offset, sink, health);
        ++i;
      }
      continue;
    }
    impl_->one(buf, spans[i], base_offset, sink, health);
    ++i;
  }
}

}  // namespace ks
