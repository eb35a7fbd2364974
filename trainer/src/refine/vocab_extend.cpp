#include "refine/vocab_extend.h"

#include <cmath>
#include <random>
#include <unordered_set>

#include "refine/cjk_lexicon.h"
#include "refine/refine_data.h"
#include "swe/tokenizer.h"

namespace swe::trainer {

TokenizerConfig ExtendedTokenizer(const Model& base, const VocabExtension& ext) {
  TokenizerConfig config = base.tokenizer_config();
  if (ext.set_cjk) config.cjk = ext.cjk;
  return config;
}

Status CountNewWords(const Model& base, const VocabExtension& ext, std::vector<WordCount>* added,
                     std::vector<std::string>* stats) {
  added->clear();
  std::unordered_set<std::string> taken;
  std::mt19937_64 rng(ext.seed);
  for (size_t s = 0; s < ext.sources.size(); ++s) {
    const AddVocabSource& src = ext.sources[s];
    if (src.column < 1 || src.column > src.columns) return InvalidArgument("init.add_vocab: column out of range");
    VocabOptions vo;
    vo.tokenizer = ExtendedTokenizer(base, ext);
    vo.fold_case = vo.tokenizer.fold_case;  // the model looks a word up folded: count it so
    vo.min_count = src.min_count;
    vo.size = UINT32_MAX;
    std::vector<std::string> sentences;
    uint64_t read = 0, malformed = 0;
    for (const TupleFile& file : src.files) {
      std::vector<std::vector<std::string>> tuples;
      SWE_RETURN_IF_ERROR(ReadTupleFile(file, src.columns, &rng, &tuples, &read, &malformed));
      for (auto& t : tuples) sentences.push_back(std::move(t[src.column - 1]));
    }
    std::vector<WordCount> top;
    size_t distinct = 0;
    if (vo.tokenizer.cjk == CjkMode::kLongest) {  // multi-character CJK words: a learned lexicon
      top = LearnCjkLexicon(sentences, vo, ext.lexicon_chars, [&base](std::string_view w) { return base.find(w) >= 0; });
      distinct = top.size();
    } else {
      WordCounter counter(vo);
      for (const std::string& s : sentences) counter.AddSentence(s);
      top = counter.Top();
      distinct = counter.distinct();
    }
    uint32_t n = 0;
    for (const WordCount& w : top) {
      if (n >= src.size) break;
      if (base.find(w.word) >= 0 || !taken.insert(w.word).second) continue;
      added->push_back(w);
      ++n;
    }
    if (stats) {
      stats->push_back("init.add_vocab[" + std::to_string(s) + "]: " + std::to_string(n) + " words added (of " +
                       std::to_string(distinct) + (vo.tokenizer.cjk == CjkMode::kLongest ? " with >= min_count" : " distinct") +
                       " in " + std::to_string(sentences.size()) + " sentences" + (malformed ? ", " + std::to_string(malformed) + " malformed lines skipped" : "") +
                       ")");
    }
  }
  return Status::Ok();
}

Status ExtendModel(const Model& base, const std::vector<WordCount>& added, const VocabExtension& ext,
                   ModelContents* out) {
  *out = base.ToContents();
  out->weights.clear();  // per-word weights do not extend (trained models have none)
  out->tokenizer = ExtendedTokenizer(base, ext);
  const uint32_t d = out->dims;
  double sq = 0;  // the base rows' RMS value sets the noise scale
  for (float v : out->vectors) sq += static_cast<double>(v) * v;
  const double rms = out->vectors.empty() ? 1.0 : std::sqrt(sq / static_cast<double>(out->vectors.size()));
  std::mt19937_64 rng(ext.seed);
  std::normal_distribution<float> noise(0.0f, static_cast<float>(0.1 * rms));
  Tokenizer tokenizer(base);
  std::vector<uint32_t> rows;
  std::vector<float> row(d);
  for (const WordCount& w : added) {
    if (base.find(w.word) >= 0) return InvalidArgument("init.add_vocab: '" + w.word + "' is already in init.model");
    rows.clear();
    if (ext.new_rows == NewRows::kSubword) tokenizer.Encode(w.word, &rows);
    if (rows.empty()) {
      for (float& v : row) v = noise(rng);
    } else {
      std::fill(row.begin(), row.end(), 0.0f);
      for (uint32_t r : rows) base.AccumulateRow(r, 1.0f / static_cast<float>(rows.size()), row.data(), d);
    }
    out->words.push_back(w.word);
    out->vectors.insert(out->vectors.end(), row.begin(), row.end());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
