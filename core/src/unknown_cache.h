// The tokenizer's cache of unknown words resolved by their subword prefix (step 3), one per thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "swe/model.h"

namespace swe {

// Step 3's results for recent unknown words: real text repeats its names and numbers, and the
// subword fallback costs far more than a lookup. One cache a thread, so that it outlives the
// tokenizer (the C API makes encoders for single calls too); each entry is for one model (told
// apart by Model::serial, never reused, not by address), so models used in turn keep their entries.
// Four-way set associative (the oldest entry of a set is replaced), 8,192 words of up to 24 bytes,
// 300 KB; allocated on first use, with only the key sizes zeroed (a word is never empty). Two ways
// of 2,048 sets thrashed: text that repeats ~1,100 distinct unknown words (STS-B's dev set) has ~35
// sets with three or more of them, and a set that takes its words in turn missed every time
// (docs/BENCHMARKS.md, "Memory").
class UnknownCache {
 public:
  static UnknownCache& ThisThread() {
    thread_local UnknownCache cache;
    return cache;
  }
  void Clear() {
    if (table_ == nullptr) return;
    std::memset(table_->size, 0, sizeof table_->size);
    std::memset(table_->next, 0, sizeof table_->next);
  }
  bool Find(const Model& model, std::string_view word, int64_t* id) {
    if (table_ == nullptr || word.empty() || word.size() > kMaxKey) return false;
    const size_t set = SetOf(model, word);
    for (size_t way = 0; way < kWays; ++way) {
      if (table_->size[set][way] == word.size() && table_->model[set][way] == model.serial() &&
          std::memcmp(table_->key[set][way], word.data(), word.size()) == 0) {
        *id = table_->id[set][way] == kNone ? int64_t{-1} : int64_t{table_->id[set][way]};
        return true;
      }
    }
    return false;
  }
  void Put(const Model& model, std::string_view word, int64_t id) {
    if (word.empty() || word.size() > kMaxKey) return;
    if (table_ == nullptr) {
      table_.reset(new Table);
      Clear();
    }
    const size_t set = SetOf(model, word);
    const size_t way = table_->next[set];
    table_->next[set] = static_cast<uint8_t>((way + 1) % kWays);
    table_->size[set][way] = static_cast<uint8_t>(word.size());
    table_->model[set][way] = model.serial();
    std::memcpy(table_->key[set][way], word.data(), word.size());
    table_->id[set][way] = id < 0 ? kNone : static_cast<uint32_t>(id);
  }

  static constexpr size_t kSets = 2048, kWays = 4, kMaxKey = 24;
  // The set a word's entry for a model goes to (public for tests that fill one set).
  static size_t SetOf(const Model& model, std::string_view word) {
    return (HashWord(word) ^ model.serial() * 0x9E3779B97F4A7C15ull) & (kSets - 1);
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // no prefix found (rows are < 0xE0000000)
  struct Table {
    uint8_t size[kSets][kWays];  // 0: unused; key and id are set with it
    uint8_t next[kSets];         // the way that the next Put replaces: ways fill, then go oldest first
    uint32_t id[kSets][kWays];
    uint64_t model[kSets][kWays];  // Model::serial
    char key[kSets][kWays][kMaxKey];
  };
  std::unique_ptr<Table> table_;
};

}  // namespace swe
