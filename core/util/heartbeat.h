// A sign of life from inside the core's long computations, so that the page can tell a busy
// worker from a hung one. The page's watchdog declares a worker stalled after a long silence, so
// a worker busy building the operator trees of a 10 GB trace (minutes in wasm) must say something
// meanwhile. Long loops count their work with heartbeat(n); every kBeatEvery units the hook set
// by the embedder is called (the wasm module posts a progress message; natively there is none).
// Single-threaded use: the count is per thread and the hook is meant for the wasm build, which
// has one thread.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ks {

using HeartbeatHook = void (*)(void* context);

// Sets the hook (null: none). Returns nothing; the previous hook is dropped.
void set_heartbeat(HeartbeatHook hook, void* context);

namespace detail {
inline constexpr uint64_t kBeatEvery = uint64_t(1) << 18;
extern thread_local uint64_t beat_units;
void beat();
}  // namespace detail

// Counts `units` of work (events, nodes) done; calls the hook once kBeatEvery have been counted.
inline void heartbeat(size_t units = 1) {
  detail::beat_units += units;
  if (detail::beat_units >= detail::kBeatEvery) detail::beat();
}

}  // namespace ks
