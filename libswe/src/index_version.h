// The whole of swe.h's thread rule for indexes. A call that reads an index reads the version the last
// change published (Read: an atomic load of a pointer, no lock), so a search never waits for a change.
// A change holds the index's writer lock (one change or save at a time), edits the handle's own index
// and documents, which share with the published versions all they did not change (index.h,
// shared_map.h: a copy costs a pointer per 1,024 rows and per map shard), and publishes them as the
// next version when it ends (Change). A version lives as long as a call that reads it.
#pragma once

#include <memory>
#include <mutex>

#include "swe/index.h"
#include "swe/index_docs.h"

struct swe_index;

namespace swe::capi {

struct IndexVersion {
  Index index;
  IndexDocs docs;
};

// The version a reading call reads.
std::shared_ptr<const IndexVersion> Read(const swe_index& index);

// A change: holds the writer lock from construction, publishes the handle's index and documents when
// destroyed (whatever the change did, failures included: a batch keeps what went in before its bad
// item).
class Change {
 public:
  explicit Change(swe_index& index);
  ~Change();
  Change(const Change&) = delete;
  Change& operator=(const Change&) = delete;

 private:
  swe_index& index_;
  std::unique_lock<std::mutex> lock_;
};

// Publishes the handle's index and documents (a new handle's, or under the writer lock).
void Publish(swe_index& index);

}  // namespace swe::capi
