// The C API (libswe/include/swe.h) over core: status, models, encoding and tokenization.
// Index functions are in swe_c_index.cpp and swe_c_docs.cpp, the swe_vectors_* in swe_c_vectors.cpp. Every entry point runs inside Guard(): nothing throws out.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string_view>

#include <nlohmann/json.hpp>

#include "c_api_internal.h"
#include "swe/util/file.h"
#include "swe/encoder.h"
#include "swe/tokenizer.h"

#ifndef SWE_VERSION_STRING
#error "SWE_VERSION_STRING must be defined by the build (the project's VERSION file)"
#endif

namespace swe::capi {
namespace {

thread_local std::string g_last_error;

const char* SubwordName(SubwordKind kind) {
  switch (kind) {
    case SubwordKind::kNone: return "none";
    case SubwordKind::kWordPiece: return "wordpiece";
    case SubwordKind::kUnigram: return "unigram";
  }
  return "unknown";
}

std::string InfoJson(const Model& model) {
  const Provenance& p = model.provenance();
  const TokenizerConfig& t = model.tokenizer_config();
  char checksum[9];
  std::snprintf(checksum, sizeof checksum, "%08x", model.checksum());
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["placeholder"] = p.placeholder;
  j["dims"] = model.dims();
  j["vocab_size"] = model.vocab_size();
  j["dtype"] = dtype_name(model.dtype());
  j["file_size"] = model.file_size();
  j["normalize"] = model.normalize();
  j["weighted"] = model.has_weights();
  j["checksum"] = checksum;
  j["teacher"] = p.teacher;
  j["corpus"] = p.corpus;
  j["corpus_hash"] = p.corpus_hash;
  j["recipe"] = p.recipe;
  j["created_by"] = p.created_by;
  j["scores"] = nlohmann::ordered_json::array();
  for (const Score& s : p.scores) {
    j["scores"].push_back({{"task", s.task}, {"metric", s.metric}, {"value", s.value}});
  }
  j["extra"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : p.extra) j["extra"][key] = value;
  j["tokenizer"] = {{"fold_case", t.fold_case},          {"strip_accents", t.strip_accents},
                    {"cjk", cjk_mode_name(t.cjk)},       {"max_tokens", t.max_tokens},
                    {"subword", SubwordName(t.subword.kind)}, {"subword_pieces", t.subword.pieces.size()}};
  // Provenance strings are validated UTF-8 by the reader; replace rather than throw if one is not.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The encoder options `params` ask for (dims resolved: 0 becomes the model's), or fails.
swe_status EncodeOptionsOf(const Model& model, const swe_encode_params* params, EncodeOptions* options) {
  const swe_encode_params p = params ? *params : swe_encode_default_params();
  if (p.dims > model.dims()) {
    return Fail(SWE_ERR_INVALID_ARGUMENT, "dims " + std::to_string(p.dims) + " exceeds the model's " +
                                              std::to_string(model.dims()) + " dimensions");
  }
  switch (p.normalize) {
    case SWE_NORMALIZE_MODEL: options->normalization = Normalization::kModel; break;
    case SWE_NORMALIZE_UNIT: options->normalization = Normalization::kUnit; break;
    case SWE_NORMALIZE_NONE: options->normalization = Normalization::kMean; break;
    default:
      return Fail(SWE_ERR_INVALID_ARGUMENT, "normalize must be SWE_NORMALIZE_MODEL, _UNIT or _NONE, not " +
                                                std::to_string(p.normalize));
  }
  options->dims = p.dims == 0 ? model.dims() : p.dims;
  options->max_tokens = p.max_tokens;
  return SWE_OK;
}

}  // namespace

bool ValidText(const char* data, size_t size) { return data != nullptr || size == 0; }
std::string_view View(const char* data, size_t size) { return size == 0 ? std::string_view() : std::string_view(data, size); }

swe_status Fail(swe_status status, std::string message) {
  g_last_error = std::move(message);
  return status;
}

swe_status FromStatus(const Status& status, const std::string& context) {
  if (status.ok()) return SWE_OK;
  return Fail(static_cast<swe_status>(status.code()), context.empty() ? status.message() : context + ": " + status.message());
}

ReadLimits ToReadLimits(const swe_load_params* params) {
  ReadLimits limits;
  if (params) {
    limits.max_payload_bytes = params->max_payload_bytes;
    limits.max_rows = params->max_rows;
    limits.max_dims = params->max_dims;
  }
  return limits;
}

swe_status ReadSweStream(const char* path, const swe_load_params* params, std::vector<uint8_t>* out,
                         uint64_t max_file_bytes, util::FileId* id) {
  std::string error;
  if (max_file_bytes == 0) max_file_bytes = MaxFileBytes(ToReadLimits(params));
  const uint64_t max_bytes = std::min<uint64_t>(max_file_bytes, SIZE_MAX);
  switch (util::ReadFileBounded(path, kFileMagic, static_cast<size_t>(max_bytes), out, &error, id)) {
    case util::BoundedRead::kDone:
      return SWE_OK;
    case util::BoundedRead::kBadMagic:
      return Fail(SWE_ERR_CORRUPT, std::string(path) + ": not a .swe file (bad magic)");
    case util::BoundedRead::kTooLarge:
      return Fail(SWE_ERR_TOO_LARGE, error + ", more than the payload limit allows");
    default:
      return Fail(SWE_ERR_IO, error);
  }
}

namespace {

// A model handle around what `read` (a swe::ReadModel call into the slot it is given) made, with its
// info JSON computed once; for both load entry points.
template <typename Read>
swe_status NewModelHandle(Read read, swe_model** out) {
  auto handle = std::make_unique<swe_model>();
  swe_status s = FromStatus(read(&handle->model));
  if (s != SWE_OK) return s;
  if (!handle->model) return Fail(SWE_ERR_INTERNAL, "reader returned no model");
  handle->info_json = InfoJson(*handle->model);
  *out = handle.release();
  return SWE_OK;
}

// Whether `encoder` encodes as `options` (dims resolved) ask.
bool EncodesAs(const swe::Encoder& encoder, const swe::Model& model, const swe::EncodeOptions& options) {
  const bool normalize = options.normalization == swe::Normalization::kModel
                             ? model.normalize()
                             : options.normalization == swe::Normalization::kUnit;
  return encoder.dims() == options.dims && encoder.normalize() == normalize &&
         encoder.max_tokens() == options.max_tokens;
}

// Calls use(encoder) with an encoder of `model` for `options` (resolved by EncodeOptionsOf): the
// caller's `owned` one when given (swe_encoder), else the calling thread's. For texts (or batches) of
// up to kKeptTextBytes the thread keeps its encoder from call to call: building one per call (a
// tokenizer and its buffers) cost a short query about a tenth of its time. One is kept per thread, for
// one model and options at a time, told apart by Model::serial (never reused), so that an encoder of a
// freed model is replaced, never used. Longer texts get one of their own, so what a thread keeps stays
// small.
constexpr size_t kKeptTextBytes = 4096;
template <typename Use>
auto WithEncoder(const swe::Model& model, swe_encoder* owned, const swe::EncodeOptions& options, size_t text_bytes,
                 Use use) {
  if (owned != nullptr) {
    if (!owned->encoder || !EncodesAs(*owned->encoder, model, options)) {
      owned->encoder.reset();
      owned->encoder = std::make_unique<swe::Encoder>(model, options);
    }
    return use(*owned->encoder);
  }
  if (text_bytes > kKeptTextBytes) {
    swe::Encoder encoder(model, options);
    return use(encoder);
  }
  struct Kept {
    uint64_t serial = 0;
    std::unique_ptr<swe::Encoder> encoder;
  };
  thread_local Kept kept;
  // The serial first: a freed model's encoder is not asked anything about its model.
  if (!kept.encoder || kept.serial != model.serial() || !EncodesAs(*kept.encoder, model, options)) {
    kept.encoder.reset();  // (its model may be gone: destroying an encoder does not touch the model)
    kept.encoder = std::make_unique<swe::Encoder>(model, options);
    kept.serial = model.serial();
  }
  return use(*kept.encoder);
}

// swe_model_encode_text() and swe_encoder_encode_text(); `what` names the entry point in messages.
swe_status EncodeText(const char* what, const swe_model* model, swe_encoder* owned, const char* text,
                      size_t text_size, const swe_encode_params* params, float* out, size_t out_capacity,
                      uint32_t* out_n_words) {
  SWE_CHECK_ARG(model && out, std::string(what) + ": NULL model or output");
  SWE_CHECK_ARG(ValidText(text, text_size), std::string(what) + ": text is NULL");
  swe::EncodeOptions options;
  if (swe_status s = EncodeOptionsOf(*model->model, params, &options); s != SWE_OK) return s;
  const uint32_t dims = options.dims;
  if (out_capacity < dims) {
    return Fail(SWE_ERR_INVALID_ARGUMENT, "output buffer of " + std::to_string(out_capacity) +
                                              " floats is too small for " + std::to_string(dims) + " dimensions");
  }
  const uint32_t n_words = WithEncoder(*model->model, owned, options, text_size, [&](swe::Encoder& encoder) {
    return encoder.Encode(View(text, text_size), out);
  });
  if (out_n_words) *out_n_words = n_words;
  return SWE_OK;
}

// swe_model_encode_batch() and swe_encoder_encode_batch().
swe_status EncodeBatch(const char* what, const swe_model* model, swe_encoder* owned, const swe_text* texts, size_t n,
                       const swe_encode_params* params, float* out, size_t out_capacity, uint32_t* out_n_words) {
  SWE_CHECK_ARG(model != nullptr, std::string(what) + ": model is NULL");
  SWE_CHECK_ARG(n == 0 || (texts && out), std::string(what) + ": NULL texts or output");
  swe::EncodeOptions options;
  if (swe_status s = EncodeOptionsOf(*model->model, params, &options); s != SWE_OK) return s;
  const uint32_t dims = options.dims;
  if (n > out_capacity / dims) {
    return Fail(SWE_ERR_INVALID_ARGUMENT, "output buffer of " + std::to_string(out_capacity) + " floats is too small for " +
                                              std::to_string(n) + " x " + std::to_string(dims) + " floats");
  }
  std::vector<std::string_view> views(n);
  size_t text_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ValidText(texts[i].data, texts[i].size)) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, std::string(what) + ": text " + std::to_string(i) + " is NULL");
    }
    views[i] = View(texts[i].data, texts[i].size);
    text_bytes += views[i].size();
  }
  // A small batch (a few short texts a call, as JS's encode([...]) makes) reuses the thread's encoder.
  WithEncoder(*model->model, owned, options, text_bytes,
              [&](swe::Encoder& encoder) { encoder.EncodeBatch(views.data(), n, out, out_n_words); });
  return SWE_OK;
}

}  // namespace
}  // namespace swe::capi

using swe::capi::Fail;
using swe::capi::FromStatus;
using swe::capi::Guard;
using swe::capi::NewModelHandle;

extern "C" {

const char* swe_status_name(swe_status status) {
  if (status == SWE_ERR_OUT_OF_MEMORY) return "out of memory";
  if (status < SWE_OK || status > SWE_ERR_INTERNAL) return "unknown";
  return swe::status_code_name(static_cast<swe::StatusCode>(status));
}

const char* swe_dtype_name(int32_t dtype) {
  if (dtype < SWE_DTYPE_F32 || dtype > SWE_DTYPE_INT8) return "unknown";
  return swe::dtype_name(static_cast<swe::DType>(dtype));
}

const char* swe_last_error(void) { return swe::capi::g_last_error.c_str(); }

const char* swe_version(void) { return SWE_VERSION_STRING; }

swe_load_params swe_load_default_params(void) {
  swe::ReadLimits limits;
  swe_load_params p;
  p.max_payload_bytes = limits.max_payload_bytes;
  p.max_rows = limits.max_rows;
  p.max_dims = limits.max_dims;
  return p;
}

swe_status swe_model_load_from_bytes(const uint8_t* data, size_t size, const swe_load_params* params,
                                     swe_model** out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_model_load_from_bytes: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(data != nullptr || size == 0, "swe_model_load_from_bytes: data is NULL");
    static const uint8_t kEmpty = 0;
    return NewModelHandle([&](std::unique_ptr<swe::Model>* model) {
      return swe::ReadModel(data ? data : &kEmpty, size, model, swe::capi::ToReadLimits(params));
    }, out);
  });
}

swe_status swe_model_load_from_file(const char* path, const swe_load_params* params, swe_model** out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_model_load_from_file: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(path != nullptr, "swe_model_load_from_file: path is NULL");
    std::unique_ptr<uint64_t[]> words;
    size_t size = 0;
    std::string error;
    const swe::util::WordsRead read = swe::util::ReadRegularFileWords(path, &words, &size, &error, swe::kFileMagic);
    if (read == swe::util::WordsRead::kFailed) return Fail(SWE_ERR_IO, error);
    if (read == swe::util::WordsRead::kBadMagic) {
      return Fail(SWE_ERR_CORRUPT, std::string(path) + ": not a .swe file (bad magic)");
    }
    swe_status s;
    if (read == swe::util::WordsRead::kDone) {  // a raw payload is used where it landed
      s = swe_model_load_from_buffer(reinterpret_cast<uint8_t*>(words.release()), size, params, out);
    } else {
      std::vector<uint8_t> bytes;  // a pipe or device: read only while it can still be a model
      if (swe_status r = swe::capi::ReadSweStream(path, params, &bytes); r != SWE_OK) return r;
      s = swe_model_load_from_bytes(bytes.data(), bytes.size(), params, out);
    }
    if (s != SWE_OK) return Fail(s, std::string(path) + ": " + swe_last_error());
    return SWE_OK;
  });
}

// Whole words, so that the model can own the buffer as the file reader's word array.
uint8_t* swe_model_buffer_new(size_t size) {
  if (size > SIZE_MAX - 7) return nullptr;
  return reinterpret_cast<uint8_t*>(new (std::nothrow) uint64_t[std::max<size_t>(1, (size + 7) / 8)]);
}

void swe_model_buffer_free(uint8_t* buffer) { delete[] reinterpret_cast<uint64_t*>(buffer); }

swe_status swe_model_load_from_buffer(uint8_t* buffer, size_t size, const swe_load_params* params, swe_model** out) {
  std::unique_ptr<uint64_t[]> words(reinterpret_cast<uint64_t*>(buffer));  // taken over on every path
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_model_load_from_buffer: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(buffer != nullptr, "swe_model_load_from_buffer: buffer is NULL");
    return NewModelHandle([&](std::unique_ptr<swe::Model>* model) {
      return swe::ReadModel(std::move(words), size, model, swe::capi::ToReadLimits(params));
    }, out);
  });
}

void swe_model_free(swe_model* model) { delete model; }

uint32_t swe_model_get_dims(const swe_model* model) { return model ? model->model->dims() : 0; }

uint32_t swe_model_get_vocab_size(const swe_model* model) { return model ? model->model->vocab_size() : 0; }

const char* swe_model_get_info_json(const swe_model* model) { return model ? model->info_json.c_str() : nullptr; }

swe_status swe_model_get_word(const swe_model* model, uint32_t row, const char** out_data, size_t* out_size) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(model && out_data && out_size, "swe_model_get_word: NULL argument");
    if (row >= model->model->vocab_size()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "row " + std::to_string(row) + " is out of range (vocabulary of " +
                                                std::to_string(model->model->vocab_size()) + " words)");
    }
    std::string_view word = model->model->word(row);
    *out_data = word.data();
    *out_size = word.size();
    return SWE_OK;
  });
}

swe_status swe_model_get_rows(const swe_model* model, uint32_t first_row, uint32_t n_rows, float* out,
                              size_t out_capacity, float* out_weights) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(model != nullptr, "swe_model_get_rows: model is NULL");
    SWE_CHECK_ARG(n_rows == 0 || out != nullptr, "swe_model_get_rows: out is NULL");
    const swe::Model& m = *model->model;
    if (first_row > m.vocab_size() || n_rows > m.vocab_size() - first_row) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "rows " + std::to_string(first_row) + " + " + std::to_string(n_rows) +
                                                " exceed the vocabulary of " + std::to_string(m.vocab_size()) + " words");
    }
    if (n_rows > out_capacity / m.dims()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "output buffer of " + std::to_string(out_capacity) + " floats is too small for " +
                                                std::to_string(n_rows) + " x " + std::to_string(m.dims()) + " floats");
    }
    for (uint32_t i = 0; i < n_rows; ++i) {
      m.CopyRow(first_row + i, out + static_cast<size_t>(i) * m.dims());
      if (out_weights) out_weights[i] = m.weight(first_row + i);
    }
    return SWE_OK;
  });
}

swe_encode_params swe_encode_default_params(void) {
  swe_encode_params p;
  p.dims = 0;
  p.normalize = SWE_NORMALIZE_MODEL;
  p.max_tokens = 0;
  return p;
}

uint32_t swe_model_get_encode_dims(const swe_model* model, const swe_encode_params* params) {
  if (!model) return 0;
  uint32_t d = params ? params->dims : 0;
  if (d > model->model->dims()) return 0;
  return d == 0 ? model->model->dims() : d;
}

swe_status swe_model_encode_text(const swe_model* model, const char* text, size_t text_size,
                                 const swe_encode_params* params, float* out, size_t out_capacity,
                                 uint32_t* out_n_words) {
  return Guard([&] {
    return swe::capi::EncodeText("swe_model_encode_text", model, nullptr, text, text_size, params, out, out_capacity,
                                 out_n_words);
  });
}

swe_status swe_model_encode_batch(const swe_model* model, const swe_text* texts, size_t n,
                                  const swe_encode_params* params, float* out, size_t out_capacity,
                                  uint32_t* out_n_words) {
  return Guard([&] {
    return swe::capi::EncodeBatch("swe_model_encode_batch", model, nullptr, texts, n, params, out, out_capacity,
                                  out_n_words);
  });
}

swe_status swe_encoder_new(const swe_model* model, swe_encoder** out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_encoder_new: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(model != nullptr, "swe_encoder_new: model is NULL");
    auto encoder = std::make_unique<swe_encoder>();
    encoder->model = model;
    *out = encoder.release();
    return SWE_OK;
  });
}

void swe_encoder_free(swe_encoder* encoder) { delete encoder; }

swe_status swe_encoder_encode_text(swe_encoder* encoder, const char* text, size_t text_size,
                                   const swe_encode_params* params, float* out, size_t out_capacity,
                                   uint32_t* out_n_words) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(encoder != nullptr, "swe_encoder_encode_text: encoder is NULL");
    return swe::capi::EncodeText("swe_encoder_encode_text", encoder->model, encoder, text, text_size, params, out,
                                 out_capacity, out_n_words);
  });
}

swe_status swe_encoder_encode_batch(swe_encoder* encoder, const swe_text* texts, size_t n,
                                    const swe_encode_params* params, float* out, size_t out_capacity,
                                    uint32_t* out_n_words) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(encoder != nullptr, "swe_encoder_encode_batch: encoder is NULL");
    return swe::capi::EncodeBatch("swe_encoder_encode_batch", encoder->model, encoder, texts, n, params, out,
                                  out_capacity, out_n_words);
  });
}

swe_status swe_model_count_known_words(const swe_model* model, const char* text, size_t text_size,
                                       uint32_t* out_n_words) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(model && out_n_words, "swe_model_count_known_words: NULL model or count");
    SWE_CHECK_ARG(swe::capi::ValidText(text, text_size), "swe_model_count_known_words: text is NULL");
    // The encoder's own count, so that 0 here is exactly "encodes to the zero vector".
    const swe::Model& m = *model->model;
    std::vector<float> scratch(m.dims());
    swe::EncodeOptions options;
    options.dims = m.dims();
    *out_n_words = swe::capi::WithEncoder(m, nullptr, options, text_size, [&](swe::Encoder& encoder) {
      return encoder.Encode(swe::capi::View(text, text_size), scratch.data());
    });
    return SWE_OK;
  });
}

swe_status swe_model_compute_similarity(const swe_model* model, const char* a, size_t a_size, const char* b,
                                        size_t b_size, const swe_encode_params* params, float* out_score) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(model && out_score, "swe_model_compute_similarity: NULL model or output");
    SWE_CHECK_ARG(swe::capi::ValidText(a, a_size) && swe::capi::ValidText(b, b_size),
                  "swe_model_compute_similarity: text is NULL");
    swe::EncodeOptions options;
    if (swe_status s = swe::capi::EncodeOptionsOf(*model->model, params, &options); s != SWE_OK) return s;
    const uint32_t dims = options.dims;
    std::vector<float> va(dims), vb(dims);
    swe::capi::WithEncoder(*model->model, nullptr, options, std::max(a_size, b_size), [&](swe::Encoder& encoder) {
      encoder.Encode(swe::capi::View(a, a_size), va.data());
      encoder.Encode(swe::capi::View(b, b_size), vb.data());
    });
    *out_score = swe::Cosine(va.data(), vb.data(), dims);
    return SWE_OK;
  });
}

const char* swe_match_name(int32_t match) {
  switch (match) {
    case SWE_MATCH_EXACT: return "exact";
    case SWE_MATCH_FOLDED: return "folded";
    case SWE_MATCH_STRIPPED: return "stripped";
    case SWE_MATCH_PREFIX: return "prefix";
    case SWE_MATCH_UNKNOWN: return "unknown";
  }
  return "invalid";
}

swe_status swe_model_analyze_text(const swe_model* model, const char* text, size_t text_size, swe_token* tokens,
                                  size_t capacity, size_t* out_n_tokens) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(model && out_n_tokens, "swe_model_analyze_text: NULL model or count");
    *out_n_tokens = 0;
    SWE_CHECK_ARG(swe::capi::ValidText(text, text_size), "swe_model_analyze_text: text is NULL");
    SWE_CHECK_ARG(uint64_t{text_size} < (uint64_t{1} << 32) - 1, "swe_model_analyze_text: text of 4 GiB or more");
    swe::Tokenizer tokenizer(*model->model);
    std::vector<swe::Token> analyzed;
    tokenizer.Analyze(swe::capi::View(text, text_size), &analyzed);
    *out_n_tokens = analyzed.size();
    if (tokens == nullptr) return SWE_OK;
    if (capacity < analyzed.size()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "token buffer of " + std::to_string(capacity) + " is too small for " +
                                                std::to_string(analyzed.size()) + " words");
    }
    for (size_t i = 0; i < analyzed.size(); ++i) {
      tokens[i].begin = analyzed[i].begin;
      tokens[i].end = analyzed[i].end;
      tokens[i].row = analyzed[i].id;
      tokens[i].match = static_cast<int32_t>(analyzed[i].match);
    }
    return SWE_OK;
  });
}

void swe_free_bytes(void* data) { std::free(data); }

}  // extern "C"
