#include "core/util/string_pool.h"

#include <cstring>

#include "core/util/bytes.h"

namespace ks {

namespace {

constexpr size_t kBlockSize = 64 * 1024;

inline uint64_t mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

// 8 bytes at a time; the length is folded in so prefixes differ.
inline uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ w) * 0x9E3779B97F4A7C15ULL;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  return mix(h ^ w ^ (uint64_t(n) << 56));
}

}  // namespace

StringPool::StringPool() : slots_(1024) { views_.emplace_back(); }

std::string_view StringPool::store(std::string_view s) {
  if (s.size() > kBlockSize / 4) {  // big strings (call stacks) get a block of their own
    big_.emplace_back(new char[s.size()]);
    std::memcpy(big_.back().get(), s.data(), s.size());
    bytes_ += s.size();
    return {big_.back().get(), s.size()};
  }
  if (block_used_ + s.size() > block_cap_) {
    blocks_.emplace_back(new char[kBlockSize]);
    block_used_ = 0;
    block_cap_ = kBlockSize;
    bytes_ += kBlockSize;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  return {dst, s.size()};
}

void StringPool::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.id) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

StringId StringPool::intern_nonempty(std::string_view s) {
  const uint32_t h = uint32_t(hash_bytes(s));
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].id) {
    if (slots_[i].hash == h) {  // the whole text confirms it: kernel names are ~100 bytes
      const std::string_view v = views_[slots_[i].id];
      if (v.size() == s.size() && same_bytes(v.data(), s.data(), s.size())) return slots_[i].id;
    }
    i = (i + 1) & mask;
  }
  const StringId id = static_cast<StringId>(views_.size());
  views_.push_back(store(s));
  slots_[i] = {h, id};
  if (views_.size() * 2 > slots_.size()) grow();
  return id;
}

}  // namespace ks
