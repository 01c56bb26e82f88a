// A table that grows in fixed blocks of rows: appending never copies what is there, so a
// multi-gigabyte trace needs no 2x slack of a doubling vector nor the 3x peak of its realloc.
// A block is raw storage and a row is constructed when it is appended: a small trace's tables
// (a model has fifteen) cost no 16,384-row initialisation each.
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
    if (size_ % kBlockRows == 0)
      blocks_.emplace_back(static_cast<T*>(::operator new(kBlockRows * sizeof(T), std::align_val_t(alignof(T)))));
    ::new (&blocks_.back()[size_ % kBlockRows]) T(row);
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return blocks_[i / kBlockRows][i % kBlockRows]; }
  const T& operator[](size_t i) const { return blocks_[i / kBlockRows][i % kBlockRows]; }
  T& back() { return (*this)[size_ - 1]; }
  size_t bytes() const { return blocks_.size() * kBlockRows * sizeof(T); }

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
  std::vector<std::unique_ptr<T[], FreeBlock>> blocks_;
  size_t size_ = 0;
};

}  // namespace ks
