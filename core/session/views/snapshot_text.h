// The texts the snapshot views share (defined in views/snapshot.cpp): an allocation's site and its
// stack as the snapshot-* answers write them.
#pragma once
#include <string>

#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_stats.h"

namespace ks {

// Its innermost Python frame (filename:line:name, snapshot_site's label), or a <...> label when
// the stack is not its own (allocated before the history) or none was recorded.
std::string snapshot_elem_site(const SnapshotModel& m, const SnapElem& e);
// Its stack, innermost frame first, one "name (file:line)" a line; empty when not its own.
std::string snapshot_elem_stack_text(const SnapshotModel& m, const SnapElem& e);

}  // namespace ks
