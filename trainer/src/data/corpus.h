// Reading the training corpus: plain text or zstd-compressed (.zst) files, one sentence or paragraph
// per line, streamed (never loaded whole). Paragraph lines can be split into sentences.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "swe/status.h"

namespace swe::trainer {

// Streams the lines of one file. A ".zst" suffix means zstd (any number of frames); anything else is
// read as is. Line ends ("\n", "\r\n") are removed; lines longer than `max_line_bytes` are an error.
class LineReader {
 public:
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  static Status Open(const std::string& path, std::unique_ptr<LineReader>* out,
                     size_t max_line_bytes = 1 << 20);
  // Next line into *line; false at the end of the file or on an error (then status() says which).
  bool Next(std::string* line);
  const Status& status() const { return status_; }
  // Bytes consumed from the file so far and its size (compressed bytes for .zst): progress.
  uint64_t file_offset() const { return file_offset_; }
  uint64_t file_size() const { return file_size_; }

 private:
  LineReader() = default;
  bool Fill();  // appends decoded bytes to buf_; false at the end or on error
  std::string path_;
  FILE* file_ = nullptr;
  struct Zstd;
  Zstd* zstd_ = nullptr;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  size_t max_line_ = 0;
  uint64_t file_offset_ = 0, file_size_ = 0;
  Status status_;
};

// Splits a paragraph into sentences after '.', '!', '?' (and the CJK full stops 。！？) that are
// followed by whitespace (or, for CJK, anything), keeping closing quotes and brackets with the
// sentence, and not after common abbreviations ("Mr.", "e.g.") or single capital initials ("J.").
// Pieces are trimmed; empty ones dropped. Views point into `paragraph`.
void SplitSentences(std::string_view paragraph, std::vector<std::string_view>* out);

struct CorpusOptions {
  std::vector<std::string> paths;
  bool split_sentences = false;  // lines are paragraphs
  bool split_tabs = false;       // a tab separates sentences (both sides of parallel .tsv files)
  uint64_t skip_sentences = 0;   // leave out the first N (a slice after the lines another run used)
  uint64_t max_sentences = 0;    // stop after this many sentences past those (0 = all)
};

// Calls fn(sentence) for every non-empty sentence of every file, in order; fn returns false to stop.
// Shows progress under `stage`. Fails on a missing or unreadable file, or a corrupt .zst.
Status ForEachSentence(const CorpusOptions& options, const std::string& stage,
                       const std::function<bool(std::string_view)>& fn);

// A translation pair: `target` translates `source`.
struct SentencePair {
  std::string source, target;
};

// Appends the pairs of a parallel file (plain or .zst): one "source<TAB>target" pair per line, sides
// trimmed, blank lines skipped. A missing file, a line without exactly one tab or with an empty
// side, or a file without any pair is an error that names the file (and line).
Status ReadPairs(const std::string& path, std::vector<SentencePair>* out);
// The same for lines of `columns` tab-separated sentences (e.g. NLI triples: premise, entailment,
// contradiction), each line appended as one tuple.
// skipped: null = a malformed line (wrong number of tabs, an empty side) is an error; otherwise such
// lines are skipped and counted there (e.g. multi30k.train.en-de.tsv line 7366, a stray tab).
Status ReadTuples(const std::string& path, size_t columns, std::vector<std::vector<std::string>>* out,
                  uint64_t* skipped = nullptr);

// 64-bit FNV-1a, for fingerprints (corpus hash, stage keys). Chain with `seed` = a previous hash.
uint64_t Fnv1a64(std::string_view bytes, uint64_t seed = 14695981039346656037ull);
std::string HexU64(uint64_t v);

}  // namespace swe::trainer
