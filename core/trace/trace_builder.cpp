#include "core/trace/trace_builder.h"

#include <cctype>
#include <charconv>
#include <climits>
#include <cstring>
#include <string>

#include "core/util/bytes.h"
#include "core/util/numbers.h"

namespace ks {

namespace {

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

// Category -> kind, as tb_plugin's EventTypeMap (compared lower-cased) plus the kinds it ignores
// but later views need (driver calls, GPU annotations).
EventKind classify_category(std::string_view cat) {
  if (ieq(cat, "cpu_op") || ieq(cat, "operator")) return EventKind::kCpuOp;
  if (ieq(cat, "user_annotation")) return EventKind::kUserAnnotation;
  if (ieq(cat, "python_function") || ieq(cat, "python")) return EventKind::kPythonFunction;
  if (ieq(cat, "runtime") || ieq(cat, "cuda_runtime") || ieq(cat, "mtia_runtime") ||
      ieq(cat, "glow_runtime") || ieq(cat, "xpu_runtime") || ieq(cat, "privateuse1_runtime"))
    return EventKind::kRuntime;
  if (ieq(cat, "cuda_driver")) return EventKind::kDriver;
  if (ieq(cat, "kernel")) return EventKind::kKernel;
  if (ieq(cat, "memcpy") || ieq(cat, "gpu_memcpy")) return EventKind::kMemcpy;
  if (ieq(cat, "memset") || ieq(cat, "gpu_memset")) return EventKind::kMemset;
  if (ieq(cat, "gpu_user_annotation")) return EventKind::kGpuAnnotation;
  return EventKind::kOther;
}

bool is_old_category(std::string_view cat) {
  return cat == "Operator" || cat == "Runtime" || cat == "Kernel" || cat == "Memcpy" ||
         cat == "Memset";
}

int32_t to_i32(int64_t v) { return v == kNoId ? -1 : static_cast<int32_t>(v); }
int64_t or_minus1(int64_t v) { return v == kNoId ? -1 : v; }

void bump(std::vector<uint64_t>& counts, StringId id) {
  if (counts.size() <= id) counts.resize(id + 1, 0);
  ++counts[id];
}

}  // namespace

FlowId flow_id(StringPool& strings, std::string_view text) {
  // A canonical decimal (no sign, no leading zero) below kFlowIdText is its own id. The digits are
  // checked in the same loop that adds them up: find_first_not_of called memchr per character,
  // which in wasm (musl's, a byte at a time, never optimized: 0.8% of the read) was most of it.
  if (!text.empty() && text.size() <= 10 && (text[0] != '0' || text.size() == 1)) {
    uint64_t v = 0;
    bool digits = true;
    for (char c : text) {
      if (c < '0' || c > '9') {
        digits = false;
        break;
      }
      v = v * 10 + uint64_t(c - '0');
    }
    if (digits && v < kFlowIdText) return FlowId(v);
  }
  return strings.intern(text) | kFlowIdText;
}

const char* event_kind_name(EventKind k) {
  static const char* const kNames[] = {"cpu_op",  "user_annotation", "python_function",
                                       "runtime", "driver",          "kernel",
                                       "memcpy",  "memset",          "gpu_annotation",
                                       "memory",  "counter",         "flow",
                                       "metadata", "other"};
  return kNames[static_cast<size_t>(k)];
}

EventKind TraceBuilder::kind_of(StringId cat) {
  if (kind_by_cat_.size() <= cat) kind_by_cat_.resize(cat + 1, -1);
  if (kind_by_cat_[cat] < 0) {
    const std::string_view text = m_.strings.get(cat);
    kind_by_cat_[cat] = static_cast<int8_t>(classify_category(text));
    if (is_old_category(text)) m_.old_naming = true;
  }
  return static_cast<EventKind>(kind_by_cat_[cat]);
}

uint32_t TraceBuilder::flow_pair(StringId a, StringId b) {
  const uint64_t key = uint64_t(a) << 32 | b;
  auto [it, fresh] = flow_pair_index_.try_emplace(key, uint32_t(m_.flow_pairs.size()));
  if (fresh) m_.flow_pairs.emplace_back(a, b);
  return it->second;
}

uint32_t TraceBuilder::flow_pair(LastPair& last, StringId a, StringId b) {
  const uint64_t key = uint64_t(a) << 32 | b;
  if (key != last.key) last = {key, flow_pair(a, b)};
  return last.index;
}

template <size_t kWays>
StringId TraceBuilder::intern_cached(RecentIds<kWays>& recent, std::string_view s) {
  // An empty view may have a null data(), which a compare must not get: "" is id 0 anyway.
  if (s.empty()) return 0;
  const size_t n = s.size();
  const auto byte = [&](size_t i) { return size_t(static_cast<unsigned char>(s[i])); };
  auto& way = recent.ways[(n * 7 + byte(0) * 3 + byte(n / 2) + byte(n - 1)) & (kWays - 1)];
  if (n == way.size && same_bytes(s.data(), way.text, n)) return way.id;
  const StringId id = m_.strings.intern(s);
  const std::string_view kept = m_.strings.get(id);
  way = {kept.data(), uint32_t(n), id};
  return id;
}

StringId TraceBuilder::phase_id(std::string_view ph) {
  if (ph.size() != 1) return intern_cached(recent_ph_, ph);
  StringId& id = phase_ids_[static_cast<unsigned char>(ph[0])];
  if (!id) id = m_.strings.intern(ph);
  return id;
}

void TraceBuilder::note_span(int64_t ts, int64_t end) {
  if (ts < min_ts_) min_ts_ = ts;
  if (end > max_end_) max_end_ = end;
}

void TraceBuilder::add_slice(EventKind kind, const RawEvent& e, StringId cat, int64_t ts, int64_t dur) {
  StringPool& sp = m_.strings;
  SliceRow s;
  s.ts_ns = ts;
  s.dur = m_.pack_dur(dur);
  s.name = intern_cached(recent_name_, e.name);
  s.cat = cat;  // interned by on_event (the same text)
  s.pid = intern_cached(recent_pid_, e.pid);
  s.tid = intern_cached(recent_tid_, e.tid);
  s.external_id = m_.pack_id(e.args.external_id);
  s.correlation = m_.pack_id(e.args.correlation);
  const RawArgs& a = e.args;
  switch (kind) {
    case EventKind::kCpuOp:
    case EventKind::kUserAnnotation:
    case EventKind::kGpuAnnotation: {
      CpuOpRow r;
      r.s = s;
      r.input_dims = sp.intern(a.input_dims);
      r.input_type = sp.intern(a.input_type);
      auto& table = kind == EventKind::kCpuOp            ? m_.cpu_ops
                    : kind == EventKind::kUserAnnotation ? m_.user_annotations
                                                         : m_.gpu_annotations;
      const auto row = uint32_t(table.size());
      auto add_arg = [&](auto& args, std::string_view text) {
        if (const StringId id = sp.intern(text)) args.push_back({row, id});
      };
      if (kind == EventKind::kCpuOp) {
        add_arg(m_.cpu_op_stacks, a.call_stack);
        add_arg(m_.cpu_op_modules, a.module_hierarchy);
        if (!a.concrete_inputs.empty() && op_keeps_concrete_inputs(e.name)) add_arg(m_.cpu_op_concrete, a.concrete_inputs);
      } else if (kind == EventKind::kUserAnnotation) {
        add_arg(m_.user_annotation_stacks, a.call_stack);
        add_arg(m_.user_annotation_modules, a.module_hierarchy);
      } else {
        add_arg(m_.gpu_annotation_stacks, a.call_stack);
        add_arg(m_.gpu_annotation_modules, a.module_hierarchy);
      }
      if (a.sequence_number != kNoId || a.fwd_thread_id != kNoId) {
        OpSequenceRow q;
        q.kind = kind;
        q.row = uint32_t(table.size());
        q.sequence_number = m_.narrow(a.sequence_number, kind, WideField::kSequenceNumber, table.size());
        q.fwd_thread_id = m_.narrow(a.fwd_thread_id, kind, WideField::kFwdThreadId, table.size());
        m_.op_sequences.push_back(q);
      }
      add_collective(kind, table.size(), a);
      table.push_back(r);
      break;
    }
    case EventKind::kPythonFunction: {
      PythonFunctionRow r;
      r.s = s;
      r.python_id = a.python_id;
      r.python_parent_id = a.python_parent_id;
      r.python_module_id = a.python_module_id;
      m_.python_functions.push_back(r);
      break;
    }
    case EventKind::kRuntime: m_.runtimes.push_back(s); break;
    case EventKind::kDriver: m_.drivers.push_back(s); break;
    case EventKind::kKernel: {
      KernelRow r;
      r.s = s;
      r.device = to_i32(a.device);
      r.stream = to_i32(a.stream);
      r.grid = a.grid;
      r.block = a.block;
      r.registers_per_thread = to_i32(a.registers_per_thread);
      r.shared_memory = to_i32(a.shared_memory);
      r.blocks_per_sm = static_cast<float>(a.blocks_per_sm);
      r.warps_per_sm = static_cast<float>(a.warps_per_sm);
      r.occupancy_pct = static_cast<float>(a.occupancy_pct);
      add_collective(kind, m_.kernels.size(), a);
      m_.kernels.push_back(r);
      break;
    }
    case EventKind::kMemcpy:
    case EventKind::kMemset: {
      MemcpyRow r;
      r.s = s;
      r.device = to_i32(a.device);
      r.stream = to_i32(a.stream);
      r.bytes = or_minus1(a.bytes);
      r.bandwidth_gbps = a.bandwidth_gbps;
      (kind == EventKind::kMemcpy ? m_.memcpys : m_.memsets).push_back(r);
      break;
    }
    default: {
      InstantRow r;
      r.ts_ns = ts;
      r.dur_ns = dur;
      r.name = s.name;
      r.cat = s.cat;
      r.pid = s.pid;
      r.tid = s.tid;
      r.correlation = s.correlation;
      r.phase = 'X';
      if (e.args.numeric_count && e.cat == "cuda_sync") add_sync_wait(e.args, m_.others.size());
      m_.others.push_back(r);
      break;
    }
  }
  ++m_.kind_counts[static_cast<size_t>(kind)];
  note_span(ts, ts + dur);
}

size_t TraceBuilder::slice_table_rows(EventKind kind) const {
  switch (kind) {
    case EventKind::kCpuOp: return m_.cpu_ops.size();
    case EventKind::kUserAnnotation: return m_.user_annotations.size();
    case EventKind::kGpuAnnotation: return m_.gpu_annotations.size();
    case EventKind::kPythonFunction: return m_.python_functions.size();
    case EventKind::kRuntime: return m_.runtimes.size();
    case EventKind::kDriver: return m_.drivers.size();
    case EventKind::kKernel: return m_.kernels.size();
    case EventKind::kMemcpy: return m_.memcpys.size();
    case EventKind::kMemset: return m_.memsets.size();
    default: return m_.others.size();  // add_slice files every other kind there
  }
}

void TraceBuilder::add_begin_end(const OpenBegin& ob, int64_t dur) {
  // Re-file through add_slice so a B/E pair lands in the same table as an X event would.
  StringPool& sp = m_.strings;
  RawEvent be;
  be.name = sp.get(ob.row.s.name);
  be.cat = sp.get(ob.row.s.cat);
  be.pid = sp.get(ob.row.s.pid);
  be.tid = sp.get(ob.row.s.tid);
  be.args.external_id = m_.id_value(ob.row.s.external_id);
  be.args.correlation = m_.id_value(ob.row.s.correlation);
  be.args.input_dims = sp.get(ob.row.input_dims);
  be.args.call_stack = sp.get(ob.call_stack);
  add_slice(ob.kind, be, ob.row.s.cat, ob.row.s.ts_ns, dur);
}

// A sync event's wait_on_* arguments are no member the decoders know: they arrive among the
// args' other numbers (kept as text for counters), read here for the cuda_sync events alone.
void TraceBuilder::add_sync_wait(const RawArgs& a, size_t row) {
  SyncWaitRow w;
  w.row = static_cast<uint32_t>(row);
  bool any = false;
  for (int i = 0; i < a.numeric_count; ++i) {
    const std::string_view k = a.numeric_keys[size_t(i)], t = a.numeric_tokens[size_t(i)];
    const bool stream = k == "wait_on_stream", record = k == "wait_on_cuda_event_record_corr_id";
    if (!stream && !record) continue;
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || v < 0) continue;
    if (stream) w.wait_on_stream = v <= INT32_MAX ? static_cast<int32_t>(v) : -1;
    else w.record_correlation = m_.pack_id(v);
    any = true;
  }
  if (any) m_.sync_waits.push_back(w);
}

void TraceBuilder::add_collective(EventKind kind, size_t row, const RawArgs& a) {
  if (a.collective_name.empty() && a.in_msg_nelems == kNoId && a.process_group_name.empty()) return;
  StringPool& sp = m_.strings;
  CollectiveRow c;
  c.kind = kind;
  c.row = static_cast<uint32_t>(row);
  c.collective_name = sp.intern(a.collective_name);
  c.dtype = sp.intern(a.dtype);
  c.process_group_name = sp.intern(a.process_group_name);
  c.process_group_ranks = sp.intern(a.process_group_ranks);
  c.in_msg_nelems = a.in_msg_nelems;
  c.out_msg_nelems = a.out_msg_nelems;
  c.group_size = a.group_size;
  m_.collectives.push_back(c);
}

void TraceBuilder::add_instant(const RawEvent& e, StringId cat, int64_t ts, char phase) {
  StringPool& sp = m_.strings;
  InstantRow r;
  r.ts_ns = ts;
  r.name = sp.intern(e.name);
  r.cat = cat;
  r.pid = sp.intern(e.pid);
  r.tid = sp.intern(e.tid);
  r.phase = phase;
  m_.others.push_back(r);
  ++m_.kind_counts[static_cast<size_t>(EventKind::kOther)];
}

void TraceBuilder::on_event(const RawEvent& e, uint64_t offset) {
  StringPool& sp = m_.strings;
  ++m_.event_count;
  const StringId cat = intern_cached(recent_cat_, e.has_cat ? e.cat : std::string_view());
  bump(m_.category_counts, cat);
  bump(m_.phase_counts, phase_id(e.ph));
  if (!e.has_ph) {
    m_.health.add(HealthReason::kMissingPhase, offset);
    return;
  }
  const char ph = e.ph[0];
  if (ph == 'M') {  // metadata needs no time
    MetadataRow r;
    r.name = sp.intern(e.name);
    r.pid = sp.intern(e.pid);
    r.tid = sp.intern(e.tid);
    r.value = sp.intern(e.args.meta_value);
    m_.metadata.push_back(r);
    ++m_.kind_counts[static_cast<size_t>(EventKind::kMetadata)];
    return;
  }
  int64_t ts = 0;
  if (!e.has_ts) {
    m_.health.add(HealthReason::kMissingTimestamp, offset);
    return;
  }
  if (auto t = us_to_ns(e.ts, e.ts_read, e.ts_ns)) {
    ts = *t;
  } else {
    m_.health.add(HealthReason::kBadNumber, offset);
    return;
  }
  switch (ph) {
    case 'X': {
      int64_t dur = 0;
      if (!e.has_dur) {
        m_.health.add(HealthReason::kMissingDuration, offset);
      } else if (auto d = us_to_ns(e.dur, e.dur_read, e.dur_ns)) {
        dur = *d;
        if (dur < 0) {
          m_.health.add(HealthReason::kNegativeDuration, offset);
          dur = 0;
        }
      } else {
        m_.health.add(HealthReason::kBadNumber, offset);
        return;
      }
      add_slice(kind_of(cat), e, cat, ts, dur);
      return;
    }
    case 'B': {
      // Kept as the begin's fields until its E arrives (then filed like an X event).
      OpenBegin ob;
      ob.kind = kind_of(cat);
      ob.row.s.ts_ns = ts;
      ob.row.s.name = intern_cached(recent_name_, e.name);
      ob.row.s.cat = cat;
      ob.row.s.pid = sp.intern(e.pid);
      ob.row.s.tid = sp.intern(e.tid);
      ob.row.s.external_id = m_.pack_id(e.args.external_id);
      ob.row.s.correlation = m_.pack_id(e.args.correlation);
      ob.row.input_dims = sp.intern(e.args.input_dims);
      ob.call_stack = sp.intern(e.args.call_stack);
      ob.offset = offset;
      open_[{ob.row.s.pid, ob.row.s.tid}].push_back(ob);
      return;
    }
    case 'E': {
      auto it = open_.find({sp.intern(e.pid), sp.intern(e.tid)});
      if (it == open_.end() || it->second.empty()) {
        if (partial_) {  // its B may be in an earlier range: the merge decides
          PendingEnd pe;
          pe.pid = sp.intern(e.pid);
          pe.tid = sp.intern(e.tid);
          pe.ts_ns = ts;
          pe.offset = offset;
          for (size_t k = 0; k < pe.table_rows.size(); ++k) pe.table_rows[k] = slice_table_rows(EventKind(k));
          pending_ends_.push_back(pe);
          return;
        }
        m_.health.add(HealthReason::kUnmatchedEnd, offset);
        return;
      }
      OpenBegin ob = it->second.back();
      it->second.pop_back();
      int64_t dur = ts - ob.row.s.ts_ns;
      if (dur < 0) {
        m_.health.add(HealthReason::kNegativeDuration, offset);
        dur = 0;
      }
      add_begin_end(ob, dur);
      return;
    }
    case 'i':
    case 'I': {
      if (e.name == "[memory]") {
        MemoryRow r;
        r.ts_ns = ts;
        r.pid = sp.intern(e.pid);
        r.tid = sp.intern(e.tid);
        r.device_type = to_i32(e.args.device_type);
        r.device_id = to_i32(e.args.device_id);
        r.addr = e.args.addr == kNoId ? 0 : e.args.addr;
        r.bytes = e.args.mem_bytes == kNoId ? 0 : e.args.mem_bytes;
        r.total_allocated = or_minus1(e.args.total_allocated);
        r.total_reserved = or_minus1(e.args.total_reserved);
        m_.memory.push_back(r);
        ++m_.kind_counts[static_cast<size_t>(EventKind::kMemory)];
      } else {
        if (e.name == "Record Window End") {
          // Kineto sometimes stamps this marker with a clock far in the future: it stays in the
          // table but not in the span (checked in finish()).
          record_window_end_ = ts;
          record_window_end_offset_ = offset;
        }
        add_instant(e, cat, ts, ph);
      }
      break;
    }
    case 'C': {
      const StringId name = sp.intern(e.name), pid = sp.intern(e.pid);
      for (int i = 0; i < e.args.numeric_count; ++i) {
        const auto value = parse_double(e.args.numeric_tokens[size_t(i)]);
        if (!value) continue;
        CounterRow r;
        r.ts_ns = ts;
        r.name = name;
        r.pid = pid;
        r.series = sp.intern(e.args.numeric_keys[size_t(i)]);
        r.value = *value;
        m_.counters.push_back(r);
      }
      ++m_.kind_counts[static_cast<size_t>(EventKind::kCounter)];
      break;
    }
    case 's':
    case 't':
    case 'f': {
      ++m_.kind_counts[static_cast<size_t>(EventKind::kFlow)];
      // An ac2g flow (CPU launch -> GPU kernel) repeats the correlation id its runtime call and
      // kernel already hold, and no view reads it: counted (summary, categories), not kept. A
      // PyTorch 2.x trace has one every three events: 16.5 of the 18.1 MB of flow rows of the
      // modern 480 MiB trace (issue 21).
      if (e.has_cat && e.cat == "ac2g") break;
      FlowRow r;
      r.ts_ns = ts;
      r.names = flow_pair(last_names_pair_, cat, intern_cached(recent_flow_name_, e.name));
      r.id = flow_id(sp, e.id);
      r.thread = flow_pair(last_thread_pair_, intern_cached(recent_pid_, e.pid), intern_cached(recent_tid_, e.tid));
      r.phase = ph;
      r.binding_enclosing = e.bp == "e";
      m_.flows.push_back(r);
      break;
    }
    default:
      add_instant(e, cat, ts, ph);
      break;
  }
  if (e.name != "Record Window End") {
    if (ts < min_any_) min_any_ = ts;
    if (ts > max_any_) max_any_ = ts;
  }
}

void TraceBuilder::finish() {
  for (auto& [thread, stack] : open_) {
    for (const OpenBegin& ob : stack) m_.health.add(HealthReason::kUnclosedBegin, ob.offset);
  }
  open_.clear();
  if (min_ts_ <= max_end_) {
    m_.start_ns = min_ts_;
    m_.end_ns = max_end_;
    m_.has_span = true;
  } else if (min_any_ <= max_any_) {
    m_.start_ns = min_any_;
    m_.end_ns = max_any_;
    m_.has_span = true;
  }
  constexpr int64_t kDayNs = 86'400'000'000'000;
  if (m_.has_span && record_window_end_ != INT64_MIN && record_window_end_ - m_.end_ns > kDayNs)
    m_.health.add(HealthReason::kRecordWindowEnd, record_window_end_offset_);
}

}  // namespace ks
