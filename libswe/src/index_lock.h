// The lock of an swe_index, and the whole of swe.h's thread rule for indexes: every swe_index_* call
// that reads an index holds its lock shared (Read), every call that changes it holds it alone (Write);
// nothing else takes it, and no call takes it twice. A readers/writer lock: a search waits while an
// add or remove runs. (Snapshot reads, where a search never waits, would replace this file.)
#pragma once

#include <mutex>
#include <shared_mutex>

namespace swe::capi {

class IndexLock {
 public:
  std::shared_lock<std::shared_mutex> Read() const { return std::shared_lock<std::shared_mutex>(mutex_); }
  std::unique_lock<std::shared_mutex> Write() { return std::unique_lock<std::shared_mutex>(mutex_); }

 private:
  mutable std::shared_mutex mutex_;
};

}  // namespace swe::capi
