// The change log of an index file: records written after the base, read back and applied
// (docs/FORMAT.md, "Index change log").
#include "swe/index_log.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "container.h"
#include "index_internal.h"
#include "swe.capnp.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "index files are little-endian; add byte swapping for this target"
#endif

namespace swe {
namespace {

constexpr uint8_t kRecordMagic[8] = {0x89, 'S', 'W', 'L', '\r', '\n', 0x1A, '\n'};
constexpr size_t kRecordHeader = 32;
using index_internal::kMaxBlobBytes;

template <typename T>
T Get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void Set(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

uint64_t Align8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// FrameHash of the record at `p` (header and `body` bytes), its checksum field read as 0.
uint32_t RecordChecksum(const uint8_t* p, uint32_t body) {
  uint8_t header[kRecordHeader];
  std::memcpy(header, p, kRecordHeader);
  Set<uint32_t>(header + 24, 0);
  container::FrameHash hash;
  hash.Add(header, kRecordHeader);  // 32 bytes: a whole piece of FrameHash
  hash.Add(p + kRecordHeader, body);
  return hash.Finish();
}

enum class Found { kNone, kRecord, kUnknownFlags };

// Whether a checked record for the base with `base_checksum` starts at `p` (`available` bytes from
// there), with `sequence` (0: any); *body receives its body size.
Found CheckedRecord(const uint8_t* p, size_t available, uint32_t base_checksum, uint32_t sequence, uint32_t* body) {
  if (available < kRecordHeader || std::memcmp(p, kRecordMagic, 8) != 0) return Found::kNone;
  *body = Get<uint32_t>(p + 8);
  if (*body == 0 || *body % 8 != 0 || *body > available - kRecordHeader) return Found::kNone;
  if ((sequence != 0 && Get<uint32_t>(p + 12) != sequence) || Get<uint32_t>(p + 16) != base_checksum) return Found::kNone;
  if (Get<uint32_t>(p + 28) != 0 || RecordChecksum(p, *body) != Get<uint32_t>(p + 24)) return Found::kNone;
  return Get<uint32_t>(p + 20) == 0 ? Found::kRecord : Found::kUnknownFlags;  // the checksum covers the flags
}

// Whether a record for the base (any sequence number) starts at an 8-byte boundary of `data`.
bool AnyRecordIn(const uint8_t* data, size_t size, uint32_t base_checksum) {
  uint32_t body = 0;
  for (size_t at = 0; at + kRecordHeader <= size; at += 8) {
    if (CheckedRecord(data + at, size - at, base_checksum, 0, &body) != Found::kNone) return true;
  }
  return false;
}

schema::DType ToSchema(DType dtype) { return dtype == DType::kF32 ? schema::DType::F32 : schema::DType::INT8; }

capnp::Text::Reader AsText(const std::string& s) { return capnp::Text::Reader(s.data(), s.size()); }

void WriteStep(const Index& index, const IndexStep& step, schema::IndexStep::Builder out) {
  capnp::Data::Builder removed = out.initRemoved(static_cast<unsigned>(step.removed.size() * 8));
  if (!step.removed.empty()) std::memcpy(removed.begin(), step.removed.data(), step.removed.size() * 8);
  if (step.entries.empty()) return;
  const unsigned puts = static_cast<unsigned>(step.entries.size());
  capnp::Data::Builder entries = out.initEntries(puts * 8);
  std::memcpy(entries.begin(), step.entries.data(), size_t{puts} * 8);
  schema::Table::Builder table = out.initVectors();
  table.setDtype(ToSchema(index.dtype()));
  table.setRows(puts);
  table.setDims(index.dims());
  capnp::Data::Builder rows = table.initData(static_cast<unsigned>(step.rows.size()));
  std::memcpy(rows.begin(), step.rows.data(), step.rows.size());
  if (index.dtype() == DType::kInt8) {
    capnp::Data::Builder scales = table.initScales(puts * 4);
    std::memcpy(scales.begin(), step.scales.data(), size_t{puts} * 4);
  }
  if (!step.sets_docs) return;
  auto ids = out.initDocIds(puts);
  const bool texts = std::any_of(step.docs.begin(), step.docs.end(), [](const IndexDoc& d) { return !d.text.empty(); });
  const bool metadata =
      std::any_of(step.docs.begin(), step.docs.end(), [](const IndexDoc& d) { return !d.metadata.empty(); });
  auto text_list = out.initTexts(texts ? puts : 0);
  auto metadata_list = out.initMetadata(metadata ? puts : 0);
  for (unsigned i = 0; i < puts; ++i) {
    ids.set(i, AsText(step.docs[i].id));
    if (texts) text_list.set(i, AsText(step.docs[i].text));
    if (metadata) metadata_list.set(i, AsText(step.docs[i].metadata));
  }
}

std::string Text(capnp::Text::Reader text) { return std::string(text.begin(), text.size()); }

// Reads one step (checking what does not depend on the index's entries) and applies it.
Status ApplyStep(schema::IndexStep::Reader step, const ReadLimits& limits, Index* index, IndexDocs* docs) {
  const capnp::Data::Reader removed = step.getRemoved();
  if (removed.size() % 8 != 0) return Corrupt("index log: removed ids are not whole u64s");
  for (size_t i = 0; i < removed.size(); i += 8) {
    const uint64_t entry = Get<uint64_t>(removed.begin() + i);
    if (!index->Remove(entry).ok()) return Corrupt("index log: entry " + std::to_string(entry) + " removed but absent");
    if (docs) docs->Erase(entry);
  }
  const capnp::Data::Reader entries = step.getEntries();
  if (entries.size() % 8 != 0) return Corrupt("index log: entry ids are not whole u64s");
  const uint64_t puts = entries.size() / 8;
  if (puts > limits.max_rows) return TooLarge("index log: " + std::to_string(puts) + " rows over the limit");
  const schema::Table::Reader table = step.getVectors();
  const auto doc_ids = step.getDocIds();
  const auto texts = step.getTexts();
  const auto metadata = step.getMetadata();
  if (puts == 0) {
    if (step.hasVectors() || doc_ids.size() || texts.size() || metadata.size()) return Corrupt("index log: rows without entries");
    return Status::Ok();
  }
  const DType dtype = table.getDtype() == schema::DType::F32 ? DType::kF32 : DType::kInt8;
  if ((table.getDtype() != schema::DType::F32 && table.getDtype() != schema::DType::INT8) ||
      dtype != index->dtype() || table.getDims() != index->dims() || table.getRows() != puts) {
    return Corrupt("index log: rows of another dtype, dims or count than the index's");
  }
  const capnp::Data::Reader rows = table.getData();
  const capnp::Data::Reader scales = table.getScales();
  if (rows.size() != puts * index->row_bytes() || scales.size() != (dtype == DType::kInt8 ? puts * 4 : 0)) {
    return Corrupt("index log: rows or scales of the wrong size");
  }
  const bool sets_docs = doc_ids.size() != 0;
  if ((sets_docs && doc_ids.size() != puts) || (texts.size() && texts.size() != doc_ids.size()) ||
      (metadata.size() && metadata.size() != doc_ids.size())) {
    return Corrupt("index log: documents do not match the entries");
  }
  for (uint64_t i = 0; i < puts; ++i) {
    const uint64_t entry = Get<uint64_t>(entries.begin() + 8 * i);
    if (sets_docs && docs) {
      IndexDoc doc{Text(doc_ids[i]), texts.size() ? Text(texts[i]) : "", metadata.size() ? Text(metadata[i]) : ""};
      if (Status s = docs->Put(entry, std::move(doc)); !s.ok()) return Corrupt("index log: document of entry " + std::to_string(entry) + ": " + s.message());
    }
    const float scale = dtype == DType::kInt8 ? Get<float>(scales.begin() + 4 * i) : 0.0f;
    SWE_RETURN_IF_ERROR(index->PutStored(entry, rows.begin() + i * index->row_bytes(), scale));
  }
  return Status::Ok();
}

// Decodes the record body (`words`: word-aligned) and applies its steps.
Status ApplyRecord(const capnp::word* words, size_t size_words, const ReadLimits& limits, Index* index,
                   IndexDocs* docs) {
  try {
    capnp::ReaderOptions options;
    options.traversalLimitInWords = size_words + 8;  // every object is read once
    capnp::FlatArrayMessageReader reader(kj::ArrayPtr<const capnp::word>(words, size_words), options);
    if (reader.getEnd() != words + size_words) return Corrupt("index log: bytes after a record's message");
    for (schema::IndexStep::Reader step : reader.getRoot<schema::IndexChange>().getSteps()) {
      SWE_RETURN_IF_ERROR(ApplyStep(step, limits, index, docs));
    }
    return Status::Ok();
  } catch (const kj::Exception& e) {
    return Corrupt(std::string("index log: ") + e.getDescription().cStr());
  } catch (const std::bad_alloc&) {
    return TooLarge("index log: out of memory");
  } catch (const std::exception& e) {
    return Corrupt(std::string("index log: ") + e.what());
  }
}

}  // namespace

bool IndexFileState::CompactionDue(uint64_t record) const {
  const uint64_t allowed = std::max<uint64_t>(base_size / 2, 64u << 10);
  return log_size() + record > allowed;
}

void IndexJournal::BeginPuts(bool sets_docs) {
  steps_.emplace_back();
  steps_.back().sets_docs = sets_docs;
}

void IndexJournal::Put(const Index& index, uint64_t entry, const IndexDoc* doc) {
  IndexStep& step = steps_.back();
  const size_t row = index.row_bytes();
  step.entries.push_back(entry);
  step.rows.resize(step.rows.size() + row);
  float scale = 0;
  index.StoredRow(entry, step.rows.data() + step.rows.size() - row, &scale);
  if (index.dtype() == DType::kInt8) step.scales.push_back(scale);
  bytes_ += 8 + row + 4;
  if (step.sets_docs) {
    step.docs.push_back(doc ? *doc : IndexDoc{});
    bytes_ += 3 * 8 + step.docs.back().id.size() + step.docs.back().text.size() + step.docs.back().metadata.size();
  }
}

void IndexJournal::Remove(uint64_t entry) {
  if (steps_.empty() || !steps_.back().entries.empty()) steps_.emplace_back();
  steps_.back().removed.push_back(entry);
  bytes_ += 8;
}

void IndexJournal::Clear() {
  steps_.clear();
  bytes_ = 0;
}

Status FrameIndexRecord(const uint8_t* body, size_t size, const IndexFileState& state, std::vector<uint8_t>* out,
                        IndexFileState* after) {
  if (size == 0 || size % 8 != 0 || size > UINT32_MAX) {
    return TooLarge("a change of " + std::to_string(size) + " bytes cannot be one record");
  }
  out->clear();
  out->resize(Align8(state.valid_size) - state.valid_size, 0);  // the pad after the base
  const size_t at = out->size();
  out->resize(at + kRecordHeader + size, 0);
  uint8_t* record = out->data() + at;
  std::memcpy(record, kRecordMagic, 8);
  Set<uint32_t>(record + 8, static_cast<uint32_t>(size));
  Set<uint32_t>(record + 12, state.records + 1);
  Set<uint32_t>(record + 16, state.base_checksum);
  std::memcpy(record + kRecordHeader, body, size);
  Set<uint32_t>(record + 24, RecordChecksum(record, static_cast<uint32_t>(size)));
  *after = state;
  after->mark_offset = state.valid_size + at;
  after->mark.assign(record, record + kRecordHeader);
  after->valid_size = after->file_size = state.valid_size + out->size();
  after->records = state.records + 1;
  return Status::Ok();
}

Status EncodeIndexRecord(const Index& index, const std::vector<IndexStep>& steps, const IndexFileState& state,
                         std::vector<uint8_t>* out, IndexFileState* after) {
  for (const IndexStep& step : steps) {
    if (step.rows.size() > kMaxBlobBytes || step.removed.size() * 8 > kMaxBlobBytes ||
        step.entries.size() * 8 > kMaxBlobBytes) {
      return TooLarge("a change of " + std::to_string(step.entries.size()) + " entries is too large for one record");
    }
  }
  try {
    capnp::MallocMessageBuilder message;
    auto list = message.initRoot<schema::IndexChange>().initSteps(static_cast<unsigned>(steps.size()));
    for (size_t i = 0; i < steps.size(); ++i) WriteStep(index, steps[i], list[static_cast<unsigned>(i)]);
    const kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
    const kj::ArrayPtr<const kj::byte> body = words.asBytes();
    return FrameIndexRecord(body.begin(), body.size(), state, out, after);
  } catch (const kj::Exception& e) {
    return Internal(std::string("writing an index record: ") + e.getDescription().cStr());
  } catch (const std::bad_alloc&) {
    return TooLarge("out of memory while writing an index record");
  }
}

Status ApplyIndexLog(const uint8_t* data, size_t size, const ReadLimits& limits, Index* index, IndexDocs* docs,
                     IndexFileState* state) {
  // The pad between the base and the first record: zeros, possibly cut short by a torn append.
  size_t at = 0;
  if (state->records == 0) {
    const size_t pad = Align8(state->valid_size) - state->valid_size;
    if (size < pad || std::any_of(data, data + pad, [](uint8_t b) { return b != 0; })) {
      state->file_size = state->valid_size + size;
      return size > pad && AnyRecordIn(data + pad, size - pad, state->base_checksum)
                 ? Corrupt("index log: damaged before its first record")
                 : Status::Ok();
    }
    at = pad;
  }
  std::vector<uint64_t> aligned;  // a record's body copied when `data` is not word-aligned
  while (at < size) {
    uint32_t body = 0;
    const Found found = CheckedRecord(data + at, size - at, state->base_checksum, state->records + 1, &body);
    if (found == Found::kUnknownFlags) {
      return Unsupported("index log: record " + std::to_string(state->records + 1) + " has flags this reader does not know");
    }
    if (found == Found::kNone) break;
    const uint8_t* message = data + at + kRecordHeader;
    if (reinterpret_cast<uintptr_t>(message) % 8 != 0) {
      aligned.resize(body / 8);
      std::memcpy(aligned.data(), message, body);
      message = reinterpret_cast<const uint8_t*>(aligned.data());
    }
    if (Status s = ApplyRecord(reinterpret_cast<const capnp::word*>(message), body / 8, limits, index, docs);
        !s.ok()) {
      return Status(s.code(), s.message() + " (record " + std::to_string(state->records + 1) + ")");
    }
    state->mark_offset = state->valid_size + at;
    state->mark.assign(data + at, data + at + kRecordHeader);
    at += kRecordHeader + body;
    state->records += 1;
  }
  state->valid_size += at;
  state->file_size = state->valid_size + (size - at);
  if (at < size && AnyRecordIn(data + at, size - at, state->base_checksum)) {
    return Corrupt("index log: record " + std::to_string(state->records + 1) + " is damaged and later records follow");
  }
  return Status::Ok();
}

IndexTail ClassifyIndexTail(const uint8_t* data, size_t size, const IndexFileState& state) {
  if (size == 0) return IndexTail::kNone;
  const size_t pad = state.records == 0 ? Align8(state.valid_size) - state.valid_size : 0;
  uint32_t body = 0;
  if (size >= pad && std::all_of(data, data + pad, [](uint8_t b) { return b == 0; }) &&
      CheckedRecord(data + pad, size - pad, state.base_checksum, state.records + 1, &body) != Found::kNone) {
    return IndexTail::kAppended;
  }
  return AnyRecordIn(data + pad, size - std::min(size, pad), state.base_checksum) ? IndexTail::kCorrupt
                                                                                  : IndexTail::kTorn;
}

}  // namespace swe
