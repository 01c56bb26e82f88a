#include "core/trace/trace_reader.h"

#include <cstring>

#include "core/trace/ondemand_values.h"
#include "simdjson.h"

namespace ks {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

namespace {

using ondemand_values::for_each_field;
using ondemand_values::get_int;

error_code get_text(od::value& v, std::string& out) {
  std::string_view s;
  if (auto err = ondemand_values::scalar_text(v, s)) return err;
  out.assign(s);
  return SUCCESS;
}

// deviceProperties (PyTorch >= 1.9) or computeProperties (older): one object per GPU.
error_code read_devices(od::value& v, std::vector<DeviceInfo>& out) {
  od::array arr;
  if (auto err = v.get_array().get(arr)) return err;
  for (auto el : arr) {
    od::object obj;
    if (auto err = el.get_object().get(obj)) return err;
    DeviceInfo d;
    if (auto failed = for_each_field(obj, [&](std::string_view k, od::value& fv) -> error_code {
      int64_t n = -1;
      error_code err = SUCCESS;
      if (k == "name") err = get_text(fv, d.name);
      else if (k == "id") err = get_int(fv, d.id);
      else if (k == "totalGlobalMem") err = get_int(fv, d.memory_bytes);
      else if (k == "computeMajor" || k == "major") { err = get_int(fv, n); d.compute_major = int(n); }
      else if (k == "computeMinor" || k == "minor") { err = get_int(fv, n); d.compute_minor = int(n); }
      else if (k == "numSms" || k == "multiProcessorCount") { err = get_int(fv, n); d.sms = int(n); }
      else if (k == "maxThreadsPerBlock") err = get_int(fv, d.max_threads_per_block);
      else if (k == "maxThreadsPerMultiprocessor" || k == "maxThreadsPerMultiProcessor") err = get_int(fv, d.max_threads_per_sm);
      else if (k == "regsPerBlock") err = get_int(fv, d.regs_per_block);
      else if (k == "regsPerMultiprocessor") err = get_int(fv, d.regs_per_sm);
      else if (k == "warpSize") err = get_int(fv, d.warp_size);
      else if (k == "sharedMemPerBlock") err = get_int(fv, d.shared_mem_per_block);
      else if (k == "sharedMemPerMultiprocessor") err = get_int(fv, d.shared_mem_per_sm);
      else if (k == "maxSharedMemoryPerMultiProcessor") { err = get_int(fv, d.shared_mem_per_sm); d.hip_only_fields = true; }
      else if (k == "gcnArchName") err = get_text(fv, d.gcn_arch_name);
      return err;
    }))
      return failed;
    if (d.id < 0) d.id = static_cast<int64_t>(out.size());
    out.push_back(std::move(d));
  }
  return SUCCESS;
}

error_code read_distributed(od::value& v, DistributedInfo& out) {
  od::object obj;
  if (auto err = v.get_object().get(obj)) return err;
  out.present = true;
  return for_each_field(obj, [&](std::string_view k, od::value& fv) -> error_code {
    error_code err = SUCCESS;
    if (k == "rank") err = get_int(fv, out.rank);
    else if (k == "world_size") err = get_int(fv, out.world_size);
    else if (k == "backend") err = get_text(fv, out.backend);
    else if (k == "pg_count") err = get_int(fv, out.pg_count);
    else if (k == "nccl_version") err = get_text(fv, out.nccl_version);
    return err;
  });
}

// The top-level members whose value read_member parses; "traceEvents" (when not an array) and
// "roctracer_version" are the others it heeds, any other member is ignored.
bool parsed_member(std::string_view key) {
  return key == "schemaVersion" || key == "displayTimeUnit" || key == "traceName" || key == "baseTimeNanoseconds" ||
         key == "Framework" || key == "deviceProperties" || key == "computeProperties" || key == "distributedInfo";
}

}  // namespace

TraceReader::TraceReader() : model_(new TraceModel), builder_(*model_) {}
TraceReader::~TraceReader() = default;

char* TraceReader::prepare(size_t n) { return feed_.prepare(n); }

void TraceReader::start_at(uint64_t offset, bool root_is_array) {
  range_start_ = offset;
  root_is_array_ = root_is_array;
  builder_.set_partial(offset > 0);
  feed_.start_in_events(offset, root_is_array ? ChunkScanner::RootKind::kArray : ChunkScanner::RootKind::kObject);
  apply_stops();
}

void TraceReader::stop_at(std::vector<uint64_t> offsets) {
  stops_ = std::move(offsets);
  apply_stops();
}

void TraceReader::apply_stops() {
  std::vector<uint64_t> later;
  for (uint64_t s : stops_)
    if (s > feed_.base_offset()) later.push_back(s);
  feed_.scanner().set_stops(std::move(later));
}

void TraceReader::read_on() {
  if (!stopped_ || finished_) return;
  stopped_ = merged_end_ = false;
  feed_.start_in_events(covered_end_, root_is_array_ || feed_.scanner().root() == ChunkScanner::RootKind::kArray
                                          ? ChunkScanner::RootKind::kArray
                                          : ChunkScanner::RootKind::kObject);
  apply_stops();
}

void TraceReader::commit(size_t n) {
  if (finished_ || failed() || stopped_) return;
  feed_.commit(n);
  model_->bytes_read += n;
  process(false);
}

void TraceReader::note_input_error(InputError e) {
  if (input_error_) return;
  input_error_ = true;
  input_error_kind_ = e;
  model_->health.add(e == InputError::kGzip ? HealthReason::kGzipError : HealthReason::kReadError,
                     model_->bytes_read);
}

void TraceReader::feed(const char* data, size_t n) {
  std::memcpy(prepare(n), data, n);
  commit(n);
}

void TraceReader::read_member(std::string_view key, std::string_view value, uint64_t offset) {
  if (partial()) {  // applied where the earlier ranges' members were: at the merge, in order
    if (key == "traceEvents" || key == "roctracer_version" || parsed_member(key))
      deferred_members_.push_back({std::string(key), std::string(value), offset});
    return;
  }
  if (key == "traceEvents") {  // not an array (an array is read as events)
    model_->health.add(HealthReason::kBadTopLevelMember, offset);
    return;
  }
  if (key == "roctracer_version") model_->roctracer = true;  // its value (a version) is not needed
  if (!parsed_member(key)) return;
  // Wrapped in [ ] so scalars parse like any value (On-Demand treats scalar documents apart).
  std::string wrapped;
  wrapped.reserve(value.size() + 2);
  wrapped.push_back('[');
  wrapped.append(value);
  wrapped.push_back(']');
  simdjson::padded_string text(wrapped);
  od::parser parser;
  od::document doc;
  od::array arr;
  od::value v;
  error_code err = parser.iterate(text).get(doc);
  if (!err) err = doc.get_array().get(arr);
  if (!err) err = arr.at(0).get(v);
  TraceModel& m = *model_;
  if (!err) {
    if (key == "schemaVersion") {
      int64_t n = -1;
      err = get_int(v, n);
      if (!err && n >= 0) m.schema_version = n;
    } else if (key == "displayTimeUnit") {
      err = get_text(v, m.display_time_unit);
    } else if (key == "traceName") {
      err = get_text(v, m.trace_name);
    } else if (key == "baseTimeNanoseconds") {
      int64_t n = -1;
      err = get_int(v, n);
      if (!err && n >= 0) m.base_time_ns = n;
    } else if (key == "Framework") {
      err = get_text(v, m.framework);
    } else if (key == "deviceProperties" || key == "computeProperties") {
      std::vector<DeviceInfo> devices;
      err = read_devices(v, devices);
      if (!err && (key == "deviceProperties" || m.devices.empty())) {
        m.devices = std::move(devices);
        m.devices_from_compute_properties = key == "computeProperties";
      }
    } else if (key == "distributedInfo") {
      DistributedInfo d;
      err = read_distributed(v, d);
      if (!err) m.distributed = d;
    }
  }
  if (err) m.health.add(HealthReason::kBadTopLevelMember, offset);
}

void TraceReader::process(bool final) {
  decoder_.read(feed_, final, builder_, model_->health,
                [this](std::string_view key, std::string_view value, uint64_t offset) { read_member(key, value, offset); });
  if (feed_.scanner().failed()) {
    error_ = feed_.scanner().error();
    return;
  }
  if (feed_.scanner().stopped()) {
    stopped_ = true;
    covered_end_ = feed_.scanner().stopped_at();
    model_->bytes_read = covered_end_ - range_start_;
  }
  feed_.release();  // keep only the unfinished tail
}

void TraceReader::finish() {
  if (finished_) return;
  finished_ = true;
  if (failed()) return;
  if (!stopped_ && !merged_end_) {
    // The input ended here: what is left in the buffer is read now, a split among it or not
    // (the last block before the end is scanned only now; a stop found there would drop it).
    feed_.scanner().set_stops({});
    process(true);
  }
  if (failed()) return;
  // Where the input ended: here, or in the last range merged.
  Tail tail = tail_;
  if (stopped_) {
    tail = {true, false, covered_end_};
  } else if (!merged_end_) {
    tail = {false, feed_.scanner().incomplete(), feed_.scanner().cut_offset(feed_.base_offset())};
  }
  if (partial()) {  // the earlier range's reader closes the model, after the merge
    tail_ = tail;
    feed_.free_buffers();
    decoder_.free_buffers();
    return;
  }
  TraceModel& m = *model_;
  if (m.bytes_read == 0 && input_error_) {
    error_ = input_error_kind_ == InputError::kGzip
                 ? "The file starts like a gzip file but could not be decompressed."
                 : "The file could not be read.";
    return;
  }
  if (m.bytes_read == 0 || feed_.scanner().root() == ChunkScanner::RootKind::kUnknown) {
    error_ = m.bytes_read == 0 ? "The file is empty."
                               : "The file holds only whitespace, so it is not a PyTorch profiler trace.";
    return;
  }
  m.format = feed_.scanner().root() == ChunkScanner::RootKind::kArray ? "array" : "object";
  if (!feed_.scanner().saw_trace_events()) {
    error_ = tail.incomplete
                 ? "The file ends before any \"traceEvents\" list begins: it is not a complete "
                   "PyTorch profiler trace (or not one at all)."
                 : "This JSON file has no \"traceEvents\" list, so it is not a PyTorch profiler "
                   "(Chrome trace) file.";
    return;
  }
  // A range that stopped at a split nobody merged nor read on from is cut there.
  if (tail.incomplete || tail.stopped) {
    m.truncated = true;
    m.health.add(HealthReason::kTruncated, tail.cut);
  }
  builder_.finish();
  // The reading buffers (the chunk, the parser's indexes and its padded copy: ~40 MB with 4 MB
  // chunks) are not needed any more: in wasm their room is reused by the views.
  feed_.free_buffers();
  decoder_.free_buffers();
  if (m.event_count == 0 && feed_.scanner().root() == ChunkScanner::RootKind::kArray &&
      m.health.get(HealthReason::kNonObjectElement).count > 0) {
    error_ = "This JSON array holds no trace events (objects), so it is not a Chrome trace.";
  }
}

}  // namespace ks
