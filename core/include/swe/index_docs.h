// Documents of an index: a string id, and optionally the text and JSON metadata, for some of its
// entries. Saved in the index file beside the vectors (schema IndexDocs) but kept apart from Index:
// the search scan never reads them, and libswe's index handle keeps the two in step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

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
  const IndexDoc* Get(uint64_t entry) const;
  // The entry whose document has string id `id`; false when none has.
  bool Find(std::string_view id, uint64_t* entry) const;
  // Sets the document of `entry` (replacing one it had). Refuses (invalid argument) an empty id, one
  // that another entry's document has, and text that is not valid UTF-8.
  Status Put(uint64_t entry, IndexDoc doc);
  void Erase(uint64_t entry);
  bool has_texts() const;
  bool has_metadata() const;
  const std::unordered_map<uint64_t, IndexDoc>& all() const { return docs_; }

 private:
  std::unordered_map<uint64_t, IndexDoc> docs_;
  std::unordered_map<std::string, uint64_t> by_id_;
};

}  // namespace swe
