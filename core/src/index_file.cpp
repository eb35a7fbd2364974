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

using index_internal::AllFinite;
using index_internal::ElementSize;

using index_internal::kMaxBlobBytes;

void PutU64(uint8_t* p, uint64_t v) {
  for (int b = 0; b < 8; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= uint64_t{p[b]} << (8 * b);
  return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "index files store floats little-endian; this target is big-endian"
#endif

schema::DType ToSchema(DType dtype) {
  return dtype == DType::kF32 ? schema::DType::F32 : schema::DType::INT8;
}

}  // namespace

Status Index::Save(std::vector<uint8_t>* out, int zstd_level, const IndexDocs* docs, IndexFileState* state) const {
  const uint64_t count = ids_.size();
  const uint64_t data_bytes = count * dims_ * ElementSize(dtype_);
  if (count > UINT32_MAX || count * 8 > kMaxBlobBytes || data_bytes > kMaxBlobBytes) {
    return TooLarge("index of " + std::to_string(count) + " vectors is too large for one file");
  }
  try {
    capnp::MallocMessageBuilder message;
    schema::Index::Builder root = message.initRoot<schema::Index>();
    root.setDims(dims_);
    capnp::Data::Builder ids = root.initIds(static_cast<unsigned>(count * 8));
    for (size_t i = 0; i < count; ++i) PutU64(ids.begin() + 8 * i, ids_[i]);
    schema::Table::Builder table = root.initVectors();
    table.setDtype(ToSchema(dtype_));
    table.setRows(static_cast<uint32_t>(count));
    table.setDims(dims_);
    capnp::Data::Builder data = table.initData(static_cast<unsigned>(data_bytes));
    if (data_bytes > 0) {
      std::memcpy(data.begin(), dtype_ == DType::kF32 ? static_cast<const void*>(f32_.data()) : i8_.data(),
                  data_bytes);
    }
    if (dtype_ == DType::kInt8) {
      capnp::Data::Builder scales = table.initScales(static_cast<unsigned>(count * 4));
      if (count > 0) std::memcpy(scales.begin(), scales_.data(), count * 4);
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
    index->ids_.resize(count);
    index->next_id_stale_ = true;  // computed on first use: loading stays one pass over the ids
    index->slots_->position.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      index->ids_[i] = GetU64(ids.begin() + 8 * i);
      if (!index->slots_->position.emplace(index->ids_[i], i).second) {
        return Corrupt("index: duplicate id " + std::to_string(index->ids_[i]));
      }
    }
    if (dtype == DType::kF32) {
      index->f32_.resize(count * dims);
      if (count > 0) std::memcpy(index->f32_.data(), values.begin(), values.size());
      if (!AllFinite(index->f32_.data(), index->f32_.size()))
        return Corrupt("index: non-finite vector value");
      if (!index_internal::RowsAreUnit(index->f32_.data(), count, dims)) return Corrupt("index: a stored vector is not unit length");
    } else {
      index->i8_.resize(count * dims);
      index->scales_.resize(count);
      if (count > 0) {
        std::memcpy(index->i8_.data(), values.begin(), values.size());
        std::memcpy(index->scales_.data(), scales.begin(), scales.size());
      }
      if (!std::all_of(index->scales_.begin(), index->scales_.end(), index_internal::ScaleFitsUnitRow)) return Corrupt("index: a scale is negative, non-finite or too large");
      // The scan kernels take [-127, 127] (simd/kernels.h); the writer never stores -128.
      if (count > 0 && std::memchr(index->i8_.data(), 0x80, index->i8_.size()) != nullptr)
        return Corrupt("index: an int8 vector value is -128 (int8 vectors hold -127..127)");
    }
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
