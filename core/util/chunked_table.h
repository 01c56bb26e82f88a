// A table that grows in fixed blocks of rows: appending never copies what is there, so a
// multi-gigabyte trace needs no 2x slack of a doubling vector nor the 3x peak of its realloc.
// A block is raw storage and a row is constructed when it is appended: a small trace's tables
// (a model has fifteen) cost no 16,384-row initialisation each. The first block starts at 64
// rows and doubles (its rows moved) until it is a full block: a table of a few hundred rows holds
// a few hundred, not 16,384 (the modern 480 MiB trace's six small tables held 5.2 MB for 7,600
// rows, issue 21). Rows past the first block never move; a row of the first block moves while the
// table has fewer than kBlockRows rows, so nothing keeps a pointer to a row across push_back.
#pragma once
#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace ks {

template <typename T, size_t kBlockRows = 16384>
class ChunkedTable {
  static_assert(std::is_trivially_destructible_v<T>, "rows are never destroyed one by one");

 public:
  void push_back(const T& row) {
    if (size_ == capacity_) grow();
    ::new (&blocks_.back()[size_ % kBlockRows]) T(row);
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return blocks_[i / kBlockRows][i % kBlockRows]; }
  const T& operator[](size_t i) const { return blocks_[i / kBlockRows][i % kBlockRows]; }
  T& back() { return (*this)[size_ - 1]; }
  size_t bytes() const { return capacity_ * sizeof(T); }

  template <typename Table, typename Ref>
  class Iter {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = Ref*;
    using reference = Ref&;
    Iter(Table* t, size_t i) : t_(t), i_(i) {}
    Ref& operator*() const { return (*t_)[i_]; }
    Ref* operator->() const { return &(*t_)[i_]; }
    Iter& operator++() { ++i_; return *this; }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
   private:
    Table* t_;
    size_t i_;
  };
  using iterator = Iter<ChunkedTable, T>;
  using const_iterator = Iter<const ChunkedTable, const T>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct FreeBlock {
    void operator()(T* p) const { ::operator delete(p, std::align_val_t(alignof(T))); }
  };
  static constexpr size_t kFirstRows = kBlockRows < 64 ? kBlockRows : 64;
  static T* allocate(size_t rows) {
    return static_cast<T*>(::operator new(rows * sizeof(T), std::align_val_t(alignof(T))));
  }
  void grow() {
    if (blocks_.empty()) {
      blocks_.emplace_back(allocate(kFirstRows));
      capacity_ = kFirstRows;
    } else if (capacity_ < kBlockRows) {  // the first block, not yet full size: double it
      const size_t rows = capacity_ * 2 < kBlockRows ? capacity_ * 2 : kBlockRows;
      T* bigger = allocate(rows);
      for (size_t i = 0; i < size_; ++i) ::new (&bigger[i]) T(std::move(blocks_[0][i]));
      blocks_[0].reset(bigger);
      capacity_ = rows;
    } else {
      blocks_.emplace_back(allocate(kBlockRows));
      capacity_ += kBlockRows;
    }
  }
  std::vector<std::unique_ptr<T[], FreeBlock>> blocks_;
  size_t size_ = 0;
  size_t capacity_ = 0;  // rows the blocks hold: the first block's, then kBlockRows a block
};

}  // namespace ks
