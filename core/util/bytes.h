// Comparing bytes in the core's hot paths. memcmp in wasm (musl's) goes a byte at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ks {

// a == b for two runs of n bytes, 8 at a time, then the tail byte by byte.
inline bool same_bytes(const char* a, const char* b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (; n > 0; ++a, ++b, --n)
    if (*a != *b) return false;
  return true;
}

}  // namespace ks
