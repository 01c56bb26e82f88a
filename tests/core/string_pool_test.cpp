#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "core/util/bytes.h"
#include "core/util/string_pool.h"

TEST_CASE("interning gives one id per distinct string and keeps the text", "[string_pool]") {
  ks::StringPool p;
  CHECK(p.intern("") == 0);
  const auto a = p.intern("aten::mm");
  const auto b = p.intern("aten::add");
  CHECK(a != b);
  CHECK(p.intern(std::string("aten::") + "mm") == a);
  CHECK(p.get(a) == "aten::mm");
  const std::string big(100000, 'x');  // bigger than a block
  const auto c = p.intern(big);
  CHECK(p.get(c) == big);
  for (int i = 0; i < 20000; ++i) p.intern("name" + std::to_string(i));  // many blocks
  CHECK(p.get(a) == "aten::mm");
  CHECK(p.get(p.intern("name19999")) == "name19999");
  CHECK(p.size() == 20004);
}

TEST_CASE("interning tells apart strings whose hashes meet", "[string_pool]") {
  // A hash hit is confirmed by comparing the text, 8 bytes at a time and then the tail. The table
  // keeps 32 bits of the hash: among 300,000 strings ~10 pairs share them, so the compare meets
  // strings of equal length that differ only in the tail (first set) or only in a whole word
  // (second set); a compare that skipped either part would give two of them one id.
  for (bool in_tail : {true, false}) {
    ks::StringPool p;
    std::vector<std::string> texts;
    for (uint32_t i = 0; i < 300000; ++i) {
      std::string s(31, 'k');  // 3 words and a 7-byte tail
      for (int d = 0; d < 7; ++d) s[(in_tail ? 24 : 8) + d] = char('0' + (i >> (3 * d)) % 8);
      texts.push_back(s);
    }
    std::vector<ks::StringId> ids;
    for (const std::string& s : texts) ids.push_back(p.intern(s));
    CHECK(p.size() == texts.size() + 1);  // every string its own id (and id 0, the empty one)
    bool all = true;
    for (size_t i = 0; i < texts.size(); ++i) all = all && p.get(ids[i]) == texts[i] && p.intern(texts[i]) == ids[i];
    CHECK(all);
  }
}

TEST_CASE("interning tells apart short strings that differ in any one byte", "[string_pool]") {
  // The hash reads a string's last bytes (fewer than 8) with fixed-size loads that overlap; a
  // string of every length up to 20 changed at each position must get an id of its own.
  ks::StringPool p;
  std::vector<std::string> texts;
  for (size_t n = 1; n <= 20; ++n) {
    const std::string base(n, 'a');
    texts.push_back(base);
    for (size_t at = 0; at < n; ++at)
      for (char c : {'b', '\xff'}) {
        std::string s = base;
        s[at] = c;
        texts.push_back(s);
      }
  }
  std::vector<ks::StringId> ids;
  for (const std::string& s : texts) ids.push_back(p.intern(s));
  CHECK(p.size() == texts.size() + 1);
  bool all = true;
  for (size_t i = 0; i < texts.size(); ++i) all = all && p.get(ids[i]) == texts[i] && p.intern(texts[i]) == ids[i];
  CHECK(all);
}

TEST_CASE("same_bytes finds a difference at any position of any length", "[string_pool]") {
  // Runs are compared a word at a time, the last word overlapping the one before, and short runs
  // in two overlapping loads: every length up to 40 with one byte changed at each position.
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'q');
    for (size_t i = 0; i < n; ++i) a[i] = char('a' + i % 26);
    std::string b = a;
    CHECK(ks::same_bytes(a.data(), b.data(), n));
    bool all = true;
    for (size_t at = 0; at < n; ++at) {
      b[at] ^= 0x20;
      all = all && !ks::same_bytes(a.data(), b.data(), n);
      b[at] ^= 0x20;
    }
    INFO("length " << n);
    CHECK(all);
  }
}
