// Sentence sampling (paper Sec. 3.1): N sentences per vocabulary word, with a coverage sampler: one
// pass over a (shuffled) corpus keeps a sentence when it contains a vocabulary word that still needs
// samples, and that sentence then serves every such word in it. Each kept sentence costs one teacher
// forward pass, instead of one per (word, sentence) pair. The same pass draws a uniform reservoir
// sample of M "generic" sentences for the sentence-level PCA and for refinement.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "swe/status.h"
#include "data/vocab.h"

namespace swe::trainer {

struct SampleOptions {
  uint32_t per_word = 100;   // N
  uint64_t generic = 100000; // M
  uint32_t max_words = 64;   // longer sentences are not used for coverage (the teacher would truncate)
  uint64_t seed = 1;
};

struct SampledSentence {
  std::string text;              // tabs and line breaks replaced by spaces
  std::vector<uint32_t> words;   // vocabulary rows this sentence serves (each once)
};

struct SampleStats {
  uint64_t sentences_seen = 0;
  uint64_t sentences_kept = 0;   // = teacher forward passes for extraction
  uint64_t pairs = 0;            // (word, sentence) samples served
  uint64_t naive_passes = 0;     // |V| x N: one pass per sample without sharing
  uint64_t words_short = 0;      // vocabulary words with fewer than N samples
};

class CoverageSampler {
 public:
  CoverageSampler(const std::vector<WordCount>& vocab, const VocabOptions& vocab_options,
                  const SampleOptions& options);
  void Offer(std::string_view sentence);
  // True when every vocabulary word has N samples (the generic reservoir may still want more text).
  bool complete() const { return remaining_ == 0; }
  std::vector<SampledSentence>& samples() { return samples_; }
  std::vector<std::string>& generic() { return generic_; }
  const std::vector<uint32_t>& served() const { return served_; }
  SampleStats stats() const;

 private:
  VocabOptions vocab_options_;
  SampleOptions options_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<uint32_t> served_;   // samples per vocabulary row so far
  uint64_t remaining_ = 0;         // rows still below N
  std::vector<SampledSentence> samples_;
  std::vector<std::string> generic_;
  std::mt19937_64 rng_;
  uint64_t seen_ = 0, pairs_ = 0;
  std::vector<std::string> words_;
  std::vector<uint32_t> rows_;
};

// Replaces tabs and line breaks with spaces (so a sentence fits one line of a .tsv file).
std::string OneLine(std::string_view s);

// samples.tsv: "row,row,...<TAB>sentence" per line.
Status WriteSamples(const std::string& path, const std::vector<SampledSentence>& samples);
Status ReadSamples(const std::string& path, uint32_t vocab_size, std::vector<SampledSentence>* samples);
// One text per line.
Status WriteLines(const std::string& path, const std::vector<std::string>& lines);
Status ReadLines(const std::string& path, std::vector<std::string>* lines);

}  // namespace swe::trainer
