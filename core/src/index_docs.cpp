// An index's documents and their part of the index file (schema IndexDocs).
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "index_docs_io.h"
#include "swe/unicode.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "index files store ids little-endian; add byte swapping for this target"
#endif

namespace swe {

bool IndexDocs::Find(std::string_view id, uint64_t* entry) const {
  const uint64_t* found = by_id_.Find(std::string(id));
  if (!found) return false;
  *entry = *found;
  return true;
}

Status IndexDocs::Put(uint64_t entry, IndexDoc doc) {
  // The caller names the document ("document 3: ..."), so these messages do not.
  if (doc.id.empty()) return InvalidArgument("empty id");
  for (const std::string* part : {&doc.id, &doc.text, &doc.metadata}) {
    if (!unicode::IsValidUtf8(*part)) return InvalidArgument("not valid UTF-8");
  }
  const uint64_t* same = by_id_.Find(doc.id);
  if (same && *same != entry) return InvalidArgument("duplicate id '" + doc.id + "'");
  Erase(entry);
  by_id_.Set(doc.id, entry);
  docs_.Set(entry, std::move(doc));
  return Status::Ok();
}

void IndexDocs::Erase(uint64_t entry) {
  const IndexDoc* doc = docs_.Find(entry);
  if (!doc) return;
  by_id_.Erase(doc->id);
  docs_.Erase(entry);
}

bool IndexDocs::has_texts() const {
  bool any = false;
  docs_.ForEach([&](uint64_t, const IndexDoc& doc) { any = any || !doc.text.empty(); });
  return any;
}

bool IndexDocs::has_metadata() const {
  bool any = false;
  docs_.ForEach([&](uint64_t, const IndexDoc& doc) { any = any || !doc.metadata.empty(); });
  return any;
}

void WriteIndexDocs(const IndexDocs& docs, schema::IndexDocs::Builder out) {
  const unsigned count = static_cast<unsigned>(docs.size());
  capnp::Data::Builder entries = out.initEntries(count * 8);
  auto ids = out.initIds(count);
  auto texts = out.initTexts(docs.has_texts() ? count : 0);
  auto metadata = out.initMetadata(docs.has_metadata() ? count : 0);
  // In entry order, not the hash map's: native and wasm builds write the same bytes.
  std::vector<std::pair<uint64_t, const IndexDoc*>> order;
  order.reserve(count);
  docs.ForEach([&](uint64_t entry, const IndexDoc& doc) { order.emplace_back(entry, &doc); });
  std::sort(order.begin(), order.end());
  unsigned i = 0;
  for (const auto& [entry, doc_pointer] : order) {
    const IndexDoc& doc = *doc_pointer;
    std::memcpy(entries.begin() + 8 * i, &entry, 8);
    ids.set(i, capnp::Text::Reader(doc.id.data(), doc.id.size()));
    if (texts.size()) texts.set(i, capnp::Text::Reader(doc.text.data(), doc.text.size()));
    if (metadata.size()) metadata.set(i, capnp::Text::Reader(doc.metadata.data(), doc.metadata.size()));
    ++i;
  }
}

Status ReadIndexDocs(schema::IndexDocs::Reader in, const ReadLimits& limits,
                     const std::function<bool(uint64_t)>& has_entry, IndexDocs* out) {
  const auto ids = in.getIds();
  const auto texts = in.getTexts();
  const auto metadata = in.getMetadata();
  const capnp::Data::Reader entries = in.getEntries();
  const uint64_t count = ids.size();
  if (count > limits.max_rows) return TooLarge("index docs: " + std::to_string(count) + " over the row limit");
  if (entries.size() != count * 8) return Corrupt("index docs: entries blob is not 8 * count bytes");
  if (texts.size() != 0 && texts.size() != count) return Corrupt("index docs: texts do not match the ids");
  if (metadata.size() != 0 && metadata.size() != count) return Corrupt("index docs: metadata do not match the ids");
  IndexDocs docs;
  docs.Reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    uint64_t entry;
    std::memcpy(&entry, entries.begin() + 8 * i, 8);
    if (!has_entry(entry)) return Corrupt("index docs: document " + std::to_string(i) + " names no entry");
    if (docs.Get(entry)) return Corrupt("index docs: two documents for entry " + std::to_string(entry));
    IndexDoc doc;
    // Each element is read once: the message's traversal limit counts every read.
    const capnp::Text::Reader id = ids[i];
    doc.id.assign(id.begin(), id.size());
    if (texts.size()) {
      const capnp::Text::Reader text = texts[i];
      doc.text.assign(text.begin(), text.size());
    }
    if (metadata.size()) {
      const capnp::Text::Reader meta = metadata[i];
      doc.metadata.assign(meta.begin(), meta.size());
    }
    if (Status s = docs.Put(entry, std::move(doc)); !s.ok()) {
      return Corrupt("index docs: document " + std::to_string(i) + ": " + s.message());
    }
  }
  *out = std::move(docs);
  return Status::Ok();
}

}  // namespace swe
