#include "core/session/snapshot_session.h"

#include <algorithm>

#include "core/session/views.h"

namespace ks {

const std::vector<int64_t>& SnapshotSession::devices() const {
  if (!devices_) devices_ = std::make_unique<std::vector<int64_t>>(snapshot_devices(model()));
  return *devices_;
}

bool SnapshotSession::has_device(int64_t device) const {
  const std::vector<int64_t>& d = devices();
  return std::find(d.begin(), d.end(), device) != d.end();
}

const SnapDeviceStats& SnapshotSession::stats(int64_t device) const {
  auto it = stats_.find(device);
  // From the kept history (the timeline views read the same): one pass over the entries, not two.
  if (it == stats_.end()) it = stats_.emplace(device, snapshot_device_stats(history(device), device)).first;
  return it->second;
}

const SnapHistory& SnapshotSession::history(int64_t device) const {
  std::unique_ptr<SnapHistory>& h = history_[device];
  if (!h) h = std::make_unique<SnapHistory>(snapshot_history(model(), device));
  return *h;
}

std::string SnapshotSession::set_memory_timeline(std::string name, std::string_view json) {
  MemoryTimeline tl;
  std::string error = parse_memory_timeline(json, tl);
  if (!error.empty()) return name + ": " + error;
  timeline_ = std::move(tl);
  timeline_file_ = std::move(name);
  return {};
}

Answer SnapshotSession::query(std::string_view view, const QueryParams& params) const {
  for (const ViewDef& v : views()) {
    if (v.schema->view != view) continue;
    if (!v.snapshot) return error_answer(*v.schema, "the " + std::string(view) + " view is of a trace, not of a memory snapshot");
    return v.snapshot(*this, params);
  }
  Answer a;
  a.error = "unknown view: " + std::string(view);
  return a;
}

}  // namespace ks
