// The vocabulary's word -> row lookup: a perfect hash (one slot a word, no probing).
//
// Words are hashed into buckets of about two; each bucket stores a 16-bit "pilot" chosen at build
// time so that its words land in free slots of a table only 1/6 larger than the vocabulary. A lookup
// reads the bucket's pilot (2 bytes; the pilots of a 40,000-word vocabulary are 40 KB and stay in
// the L2 cache) and then exactly one 16-byte slot, which holds the word's first 8 bytes, its length and hash
// tag: a word of up to 8 bytes is found or rejected there, a longer one compares its tail with the
// vocabulary. 19.7 bytes a word instead of the 52 of the linear-probing table (load <= 1/2) that came
// before (docs/BENCHMARKS.md, "Memory"), and no probe sequences.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "bytes.h"
#include "swe/status.h"

namespace swe {

// 64-bit hash of a word (multiply-xorshift, 8 bytes at a time), in steps: the seed's part once per
// index (HashSeed), then the word (HashWordSeeded); WordIndex::HashShort takes a short word's steps
// from its head.
constexpr uint64_t kHashStep = 0xBF58476D1CE4E5B9ull;
inline uint64_t HashSeed(uint64_t seed) { return 0x9E3779B97F4A7C15ull ^ (seed * 0xD6E8FEB86659FD93ull); }
inline uint64_t HashStart(uint64_t seeded, size_t size) { return seeded ^ (size * 0xFF51AFD7ED558CCDull); }
inline uint64_t HashFinish(uint64_t h) {
  h ^= h >> 29;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 32;
  return h;
}
inline uint64_t HashWordSeeded(std::string_view word, uint64_t seeded) {
  uint64_t h = HashStart(seeded, word.size());
  const char* p = word.data();
  size_t n = word.size();
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ v) * kHashStep;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n > 0) h = (h ^ LoadPartial(p, n)) * kHashStep;
  return HashFinish(h);
}
inline uint64_t HashWord64(std::string_view word, uint64_t seed) { return HashWordSeeded(word, HashSeed(seed)); }

class WordIndex {
 public:
  // Empty: one bucket, one empty slot, so that lookups and prefetches need no null checks.
  WordIndex();
  // Indexes the words (kept, not copied: they must outlive the index). Fails on a duplicate word, or
  // (never seen for real vocabularies; the bounded search keeps hostile files from hanging the load)
  // when no pilots are found.
  Status Build(const StringsView& words);
  // The hash that Find and Prefetch take: a caller that looks a word up after prefetching it (the
  // tokenizer's batches) hashes it once. Inline, like the lookup: it is most of a known word's cost.
  uint64_t Hash(std::string_view word) const { return HashWordSeeded(word, seeded_); }
  // The same for a word of 1 to 8 bytes from its head (LoadPartial): the word's bytes are not read
  // again, and there is no loop.
  uint64_t HashShort(size_t size, uint64_t head) const {
    uint64_t h = (HashStart(seeded_, size) ^ head) * kHashStep;
    if (size == 8) h ^= h >> 31;
    return HashFinish(h);
  }
  // Row of `word` (exact bytes), or -1.
  int64_t Find(std::string_view word) const {
    const uint64_t hash = Hash(word);
    return Find(word, hash, SlotOf(hash), LoadPartial(word.data(), word.size()));
  }
  // The slot that a word hash looks in: callers that prefetch it (the tokenizer's batches) keep it for
  // Find instead of reading the bucket's pilot twice.
  uint32_t SlotOf(uint64_t hash) const { return Place(hash, pilots_[BucketOf(hash, buckets_)], slot_count_); }
  // The same with the word's hash, slot (SlotOf) and head (LoadPartial: its first 8 bytes) given. A
  // word of up to 8 bytes matches when tag (so length) and head agree; a longer one compares the rest.
  // The tokenizer loads the head as it splits the word (one masked load, LoadHead), a batch of words
  // before the lookup, and hashes a short word from it.
  SWE_INLINE_IN_WASM int64_t Find(std::string_view word, uint64_t hash, uint32_t slot_index, uint64_t head) const {
    const Slot& slot = slots_[slot_index];
    if (slot.row_plus_one == 0 || slot.tag != KeyTag(static_cast<uint32_t>(hash), word.size()) || slot.head != head) {
      return -1;
    }
    const uint32_t row = slot.row_plus_one - 1;
    if (word.size() > 8 && !SameTail(words_.at(row), word)) return -1;
    return row;
  }
  // Starts loading a slot (SlotOf) that Find will read. No branch around the prefetch: GCC 12 splits
  // a guarded prefetch into a function of its own, finds it pure and deletes the call (the tokenizer
  // lost its prefetches that way; tests/core/prefetch_test.sh checks that they are there).
  void Prefetch(uint32_t slot_index) const {
    if constexpr (kHasPrefetch) __builtin_prefetch(&slots_[slot_index]);
  }
  // Reads a slot (SlotOf) that Find will read, for targets without a prefetch instruction: a caller
  // that reads a batch's slots in one short loop has their cache misses overlap.
  uint32_t Touch(uint32_t slot_index) const { return slots_[slot_index].row_plus_one; }
  // Heap bytes held (slots and pilots).
  size_t bytes() const;

 private:
  struct Slot {
    uint64_t head = 0;          // the word's first 8 bytes, zero-padded
    uint32_t tag = 0;           // 24 hash bits | min(length, 255) (bytes.h KeyTag)
    uint32_t row_plus_one = 0;  // 0 = empty
  };
  // Multiply-shift of x into [0, n).
  static uint32_t Range(uint32_t x, uint32_t n) { return static_cast<uint32_t>((uint64_t{x} * n) >> 32); }
  static uint32_t BucketOf(uint64_t hash, uint32_t buckets) { return Range(static_cast<uint32_t>(hash >> 32), buckets); }
  // The slot of a word hash under a pilot: the pilot's constant flips bits all over the hash and the
  // multiply carries every bit into the high half, so each pilot gives the bucket's words a fresh set
  // of positions.
  static uint32_t Place(uint64_t hash, uint32_t pilot, uint32_t slot_count) {
    const uint64_t x = (hash ^ (pilot * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return Range(static_cast<uint32_t>(x >> 32), slot_count);
  }
  // Whether two words whose first 8 bytes agree are equal (b.size() > 8): whole loads for a tail of
  // up to 8 bytes (most words) instead of a call to memcmp.
  static bool SameTail(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;  // the tag holds lengths up to 255 only
    const size_t n = b.size() - 8;
    if (n <= 8) return LoadPartial(a.data() + 8, n) == LoadPartial(b.data() + 8, n);
    return std::memcmp(a.data() + 8, b.data() + 8, n) == 0;
  }
  std::string_view word(uint32_t row) const { return words_.at(row); }
  Status TryBuild(uint64_t seed, bool* built);

  StringsView words_;
  uint32_t buckets_ = 0, slot_count_ = 0;
  uint64_t seeded_ = HashSeed(0);  // HashSeed of the seed the pilots were found with
  std::unique_ptr<uint16_t[]> pilots_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace swe
