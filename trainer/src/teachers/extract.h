// Extraction (paper Sec. 3.1, Eq. 1): for each vocabulary word w, over its sampled sentences S(w),
//   E(w) = 1/|S(w)| sum_{s in S(w)} mean_{positions p of w in s} mean_{subwords t of w at p} h_t(s)
// where h_t(s) is the teacher's last-layer vector of token t. Also the word-matching helpers the
// later stages share (sentence -> vocabulary rows), so all stages see words the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/matrix_io.h"
#include "data/sampler.h"
#include "teachers/teacher.h"
#include "data/vocab.h"

namespace swe::trainer {

using VocabLookup = std::unordered_map<std::string, uint32_t>;

// The words of `sentence` (core's SplitWords) with their byte spans. Words that cannot be located
// in the text (only possible with invalid UTF-8) are skipped.
void SplitWithSpans(std::string_view sentence, const TokenizerConfig& tokenizer, std::vector<std::string>* words,
                    std::vector<WordSpan>* spans);

// Vocabulary rows of the words of `sentence`, in order (unknown words skipped).
void SentenceRows(std::string_view sentence, const VocabOptions& vocab, const VocabLookup& index,
                  std::vector<uint32_t>* rows);

struct ExtractOptions {
  uint32_t batch_size = 64;  // sentences per teacher call (sorted by length to limit padding)
  // The checkpoint: the per-word sums and counts so far and how many sentences are done, written
  // every `checkpoint_every` batches and when `stop` says so; a run resumes from it when it was made
  // with the same key, samples, vocabulary, teacher width and batch size (else it is ignored), and
  // ends with the same sums an uninterrupted run has. "" = none.
  std::string checkpoint;
  std::string checkpoint_key;         // the caller's key for its inputs (the stage's recipe sections)
  uint32_t checkpoint_every = 100;    // batches
  std::function<bool()> stop;         // asked after each batch: true = save the checkpoint and return
};

struct ExtractResult {
  Matrix vectors;                // |V| x d; zero rows for words never found (empty when interrupted)
  std::vector<uint32_t> counts;  // sentences that contributed to each row
  uint64_t forward_passes = 0;   // sentences encoded, in this run and the one it resumed
  uint64_t resumed_at = 0;       // sentences done by the checkpoint this run resumed from (0 = none)
  uint64_t done = 0;             // sentences done when the run returned (all of them unless interrupted)
  bool interrupted = false;      // `stop` said so: the checkpoint holds the work so far
};

Status ExtractWordVectors(Teacher& teacher, const std::vector<SampledSentence>& samples,
                          const std::vector<WordCount>& vocab, const VocabOptions& vocab_options,
                          const ExtractOptions& options, ExtractResult* out);

// Mean of the rows of `table` for each sentence (rows with counts[r] == 0 are skipped when counts is
// non-empty); sentences without a usable word are left out. The sentence matrix of Sec. 3.2.
Matrix SentenceAverages(const Matrix& table, const std::vector<std::vector<uint32_t>>& sentences,
                        const std::vector<uint32_t>& counts);

}  // namespace swe::trainer
