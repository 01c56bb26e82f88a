// Helpers shared by the core tests: read fixtures from tests/data, feed them in any chunk size.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/analysis/summary.h"
#include "core/trace/trace_reader.h"
#include "core/session/views.h"

#ifndef __EMSCRIPTEN__
#include <zlib.h>
#endif

namespace kstest {

// A small deterministic generator (xorshift64) for randomized tests: the same numbers every run.
struct Random {
  uint64_t state;
  // A number in [0, n).
  int64_t below(uint64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return int64_t(state % n);
  }
};

inline std::string repo_path(const std::string& rel) {
  const char* root = std::getenv("KS_REPO");
  return (root && *root ? std::string(root) + "/" : std::string()) + rel;
}

inline std::string read_fixture(const std::string& name) {
  std::ifstream in(repo_path("tests/data/" + name), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A file's bytes; a gzip file's gunzipped natively (under wasm, which has no zlib here, as they are:
// callers skip what starts with gzip's magic).
inline std::string read_path(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
#ifndef __EMSCRIPTEN__
  if (s.size() > 2 && uint8_t(s[0]) == 0x1f && uint8_t(s[1]) == 0x8b) {
    std::string out;
    z_stream zs{};
    inflateInit2(&zs, 15 + 32);
    zs.next_in = reinterpret_cast<Bytef*>(s.data());
    zs.avail_in = uInt(s.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof buf;
      rc = inflate(&zs, Z_NO_FLUSH);
      out.append(buf, sizeof buf - zs.avail_out);
    }
    inflateEnd(&zs);
    return out;
  }
#endif
  return s;
}

// Feeds `text` in chunks of `chunk` bytes and finishes.
inline void feed_all(ks::TraceReader& r, const std::string& text, size_t chunk) {
  for (size_t i = 0; i < text.size() && !r.failed(); i += chunk) {
    const size_t n = std::min(chunk, text.size() - i);
    r.feed(text.data() + i, n);
  }
  r.finish();
}

inline std::string summary_of(const std::string& text, size_t chunk) {
  ks::TraceReader r;
  feed_all(r, text, chunk);
  return ks::answer_json(ks::summary_model_answer(r.model(), "f", r.error()));
}

// A fixture read in 7-byte chunks (every boundary case) that must load without an error (an
// exception fails the test case that loads it).
struct LoadedFixture {
  ks::TraceReader reader;
  explicit LoadedFixture(const char* fixture) {
    feed_all(reader, read_fixture(fixture), 7);
    if (!reader.error().empty()) throw std::runtime_error(std::string(fixture) + ": " + reader.error());
  }
  const ks::TraceModel& m() const { return reader.model(); }
};

}  // namespace kstest
