// The vocabulary's word -> row lookup: a perfect hash (one slot a word, no probing).
//
// Words are hashed into buckets of about two; each bucket stores a 16-bit "pilot" chosen at build
// time so that its words land in free slots of a table only 1/6 larger than the vocabulary. A lookup
// reads the bucket's pilot (2 bytes; the pilots of a 40,000-word vocabulary are 40 KB and stay in
// the L2 cache) and then exactly one 16-byte slot, which holds the word's first 8 bytes, its length and hash
// tag: a word of up to 8 bytes is found or rejected there, a longer one compares its tail with the
// vocabulary. 19.7 bytes a word instead of the 52 of the linear-probing table (load <= 1/2) that came
// before (docs/BENCHMARKS.md, "A perfect-hash word index"), and no probe sequences.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "bytes.h"
#include "swe/status.h"

namespace swe {

class WordIndex {
 public:
  // Indexes the words (kept, not copied: they must outlive the index). Fails on a duplicate word, or
  // (never seen for real vocabularies; the bounded search keeps hostile files from hanging the load)
  // when no pilots are found.
  Status Build(const StringsView& words);
  // Row of `word` (exact bytes), or -1.
  int64_t Find(std::string_view word) const;
  // Starts loading the slot Find(word) will read.
  void Prefetch(std::string_view word) const;
  // Heap bytes held (slots and pilots).
  size_t bytes() const;

 private:
  struct Slot {
    uint64_t head = 0;          // the word's first 8 bytes, zero-padded
    uint32_t tag = 0;           // 24 hash bits | min(length, 255) (bytes.h KeyTag)
    uint32_t row_plus_one = 0;  // 0 = empty
  };
  std::string_view word(uint32_t row) const { return words_.at(row); }
  uint32_t SlotOf(uint64_t hash) const;
  Status TryBuild(uint64_t seed, bool* built);

  StringsView words_;
  uint32_t buckets_ = 0, slot_count_ = 0;
  uint64_t seed_ = 0;
  std::unique_ptr<uint16_t[]> pilots_;
  std::unique_ptr<Slot[]> slots_;
};

// 64-bit hash of a word under a seed (multiply-xorshift, 8 bytes at a time); exposed for tests.
uint64_t HashWord64(std::string_view word, uint64_t seed);

}  // namespace swe
