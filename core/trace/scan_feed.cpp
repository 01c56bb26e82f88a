#include "core/trace/scan_feed.h"

#include <cstring>

namespace ks {

namespace {
constexpr size_t kTailPadding = 64;  // the scanner reads whole 64-byte blocks at the end
}  // namespace

void ScanFeed::reserve(size_t n) {
  const size_t need = size_ + n + kTailPadding;
  if (need <= capacity_) return;
  size_t cap = capacity_ ? capacity_ : size_t(1) << 16;
  while (cap < need) cap *= 2;
  std::unique_ptr<char[]> bigger(new char[cap]);
  if (size_) std::memcpy(bigger.get(), buf_.get(), size_);
  buf_ = std::move(bigger);
  capacity_ = cap;
}

char* ScanFeed::prepare(size_t n) {
  reserve(n);
  return buf_.get() + size_;
}

void ScanFeed::scan(bool final, TraceHealth& health, bool pause) {
  events_.clear();
  members_.clear();
  if (final) {
    reserve(0);
    std::memset(buf_.get() + size_, ' ', kTailPadding);
  }
  scanner_.scan(buf_.get(), size_, final, base_offset_, events_, members_, health, pause);
}

void ScanFeed::free_buffers() {
  buf_.reset();
  size_ = capacity_ = 0;
  std::vector<ChunkScanner::Span>().swap(events_);
  std::vector<ChunkScanner::Member>().swap(members_);
}

void ScanFeed::start_in_events(uint64_t offset, ChunkScanner::RootKind root) {
  size_ = 0;
  base_offset_ = offset;
  events_.clear();
  members_.clear();
  scanner_ = ChunkScanner();
  scanner_.start_in_events(root);
}

void ScanFeed::release() {
  const size_t keep = scanner_.keep_from();
  if (keep == 0) return;
  std::memmove(buf_.get(), buf_.get() + keep, size_ - keep);
  size_ -= keep;
  base_offset_ += keep;
  scanner_.shift(keep);
}

}  // namespace ks
