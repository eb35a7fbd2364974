// A hash map whose copies share their entries: a copy costs a pointer, and a change copies only the
// shard it touches (a few hundred entries), and the table of shards, when another copy still holds
// them. What lets an index and its documents publish versions that searches keep reading while the
// next change is made (swe.h, "Thread safety"): a change never writes what a version can see.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace swe {

template <typename K, typename V, typename Hash = std::hash<K>>
class SharedMap {
 public:
  using Shard = std::unordered_map<K, V, Hash>;

  SharedMap() : table_(std::make_shared<Table>(kMinShards)) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value of `key`, or null. Valid while this copy (or one sharing the shard) lives unchanged.
  const V* Find(const K& key) const {
    const std::shared_ptr<Shard>& shard = (*table_)[ShardOf(key, table_->size())];
    if (!shard) return nullptr;
    auto it = shard->find(key);
    return it == shard->end() ? nullptr : &it->second;
  }

  // Sets `key` to `value` (inserted or replaced).
  void Set(const K& key, V value) {
    if (size_ + 1 > kEntriesPerShard * table_->size()) Grow(2 * table_->size());
    Shard& shard = Writable(ShardOf(key, table_->size()));
    auto [it, inserted] = shard.insert_or_assign(key, std::move(value));
    (void)it;
    size_ += inserted;
  }

  // Removes `key`; false when it was not there.
  bool Erase(const K& key) {
    const size_t s = ShardOf(key, table_->size());
    if (!(*table_)[s] || (*table_)[s]->count(key) == 0) return false;
    Writable(s).erase(key);
    --size_;
    return true;
  }

  // Sizes the table for `n` entries before they are added (a load): no regrowth meanwhile.
  void Reserve(size_t n) {
    size_t shards = table_->size();
    while (n > kEntriesPerShard * shards) shards *= 2;
    if (shards != table_->size()) Grow(shards);
  }

  // Calls f(key, value) for every entry, in no particular order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const std::shared_ptr<Shard>& shard : *table_) {
      if (!shard) continue;
      for (const auto& [key, value] : *shard) f(key, value);
    }
  }

 private:
  using Table = std::vector<std::shared_ptr<Shard>>;
  static constexpr size_t kMinShards = 16;
  static constexpr size_t kEntriesPerShard = 512;  // what a change copies, on average, at most

  static size_t ShardOf(const K& key, size_t shards) {
    const uint64_t h = static_cast<uint64_t>(Hash{}(key)) * 0x9E3779B97F4A7C15ull;  // std::hash of an integer is itself
    return static_cast<size_t>(h >> 40) & (shards - 1);
  }

  // The shard, made this copy's own first when another copy shares it (or the table holding it).
  Shard& Writable(size_t s) {
    if (table_.use_count() > 1) table_ = std::make_shared<Table>(*table_);
    std::shared_ptr<Shard>& shard = (*table_)[s];
    if (!shard) {
      shard = std::make_shared<Shard>();
    } else if (shard.use_count() > 1) {
      shard = std::make_shared<Shard>(*shard);
    }
    return *shard;
  }

  // Spreads the entries over `shards` shards (every entry moves: amortised over the entries added).
  void Grow(size_t shards) {
    auto table = std::make_shared<Table>(shards);
    for (const std::shared_ptr<Shard>& shard : *table_) {
      if (!shard) continue;
      for (const auto& [key, value] : *shard) {
        std::shared_ptr<Shard>& to = (*table)[ShardOf(key, shards)];
        if (!to) to = std::make_shared<Shard>();
        to->emplace(key, value);
      }
    }
    table_ = std::move(table);
  }

  std::shared_ptr<Table> table_;
  size_t size_ = 0;
};

}  // namespace swe
