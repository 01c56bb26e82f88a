#include "core/util/string_pool.h"

#include <cstring>

namespace ks {

namespace {
constexpr size_t kBlockSize = 64 * 1024;
}

StringPool::StringPool() {
  views_.emplace_back();
  ids_.emplace(std::string_view(), 0);
}

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

StringId StringPool::intern(std::string_view s) {
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  std::string_view kept = store(s);
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(kept);
  ids_.emplace(kept, id);
  return id;
}

}  // namespace ks
