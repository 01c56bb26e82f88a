#include <catch2/catch.hpp>

#include <string>

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
