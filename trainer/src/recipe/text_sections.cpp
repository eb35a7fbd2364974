// The recipe sections of the text stages: corpus (what is read), tokenizer (how words are split, also
// in the exported model), vocab (the words counted) and sample (the sentences the teacher sees).
#include "recipe/section_reader.h"
#include "recipe/section_parsers.h"

namespace swe::trainer {

const std::vector<std::pair<const char*, CjkMode>>& TrainableCjkModes() {  // a function: other files' tables read it
  static const std::vector<std::pair<const char*, CjkMode>> modes = {
      {"none", CjkMode::kNone}, {"characters", CjkMode::kCharacters}, {"bigrams", CjkMode::kBigrams},
      {"longest", CjkMode::kLongest}};
  return modes;
}

namespace {
using nlohmann::json;

const RecipeKeys<CorpusOptions> kCorpusKeys = {
    {"paths", "plain text or .zst files, one sentence (or paragraph) per line", &CorpusOptions::paths},
    {"split_sentences", "lines are paragraphs: split after . ! ? (not after common abbreviations) and 。！？",
     &CorpusOptions::split_sentences},
    {"split_tabs", "a tab separates sentences (both sides of parallel .tsv files)", &CorpusOptions::split_tabs},
    {"skip_sentences", "leave out the first N sentences (a slice after the lines another recipe used)",
     &CorpusOptions::skip_sentences},
    {"max_sentences", "stop after this many sentences past the skipped ones (0: all)", &CorpusOptions::max_sentences},
};

const RecipeKeys<TokenizerConfig> kTokenizerKeys = {
    {"fold_case", "an unknown word is tried case-folded", &TokenizerConfig::fold_case},
    {"strip_accents", "then folded and without accents", &TokenizerConfig::strip_accents},
    RecipeKey<TokenizerConfig>::Choice(
        "cjk", "how CJK text splits into words ('subwords' is not trainable yet)",
        TrainableCjkModes(), &TokenizerConfig::cjk),
    {"max_tokens", "words considered per text (0: no limit)", &TokenizerConfig::max_tokens},
};

const RecipeKeys<VocabOptions> kVocabKeys = {
    {"size", "|V|: the most frequent words kept", &VocabOptions::size},
    {"min_count", "a word needs this many occurrences", &VocabOptions::min_count},
    {"fold_case", "count case-folded words (needs tokenizer.fold_case)", &VocabOptions::fold_case},
};

const RecipeKeys<SampleOptions> kSampleKeys = {
    {"per_word", "N: sentences per word for its vector", &SampleOptions::per_word},
    {"sentences", "M: generic sentences (PCA, KD)", &SampleOptions::generic},
    {"max_words", "longer sentences are not used for coverage", &SampleOptions::max_words},
    {"seed", "the sampler's seed (default: the recipe's seed)", &SampleOptions::seed},
};

}  // namespace

Status ParseCorpusSection(const json& j, Recipe* r) {
  SWE_RETURN_IF_ERROR(ReadSection(j, "corpus", kCorpusKeys, &r->corpus));
  if (r->corpus.paths.empty()) return InvalidArgument("recipe: 'corpus.paths' needs at least one file");
  return Status::Ok();
}

Status ParseTokenizerSection(const json& j, Recipe* r) {
  return ReadSection(j, "tokenizer", kTokenizerKeys, &r->vocab.tokenizer);
}

Status ParseVocabSection(const json& j, Recipe* r) {
  SWE_RETURN_IF_ERROR(ReadSection(j, "vocab", kVocabKeys, &r->vocab));
  if (r->vocab.fold_case && !r->vocab.tokenizer.fold_case) {
    return InvalidArgument("recipe: vocab.fold_case needs tokenizer.fold_case (inference must fold to find the words)");
  }
  if (r->vocab.size == 0) return InvalidArgument("recipe: vocab.size must be positive");
  return Status::Ok();
}

Status ParseSampleSection(const json& j, Recipe* r) {
  SWE_RETURN_IF_ERROR(ReadSection(j, "sample", kSampleKeys, &r->sample));
  if (r->sample.per_word == 0) return InvalidArgument("recipe: sample.per_word must be positive");
  return Status::Ok();
}

void DescribeTextKeys(std::vector<std::string>* out) {
  DescribeKeys("corpus", kCorpusKeys, out);
  DescribeKeys("tokenizer", kTokenizerKeys, out);
  DescribeKeys("vocab", kVocabKeys, out);
  DescribeKeys("sample", kSampleKeys, out);
}

}  // namespace swe::trainer
