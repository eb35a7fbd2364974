#include "refine/cjk_lexicon.h"

#include <unordered_map>
#include <unordered_set>

#include "swe/unicode.h"

namespace swe::trainer {
using unicode::CountCodePoints;

std::vector<WordCount> LearnCjkLexicon(const std::vector<std::string>& sentences, const VocabOptions& vocab,
                                       size_t max_chars, const KnownWord& also_known) {
  std::vector<std::string> words;
  // 1. With no word known, longest match asks for every 2..8-character substring at each position
  // of a run (longest first): the asked substrings are exactly the candidates.
  std::unordered_map<std::string, uint64_t> counts;
  const KnownWord record = [&](std::string_view w) {
    if (CountCodePoints(w) <= max_chars) ++counts[std::string(w)];
    return false;
  };
  for (const std::string& s : sentences) {
    words.clear();
    SplitWords(s, vocab.tokenizer, nullptr, &words, record);
  }
  std::unordered_set<std::string> lexicon;
  for (const auto& [w, c] : counts) {
    if (c >= vocab.min_count) lexicon.insert(w);
  }
  // 2. Re-segment with the lexicon; the last round's counts are the result.
  WordCounter counter(vocab);
  for (int round = 0; round < kLexiconRounds; ++round) {
    const KnownWord known = [&](std::string_view w) {
      return lexicon.count(std::string(w)) > 0 || (also_known && also_known(w));
    };
    counter = WordCounter(vocab);
    for (const std::string& s : sentences) counter.AddSentence(s, known);
    lexicon.clear();
    for (const WordCount& w : counter.Top()) {
      if (CountCodePoints(w.word) >= 2) lexicon.insert(w.word);  // non-CJK words are never asked: harmless
    }
  }
  return counter.Top();
}

}  // namespace swe::trainer
