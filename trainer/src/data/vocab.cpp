#include "data/vocab.h"

#include <algorithm>
#include <fstream>

#include "swe/tokenizer.h"
#include "swe/unicode.h"

namespace swe::trainer {

std::string FoldCase(std::string_view word) {
  std::string out;
  out.reserve(word.size());
  size_t pos = 0;
  while (pos < word.size()) unicode::AppendFolded(unicode::DecodeNext(word, &pos), &out);
  return out;
}

void WordCounter::AddSentence(std::string_view sentence, const KnownWord& known) {
  scratch_.clear();
  SplitWords(sentence, options_.tokenizer, nullptr, &scratch_, known);
  ++sentences_;
  tokens_ += scratch_.size();
  for (const std::string& w : scratch_) {
    if (options_.fold_case) {
      ++counts_[FoldCase(w)];
    } else {
      ++counts_[w];
    }
  }
}

std::vector<WordCount> WordCounter::Top() const {
  std::vector<WordCount> all;
  for (const auto& [word, count] : counts_) {
    if (count >= options_.min_count && !word.empty()) all.push_back({word, count});
  }
  auto better = [](const WordCount& a, const WordCount& b) {
    return a.count != b.count ? a.count > b.count : a.word < b.word;
  };
  if (all.size() > options_.size) {
    std::partial_sort(all.begin(), all.begin() + options_.size, all.end(), better);
    all.resize(options_.size);
  } else {
    std::sort(all.begin(), all.end(), better);
  }
  return all;
}

Status WriteVocab(const std::string& path, const std::vector<WordCount>& vocab) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return IoError("cannot write " + path);
  for (const WordCount& w : vocab) f << w.word << '\t' << w.count << '\n';
  f.close();
  if (!f) return IoError("write failed: " + path);
  return Status::Ok();
}

Status ReadVocab(const std::string& path, std::vector<WordCount>* vocab) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return IoError("cannot read " + path);
  vocab->clear();
  std::unordered_map<std::string, uint32_t> seen;
  std::string line;
  size_t n = 0;
  while (std::getline(f, line)) {
    ++n;
    size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || line.find('\t', tab + 1) != std::string::npos) {
      return Corrupt(path + ":" + std::to_string(n) + ": expected word<TAB>count");
    }
    WordCount w;
    w.word = line.substr(0, tab);
    try {
      w.count = std::stoull(line.substr(tab + 1));
    } catch (...) {
      return Corrupt(path + ":" + std::to_string(n) + ": bad count");
    }
    if (!unicode::IsValidUtf8(w.word)) return Corrupt(path + ":" + std::to_string(n) + ": invalid UTF-8");
    if (!seen.emplace(w.word, 0).second) return Corrupt(path + ":" + std::to_string(n) + ": duplicate word");
    vocab->push_back(std::move(w));
  }
  return Status::Ok();
}

std::unordered_map<std::string, uint32_t> VocabIndex(const std::vector<WordCount>& vocab) {
  std::unordered_map<std::string, uint32_t> index;
  index.reserve(vocab.size() * 2);
  for (uint32_t i = 0; i < vocab.size(); ++i) index.emplace(vocab[i].word, i);
  return index;
}

}  // namespace swe::trainer
