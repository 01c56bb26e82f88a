// Interned strings: tables hold 32-bit ids, the text lives once here. Interning runs for
// several fields of every event, so the table is open-addressed with a cheap 64-bit hash
// (a std::unordered_map spent a sixth of the load time hashing and chasing nodes).
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ks {

using StringId = uint32_t;

class StringPool {
 public:
  StringPool();
  // Id 0 is always the empty string.
  StringId intern(std::string_view s) { return s.empty() ? 0 : intern_nonempty(s); }
  std::string_view get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes() const { return bytes_; }
  // Bytes of the lookup structures (views and hash slots) beside the text itself.
  size_t index_bytes() const { return views_.capacity() * sizeof(std::string_view) + slots_.capacity() * sizeof(Slot); }

 private:
  StringId intern_nonempty(std::string_view s);
  std::string_view store(std::string_view s);
  void grow();

  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_;
  size_t block_used_ = 0;
  size_t block_cap_ = 0;
  size_t bytes_ = 0;
  std::vector<std::string_view> views_;
  // 8 bytes: the low half of the hash (enough to place a slot in a table below 2^32 slots, and a
  // filter before comparing text) and the id. 16 bytes with the whole hash cost 16-32 bytes per
  // string at half load.
  struct Slot {
    uint32_t hash = 0;
    StringId id = 0;  // 0: empty slot (the empty string is never stored in the table)
  };
  std::vector<Slot> slots_;  // power-of-two size, at most half full
};

}  // namespace ks
