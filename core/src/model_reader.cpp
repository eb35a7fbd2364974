// Core's model reader: every length, offset and value is validated before the model is used, so a
// corrupt or hostile file gives a Status, never a crash (fuzzed by tests/fuzz/model_reader_fuzz.cpp).
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cmath>
#include <cstring>
#include <new>
#include <string>

#include "bytes.h"
#include "container.h"
#include "simd/kernels.h"
#include "swe.capnp.h"
#include "swe/model_file.h"
#include "swe/subword.h"
#include "swe/unicode.h"

namespace swe {
namespace {

bool Aligned(const void* p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

Status ReadStrings(schema::StringList::Reader list, const char* what, uint32_t max_count, StringsView* out) {
  capnp::Data::Reader bytes = list.getBytes(), offsets = list.getOffsets();
  const uint32_t count = list.getCount();
  const std::string w(what);
  if (count > max_count) return TooLarge(w + ": " + std::to_string(count) + " entries exceed the limit");
  if (offsets.size() != 4ull * (uint64_t{count} + 1)) return Corrupt(w + ": offsets do not match the count");
  if (!Aligned(offsets.begin(), 4)) return Corrupt(w + ": misaligned offsets");
  const uint32_t* off = reinterpret_cast<const uint32_t*>(offsets.begin());
  if (off[0] != 0 || off[count] != bytes.size()) return Corrupt(w + ": offsets do not span the string bytes");
  // Every entry is valid UTF-8 exactly when the whole blob is and every entry starts a character (is
  // not a continuation byte): one pass over the blob instead of a call per entry. The entry-by-entry
  // check below runs only to name the bad entry.
  bool starts_characters = true;
  for (uint32_t i = 0; i < count; ++i) {
    if (off[i + 1] <= off[i] || off[i + 1] > bytes.size()) {
      return Corrupt(w + ": empty or out-of-range entry " + std::to_string(i));
    }
    starts_characters &= (bytes[off[i]] & 0xC0) != 0x80;
  }
  const std::string_view blob(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
  const bool all_valid = starts_characters && unicode::IsValidUtf8(blob);
  for (uint32_t i = 0; !all_valid && i < count; ++i) {
    std::string_view s(reinterpret_cast<const char*>(bytes.begin()) + off[i], off[i + 1] - off[i]);
    if (!unicode::IsValidUtf8(s)) return Corrupt(w + ": entry " + std::to_string(i) + " is not valid UTF-8");
  }
  *out = StringsView{bytes.begin(), off, count};
  return Status::Ok();
}

Status ReadText(capnp::Text::Reader text, const char* field, std::string* out) {
  std::string_view s(text.cStr(), text.size());
  if (!unicode::IsValidUtf8(s)) return Corrupt(std::string(field) + " is not valid UTF-8");
  out->assign(s);
  return Status::Ok();
}

Status ReadFloats(capnp::Data::Reader blob, uint64_t count, const char* what, bool nonnegative, const float** out) {
  if (blob.size() != 4 * count) return Corrupt(std::string(what) + ": wrong size");
  if (!Aligned(blob.begin(), 4)) return Corrupt(std::string(what) + ": misaligned");
  const float* f = reinterpret_cast<const float*>(blob.begin());
  for (uint64_t i = 0; i < count; ++i) {
    if (!(std::fabs(f[i]) <= kMaxStoredMagnitude) || (nonnegative && f[i] < 0)) {
      return Corrupt(std::string(what) + ": invalid value at " + std::to_string(i));
    }
  }
  *out = f;
  return Status::Ok();
}

Status ReadSubword(schema::Subword::Reader s, const ReadLimits& limits, SubwordVocab* out) {
  const uint16_t kind = static_cast<uint16_t>(s.getKind());
  if (kind > static_cast<uint16_t>(SubwordKind::kUnigram)) return Unsupported("unknown subword kind " + std::to_string(kind));
  out->kind = static_cast<SubwordKind>(kind);
  if (out->kind == SubwordKind::kNone) return Status::Ok();
  StringsView pieces;
  SWE_RETURN_IF_ERROR(ReadStrings(s.getPieces(), "subword pieces", limits.max_rows, &pieces));
  out->pieces.reserve(pieces.count);
  for (uint32_t i = 0; i < pieces.count; ++i) out->pieces.emplace_back(pieces.at(i));
  if (out->kind == SubwordKind::kUnigram || s.hasScores()) {
    const float* scores = nullptr;
    SWE_RETURN_IF_ERROR(ReadFloats(s.getScores(), pieces.count, "subword scores", false, &scores));
    out->scores.assign(scores, scores + pieces.count);
  }
  SWE_RETURN_IF_ERROR(ReadText(s.getContinuationPrefix(), "subword continuation prefix", &out->continuation_prefix));
  SWE_RETURN_IF_ERROR(ReadText(s.getWordPrefix(), "subword word prefix", &out->word_prefix));
  out->lowercase = s.getLowercase();
  out->strip_accents = s.getStripAccents();
  out->max_piece_bytes = s.getMaxPieceBytes();
  return Status::Ok();
}

Status ReadTokenizer(schema::Tokenizer::Reader t, const ReadLimits& limits, TokenizerConfig* out) {
  out->fold_case = t.getFoldCase();
  out->strip_accents = t.getStripAccents();
  const uint16_t cjk = static_cast<uint16_t>(t.getCjk());
  // Modes are appended: a file from a later writer names a mode this reader cannot tokenize with.
  if (cjk > static_cast<uint16_t>(CjkMode::kLongest)) return Unsupported("unknown CJK mode " + std::to_string(cjk));
  out->cjk = static_cast<CjkMode>(cjk);
  out->max_tokens = t.getMaxTokens();
  SWE_RETURN_IF_ERROR(ReadSubword(t.getSubword(), limits, &out->subword));
  if (out->cjk == CjkMode::kSubwords && out->subword.kind == SubwordKind::kNone) {
    return Corrupt("CJK subword mode needs a subword vocabulary");
  }
  const uint16_t units = static_cast<uint16_t>(t.getUnits());
  if (units > static_cast<uint16_t>(TokenUnits::kSubwordPieces)) {
    return Unsupported("unknown token units " + std::to_string(units));
  }
  out->units = static_cast<TokenUnits>(units);
  if (out->units == TokenUnits::kSubwordPieces &&
      (out->subword.kind == SubwordKind::kNone || (out->cjk != CjkMode::kNone && out->cjk != CjkMode::kCharacters))) {
    return Corrupt("subword-piece units need a subword vocabulary and a CJK mode of none or characters");
  }
  return Status::Ok();
}

Status ReadProvenance(schema::Provenance::Reader p, Provenance* out) {
  SWE_RETURN_IF_ERROR(ReadText(p.getName(), "name", &out->name));
  SWE_RETURN_IF_ERROR(ReadText(p.getDescription(), "description", &out->description));
  SWE_RETURN_IF_ERROR(ReadText(p.getTeacher(), "teacher", &out->teacher));
  SWE_RETURN_IF_ERROR(ReadText(p.getCorpus(), "corpus", &out->corpus));
  SWE_RETURN_IF_ERROR(ReadText(p.getCorpusHash(), "corpus hash", &out->corpus_hash));
  SWE_RETURN_IF_ERROR(ReadText(p.getRecipe(), "recipe", &out->recipe));
  SWE_RETURN_IF_ERROR(ReadText(p.getCreatedBy(), "created-by", &out->created_by));
  out->placeholder = p.getPlaceholder();
  for (schema::Score::Reader s : p.getScores()) {
    Score score;
    SWE_RETURN_IF_ERROR(ReadText(s.getTask(), "score task", &score.task));
    SWE_RETURN_IF_ERROR(ReadText(s.getMetric(), "score metric", &score.metric));
    score.value = s.getValue();
    out->scores.push_back(std::move(score));
  }
  for (schema::KeyValue::Reader kv : p.getExtra()) {
    std::pair<std::string, std::string> entry;
    SWE_RETURN_IF_ERROR(ReadText(kv.getKey(), "provenance key", &entry.first));
    SWE_RETURN_IF_ERROR(ReadText(kv.getValue(), "provenance value", &entry.second));
    out->extra.push_back(std::move(entry));
  }
  return Status::Ok();
}

}  // namespace

class ModelReader {
 public:
  // `open` fills the model's storage from the container; then the message is decoded and checked.
  template <typename OpenContainer>
  static Status Read(OpenContainer open, size_t size, const ReadLimits& limits, std::unique_ptr<Model>* out);

 private:
  static Status ReadTable(schema::Table::Reader table, const ReadLimits& limits, Model* m);
  static Status Decode(const ReadLimits& limits, Model* m);
};

Status ModelReader::ReadTable(schema::Table::Reader table, const ReadLimits& limits, Model* m) {
  const uint16_t dtype = static_cast<uint16_t>(table.getDtype());
  if (dtype > static_cast<uint16_t>(DType::kInt8)) return Unsupported("unknown table dtype " + std::to_string(dtype));
  m->dtype_ = static_cast<DType>(dtype);
  m->dims_ = table.getDims();
  if (table.getRows() != m->rows_) return Corrupt("table rows do not match the vocabulary");
  if (m->dims_ == 0) return Corrupt("dims is 0");
  if (m->dims_ > limits.max_dims) {
    return TooLarge("dims " + std::to_string(m->dims_) + " over the limit of " + std::to_string(limits.max_dims));
  }
  const uint64_t values = uint64_t{m->rows_} * m->dims_;
  const uint64_t elem = m->dtype_ == DType::kF32 ? 4 : m->dtype_ == DType::kF16 ? 2 : 1;
  capnp::Data::Reader data = table.getData();
  if (data.size() != values * elem) return Corrupt("table size does not match rows x dims");
  if (!Aligned(data.begin(), 4)) return Corrupt("misaligned table");
  m->table_ = data.begin();
  if (m->dtype_ == DType::kF32) {
    const float* unused = nullptr;
    SWE_RETURN_IF_ERROR(ReadFloats(data, values, "table", false, &unused));
  } else if (m->dtype_ == DType::kF16) {
    const uint16_t* h = reinterpret_cast<const uint16_t*>(data.begin());
    for (uint64_t i = 0; i < values; ++i) {
      if ((h[i] & 0x7C00) == 0x7C00) return Corrupt("table: non-finite f16 value at " + std::to_string(i));
    }
  } else {
    SWE_RETURN_IF_ERROR(ReadFloats(table.getScales(), m->rows_, "int8 scales", true, &m->scales_));
  }
  return Status::Ok();
}

Status ModelReader::Decode(const ReadLimits& limits, Model* m) {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = m->message_words_ + 1024;  // every word is read about once
  capnp::FlatArrayMessageReader message(
      kj::ArrayPtr<const capnp::word>(reinterpret_cast<const capnp::word*>(m->message_), m->message_words_), options);
  schema::Model::Reader root = message.getRoot<schema::Model>();
  StringsView vocab;
  SWE_RETURN_IF_ERROR(ReadStrings(root.getVocabulary(), "vocabulary", limits.max_rows, &vocab));
  if (vocab.count == 0) return Corrupt("the vocabulary is empty");
  m->rows_ = vocab.count;
  m->word_bytes_ = vocab.bytes;
  m->word_offsets_ = vocab.offsets;
  SWE_RETURN_IF_ERROR(ReadTable(root.getTable(), limits, m));
  if (root.hasWeights()) SWE_RETURN_IF_ERROR(ReadFloats(root.getWeights(), m->rows_, "weights", true, &m->weights_));
  m->normalize_ = root.getNormalize();
  SWE_RETURN_IF_ERROR(ReadTokenizer(root.getTokenizer(), limits, &m->tokenizer_));
  SWE_RETURN_IF_ERROR(ReadProvenance(root.getProvenance(), &m->provenance_));
  SWE_RETURN_IF_ERROR(SubwordTokenizer::CreateInPlace(m->tokenizer_.subword, m->subword_.get()));
  return m->BuildIndex();
}

template <typename OpenContainer>
Status ModelReader::Read(OpenContainer open, size_t size, const ReadLimits& limits, std::unique_ptr<Model>* out) {
  if (out == nullptr) return InvalidArgument("null output");
  out->reset();
  try {
    std::unique_ptr<Model> m(new Model());
    uint32_t flags = 0;
    container::Payload payload;
    SWE_RETURN_IF_ERROR(open(&payload, &m->checksum_, &flags));
    m->storage_ = std::move(payload.owner);
    m->message_ = payload.words;
    m->message_words_ = payload.size_words;
    m->file_size_ = size;
    m->kernels_ = &simd::Active();
    SWE_RETURN_IF_ERROR(Decode(limits, m.get()));
    if (((flags & container::kFlagSubwordPieces) != 0) != (m->tokenizer_.units == TokenUnits::kSubwordPieces)) {
      return Corrupt("the header's subword-pieces flag and the tokenizer's units disagree");
    }
    *out = std::move(m);
    return Status::Ok();
  } catch (const kj::Exception& e) {
    return Corrupt(std::string("malformed message: ") + e.getDescription().cStr());
  } catch (const std::bad_alloc&) {
    return TooLarge("out of memory while reading the model");
  }
}

Status ReadModel(const uint8_t* data, size_t size, std::unique_ptr<Model>* out, const ReadLimits& limits) {
  auto open = [&](container::Payload* payload, uint32_t* checksum, uint32_t* flags) {
    return container::Open(data, size, container::Kind::kModel, limits, payload, checksum,
                           container::kFlagSubwordPieces, flags);
  };
  return ModelReader::Read(open, size, limits, out);
}

Status ReadModel(std::unique_ptr<uint64_t[]> file, size_t size, std::unique_ptr<Model>* out, const ReadLimits& limits) {
  auto open = [&](container::Payload* payload, uint32_t* checksum, uint32_t* flags) {
    return container::Open(std::move(file), size, container::Kind::kModel, limits, payload, checksum,
                           container::kFlagSubwordPieces, flags);
  };
  return ModelReader::Read(open, size, limits, out);
}

}  // namespace swe
