#include "service.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sys/stat.h>

#include "../common.h"
#include "api_error.h"

namespace swe::serve {

namespace {

// A failed C API call as the status the client gets: its argument was wrong (400) or the server failed.
void Check(swe_status status) {
  if (status == SWE_OK) return;
  const int http = status == SWE_ERR_INVALID_ARGUMENT ? 400 : status == SWE_ERR_NOT_FOUND ? 404
                   : status == SWE_ERR_OUT_OF_MEMORY ? 503 : 500;
  throw ApiError(http, swe_last_error());
}

// The longest prefix (or suffix) of `text` of at most `max` bytes that does not split a UTF-8 sequence.
std::string CutUtf8(const std::string& text, size_t max, bool keep_end) {
  auto continuation = [&](size_t i) { return (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80; };
  if (!keep_end) {
    size_t end = max;
    while (end > 0 && continuation(end)) --end;
    return text.substr(0, end);
  }
  size_t begin = text.size() - max;
  while (begin < text.size() && continuation(begin)) ++begin;
  return text.substr(begin);
}

std::string DocumentId(const Json& doc) {
  auto it = doc.find("id");
  if (it == doc.end()) throw ApiError(400, "each document needs an 'id' (a string or a whole number)");
  if (it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  if (it->is_number_integer()) return it->dump();
  throw ApiError(400, "'id' must be a non-empty string or a whole number");
}

// A JSON array of `n` floats, each as its shortest text that reads back as the same float.
void AppendFloats(const float* v, uint32_t n, std::string* out) {
  out->push_back('[');
  char text[32];
  for (uint32_t d = 0; d < n; ++d) {
    if (d) out->push_back(',');
    auto [end, ec] = std::to_chars(text, text + sizeof text, v[d]);
    out->append(text, ec == std::errc() ? end : text);
  }
  out->push_back(']');
}

}  // namespace

Service::Service(cli::ModelPtr model, const std::string& index_path, const Limits& limits)
    : model_(std::move(model)), index_path_(index_path), limits_(limits) {
  Json info;
  if (TryParseJson(swe_model_get_info_json(model_.get()), &info)) {
    model_name_ = info.value("name", std::string("swe"));
    model_normalizes_ = info.value("normalize", true);
  }
  if (index_path_.empty()) return;
  changes_.Run([this] { OpenIndex(); });  // the index's memory is the change thread's (change_thread.h)
}

void Service::OpenIndex() {
  struct stat st;
  if (stat(index_path_.c_str(), &st) != 0 && errno == ENOENT) {
    swe_index* raw = nullptr;
    cli::Check(swe_index_create(swe_model_get_dims(model_.get()), SWE_DTYPE_F32, &raw));
    index_.reset(raw, swe_index_free);
    cli::Check(swe_index_set_model(index_.get(), model_.get()));
    index_dims_ = swe_index_get_dims(index_.get());
    return;
  }
  index_ = cli::LoadIndex(index_path_);
  if (swe_index_check_model(index_.get(), model_.get()) != SWE_OK) {
    throw cli::CliError(1, index_path_ + ": " + swe_last_error());
  }
  index_dims_ = swe_index_get_dims(index_.get());
  RememberFile();
}

std::vector<std::string> Service::Texts(const Json& input, const char* name, bool truncate, bool keep_end) const {
  std::vector<std::string> texts;
  if (input.is_string()) {
    texts.push_back(input.get<std::string>());
  } else if (input.is_array()) {
    if (input.empty()) throw ApiError(400, std::string("'") + name + "' must not be empty");
    if (input.size() > limits_.max_inputs) {
      throw ApiError(400, std::string("'") + name + "' has " + std::to_string(input.size()) + " texts, more than the " +
                              std::to_string(limits_.max_inputs) + " allowed in one request");
    }
    for (const Json& text : input) {
      if (!text.is_string()) throw ApiError(400, std::string("'") + name + "' must be a string or an array of strings");
      texts.push_back(text.get<std::string>());
    }
  } else {
    throw ApiError(400, std::string("'") + name + "' must be a string or an array of strings");
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].size() <= limits_.max_text_bytes) continue;
    if (truncate) {
      texts[i] = CutUtf8(texts[i], limits_.max_text_bytes, keep_end);
      continue;
    }
    throw ApiError(400, "text " + std::to_string(i) + " has " + std::to_string(texts[i].size()) +
                            " bytes, more than the " + std::to_string(limits_.max_text_bytes) + " allowed");
  }
  return texts;
}

std::vector<float> Service::Encode(const std::vector<std::string>& texts, uint32_t dims, uint64_t* known_words) const {
  std::vector<float> out(texts.size() * size_t{dims});
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  std::vector<swe_text> batch(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) batch[i] = {texts[i].data(), texts[i].size()};
  std::vector<uint32_t> words(texts.size());
  Check(swe_model_encode_batch(model_.get(), batch.data(), batch.size(), &params, out.data(), out.size(),
                               words.data()));
  *known_words = 0;
  for (uint32_t w : words) *known_words += w;
  texts_embedded_.fetch_add(texts.size(), std::memory_order_relaxed);
  return out;
}

std::string Service::Embeddings(const Json& body) {
  RequireObject(body);
  if (!body.contains("input")) throw ApiError(400, "'input' is required");
  const std::string format = GetString(body, "encoding_format", "float");
  if (format != "float" && format != "base64") throw ApiError(400, "'encoding_format' must be float or base64");
  const std::string model = GetString(body, "model", model_name_);  // any name: there is one model
  GetString(body, "user", "");
  const uint32_t model_dims = swe_model_get_dims(model_.get());
  const uint32_t dims = static_cast<uint32_t>(GetCount(body, "dimensions", model_dims, 1, model_dims));
  const std::vector<std::string> texts = Texts(body["input"], "input", false, false);
  uint64_t words = 0;
  const std::vector<float> vectors = Encode(texts, dims, &words);
  // Written by hand rather than through Json: thousands of floats, each printed once, shortest first.
  std::string out = "{\"object\":\"list\",\"data\":[";
  for (size_t i = 0; i < texts.size(); ++i) {
    const float* v = vectors.data() + i * dims;
    out += i ? ",{" : "{";
    out += "\"object\":\"embedding\",\"index\":" + std::to_string(i) + ",\"embedding\":";
    if (format == "base64") {
      out += '"' + Base64(v, dims * sizeof(float)) + '"';  // little-endian float32, as OpenAI sends it
    } else {
      AppendFloats(v, dims, &out);
    }
    out += '}';
  }
  out += "],\"model\":" + DumpJson(model) + ",\"usage\":{\"prompt_tokens\":" + std::to_string(words) +
         ",\"total_tokens\":" + std::to_string(words) + "}}";
  return out;
}

std::string Service::Embed(const Json& body) {
  RequireObject(body);
  if (!body.contains("inputs")) throw ApiError(400, "'inputs' is required");
  const bool normalize = GetBool(body, "normalize", true);
  const bool truncate = GetBool(body, "truncate", false);
  const std::string direction = GetString(body, "truncation_direction", "Right");
  if (direction != "Right" && direction != "Left") throw ApiError(400, "'truncation_direction' must be Right or Left");
  GetString(body, "prompt_name", "");
  const uint32_t model_dims = swe_model_get_dims(model_.get());
  const uint32_t dims = static_cast<uint32_t>(GetCount(body, "dimensions", model_dims, 1, model_dims));
  const std::vector<std::string> texts = Texts(body["inputs"], "inputs", truncate, direction == "Left");
  uint64_t words = 0;
  std::vector<float> vectors = Encode(texts, dims, &words);
  std::string out = "[";
  for (size_t i = 0; i < texts.size(); ++i) {
    float* v = vectors.data() + i * dims;
    if (normalize && !model_normalizes_) {  // a model that normalises already gives unit vectors
      double sum = 0;
      for (uint32_t d = 0; d < dims; ++d) sum += double{v[d]} * v[d];
      if (sum > 0) {
        const float scale = static_cast<float>(1 / std::sqrt(sum));
        for (uint32_t d = 0; d < dims; ++d) v[d] *= scale;
      }
    }
    if (i) out += ',';
    AppendFloats(v, dims, &out);
  }
  out += ']';
  return out;
}

uint32_t Service::RequireIndex() const {
  if (index_path_.empty()) throw ApiError(404, "no index is loaded: start the server with --index FILE");
  return index_dims_;
}

std::shared_ptr<swe_index> Service::Index() const { return std::atomic_load(&index_); }

Json Service::Search(const Json& body) {
  RequireObject(body);
  const Json query_json = body.value("query", Json());
  if (!query_json.is_string()) throw ApiError(400, "'query' must be a string");
  const std::string query = Texts(query_json, "query", false, false)[0];
  const size_t k = GetCount(body, "k", 10, 1, limits_.max_k);
  const double min_score = GetNumber(body, "min_score", -1);
  swe_search_params params = swe_search_default_params();
  params.candidates = GetCount(body, "candidates", 0, 0, UINT32_MAX);
  RequireIndex();
  if (FileMayHaveChanged()) {  // another writer's change: seen by every search that starts after it
    changes_.Run([this] {
      if (FileMayHaveChanged()) Refresh();
    });
  }
  const std::shared_ptr<swe_index> kept = Index();
  const swe_index* index = kept.get();
  const uint32_t dims = swe_index_get_dims(index);  // the dims of the index searched
  uint64_t words = 0;
  const std::vector<float> vector = Encode({query}, dims, &words);
  std::vector<uint64_t> ids(k);
  std::vector<float> scores(k);
  size_t n = 0;
  Json hits = Json::array();
  Check(swe_index_search_batch(index, vector.data(), 1, dims, k, static_cast<float>(min_score), &params, ids.data(),
                               scores.data(), &n));
  for (size_t i = 0; i < n; ++i) {
    Json hit = {{"score", cli::JsonFloat(scores[i])}};
    swe_doc doc;
    if (swe_index_get_doc(index, ids[i], &doc) == SWE_OK) {
      hit["id"] = std::string(doc.id.data, doc.id.size);
      hit["text"] = std::string(doc.text.data, doc.text.size);
      cli::AddStoredMetadata({doc.metadata.data, doc.metadata.size}, &hit);
    } else {
      hit["id"] = std::to_string(ids[i]);
    }
    hits.push_back(std::move(hit));
  }
  return {{"hits", std::move(hits)}};
}

Json Service::AddDocuments(const Json& body) {
  RequireObject(body);
  const Json documents = body.value("documents", Json());
  if (!documents.is_array() || documents.empty()) throw ApiError(400, "'documents' must be a non-empty array");
  if (documents.size() > limits_.max_inputs) {
    throw ApiError(400, "'documents' has more than the " + std::to_string(limits_.max_inputs) + " allowed");
  }
  std::vector<std::string> ids, texts, metadata;
  for (const Json& doc : documents) {
    if (!doc.is_object()) throw ApiError(400, "each document must be an object {\"id\", \"text\", \"metadata\"}");
    ids.push_back(DocumentId(doc));
    const Json text = doc.value("text", Json());
    if (!text.is_string()) throw ApiError(400, "each document needs a 'text' string");
    texts.push_back(Texts(text, "text", false, false)[0]);
    metadata.push_back(doc.contains("metadata") && !doc["metadata"].is_null() ? DumpJson(doc["metadata"]) : "");
  }
  uint32_t dims = RequireIndex();
  uint64_t words = 0;
  std::vector<float> vectors = Encode(texts, dims, &words);  // before the lock: other changes go on meanwhile
  std::vector<swe_doc> docs(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    docs[i] = {{ids[i].data(), ids[i].size()}, {texts[i].data(), texts[i].size()},
               {metadata[i].data(), metadata[i].size()}};
  }
  return changes_.Run([&]() -> Json {
    util::FileLock file_lock;
    LockAndRefresh(&file_lock);
    if (index_dims_ != dims) {  // the file was replaced by an index of other dims meanwhile
      dims = index_dims_;
      vectors = Encode(texts, dims, &words);
    }
    swe_index* index = index_.get();
    size_t replaced = 0;
    for (const std::string& id : ids) {
      uint64_t entry = 0;
      replaced += swe_index_find_doc(index, id.data(), id.size(), &entry) == SWE_OK;
    }
    const swe_status status = swe_index_add_docs(index, docs.data(), vectors.data(), docs.size());
    if (status != SWE_OK) {
      const std::string error = swe_last_error();
      Save();  // the documents before the bad one were added: keep the file and the memory alike
      throw ApiError(status == SWE_ERR_INVALID_ARGUMENT ? 400 : 500, error);
    }
    Save();
    return {{"added", docs.size() - replaced}, {"replaced", replaced}, {"size", swe_index_get_size(index_.get())}};
  });
}

Json Service::RemoveDocuments(const Json& body) {
  RequireObject(body);
  const Json ids = body.value("ids", Json());
  if (!ids.is_array() || ids.empty()) throw ApiError(400, "'ids' must be a non-empty array of strings");
  if (ids.size() > limits_.max_inputs) throw ApiError(400, "'ids' has more than the " + std::to_string(limits_.max_inputs) + " allowed");
  for (const Json& id : ids) {
    if (!id.is_string()) throw ApiError(400, "'ids' must be a non-empty array of strings");
  }
  RequireIndex();
  return changes_.Run([&]() -> Json {
    util::FileLock file_lock;
    LockAndRefresh(&file_lock);
    swe_index* index = index_.get();
    Json missing = Json::array();
    size_t removed = 0;
    for (const Json& id : ids) {
      const std::string text = id.get<std::string>();
      uint64_t entry = 0;
      if (swe_index_find_doc(index, text.data(), text.size(), &entry) == SWE_OK && swe_index_remove(index, entry) == SWE_OK) {
        ++removed;
      } else {
        missing.push_back(text);
      }
    }
    if (removed > 0) Save();
    return {{"removed", removed}, {"not_found", std::move(missing)}, {"size", swe_index_get_size(index_.get())}};
  });
}

namespace {

// The first bytes of `path` (the container's header), "" when it cannot be read.
std::string FileHeader(const std::string& path) {
  std::string header(40, '\0');
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return "";
  header.resize(std::fread(header.data(), 1, header.size(), file));
  std::fclose(file);
  return header;
}

}  // namespace

void Service::RememberFile() {
  struct stat st;
  if (stat(index_path_.c_str(), &st) == 0) RememberFile(st);
}

void Service::RememberFile(const struct stat& st) {
  file_dev_ = st.st_dev;
  file_ino_ = st.st_ino;
  file_size_ = st.st_size;
  file_header_ = FileHeader(index_path_);
}

bool Service::FileReplaced() const {
  struct stat st;
  if (stat(index_path_.c_str(), &st) != 0) return false;
  return static_cast<uint64_t>(st.st_dev) != file_dev_ || static_cast<uint64_t>(st.st_ino) != file_ino_ ||
         FileHeader(index_path_) != file_header_;
}

bool Service::FileMayHaveChanged() const {
  if (index_path_.empty()) return false;
  struct stat st;
  return stat(index_path_.c_str(), &st) == 0 &&
         (static_cast<uint64_t>(st.st_dev) != file_dev_ || static_cast<uint64_t>(st.st_ino) != file_ino_ ||
          static_cast<int64_t>(st.st_size) != file_size_);
}

void Service::Refresh() {
  // The file as it was before reading it: a change made while it is read makes it differ again, so
  // the next search refreshes once more rather than missing it.
  struct stat st;
  if (stat(index_path_.c_str(), &st) != 0) return;  // not written yet: the first save creates it
  if (file_ino_ != 0 && !FileReplaced()) {  // appended to: apply the new records
    Check(swe_index_refresh_from_file(index_.get(), index_path_.c_str(), nullptr, nullptr));
    RememberFile(st);
    return;
  }
  // Replaced (or created by another writer): read whole into a new index, checked before it is used.
  swe_index* reloaded = nullptr;
  Check(swe_index_load_from_file(index_path_.c_str(), nullptr, &reloaded));
  cli::IndexPtr fresh(reloaded);
  if (swe_index_check_model(fresh.get(), model_.get()) != SWE_OK) {
    throw ApiError(500, index_path_ + " was replaced by an index of another model: " + swe_last_error());
  }
  index_dims_ = swe_index_get_dims(fresh.get());
  std::atomic_store(&index_, std::shared_ptr<swe_index>(std::move(fresh)));
  RememberFile(st);
}

void Service::LockAndRefresh(util::FileLock* file_lock) {
  struct stat st;
  if (stat(index_path_.c_str(), &st) != 0) return;  // not written yet: the first save creates it
  std::string error;
  if (!file_lock->Lock(index_path_, &error)) throw ApiError(500, error);
  Refresh();
}

void Service::Save() {
  // The library saves while searches go on (swe.h): a save changes only where the index stands in its file.
  if (swe_index_save_to_file(index_.get(), index_path_.c_str()) == SWE_OK) {
    RememberFile();
    return;
  }
  const std::string error = swe_last_error();
  // The change is not on disk: go back to what the file holds so that memory and file agree.
  swe_index* reloaded = nullptr;
  if (swe_index_load_from_file(index_path_.c_str(), nullptr, &reloaded) == SWE_OK) {
    index_dims_ = swe_index_get_dims(reloaded);
    std::atomic_store(&index_, std::shared_ptr<swe_index>(reloaded, swe_index_free));
    RememberFile();
  }
  throw ApiError(500, "the index could not be saved (the change is undone): " + error);
}

Json Service::Health() const {
  Json out = {{"status", "ok"}, {"model", model_name_}, {"dims", swe_model_get_dims(model_.get())}};
  if (!index_path_.empty()) out["index_size"] = index_size();
  return out;
}

size_t Service::index_size() const {
  if (index_path_.empty()) return 0;
  return swe_index_get_size(Index().get());
}

}  // namespace swe::serve
