// The core's heartbeat: the sign of life the wasm worker posts from inside long computations, so
// that the page's watchdog can tell a busy worker from a dead one and never hangs silently.
#include <catch2/catch.hpp>

#include "core/analysis/op_tree.h"
#include "core/analysis/step_breakdown.h"
#include "core/util/heartbeat.h"
#include "test_util.h"

namespace {

int g_beats = 0;
void count_beat(void* context) {
  ++g_beats;
  ++*static_cast<int*>(context);
}

// Sets the hook for one test and removes it after, whatever happens.
struct Hooked {
  int beats = 0;
  Hooked() {
    g_beats = 0;
    ks::heartbeat(0);
    ks::set_heartbeat(&count_beat, &beats);
  }
  ~Hooked() { ks::set_heartbeat(nullptr, nullptr); }
};

}  // namespace

TEST_CASE("heartbeat: the hook is called once per kBeatEvery units of work", "[heartbeat]") {
  Hooked h;
  const uint64_t every = ks::detail::kBeatEvery;
  // Drain whatever an earlier test left counted on this thread.
  ks::heartbeat(size_t(every));
  h.beats = 0;
  for (uint64_t i = 0; i + 1 < every; ++i) ks::heartbeat();
  CHECK(h.beats == 0);
  ks::heartbeat();
  CHECK(h.beats == 1);
  ks::heartbeat(size_t(every) * 3);  // one long pass counted at once beats once, not three times
  CHECK(h.beats == 2);
}

TEST_CASE("heartbeat: without a hook nothing is called, and the core's results do not change", "[heartbeat]") {
  kstest::LoadedFixture f("op-tree-linking.json");
  const ks::OpTree quiet = ks::build_op_tree(f.m(), {});
  int beats = 0;
  {
    Hooked h;
    // Enough units counted that the tree's own passes cross the threshold.
    ks::heartbeat(size_t(ks::detail::kBeatEvery - 1));
    const ks::OpTree beating = ks::build_op_tree(f.m(), {});
    beats = h.beats;
    CHECK(beating.nodes.size() == quiet.nodes.size());
    CHECK(beating.launches.size() == quiet.launches.size());
  }
  CHECK(beats >= 1);
  ks::heartbeat(size_t(ks::detail::kBeatEvery));  // no hook: counted and dropped
  CHECK(g_beats == beats);
}
