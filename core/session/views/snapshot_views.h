// What the snapshot views' files share (views/snapshot.cpp, views/snapshot_state.cpp): reading the
// device asked for, a failed read's sentence, stacks and addresses as text, JSON values of the
// metadata. Defined in views/snapshot.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/session/views.h"
#include "core/snapshot/snapshot_model.h"

namespace ks {

class SnapshotSession;

namespace snapshot_views {

extern const ParamSpec kOneDeviceParam;  // "device": default the first device of the snapshot

std::string json_string(std::string_view s);
std::string json_number(double v);  // NaN: null
std::string json_int(int64_t v);
double opt_time(int64_t t);  // -1 (no time): NaN

// The devices a query is about: the one asked (an error when the snapshot lacks it or it is no
// number), else every device (all) or the first (!all).
bool devices_of(const SnapshotSession& s, QueryParamsRef params, bool all, std::vector<int64_t>& out, std::string& error);
// False with the reader's sentence when the read failed.
bool readable(const SnapshotSession& s, std::string& error);
// A stack as text, innermost frame first, one "name (file:line)" a line ("" for none).
std::string stack_text(const SnapshotModel& m, uint32_t stack);
std::string address_text(uint64_t a);  // 0x...

}  // namespace snapshot_views
}  // namespace ks
