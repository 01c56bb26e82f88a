#include "core/trace/trace_trimmer.h"

#include <optional>
#include <string_view>

#include "core/util/numbers.h"

namespace ks {

namespace {

// The few top-level fields of one event the window needs, read without building a document.
struct Fields {
  std::string_view ph, ts, dur, id, cat, name;
};

size_t skip_ws(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// s[i] == '"': the index just past the closing quote, or npos.
size_t skip_string(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}

size_t skip_value(std::string_view s, size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = skip_string(s, i);
        if (i == std::string_view::npos) return i;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return std::string_view::npos;
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
  return i;
}

std::optional<Fields> read_fields(std::string_view s) {
  Fields f;
  size_t i = skip_ws(s, 0);
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  i = skip_ws(s, i + 1);
  if (i < s.size() && s[i] == '}') return f;
  while (i < s.size()) {
    if (s[i] != '"') return std::nullopt;
    const size_t key_end = skip_string(s, i);
    if (key_end == std::string_view::npos) return std::nullopt;
    const std::string_view key = s.substr(i + 1, key_end - i - 2);
    i = skip_ws(s, key_end);
    if (i >= s.size() || s[i] != ':') return std::nullopt;
    i = skip_ws(s, i + 1);
    const size_t end = skip_value(s, i);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view v = s.substr(i, end - i);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\n' || v.back() == '\r' || v.back() == '\t')) v.remove_suffix(1);
    if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
    if (key == "ph") f.ph = v;
    else if (key == "ts") f.ts = v;
    else if (key == "dur") f.dur = v;
    else if (key == "id") f.id = v;
    else if (key == "cat") f.cat = v;
    else if (key == "name") f.name = v;
    i = skip_ws(s, end);
    if (i < s.size() && s[i] == ',') i = skip_ws(s, i + 1);
    else if (i < s.size() && s[i] == '}') return f;
    else return std::nullopt;
  }
  return std::nullopt;
}

void append_joined(std::string& out, std::string_view text, const char* sep) {
  if (!out.empty()) out += sep;
  out += text;
}

}  // namespace

std::string_view trim_kind_name(TrimKind k) {
  switch (k) {
    case TrimKind::kMetadata: return "metadata";
    case TrimKind::kDuration: return "duration";
    case TrimKind::kInstant: return "instant";
    case TrimKind::kFlow: return "flow";
    case TrimKind::kUnreadable: return "unreadable";
  }
  return "";
}

void TraceTrimmer::commit(size_t n) {
  if (finished_ || failed()) return;
  feed_.commit(n);
  process(false);
}

void TraceTrimmer::take_event(std::string_view text) {
  ++total_;
  auto drop = [&](TrimKind k) { ++counts_.dropped[size_t(k)]; };
  const std::optional<Fields> f = read_fields(text);
  if (!f) return drop(TrimKind::kUnreadable);  // not an event (the reader counts it in trace health)
  auto keep = [&](TrimKind k) {
    append_joined(events_, text, ",\n");
    ++kept_;
    ++counts_.kept[size_t(k)];
  };
  if (f->ph == "M") return keep(TrimKind::kMetadata);
  const std::optional<int64_t> ts = parse_us_to_ns(f->ts);
  if (!ts) return drop(TrimKind::kUnreadable);
  if (f->ph == "s" || f->ph == "t" || f->ph == "f") {
    ++flow_events_;
    std::string key(f->cat);
    key += '\x1f';
    key += f->id;
    key += '\x1f';
    key += f->name;
    auto [it, fresh] = flow_index_.try_emplace(std::move(key), flows_.size());
    if (fresh) flows_.emplace_back();
    Flow& flow = flows_[it->second];
    if (*ts < start_ns_ || *ts > end_ns_) flow.outside = true;
    else if (!flow.outside) flow.texts.emplace_back(text);
    if (flow.outside) flow.texts.clear();
    return;
  }
  if (f->ph == "X") {
    const int64_t dur = f->dur.empty() ? 0 : parse_us_to_ns(f->dur).value_or(0);
    const bool overlaps = dur > 0 ? *ts < end_ns_ && *ts + dur > start_ns_ : *ts >= start_ns_ && *ts <= end_ns_;
    if (overlaps) keep(TrimKind::kDuration);
    else drop(TrimKind::kDuration);
    return;
  }
  if (*ts >= start_ns_ && *ts <= end_ns_) keep(TrimKind::kInstant);
  else drop(TrimKind::kInstant);
}

void TraceTrimmer::process(bool final) {
  feed_.scan(final, health_);
  for (const auto& mem : feed_.members()) {
    const std::string_view key = feed_.text(mem.key);
    if (key == "traceEvents") continue;
    std::string member;
    const std::string_view value = feed_.text(mem.value);
    member.reserve(key.size() + value.size() + 4);
    member.append("\"").append(key).append("\": ").append(value);
    append_joined(members_, member, ",\n");
  }
  for (const auto& span : feed_.events()) take_event(feed_.text(span));
  if (feed_.scanner().failed()) {
    error_ = feed_.scanner().error();
    return;
  }
  feed_.release();
}

void TraceTrimmer::finish() {
  if (finished_) return;
  finished_ = true;
  if (failed()) return;
  process(true);
  if (failed()) return;
  if (!feed_.scanner().saw_trace_events()) {
    error_ = "This file has no \"traceEvents\" list, so it is not a PyTorch profiler (Chrome trace) file.";
    return;
  }
  for (const Flow& flow : flows_) {
    if (flow.outside || flow.texts.size() < 2) continue;
    for (const std::string& t : flow.texts) {
      append_joined(events_, t, ",\n");
      ++kept_;
      ++counts_.kept[size_t(TrimKind::kFlow)];
    }
  }
  counts_.dropped[size_t(TrimKind::kFlow)] = flow_events_ - counts_.kept[size_t(TrimKind::kFlow)];
  flows_.clear();
  flow_index_.clear();
  out_.reserve(members_.size() + events_.size() + 32);
  out_.assign(1, '{');
  out_ += members_;
  if (!members_.empty()) out_ += ",\n";
  out_ += "\"traceEvents\": [\n";
  out_ += events_;
  out_ += "\n]}\n";
  members_.clear();
  members_.shrink_to_fit();
  events_.clear();
  events_.shrink_to_fit();
}

}  // namespace ks
