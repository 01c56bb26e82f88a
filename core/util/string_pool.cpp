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

// The last n (0-7) bytes of s, which ends at end, as one word that differs for every distinct
// n bytes: fixed-size loads only. A memcpy of n bytes into a word was copied byte by byte to the
// stack and read back as a whole (a store-forwarding stall: a third of the hashing natively,
// a call to memcpy in wasm).
inline uint64_t tail_word(std::string_view s, size_t n) {
  const char* end = s.data() + s.size();
  if (n == 0) return 0;
  if (s.size() >= 8) return load_u64(end - 8) >> (64 - 8 * n);  // the n bytes are the top ones
  if (n >= 4) return load_u32(s.data()) | (load_u32(end - 4) << 32);  // n == s.size(): overlapping
  const auto b = [](char c) { return uint64_t(static_cast<unsigned char>(c)); };
  return b(s[0]) | (b(s[n / 2]) << 8) | (b(s[n - 1]) << 16);
}

// 8 bytes at a time; the length is folded in so prefixes differ.
inline uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    h = mix(h ^ load_u64(p)) * 0x9E3779B97F4A7C15ULL;
    p += 8;
    n -= 8;
  }
  return mix(h ^ tail_word(s, n) ^ (uint64_t(n) << 56));
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
