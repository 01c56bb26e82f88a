// ScanFeed: the chunk buffer in front of the ChunkScanner, shared by everything that streams a
// trace (TraceReader, TraceTrimmer). Callers write chunks at prepare(), commit them, then read
// the complete events and top-level members the scan found; consumed bytes are dropped so only
// the unfinished tail stays.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/trace/chunk_scanner.h"

namespace ks {

class ScanFeed {
 public:
  // Room for n more bytes; valid until the next call.
  char* prepare(size_t n);
  // n bytes were written at prepare()'s pointer.
  void commit(size_t n) { size_ += n; }
  // Finds the complete events and members in what is held (`final`: the input ended). They are
  // valid until release().
  void scan(bool final, TraceHealth& health, bool pause = false);  // pause: ChunkScanner::scan
  const std::vector<ChunkScanner::Span>& events() const { return events_; }
  const std::vector<ChunkScanner::Member>& members() const { return members_; }
  std::string_view text(ChunkScanner::Span s) const { return {buf_.get() + s.begin, s.end - s.begin}; }
  const char* data() const { return buf_.get(); }
  size_t size() const { return size_; }
  // File offset of data()[0].
  uint64_t base_offset() const { return base_offset_; }
  // Drops what the scan consumed, keeping the unfinished tail.
  void release();
  const ChunkScanner& scanner() const { return scanner_; }
  ChunkScanner& scanner() { return scanner_; }
  // Drops what is held and starts again at file offset `offset`, inside the events array at an
  // element's '{' (range reading: ChunkScanner::start_in_events).
  void start_in_events(uint64_t offset, ChunkScanner::RootKind root);
  size_t capacity() const { return capacity_; }
  // Frees the buffer and span lists (at the end of input: their room is the views' then).
  void free_buffers();

 private:
  void reserve(size_t n);

  ChunkScanner scanner_;
  std::unique_ptr<char[]> buf_;
  size_t size_ = 0, capacity_ = 0;
  uint64_t base_offset_ = 0;
  std::vector<ChunkScanner::Span> events_;
  std::vector<ChunkScanner::Member> members_;
};

}  // namespace ks
