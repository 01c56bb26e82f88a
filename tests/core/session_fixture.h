// A Session loaded for a core test, which must read without error: a fixture of tests/data fed in
// 7-byte chunks (every split of the reader is crossed), or a file (gunzipped) in 1 MiB chunks.
#pragma once
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/session/session.h"
#include "test_util.h"

namespace kstest {

struct OpenedSession {
  ks::Session s;
  explicit OpenedSession(const char* fixture, bool tb_plugin = false) : s(ks::SessionOptions{tb_plugin}) {
    feed_all(s.reader(), read_fixture(fixture), 7);
    REQUIRE(s.reader().error().empty());
  }
  explicit OpenedSession(const std::filesystem::path& file) {
    feed_all(s.reader(), read_path(file), 1 << 20);
    REQUIRE(s.reader().error().empty());
  }
};

}  // namespace kstest
