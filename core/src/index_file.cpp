// The index file: Save and Load (container Kind::kIndex, schema struct Index), with the checks that
// keep a loaded index's scores finite cosines.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "container.h"
#include "index_docs_io.h"
#include "index_internal.h"
#include "swe/index_log.h"
#include "swe.capnp.h"

namespace swe {

namespace {

using index_internal::ElementSize;

using index_internal::kMaxBlobBytes;

void PutU64(uint8_t* p, uint64_t v) {
  for (int b = 0; b < 8; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "index files store floats little-endian; this target is big-endian"
#endif

schema::DType ToSchema(DType dtype) {
  return dtype == DType::kF32 ? schema::DType::F32 : schema::DType::INT8;
}

}  // namespace

Status Index::Save(std::vector<uint8_t>* out, int zstd_level, const IndexDocs* docs, IndexFileState* state) const {
  const uint64_t count = size_;
  const uint64_t data_bytes = count * row_bytes();
  if (count > UINT32_MAX || count * 8 > kMaxBlobBytes || data_bytes > kMaxBlobBytes) {
    return TooLarge("index of " + std::to_string(count) + " vectors is too large for one file");
  }
  try {
    capnp::MallocMessageBuilder message;
    schema::Index::Builder root = message.initRoot<schema::Index>();
    root.setDims(dims_);
    capnp::Data::Builder ids = root.initIds(static_cast<unsigned>(count * 8));
    schema::Table::Builder table = root.initVectors();
    table.setDtype(ToSchema(dtype_));
    table.setRows(static_cast<uint32_t>(count));
    table.setDims(dims_);
    capnp::Data::Builder data = table.initData(static_cast<unsigned>(data_bytes));
    capnp::Data::Builder scales;
    if (dtype_ == DType::kInt8) scales = table.initScales(static_cast<unsigned>(count * 4));
    for (size_t c = 0; c < chunks_.size(); ++c) {  // chunk by chunk: the file holds one table
      const size_t start = c * index_internal::kChunkRows, m = RowsIn(c);
      for (size_t r = 0; r < m; ++r) PutU64(ids.begin() + 8 * (start + r), chunks_[c]->ids[r]);
      std::memcpy(data.begin() + start * row_bytes(), chunks_[c]->data.get(), m * row_bytes());
      if (dtype_ == DType::kInt8) std::memcpy(scales.begin() + start * 4, chunks_[c]->scales.get(), m * 4);
    }
    root.setModelName(capnp::Text::Reader(model_name_.data(), model_name_.size()));
    root.setModelChecksum(model_checksum_);
    const bool with_docs = docs != nullptr && !docs->empty();
    if (with_docs) WriteIndexDocs(*docs, root.initDocs());
    kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
    kj::ArrayPtr<const kj::byte> bytes = words.asBytes();
    const size_t start = out->size();
    SWE_RETURN_IF_ERROR(container::Seal(container::Kind::kIndex, bytes.begin(), bytes.size(), zstd_level, out,
                                        with_docs ? container::kFlagIndexDocs : 0));
    if (state) {
      *state = IndexFileState();
      state->base_size = state->valid_size = state->file_size = out->size() - start;
      const uint8_t* header = out->data() + start;
      std::memcpy(&state->base_checksum, header + 32, 4);
      state->mark.assign(header, header + container::kHeaderSize);
    }
    return Status::Ok();
  } catch (const kj::Exception& e) {
    return Internal(std::string("writing the index message: ") + e.getDescription().cStr());
  } catch (const std::exception& e) {
    return Internal(std::string("writing the index message: ") + e.what());
  }
}

Status Index::Load(const uint8_t* data, size_t size, std::unique_ptr<Index>* out, const ReadLimits& limits,
                   IndexDocs* docs, IndexFileState* state) {
  out->reset();
  if (docs) *docs = IndexDocs();
  container::Payload message;  // not zero-filled: the frame's bytes are checked before it is allocated
  uint32_t checksum = 0;
  uint32_t flags = 0;
  const uint64_t base_size = container::ContainerSize(data, size);  // the change log follows the base
  SWE_RETURN_IF_ERROR(container::Open(data, base_size, container::Kind::kIndex, limits, &message, &checksum,
                                      container::kFlagIndexDocs, &flags));
  std::unique_ptr<Index> index;
  // Decodes and validates the message into `index` (a lambda: it may use Index's private parts).
  auto decode = [&]() -> Status {
    const kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word*>(message.words),
                                                message.size_words);
    capnp::ReaderOptions options;
    options.traversalLimitInWords = message.size_words + 8;  // every object is read once
    capnp::FlatArrayMessageReader reader(words, options);
    if (reader.getEnd() != words.end()) return Corrupt("index: bytes after the message");
    const schema::Index::Reader root = reader.getRoot<schema::Index>();
    const uint32_t dims = root.getDims();
    if (dims == 0) return Corrupt("index: dims is 0");
    if (dims > limits.max_dims) return TooLarge("index: dims " + std::to_string(dims) + " over the limit");
    if (!root.hasVectors()) return Corrupt("index: no vectors");
    const schema::Table::Reader table = root.getVectors();
    DType dtype;
    switch (table.getDtype()) {
      case schema::DType::F32:
        dtype = DType::kF32;
        break;
      case schema::DType::INT8:
        dtype = DType::kInt8;
        break;
      case schema::DType::F16:
        return Unsupported("index: f16 vectors are not supported");
      default:
        return Corrupt("index: unknown vector dtype");
    }
    if (table.getDims() != dims) return Corrupt("index: table dims differ from index dims");
    const uint64_t count = table.getRows();
    if (count > limits.max_rows) return TooLarge("index: " + std::to_string(count) + " rows over the limit");
    const capnp::Data::Reader ids = root.getIds();
    const capnp::Data::Reader values = table.getData();
    const capnp::Data::Reader scales = table.getScales();
    if (ids.size() != count * 8) return Corrupt("index: ids blob is not 8 * count bytes");
    if (values.size() != count * dims * ElementSize(dtype))
      return Corrupt("index: vectors blob has the wrong size");
    if (scales.size() != (dtype == DType::kInt8 ? count * 4 : 0))
      return Corrupt("index: scales blob has the wrong size");
    index.reset(new Index(dims, dtype));
    SWE_RETURN_IF_ERROR(index->FillFromBlobs(ids.begin(), values.begin(), scales.begin(), count));
    const capnp::Text::Reader name = root.getModelName();
    index->model_name_.assign(name.begin(), name.size());
    index->model_checksum_ = root.getModelChecksum();
    // The flag makes readers that predate documents refuse such files, so it must say the truth.
    if (((flags & container::kFlagIndexDocs) != 0) != root.hasDocs()) {
      return Corrupt("index: the header's documents flag and the message's documents disagree");
    }
    if (docs && root.hasDocs()) {
      const Index& ix = *index;
      return ReadIndexDocs(root.getDocs(), limits, [&ix](uint64_t id) { return ix.Contains(id); }, docs);
    }
    return Status::Ok();
  };
  Status status;
  try {
    status = decode();
  } catch (const kj::Exception& e) {
    status = Corrupt(std::string("index: ") + e.getDescription().cStr());
  } catch (const std::bad_alloc&) {
    status = TooLarge("index: out of memory");
  } catch (const std::exception& e) {
    status = Corrupt(std::string("index: ") + e.what());
  }
  if (!status.ok()) return status;
  IndexFileState at;
  at.base_size = at.valid_size = at.file_size = base_size;
  at.base_checksum = checksum;
  at.mark.assign(data, data + container::kHeaderSize);
  SWE_RETURN_IF_ERROR(ApplyIndexLog(data + base_size, size - base_size, limits, index.get(), docs, &at));
  if (state) *state = std::move(at);
  *out = std::move(index);
  return Status::Ok();
}

}  // namespace swe
