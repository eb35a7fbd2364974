#include "word_index.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bytes.h"

namespace swe {
namespace {

constexpr uint32_t kWordsPerBucket = 2;  // 4 packs pilots tighter but makes loads ~1 ms slower (search)
constexpr uint32_t kPilots = 1u << 16;  // pilots are uint16
constexpr uint64_t kSeeds = 4;          // hash seeds tried before giving up
// A bucket this large never happens by chance (about 2 words each); words chosen to crowd one bucket
// under a seed make that seed give up at once instead of searching pilots for them.
constexpr uint32_t kMaxBucket = 64;

}  // namespace

Status WordIndex::Build(const StringsView& words) {
  words_ = words;
  const uint32_t rows = words.count;
  if (rows > 0xE0000000u) return Corrupt("vocabulary of " + std::to_string(rows) + " words is too large to index");
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    bool built = false;
    SWE_RETURN_IF_ERROR(TryBuild(seed, &built));
    if (built) return Status::Ok();
  }
  return Corrupt("the vocabulary's " + std::to_string(rows) + " words could not be indexed (their hashes collide)");
}

// Buckets are placed largest first (when the table is emptiest); each takes the first pilot that puts
// all its words in free, distinct slots. Sets *built = false when a seed fails (a bucket with no
// pilot among 65,536, e.g. two different words with one 64-bit hash: the next seed re-draws
// everything). Two equal words never get distinct slots, so duplicates are looked for only there.
Status WordIndex::TryBuild(uint64_t seed, bool* built) {
  const uint32_t n = words_.count;
  // Built in locals, kept only on success: a failed build leaves the empty index (finds nothing).
  const uint32_t buckets = n / kWordsPerBucket + 1, slot_count = n + n / 6 + 1;
  std::vector<uint64_t> hash(n);
  std::vector<uint32_t> start(buckets + 1, 0);
  for (uint32_t row = 0; row < n; ++row) {
    hash[row] = HashWord64(word(row), seed);
    ++start[BucketOf(hash[row], buckets) + 1];
  }
  for (uint32_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  std::vector<uint32_t> members(n);  // rows grouped by bucket
  {
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (uint32_t row = 0; row < n; ++row) members[next[BucketOf(hash[row], buckets)]++] = row;
  }
  uint32_t largest = 0;
  for (uint32_t b = 0; b < buckets; ++b) largest = std::max(largest, start[b + 1] - start[b]);
  if (largest > kMaxBucket) {
    *built = false;
    return Status::Ok();
  }
  // Buckets by size, largest first (a counting sort).
  std::vector<uint32_t> by_size(largest + 2, 0);
  for (uint32_t b = 0; b < buckets; ++b) ++by_size[largest - (start[b + 1] - start[b]) + 1];
  for (uint32_t s = 0; s <= largest; ++s) by_size[s + 1] += by_size[s];
  std::vector<uint32_t> order(buckets);
  for (uint32_t b = 0; b < buckets; ++b) order[by_size[largest - (start[b + 1] - start[b])]++] = b;

  auto pilots = std::make_unique<uint16_t[]>(buckets);
  std::vector<uint64_t> used((slot_count + 63) / 64, 0);
  std::vector<uint32_t> placed(largest), slot_of(n);  // slot_of: by position in members
  std::vector<uint64_t> bucket_hash(largest);
  for (const uint32_t b : order) {
    const uint32_t first = start[b], size = start[b + 1] - first;
    if (size == 0) break;  // the rest are empty too
    uint32_t pilot = 0;
    for (uint32_t k = 0; k < size; ++k) bucket_hash[k] = hash[members[first + k]];
    for (; pilot < kPilots; ++pilot) {
      // All the bucket's slots, then one branch on whether any is taken: most trials fail, and a
      // branch per word mispredicts more than the few extra multiplies cost.
      uint64_t taken = 0;
      for (uint32_t k = 0; k < size; ++k) {
        const uint32_t slot = Place(bucket_hash[k], pilot, slot_count);
        placed[k] = slot;
        taken |= used[slot / 64] >> (slot % 64);
      }
      if (taken & 1) continue;
      bool twice = false;
      for (uint32_t k = 1; k < size; ++k) {
        for (uint32_t j = 0; j < k; ++j) twice |= placed[j] == placed[k];
      }
      if (!twice) break;
    }
    if (pilot == kPilots) {  // two words with one hash share a slot under every pilot: a duplicate?
      for (uint32_t i = first; i < first + size; ++i) {
        for (uint32_t j = first; j < i; ++j) {
          if (hash[members[i]] == hash[members[j]] && word(members[i]) == word(members[j])) {
            return Corrupt("duplicate vocabulary word '" + std::string(word(members[i])) + "'");
          }
        }
      }
      *built = false;
      return Status::Ok();
    }
    pilots[b] = static_cast<uint16_t>(pilot);
    for (uint32_t k = 0; k < size; ++k) {
      used[placed[k] / 64] |= uint64_t{1} << (placed[k] % 64);
      slot_of[first + k] = placed[k];
    }
  }
  auto slots = std::make_unique<Slot[]>(slot_count);
  constexpr uint32_t kAhead = 8;  // the slot writes land at random: start their lines early
  for (uint32_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(&slots[slot_of[i + kAhead]], 1);
    const uint32_t row = members[i];
    const std::string_view w = word(row);
    slots[slot_of[i]] = Slot{LoadPartial(w.data(), w.size()), KeyTag(static_cast<uint32_t>(hash[row]), w.size()), row + 1};
  }
  seeded_ = HashSeed(seed);
  buckets_ = buckets;
  slot_count_ = slot_count;
  pilots_ = std::move(pilots);
  slots_ = std::move(slots);
  *built = true;
  return Status::Ok();
}

WordIndex::WordIndex() : pilots_(std::make_unique<uint16_t[]>(1)), slots_(std::make_unique<Slot[]>(1)) {}

size_t WordIndex::bytes() const { return slot_count_ * sizeof(Slot) + buckets_ * sizeof(uint16_t); }

}  // namespace swe
