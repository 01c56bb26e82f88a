// One loaded CUDA allocator snapshot (torch.cuda.memory._dump_snapshot's pickle) and what its
// views share, the sibling of session.h for a file that is a snapshot rather than a trace: fed the
// same chunks (the worker's prepare/commit, the CLI's reads), asked the same way, query(view,
// params) answered in the one shape of answer.h by the views registered in views.cpp with a
// snapshot answer function (core/session/views/snapshot.cpp). Each device's numbers
// (snapshot_stats.h) and history (snapshot_bands.h) are built on first use and kept.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/session/answer.h"
#include "core/session/session.h"
#include "core/snapshot/snapshot_bands.h"
#include "core/snapshot/snapshot_categories.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"

namespace ks {

class SnapshotSession {
 public:
  SnapshotSession() = default;
  SnapshotSession(const SnapshotSession&) = delete;
  SnapshotSession& operator=(const SnapshotSession&) = delete;

  // Reading: chunks go into the reader (set_total_size first when the size is known), then finish.
  SnapshotReader& reader() { return reader_; }
  const SnapshotReader& reader() const { return reader_; }
  const SnapshotModel& model() const { return reader_.model(); }
  // The stream around the pickle failed part-way (gzip corrupt or cut off, or a read error): said
  // in the health table, as a trace's; what was read before it loads (finish salvages it).
  void note_input_error(bool gzip) {
    reader_.model().count(gzip ? "gzip-error: the gzip stream is corrupt or cut off" : "read-error: the file could not be read to its end");
  }
  // The file's name, as the summary's metadata names it.
  void set_file(std::string name) { file_ = std::move(name); }
  const std::string& file() const { return file_; }
  // The reader's outcome: loaded whole (error empty), in part (error says what was lost), or not
  // at all (failed: not a pickle, refused, not a snapshot).
  bool failed() const { return reader_.failed(); }

  // The devices (snapshot_devices), and one's numbers and history, each built once.
  const std::vector<int64_t>& devices() const;
  bool has_device(int64_t device) const;
  const SnapDeviceStats& stats(int64_t device) const;
  const SnapHistory& history(int64_t device) const;

  // The same run's export_memory_timeline (snapshot_categories.h), paired with the snapshot: the
  // snapshot-memory-timeline views answer from it. "" when `json` is such a file (it replaces any
  // paired before), else one sentence of what is wrong, and what was paired stays.
  std::string set_memory_timeline(std::string name, std::string_view json);
  const MemoryTimeline* memory_timeline() const { return timeline_ ? &*timeline_ : nullptr; }
  const std::string& memory_timeline_file() const { return timeline_file_; }

  // A view's answer (the snapshot views of views.h). A trace's view, an unknown view or a bad
  // parameter answers with `error` set and no rows; so does every view of a failed read.
  Answer query(std::string_view view, const QueryParams& params) const;

  // One computation several views read (the timeline's bands and columns), kept for the next
  // view that asks with the same key (as Session::shared).
  template <class T, class F>
  const T& shared(const std::string& key, F&& build) const {
    if (!shared_ || shared_key_ != key) {
      shared_ = std::make_shared<const T>(build());
      shared_key_ = key;
    }
    return *static_cast<const T*>(shared_.get());
  }

 private:
  SnapshotReader reader_;
  std::string file_;
  std::optional<MemoryTimeline> timeline_;
  std::string timeline_file_;
  mutable std::unique_ptr<std::vector<int64_t>> devices_;
  mutable std::map<int64_t, SnapDeviceStats> stats_;
  mutable std::map<int64_t, std::unique_ptr<SnapHistory>> history_;
  mutable std::shared_ptr<const void> shared_;
  mutable std::string shared_key_;
};

}  // namespace ks
