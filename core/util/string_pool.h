// Interned strings: tables hold 32-bit ids, the text lives once here.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks {

using StringId = uint32_t;

class StringPool {
 public:
  StringPool();
  // Id 0 is always the empty string.
  StringId intern(std::string_view s);
  std::string_view get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  std::string_view store(std::string_view s);
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_;
  size_t block_used_ = 0;
  size_t block_cap_ = 0;
  size_t bytes_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace ks
