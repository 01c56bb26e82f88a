// Comparing bytes in the core's hot paths. memcmp in wasm (musl's) goes a byte at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ks {

// 8 and 4 bytes at p as one little-endian word, wherever p points (the string pool's hash, the
// fast path's digits and keys, and same_bytes read text this way).
inline uint64_t load_u64(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

inline uint64_t load_u32(const char* p) {
  uint32_t x;
  std::memcpy(&x, p, 4);
  return x;
}

// a == b for two runs of n bytes: 8 at a time, the last 8 (overlapping the word before) in one
// compare, and shorter runs in at most two overlapping loads. Fixed-size loads only: the byte
// loop for the tail mispredicted on every length (a third of interning's compares).
inline bool same_bytes(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    for (; n > 8; a += 8, b += 8, n -= 8)
      if (load_u64(a) != load_u64(b)) return false;
    return load_u64(a + n - 8) == load_u64(b + n - 8);
  }
  if (n >= 4) return load_u32(a) == load_u32(b) && load_u32(a + n - 4) == load_u32(b + n - 4);
  if (n == 0) return true;
  return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];  // n 1-3: every byte
}

}  // namespace ks
