// An open-addressing map from int64 keys to non-negative int64 values (graph
// relabelling today; sparse convolution rulebooks later).
//
// Why the mixing: the table's home slot is the top bits of a product.  With the
// raw key (plain Fibonacci hashing) ids that are multiples of a crafted stride all
// land in a handful of slots, and linear probing turns 200,000 of them into tens of
// seconds.  Keys are therefore XORed with a per-process random seed and passed
// through the SplitMix64 finalizer, whose every output bit depends on every input
// bit; the seed keeps a fixed, invertible mixer from being attacked by precomputed
// keys.  The seed never changes a result: callers only look keys up, and no output
// depends on where in the table a key sits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace weft {

// SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijection of uint64 with
// full avalanche.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// One seed per process, drawn once (thread-safe static initialisation).
inline std::uint64_t hash_seed() {
  static const std::uint64_t seed = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ static_cast<std::uint64_t>(rd());
  }();
  return seed;
}

// Linear probing over {key, value} pairs (one cache line per probe on a hit), value
// -1 marking an empty slot, so every int64 key is admissible.  Load at most 1/2.
class HashIndex {
 public:
  explicit HashIndex(std::int64_t expected) : seed_(hash_seed()) { rehash(capacity_for(expected)); }

  void assign(std::int64_t key, std::int64_t value) { *find_or_claim(key) = value; }
  void prefetch(std::int64_t key) const { __builtin_prefetch(&slots_[home(key)], 1); }

  // Value of key; inserts `fresh` first if the key is new (and reports it).
  std::int64_t get_or_insert(std::int64_t key, std::int64_t fresh, bool& inserted) {
    std::int64_t* v = find_or_claim(key);
    inserted = *v < 0;
    if (inserted) *v = fresh;
    return *v;
  }

  // Value of key, or -1.
  std::int64_t find(std::int64_t key) const {
    std::size_t h = home(key);
    while (slots_[h].value >= 0) {
      if (slots_[h].key == key) return slots_[h].value;
      h = (h + 1) & mask_;
    }
    return -1;
  }

  std::size_t size() const { return size_; }

 private:
  struct Entry {
    std::int64_t key;
    std::int64_t value;
  };
  std::vector<Entry> slots_;
  std::uint64_t seed_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t size_ = 0;

  static std::size_t capacity_for(std::int64_t n) {
    std::size_t cap = 16;
    while (cap < static_cast<std::size_t>(n < 0 ? 0 : n) * 2) cap <<= 1;
    return cap;
  }
  std::size_t home(std::int64_t key) const {
    return static_cast<std::size_t>(mix64(static_cast<std::uint64_t>(key) ^ seed_) >> shift_);
  }
  void rehash(std::size_t cap) {
    std::vector<Entry> old;
    old.swap(slots_);
    slots_.assign(cap, Entry{0, -1});
    mask_ = cap - 1;
    shift_ = 64 - __builtin_ctzll(cap);
    for (const Entry& e : old)
      if (e.value >= 0) {
        std::size_t h = home(e.key);
        while (slots_[h].value >= 0) h = (h + 1) & mask_;
        slots_[h] = e;
      }
  }
  // Slot of key's value; an empty slot (value -1) now owned by key if absent.
  std::int64_t* find_or_claim(std::int64_t key) {
    std::size_t h = home(key);
    while (slots_[h].value >= 0) {
      if (slots_[h].key == key) return &slots_[h].value;
      h = (h + 1) & mask_;
    }
    if (2 * (size_ + 1) > slots_.size()) {
      rehash(slots_.size() * 2);
      return find_or_claim(key);
    }
    ++size_;
    slots_[h].key = key;
    return &slots_[h].value;
  }
};

}  // namespace weft
