// Core's model writer: validates ModelContents, quantises the table, builds the Cap'n Proto message
// and seals it in the container. The only code that writes models.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>

#include "container.h"
#include "quantize.h"
#include "simd/kernels.h"
#include "swe.capnp.h"
#include "swe/half.h"
#include "swe/model_file.h"
#include "swe/unicode.h"

namespace swe {
namespace {

// Cap'n Proto lists hold at most 2^29 - 1 elements: the largest Data blob.
constexpr uint64_t kMaxBlobBytes = (1ull << 29) - 1;

Status CheckStrings(const std::vector<std::string>& strings, const char* what) {
  std::unordered_set<std::string_view> seen;
  uint64_t total = 0;
  for (const std::string& s : strings) {
    if (s.empty()) return InvalidArgument(std::string("empty ") + what);
    if (!unicode::IsValidUtf8(s)) return InvalidArgument(std::string(what) + " is not valid UTF-8: '" + s + "'");
    if (!seen.insert(s).second) return InvalidArgument(std::string("duplicate ") + what + " '" + s + "'");
    total += s.size();
  }
  if (total > kMaxBlobBytes) return TooLarge(std::string(what) + "s take more than 512 MiB");
  return Status::Ok();
}

Status CheckText(const std::string& text, const char* field) {
  if (!unicode::IsValidUtf8(text)) return InvalidArgument(std::string(field) + " is not valid UTF-8");
  return Status::Ok();
}

Status Validate(const ModelContents& c, DType dtype) {
  if (c.words.empty()) return InvalidArgument("the vocabulary is empty");
  if (c.dims == 0 || c.dims > ReadLimits().max_dims) {
    return InvalidArgument("dims must be in 1.." + std::to_string(ReadLimits().max_dims));
  }
  if (c.words.size() > ReadLimits().max_rows) return TooLarge("too many words");
  SWE_RETURN_IF_ERROR(CheckStrings(c.words, "word"));
  if (c.vectors.size() != c.words.size() * size_t{c.dims}) {
    return InvalidArgument("vectors hold " + std::to_string(c.vectors.size()) + " values, expected words x dims = " +
                           std::to_string(c.words.size() * size_t{c.dims}));
  }
  const uint64_t elem = dtype == DType::kF32 ? 4 : dtype == DType::kF16 ? 2 : 1;
  if (c.vectors.size() * elem > kMaxBlobBytes) {
    return TooLarge("the table exceeds 512 MiB in this dtype; use f16 or int8, or fewer words");
  }
  for (size_t i = 0; i < c.vectors.size(); ++i) {
    const float v = c.vectors[i];
    if (!(std::fabs(v) <= kMaxStoredMagnitude)) {
      return InvalidArgument("non-finite or huge (> 2^40) value in the vector of '" + c.words[i / c.dims] + "'");
    }
    if (dtype == DType::kF16 && std::fabs(v) > 65504.0f) {
      return InvalidArgument("value out of f16 range in the vector of '" + c.words[i / c.dims] + "'");
    }
  }
  if (!c.weights.empty()) {
    if (c.weights.size() != c.words.size()) return InvalidArgument("weights must be empty or one per word");
    for (float w : c.weights) {
      if (!(w >= 0 && w <= kMaxStoredMagnitude)) return InvalidArgument("weights must be in [0, 2^40]");
    }
  }
  const SubwordVocab& sub = c.tokenizer.subword;
  if (c.tokenizer.units != TokenUnits::kWords && c.tokenizer.units != TokenUnits::kSubwordPieces) {
    return InvalidArgument("unknown token units");
  }
  if (c.tokenizer.cjk > CjkMode::kLongest) return InvalidArgument("unknown CJK mode");
  if (c.tokenizer.units == TokenUnits::kSubwordPieces &&
      (sub.kind == SubwordKind::kNone || (c.tokenizer.cjk != CjkMode::kNone && c.tokenizer.cjk != CjkMode::kCharacters))) {
    return InvalidArgument("subword-piece units need a subword vocabulary and a CJK mode of none or characters");
  }
  if (sub.kind != SubwordKind::kNone) {
    if (sub.pieces.empty()) return InvalidArgument("the subword vocabulary is empty");
    SWE_RETURN_IF_ERROR(CheckStrings(sub.pieces, "subword piece"));
    if (sub.kind == SubwordKind::kUnigram && sub.scores.size() != sub.pieces.size()) {
      return InvalidArgument("a unigram subword vocabulary needs one score per piece");
    }
    for (float s : sub.scores) {
      if (!(std::fabs(s) <= kMaxStoredMagnitude)) return InvalidArgument("non-finite or huge (> 2^40) subword score");
    }
  }
  const Provenance& p = c.provenance;
  for (const std::string* t : {&p.name, &p.description, &p.teacher, &p.corpus, &p.corpus_hash, &p.recipe,
                               &p.created_by, &sub.continuation_prefix, &sub.word_prefix}) {
    SWE_RETURN_IF_ERROR(CheckText(*t, "a provenance or tokenizer text"));
  }
  for (const Score& s : p.scores) {
    SWE_RETURN_IF_ERROR(CheckText(s.task, "a score's task"));
    SWE_RETURN_IF_ERROR(CheckText(s.metric, "a score's metric"));
  }
  for (const auto& kv : p.extra) {
    SWE_RETURN_IF_ERROR(CheckText(kv.first, "a provenance key"));
    SWE_RETURN_IF_ERROR(CheckText(kv.second, "a provenance value"));
  }
  return Status::Ok();
}

template <typename T>
void SetBlob(capnp::Data::Builder blob, const T* data, size_t count) {
  if (count) std::memcpy(blob.begin(), data, count * sizeof(T));
}

void SetStrings(schema::StringList::Builder list, const std::vector<std::string>& strings) {
  size_t total = 0;
  for (const std::string& s : strings) total += s.size();
  list.setCount(static_cast<uint32_t>(strings.size()));
  capnp::Data::Builder bytes = list.initBytes(total);
  capnp::Data::Builder offsets = list.initOffsets(4 * (strings.size() + 1));
  uint32_t pos = 0;
  for (size_t i = 0; i < strings.size(); ++i) {
    std::memcpy(offsets.begin() + 4 * i, &pos, 4);
    if (!strings[i].empty()) std::memcpy(bytes.begin() + pos, strings[i].data(), strings[i].size());
    pos += static_cast<uint32_t>(strings[i].size());
  }
  std::memcpy(offsets.begin() + 4 * strings.size(), &pos, 4);
}

void SetTable(schema::Table::Builder table, const ModelContents& c, DType dtype) {
  const size_t rows = c.words.size(), n = c.vectors.size();
  table.setRows(static_cast<uint32_t>(rows));
  table.setDims(c.dims);
  switch (dtype) {
    case DType::kF32:
      table.setDtype(schema::DType::F32);
      SetBlob(table.initData(4 * n), c.vectors.data(), n);
      break;
    case DType::kF16: {
      table.setDtype(schema::DType::F16);
      std::vector<uint16_t> half(n);
      for (size_t i = 0; i < n; ++i) half[i] = FloatToHalf(c.vectors[i]);
      SetBlob(table.initData(2 * n), half.data(), n);
      break;
    }
    case DType::kInt8: {
      table.setDtype(schema::DType::INT8);
      std::vector<int8_t> q(n);
      std::vector<float> scales(rows);
      for (size_t r = 0; r < rows; ++r) {
        scales[r] = QuantizeRow(c.vectors.data() + r * c.dims, c.dims, q.data() + r * c.dims);
      }
      SetBlob(table.initData(n), q.data(), n);
      SetBlob(table.initScales(4 * rows), scales.data(), rows);
      break;
    }
  }
}

void SetTokenizer(schema::Tokenizer::Builder t, const TokenizerConfig& config) {
  t.setFoldCase(config.fold_case);
  t.setStripAccents(config.strip_accents);
  t.setCjk(static_cast<schema::CjkMode>(config.cjk));
  t.setMaxTokens(config.max_tokens);
  t.setUnits(static_cast<schema::TokenUnits>(config.units));
  const SubwordVocab& sub = config.subword;
  schema::Subword::Builder s = t.initSubword();
  s.setKind(static_cast<schema::SubwordKind>(sub.kind));
  if (sub.kind == SubwordKind::kNone) return;
  SetStrings(s.initPieces(), sub.pieces);
  if (!sub.scores.empty()) SetBlob(s.initScores(4 * sub.scores.size()), sub.scores.data(), sub.scores.size());
  s.setContinuationPrefix(sub.continuation_prefix);
  s.setWordPrefix(sub.word_prefix);
  s.setLowercase(sub.lowercase);
  s.setStripAccents(sub.strip_accents);
  s.setMaxPieceBytes(sub.max_piece_bytes);
}

void SetProvenance(schema::Provenance::Builder b, const Provenance& p) {
  b.setName(p.name);
  b.setDescription(p.description);
  b.setTeacher(p.teacher);
  b.setCorpus(p.corpus);
  b.setCorpusHash(p.corpus_hash);
  b.setRecipe(p.recipe);
  b.setCreatedBy(p.created_by);
  b.setPlaceholder(p.placeholder);
  auto scores = b.initScores(static_cast<unsigned>(p.scores.size()));
  for (size_t i = 0; i < p.scores.size(); ++i) {
    scores[i].setTask(p.scores[i].task);
    scores[i].setMetric(p.scores[i].metric);
    scores[i].setValue(p.scores[i].value);
  }
  auto extra = b.initExtra(static_cast<unsigned>(p.extra.size()));
  for (size_t i = 0; i < p.extra.size(); ++i) {
    extra[i].setKey(p.extra[i].first);
    extra[i].setValue(p.extra[i].second);
  }
}

}  // namespace

Status WriteModel(const ModelContents& contents, const WriteOptions& options, std::vector<uint8_t>* out) {
  if (out == nullptr) return InvalidArgument("null output");
  if (options.dtype != DType::kF32 && options.dtype != DType::kF16 && options.dtype != DType::kInt8) {
    return InvalidArgument("unknown dtype");
  }
  SWE_RETURN_IF_ERROR(Validate(contents, options.dtype));
  try {
    capnp::MallocMessageBuilder message;
    schema::Model::Builder root = message.initRoot<schema::Model>();
    SetStrings(root.initVocabulary(), contents.words);
    SetTable(root.initTable(), contents, options.dtype);
    if (!contents.weights.empty()) {
      SetBlob(root.initWeights(4 * contents.weights.size()), contents.weights.data(), contents.weights.size());
    }
    root.setNormalize(contents.normalize);
    SetTokenizer(root.initTokenizer(), contents.tokenizer);
    SetProvenance(root.initProvenance(), contents.provenance);
    kj::Array<capnp::word> flat = capnp::messageToFlatArray(message);
    kj::ArrayPtr<const kj::byte> bytes = flat.asBytes();
    const uint32_t flags =
        contents.tokenizer.units == TokenUnits::kSubwordPieces ? container::kFlagSubwordPieces : 0;
    return container::Seal(container::Kind::kModel, bytes.begin(), bytes.size(), options.zstd_level, out, flags);
  } catch (const kj::Exception& e) {
    return Internal(std::string("capnp: ") + e.getDescription().cStr());
  } catch (const std::bad_alloc&) {
    return TooLarge("out of memory while writing the model");
  }
}

Status ResealModel(const uint8_t* data, size_t size, int zstd_level, std::vector<uint8_t>* out) {
  if (out == nullptr) return InvalidArgument("null output");
  std::unique_ptr<Model> model;
  SWE_RETURN_IF_ERROR(ReadModel(data, size, &model));  // every check, so only a valid model is re-sealed
  container::Payload payload;
  uint32_t checksum = 0, flags = 0;
  SWE_RETURN_IF_ERROR(container::Open(data, size, container::Kind::kModel, ReadLimits(), &payload, &checksum,
                                      container::kFlagSubwordPieces, &flags));
  return container::Seal(container::Kind::kModel, reinterpret_cast<const uint8_t*>(payload.words),
                         payload.size_words * 8, zstd_level, out, flags);  // Seal sets the sealing flags anew
}

}  // namespace swe
