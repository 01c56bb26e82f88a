// A map from 64-bit ids to 32-bit values, open-addressed (linear probing, deletion by backward
// shift): the snapshot reader looks up a pending dict or list for every item of a multi-GB
// pickle, where std::unordered_map spent more time in malloc and pointer chasing than the
// reading itself.
#pragma once
#include <cstdint>
#include <vector>

namespace ks {

class IdMap {
 public:
  IdMap() { rehash(16); }
  const uint32_t* find(uint64_t k) const {
    for (size_t i = slot(k);; i = (i + 1) & mask_) {
      if (keys_[i] == kEmpty) return nullptr;
      if (keys_[i] == k) return &vals_[i];
    }
  }
  void put(uint64_t k, uint32_t v) {
    if ((n_ + 1) * 2 > keys_.size()) rehash(keys_.size() * 2);
    for (size_t i = slot(k);; i = (i + 1) & mask_) {
      if (keys_[i] == kEmpty) {
        keys_[i] = k, vals_[i] = v, ++n_;
        return;
      }
      if (keys_[i] == k) {
        vals_[i] = v;
        return;
      }
    }
  }
  bool erase(uint64_t k) {
    size_t i = slot(k);
    for (;; i = (i + 1) & mask_) {
      if (keys_[i] == kEmpty) return false;
      if (keys_[i] == k) break;
    }
    // Backward shift: move later members of the probe run into the hole.
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (keys_[j] == kEmpty) break;
      const size_t home = slot(keys_[j]);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        keys_[i] = keys_[j], vals_[i] = vals_[j];
        i = j;
      }
    }
    keys_[i] = kEmpty;
    --n_;
    return true;
  }
  size_t size() const { return n_; }
  void clear() { rehash(16); }
  size_t bytes() const { return keys_.capacity() * 8 + vals_.capacity() * 4; }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  size_t slot(uint64_t k) const {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return size_t(k) & mask_;
  }
  void rehash(size_t cap) {
    std::vector<uint64_t> keys(cap, kEmpty);
    std::vector<uint32_t> vals(cap);
    keys.swap(keys_);
    vals.swap(vals_);
    mask_ = cap - 1;
    n_ = 0;
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) put(keys[i], vals[i]);
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t mask_ = 0;
  size_t n_ = 0;
};

}  // namespace ks
