// What `swe serve` answers, without HTTP: each endpoint takes the request's JSON and returns the
// answer's JSON or throws ApiError. It holds the model and the optional index, both used by every
// thread at once as swe.h allows (the library locks the index), each change appended to its file
// before the answer (searches go on while it is written). A change is a read-modify-write of the file:
// it holds the file's advisory lock (util::FileLock, as `swe index add` does) and first applies what
// other writers appended or replaced (swe_index_refresh_from_file), so no writer's documents are lost;
// a search first does the same when the file grew or was replaced.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include <sys/stat.h>
#include <sys/types.h>

#include "swe/util/file.h"

#include "../common.h"
#include "change_thread.h"
#include "json_body.h"

namespace swe::serve {

struct Limits {
  size_t max_body_bytes = 8u << 20;  // enforced by the HTTP server (413)
  size_t max_inputs = 2048;          // texts or documents in one request
  size_t max_text_bytes = 64u << 10; // one text, in UTF-8 bytes
  size_t max_k = 1000;               // hits of one search
  // JSON values in one request body: room for max_inputs documents with some metadata each.
  size_t max_json_values() const { return max_inputs * 64 + 1024; }
};

class Service {
 public:
  // `index_path` empty: no index (the index endpoints answer 404). A path that does not exist yet
  // starts an empty index of the model's dims, written by the first add.
  Service(cli::ModelPtr model, const std::string& index_path, const Limits& limits);

  // The two embedding answers are JSON text, written directly (thousands of floats).
  std::string Embeddings(const Json& body);  // POST /v1/embeddings, OpenAI's API
  std::string Embed(const Json& body);       // POST /embed, text-embeddings-inference's API
  Json Search(const Json& body);      // POST /search
  Json AddDocuments(const Json& body);     // POST /index/add
  Json RemoveDocuments(const Json& body);  // POST /index/remove
  Json Health() const;                // GET /health

  size_t index_size() const;
  uint64_t texts_embedded() const { return texts_embedded_.load(std::memory_order_relaxed); }
  const Limits& limits() const { return limits_; }

 private:
  // The texts of `input` (a string or an array of strings), each checked against the limits, or cut
  // to max_text_bytes when `truncate` (keeping the end when `keep_end`).
  std::vector<std::string> Texts(const Json& input, const char* name, bool truncate, bool keep_end) const;
  // The vectors of `texts` with `dims` dimensions, row-major; *known_words the words that counted.
  std::vector<float> Encode(const std::vector<std::string>& texts, uint32_t dims, uint64_t* known_words) const;
  uint32_t RequireIndex() const;  // the index's dims; ApiError(404) when there is none
  void OpenIndex();  // on the change thread: loads the file, or starts an empty index when there is none
  std::shared_ptr<swe_index> Index() const;  // the index now (a search keeps the one it started with)
  // On the change thread, before a change: takes the file's lock into *file_lock (when the file exists)
  // and brings the index up to date with it (Refresh).
  void LockAndRefresh(util::FileLock* file_lock);
  // On the change thread: applies the changes other writers appended to the file since this server
  // last read or wrote it, or reads the file whole when another writer replaced it.
  void Refresh();
  // Whether the file may hold changes this server has not read (it grew, or was replaced): one stat.
  bool FileMayHaveChanged() const;
  void Save();  // on the change thread; reloads the file when the write fails
  void RememberFile();  // the identity and size of the file just read or written
  void RememberFile(const struct stat& st);
  bool FileReplaced() const;  // the file is no longer the one RememberFile() saw

  cli::ModelPtr model_;
  std::string model_name_;
  bool model_normalizes_ = true;
  std::string index_path_;
  // Replaced as a whole (std::atomic_store, on the change thread) only when the file is reloaded; read
  // with std::atomic_load (Index()).
  std::shared_ptr<swe_index> index_;
  std::atomic<uint32_t> index_dims_{0};  // read by changes and searches, set when the file is reloaded
  // The index file this server last read or wrote: its inode (each write renames a new file over it)
  // and its 40-byte header (sizes and checksum), since a freed inode number is soon given again.
  // (Atomic: searches read them to tell whether to refresh; changes, one at a time, set them.)
  std::atomic<uint64_t> file_dev_{0};
  std::atomic<uint64_t> file_ino_{0};
  std::atomic<int64_t> file_size_{0};  // its size then: appends by other writers make it grow
  std::string file_header_;  // on the change thread
  mutable std::atomic<uint64_t> texts_embedded_{0};  // counted by Encode, a const method
  // Runs every change, one at a time, file included: a change is a transaction on the file (its flock
  // orders other processes' writers, this orders this server's). A search asks it only to apply another
  // writer's change first.
  ChangeThread changes_;
  Limits limits_;
};

}  // namespace swe::serve
