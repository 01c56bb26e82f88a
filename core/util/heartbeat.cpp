#include "core/util/heartbeat.h"

namespace ks {

namespace {
HeartbeatHook g_hook = nullptr;
void* g_context = nullptr;
}  // namespace

void set_heartbeat(HeartbeatHook hook, void* context) {
  g_hook = hook;
  g_context = context;
}

namespace detail {
thread_local uint64_t beat_units = 0;
void beat() {
  beat_units = 0;
  if (g_hook) g_hook(g_context);
}
}  // namespace detail

}  // namespace ks
