#include "data/sampler.h"

#include <algorithm>
#include <fstream>

#include "swe/tokenizer.h"
#include "swe/util/file.h"

namespace swe::trainer {

CoverageSampler::CoverageSampler(const std::vector<WordCount>& vocab, const VocabOptions& vocab_options,
                                 const SampleOptions& options)
    : vocab_options_(vocab_options), options_(options), index_(VocabIndex(vocab)),
      served_(vocab.size(), 0), remaining_(options.per_word > 0 ? vocab.size() : 0), rng_(options.seed) {}

std::string OneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

void CoverageSampler::Offer(std::string_view sentence) {
  ++seen_;
  if (options_.generic > 0) {  // reservoir sampling (Algorithm R)
    if (generic_.size() < options_.generic) {
      generic_.push_back(OneLine(sentence));
    } else {
      uint64_t j = std::uniform_int_distribution<uint64_t>(0, seen_ - 1)(rng_);
      if (j < options_.generic) generic_[j] = OneLine(sentence);
    }
  }
  if (remaining_ == 0) return;
  words_.clear();
  SplitWords(sentence, vocab_options_.tokenizer, nullptr, &words_);
  if (words_.empty() || words_.size() > options_.max_words) return;
  rows_.clear();
  for (const std::string& w : words_) {
    auto it = index_.find(VocabKey(w, vocab_options_.fold_case));
    if (it == index_.end() || served_[it->second] >= options_.per_word) continue;
    if (std::find(rows_.begin(), rows_.end(), it->second) != rows_.end()) continue;
    rows_.push_back(it->second);
  }
  if (rows_.empty()) return;
  for (uint32_t r : rows_) {
    if (++served_[r] == options_.per_word) --remaining_;
  }
  pairs_ += rows_.size();
  samples_.push_back({OneLine(sentence), rows_});
}

SampleStats CoverageSampler::stats() const {
  SampleStats s;
  s.sentences_seen = seen_;
  s.sentences_kept = samples_.size();
  s.pairs = pairs_;
  s.naive_passes = static_cast<uint64_t>(served_.size()) * options_.per_word;
  for (uint32_t n : served_) s.words_short += n < options_.per_word ? 1 : 0;
  return s;
}

Status WriteSamples(const std::string& path, const std::vector<SampledSentence>& samples) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return IoError("cannot write " + path);
  for (const SampledSentence& s : samples) {
    for (size_t i = 0; i < s.words.size(); ++i) f << (i ? "," : "") << s.words[i];
    f << '\t' << s.text << '\n';
  }
  f.close();
  if (!f) return IoError("write failed: " + path);
  return Status::Ok();
}

Status ReadSamples(const std::string& path, uint32_t vocab_size, std::vector<SampledSentence>* samples) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return IoError("cannot read " + path);
  samples->clear();
  std::string line;
  size_t n = 0;
  while (std::getline(f, line)) {
    ++n;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) return Corrupt(path + ":" + std::to_string(n) + ": no tab");
    SampledSentence s;
    s.text = line.substr(tab + 1);
    size_t pos = 0;
    while (pos < tab) {
      size_t comma = line.find(',', pos);
      if (comma == std::string::npos || comma > tab) comma = tab;
      uint64_t row = 0;
      if (comma == pos || comma - pos > 10) return Corrupt(path + ":" + std::to_string(n) + ": bad row list");
      for (size_t i = pos; i < comma; ++i) {
        if (line[i] < '0' || line[i] > '9') return Corrupt(path + ":" + std::to_string(n) + ": bad row list");
        row = row * 10 + static_cast<uint64_t>(line[i] - '0');
      }
      if (row >= vocab_size) return Corrupt(path + ":" + std::to_string(n) + ": row out of range");
      s.words.push_back(static_cast<uint32_t>(row));
      pos = comma + 1;
    }
    samples->push_back(std::move(s));
  }
  return Status::Ok();
}

Status WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return IoError("cannot write " + path);
  for (const std::string& l : lines) f << l << '\n';
  f.close();
  if (!f) return IoError("write failed: " + path);
  return Status::Ok();
}

Status ReadLines(const std::string& path, std::vector<std::string>* lines) {
  std::string error;
  return util::ReadLines(path, lines, &error) ? Status::Ok() : IoError(error);
}

}  // namespace swe::trainer
