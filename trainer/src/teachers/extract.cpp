#include "teachers/extract.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "data/corpus.h"
#include "swe/util/progress.h"
#include "swe/tokenizer.h"

namespace swe::trainer {

void SplitWithSpans(std::string_view sentence, const TokenizerConfig& tokenizer, std::vector<std::string>* words,
                    std::vector<WordSpan>* spans) {
  std::vector<std::string> all;
  SplitWords(sentence, tokenizer, nullptr, &all);
  words->clear();
  spans->clear();
  size_t pos = 0;
  for (std::string& w : all) {
    size_t at = sentence.find(w, pos);
    if (at == std::string_view::npos) continue;
    spans->push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(at + w.size())});
    words->push_back(std::move(w));
    pos = at + spans->back().end - spans->back().begin;
  }
}

void SentenceRows(std::string_view sentence, const VocabOptions& vocab, const VocabLookup& index,
                  std::vector<uint32_t>* rows) {
  std::vector<std::string> words;
  SplitWords(sentence, vocab.tokenizer, nullptr, &words);
  rows->clear();
  for (const std::string& w : words) {
    auto it = index.find(VocabKey(w, vocab.fold_case));
    if (it != index.end()) rows->push_back(it->second);
  }
}

namespace {

constexpr char kCheckpointMagic[] = "swe-trainer extract checkpoint 1\n";

// What a checkpoint must match: the caller's key, the samples in order, the vocabulary, the
// teacher's width and the batch size (a batch's padding can change the teacher's vectors).
std::string CheckpointKey(const std::string& key, const std::vector<SampledSentence>& samples,
                          const std::vector<WordCount>& vocab, uint32_t d, uint32_t batch) {
  uint64_t h = Fnv1a64(key);
  for (const SampledSentence& s : samples) {
    h = Fnv1a64(s.text, h);
    h = Fnv1a64(std::string_view(reinterpret_cast<const char*>(s.words.data()), s.words.size() * 4), h);
  }
  for (const WordCount& w : vocab) h = Fnv1a64(w.word + "\n", h);
  return HexU64(h) + " " + std::to_string(d) + " " + std::to_string(batch) + "\n";
}

template <typename T>
void Append(std::string* out, const T* v, size_t n) {
  out->append(reinterpret_cast<const char*>(v), n * sizeof(T));
}

// magic, key line, sentences done, forward passes, counts[|V|], then the d sums of each row counted.
Status WriteCheckpoint(const std::string& path, const std::string& key, uint64_t done, uint64_t passes,
                       const std::vector<uint32_t>& counts, const std::vector<double>& sum, uint32_t d) {
  std::string bytes = std::string(kCheckpointMagic) + key;
  Append(&bytes, &done, 1);
  Append(&bytes, &passes, 1);
  Append(&bytes, counts.data(), counts.size());
  for (size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] > 0) Append(&bytes, sum.data() + r * d, d);
  }
  return WriteTextFile(path, bytes);
}

// False (nothing changed) when the file is missing, made for other inputs, or malformed.
bool ReadCheckpoint(const std::string& path, const std::string& key, uint64_t total, uint32_t d, uint64_t* done,
                    uint64_t* passes, std::vector<uint32_t>* counts, std::vector<double>* sum) {
  std::string bytes;
  if (!FileExists(path) || !ReadTextFile(path, &bytes).ok()) return false;
  const std::string head = std::string(kCheckpointMagic) + key;
  size_t pos = head.size();
  const size_t fixed = pos + 16 + counts->size() * 4;
  if (bytes.compare(0, head.size(), head) != 0 || bytes.size() < fixed) return false;
  uint64_t at, n;
  std::memcpy(&at, bytes.data() + pos, 8);
  std::memcpy(&n, bytes.data() + pos + 8, 8);
  std::vector<uint32_t> c(counts->size());
  std::memcpy(c.data(), bytes.data() + pos + 16, c.size() * 4);
  uint64_t counted = 0;
  for (uint32_t x : c) counted += x > 0;
  if (at > total || bytes.size() != fixed + counted * d * 8) return false;
  pos = fixed;
  for (size_t r = 0; r < c.size(); ++r) {
    if (c[r] == 0) continue;
    std::memcpy(sum->data() + r * d, bytes.data() + pos, d * 8);
    pos += d * 8;
  }
  *done = at;
  *passes = n;
  *counts = std::move(c);
  return true;
}

}  // namespace

namespace {

// One batch for the teacher: its sentences, and in each the spans of its sampled words with their rows.
struct Batch {
  std::vector<std::string> texts;
  std::vector<std::vector<WordSpan>> spans;
  std::vector<std::vector<uint32_t>> span_rows;

  // The sentences samples[order[start..end)].
  void Fill(const std::vector<SampledSentence>& samples, const std::vector<size_t>& order, size_t start, size_t end,
            const VocabLookup& index, const VocabOptions& vocab_options) {
    texts.clear();
    spans.clear();
    span_rows.clear();
    for (size_t i = start; i < end; ++i) {
      const SampledSentence& s = samples[order[i]];
      SplitWithSpans(s.text, vocab_options.tokenizer, &words_, &all_spans_);
      texts.push_back(s.text);
      spans.emplace_back();
      span_rows.emplace_back();
      for (size_t w = 0; w < words_.size(); ++w) {
        auto it = index.find(VocabKey(words_[w], vocab_options.fold_case));
        if (it == index.end() || std::find(s.words.begin(), s.words.end(), it->second) == s.words.end()) continue;
        spans.back().push_back(all_spans_[w]);
        span_rows.back().push_back(it->second);
      }
    }
  }

  // Eq. 1 for the teacher's `result` on this batch: per sentence, each row's mean over its occurrences
  // there, added to its row of `sum` (rows x d), and one more sentence counted for that row.
  void AddMeans(const TeacherOutput& result, uint32_t d, std::vector<double>* sum, std::vector<uint32_t>* counts) {
    size_t k = 0;
    for (size_t b = 0; b < texts.size(); ++b) {
      const auto& rows = span_rows[b];
      std::vector<uint32_t> distinct(rows);
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      for (uint32_t row : distinct) {
        per_sentence_.assign(d, 0.0f);
        uint32_t occurrences = 0;
        for (size_t j = 0; j < rows.size(); ++j) {
          if (rows[j] != row || !result.found[k + j]) continue;
          const float* v = result.word_vectors.data() + (k + j) * d;
          for (uint32_t c = 0; c < d; ++c) per_sentence_[c] += v[c];
          ++occurrences;
        }
        if (occurrences == 0) continue;
        double* acc = sum->data() + static_cast<size_t>(row) * d;
        for (uint32_t c = 0; c < d; ++c) acc[c] += per_sentence_[c] / occurrences;
        ++(*counts)[row];
      }
      k += rows.size();
    }
  }

 private:
  std::vector<std::string> words_;
  std::vector<WordSpan> all_spans_;
  std::vector<float> per_sentence_;  // accumulates the occurrences of one row within one sentence
};

}  // namespace

Status ExtractWordVectors(Teacher& teacher, const std::vector<SampledSentence>& samples,
                          const std::vector<WordCount>& vocab, const VocabOptions& vocab_options,
                          const ExtractOptions& options, ExtractResult* out) {
  const uint32_t d = teacher.dims();
  const VocabLookup index = VocabIndex(vocab);
  std::vector<double> sum(vocab.size() * static_cast<size_t>(d), 0.0);
  out->counts.assign(vocab.size(), 0);
  out->forward_passes = 0;
  out->resumed_at = 0;
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return samples[a].text.size() < samples[b].text.size(); });
  const uint32_t batch = std::max<uint32_t>(1, options.batch_size);
  const std::string key = CheckpointKey(options.checkpoint_key, samples, vocab, d, batch);
  size_t first = 0;
  if (!options.checkpoint.empty() &&
      ReadCheckpoint(options.checkpoint, key, order.size(), d, &out->resumed_at, &out->forward_passes,
                     &out->counts, &sum)) {
    first = out->resumed_at;
  }
  out->interrupted = false;
  uint32_t batches = 0;
  util::Progress progress("extract", samples.size(), "sentences");
  // The work is the text (sentences come shortest first: counting them would make the ETA short).
  double total_bytes = 0, done_bytes = 0;
  for (const SampledSentence& s : samples) total_bytes += static_cast<double>(s.text.size());
  for (size_t i = 0; i < first; ++i) done_bytes += static_cast<double>(samples[order[i]].text.size());
  progress.SetStart(first, total_bytes > 0 ? done_bytes / total_bytes : 0);  // resumed: the ETA from the work left
  Batch b;
  TeacherOutput result;
  for (size_t start = first; start < order.size(); start += batch) {
    size_t end = std::min(order.size(), start + batch);
    b.Fill(samples, order, start, end, index, vocab_options);
    SWE_RETURN_IF_ERROR(teacher.Encode(b.texts, &b.spans, &result));
    out->forward_passes += b.texts.size();
    b.AddMeans(result, d, &sum, &out->counts);
    for (const std::string& t : b.texts) done_bytes += static_cast<double>(t.size());
    progress.Update(end, total_bytes > 0 ? done_bytes / total_bytes : 1);
    out->interrupted = end < order.size() && options.stop && options.stop();
    const bool periodic = ++batches % std::max<uint32_t>(1, options.checkpoint_every) == 0 && end < order.size();
    if (!options.checkpoint.empty() && (out->interrupted || periodic)) {
      SWE_RETURN_IF_ERROR(WriteCheckpoint(options.checkpoint, key, end, out->forward_passes, out->counts, sum, d));
    }
    if (out->interrupted) {
      out->done = end;
      return Status::Ok();
    }
  }
  out->done = order.size();
  out->vectors.rows = vocab.size();
  out->vectors.cols = d;
  out->vectors.data.assign(vocab.size() * static_cast<size_t>(d), 0.0f);
  for (size_t r = 0; r < vocab.size(); ++r) {  // the sum of the per-sentence means over their count
    if (out->counts[r] == 0) continue;
    for (uint32_t c = 0; c < d; ++c) {
      out->vectors.data[r * d + c] = static_cast<float>(sum[r * d + c] / out->counts[r]);
    }
  }
  return Status::Ok();
}

Matrix SentenceAverages(const Matrix& table, const std::vector<std::vector<uint32_t>>& sentences,
                        const std::vector<uint32_t>& counts) {
  Matrix m;
  m.cols = table.cols;
  std::vector<double> acc(table.cols);
  for (const auto& rows : sentences) {
    std::fill(acc.begin(), acc.end(), 0.0);
    uint32_t n = 0;
    for (uint32_t r : rows) {
      if (r >= table.rows || (!counts.empty() && counts[r] == 0)) continue;
      const float* v = table.row(r);
      for (uint64_t c = 0; c < table.cols; ++c) acc[c] += v[c];
      ++n;
    }
    if (n == 0) continue;
    for (uint64_t c = 0; c < table.cols; ++c) m.data.push_back(static_cast<float>(acc[c] / n));
    ++m.rows;
  }
  return m;
}

}  // namespace swe::trainer
