// Per-thread scratch vectors kept from call to call.  A fresh multi-megabyte
// buffer costs a page fault per 4 KiB page on every call, which on a busy VM was
// measured to cost as much as the graph kernels' own work; vectors above 64 MiB
// are released so one huge call does not pin its memory.
#pragma once

#include <cstddef>
#include <vector>

namespace weft {

// Slot numbers are project-wide: every use site needs its own <T, Slot> pair,
// because two live buffers of one type and slot would be the same vector.
// Taken: reindex.cpp 10-19, sampling.cpp 20-29, spgemm.cpp 30-39, sparse/conv.cpp 40-49.
template <class T, int Slot>
class ScratchVector {
 public:
  ScratchVector() : v_(storage()) {}
  explicit ScratchVector(std::size_t n) : v_(storage()) { v_.resize(n); }
  ~ScratchVector() {
    if (v_.capacity() * sizeof(T) > kKeepBytes) std::vector<T>().swap(v_);
  }
  ScratchVector(const ScratchVector&) = delete;
  ScratchVector& operator=(const ScratchVector&) = delete;
  std::vector<T>& get() { return v_; }

 private:
  static constexpr std::size_t kKeepBytes = std::size_t{64} << 20;
  static std::vector<T>& storage() {
    static thread_local std::vector<T> v;
    return v;
  }
  std::vector<T>& v_;
};

}  // namespace weft
