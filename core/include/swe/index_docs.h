// Documents of an index: a string id, and optionally the text and JSON metadata, for some of its
// entries. Saved in the index file beside the vectors (schema IndexDocs) but kept apart from Index:
// the search scan never reads them, and libswe's index handle keeps the two in step. A copy costs a
// few pointers and shares the documents (what a published version of an index holds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "swe/shared_map.h"
#include "swe/status.h"

namespace swe {

struct IndexDoc {
  std::string id;        // non-empty, unique in the index
  std::string text;      // may be empty
  std::string metadata;  // a JSON text, or empty
};

class IndexDocs {
 public:
  bool empty() const { return docs_.empty(); }
  size_t size() const { return docs_.size(); }
  // The document of index entry `entry`, or null.
  const IndexDoc* Get(uint64_t entry) const { return docs_.Find(entry); }
  // The entry whose document has string id `id`; false when none has.
  bool Find(std::string_view id, uint64_t* entry) const;
  // Sets the document of `entry` (replacing one it had). Refuses (invalid argument) an empty id, one
  // that another entry's document has, and text that is not valid UTF-8.
  Status Put(uint64_t entry, IndexDoc doc);
  void Erase(uint64_t entry);
  bool has_texts() const;
  bool has_metadata() const;
  // Calls f(entry, doc) for every document, in no particular order.
  template <typename F>
  void ForEach(F&& f) const { docs_.ForEach(f); }
  // Sizes the maps for `n` documents (a load).
  void Reserve(size_t n) {
    docs_.Reserve(n);
    by_id_.Reserve(n);
  }

 private:
  // Copies share them (shared_map.h): a copy is a version that changes to the original never touch.
  SharedMap<uint64_t, IndexDoc> docs_;
  SharedMap<std::string, uint64_t> by_id_;
};

}  // namespace swe
