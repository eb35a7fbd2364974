// swe convert: other word-vector formats to a .swe model (written with core's writer); a .swe model
// re-sealed (raw or zstd) with its message unchanged.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "swe/util/args.h"
#include "commands.h"
#include "common.h"
#include "line_reader.h"
#include "swe/formats/readers.h"
#include "swe/model.h"
#include "swe/model_file.h"
#include "swe/tokenizer.h"
#include "swe/util/file.h"

namespace swe::cli {
namespace {

constexpr const char* kConvertUsage =
    "usage: swe convert --from glove-json|word2vec|model2vec IN -o OUT.swe [options]\n"
    "       swe convert --from swe IN.swe -o OUT.swe [--zstd LEVEL] [--weights FILE] [--top N] [--name NAME]\n"
    "                   [--description TEXT]\n"
    "\n"
    "Converts word vectors to a .swe model. Keeps only words the tokenizer produces as exactly one word\n"
    "(punctuation entries such as ',' can never be looked up; with --cjk bigrams a CJK pair, with --cjk\n"
    "longest a CJK word of up to 8 characters is one word), drops repeats and takes the first N in the\n"
    "source's order (frequency order for both formats as usually distributed).\n"
    "\n"
    "formats:\n"
    "  glove-json   the wink-embeddings JSON layout ({\"dimensions\", \"words\", \"vectors\": {word: [...]}})\n"
    "  word2vec     text: an optional 'ROWS DIMS' line, then 'word v1 ... vD' lines (GloVe's text too)\n"
    "  model2vec    a Model2Vec model folder (model.safetensors + tokenizer.json; f32/f16/int8 and\n"
    "               vocabulary-quantized): token embeddings, so the model splits every word into the\n"
    "               teacher's subword tokens (docs/TOKENIZER.md); --top does not apply\n"
    "  swe          a .swe model, re-sealed with its message byte for byte (the same vectors and\n"
    "               tokens): --zstd 0 (default) writes a raw payload that loads in place, --zstd N\n"
    "               compresses at level N (docs/FORMAT.md); with --weights FILE (lines \"word<TAB>weight\",\n"
    "               a weight a finite number >= 0) the same model with those word weights (the\n"
    "               sentence vector becomes the weighted mean), written in its own table type; words\n"
    "               FILE does not list keep their weight (1 in an unweighted model); with --top N\n"
    "               only its first N words (swe-trainer writes them in corpus frequency order), the\n"
    "               kept rows unchanged; --name and --description replace those; no other option\n"
    "               applies\n"
    "\n"
    "options:\n"
    "  -o, --output OUT      the model to write (required)\n"
    "  --top N               keep the first N words (default: all)\n"
    "  --dtype f32|f16|int8  table storage (default f32)\n"
    "  --cjk MODE            how runs of CJK characters become tokens: characters (default), none,\n"
    "                        bigrams or longest (docs/TOKENIZER.md); not for model2vec\n"
    "  --name NAME           model name (default: OUT's file name without extension)\n"
    "  --description TEXT    one-line description\n"
    "  --teacher TEXT        where the vectors came from (default: not distilled)\n"
    "  --corpus TEXT         the corpus they were trained on (default: unknown, the source file's name)\n"
    "  --placeholder         mark the model as a placeholder (not distilled; for development only)\n"
    "  --no-normalize        do not L2-normalise sentence vectors\n";

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Stem(const std::string& path) {
  std::string base = BaseName(path);
  size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

DType ParseDtype(const std::string& text, const std::string& command) {
  DType dtype;
  if (ParseDType(text, &dtype)) return dtype;
  throw util::UsageError("--dtype must be f32, f16 or int8, not '" + text + "'", command);
}

// Words that tokenization can turn into one token covering the whole word: the only ones a text can
// ever look up. (Tokens are parts of the text, so a token equal to the word is the whole word; for
// cjk longest, the word is asked as the only known word.)
formats::WordFilter SingleWordFilter(const TokenizerConfig& config) {
  return [&config, words = std::vector<std::string>()](const std::string& word) mutable {
    words.clear();
    SplitWords(word, config, nullptr, &words, [&word](std::string_view w) { return w == word; });
    return std::find(words.begin(), words.end(), word) != words.end();
  };
}

// Sets contents->weights from a "word<TAB>weight" file (split at the last tab). Words the file does not
// list keep their weight; a word the model lacks, a repeated word or a bad number is an error.
void ReadWeights(const std::string& path, ModelContents* contents) {
  std::unordered_map<std::string_view, uint32_t> rows;
  for (uint32_t i = 0; i < contents->words.size(); ++i) rows.emplace(contents->words[i], i);
  if (contents->weights.empty()) contents->weights.assign(contents->words.size(), 1.0f);
  std::vector<bool> seen(contents->words.size(), false);
  LineReader lines(path);
  std::string line;
  for (uint64_t number = 1; lines.Next(&line); ++number) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    const size_t tab = line.rfind('\t');
    if (tab == std::string::npos) throw CliError(1, where + "expected \"word<TAB>weight\"");
    const std::string word = line.substr(0, tab), number_text = line.substr(tab + 1);
    auto row = rows.find(word);
    if (row == rows.end()) throw CliError(1, where + "'" + word + "' is not a word of the model");
    if (seen[row->second]) throw CliError(1, where + "'" + word + "' is listed twice");
    seen[row->second] = true;
    char* end = nullptr;
    const double weight = number_text.empty() ? -1 : std::strtod(number_text.c_str(), &end);
    if (end == nullptr || *end != '\0' || !(weight >= 0 && weight <= kMaxStoredMagnitude)) {
      throw CliError(1, where + "the weight must be a number in [0, 2^40], not '" + number_text + "'");
    }
    contents->weights[row->second] = static_cast<float>(weight);
  }
}

// `bytes` written to `output` atomically once they read back as a model (core's reader checks it all).
void SaveChecked(const std::vector<uint8_t>& bytes, const std::string& output) {
  std::unique_ptr<Model> check;
  Status status = ReadModel(bytes.data(), bytes.size(), &check);
  if (!status.ok()) throw CliError(1, "the written model does not read back: " + status.ToString());
  std::string error;
  if (!util::WriteFileAtomically(output, {{bytes.data(), bytes.size()}}, &error)) throw CliError(1, error);
}

// `contents` through core's writer, then SaveChecked; returns the file's bytes.
std::vector<uint8_t> WriteChecked(const ModelContents& contents, const WriteOptions& options, const std::string& output) {
  std::vector<uint8_t> bytes;
  Status status = WriteModel(contents, options, &bytes);
  if (!status.ok()) throw CliError(1, "cannot write the model: " + status.ToString());
  SaveChecked(bytes, output);
  return bytes;
}

// --from swe --weights/--top/--name/--description: the model rewritten by core's writer with new word
// weights, only its first N words, or another name or description (the table type kept, so an int8 row
// re-quantises to the same bytes).
int Rewrite(const util::ParsedArgs& parsed, const std::string& input, const std::string& output, int level) {
  std::vector<uint8_t> in;
  std::string error;
  if (!util::ReadFile(input, &in, &error)) throw CliError(1, error);
  std::unique_ptr<Model> model;
  Status status = ReadModel(in.data(), in.size(), &model);
  if (!status.ok()) throw CliError(1, input + ": " + status.ToString());
  ModelContents contents = model->ToContents();
  std::string what;
  if (parsed.has("top")) {
    const size_t top = util::ParseCount(parsed.get("top"), "--top", 1, 100'000'000);
    if (top < contents.words.size()) {
      contents.words.resize(top);
      contents.vectors.resize(top * contents.dims);
      if (!contents.weights.empty()) contents.weights.resize(top);
    }
    contents.provenance.extra.push_back({"top", std::to_string(contents.words.size())});
    what = "its first " + std::to_string(contents.words.size()) + " words";
  }
  if (parsed.has("weights")) {
    const std::string weights = parsed.get("weights");
    ReadWeights(weights, &contents);
    contents.provenance.extra.push_back({"weights_from", BaseName(weights)});
    what += (what.empty() ? "" : ", ") + std::string("the word weights of ") + weights;
  }
  if (parsed.has("name")) contents.provenance.name = parsed.get("name");
  if (parsed.has("description")) contents.provenance.description = parsed.get("description");
  if (what.empty()) what = "its rows unchanged";
  WriteOptions options;
  options.dtype = model->dtype();
  options.zstd_level = level;
  const std::vector<uint8_t> out = WriteChecked(contents, options, output);
  std::printf("wrote %s: %.2f MB (%s), %s with %s\n", output.c_str(), out.size() / 1e6, dtype_name(options.dtype),
              input.c_str(), what.c_str());
  return 0;
}

// --from swe: the message kept byte for byte, only the container's sealing changes (unless --weights/--top).
int Reseal(const util::ParsedArgs& parsed, const std::string& command) {
  for (const char* option : {"dtype", "cjk", "teacher", "corpus", "placeholder", "no-normalize"}) {
    if (parsed.has(option)) throw util::UsageError(std::string("--") + option + " does not apply to --from swe", command);
  }
  const int level = static_cast<int>(util::ParseCount(parsed.get("zstd", "0"), "--zstd", 0, 22));
  const std::string input = parsed.positional[0], output = parsed.get("output");
  if (parsed.has("weights") || parsed.has("top") || parsed.has("name") || parsed.has("description")) {
    return Rewrite(parsed, input, output, level);
  }
  std::vector<uint8_t> in, out;
  std::string error;
  if (!util::ReadFile(input, &in, &error)) throw CliError(1, error);
  Status status = ResealModel(in.data(), in.size(), level, &out);
  if (!status.ok()) throw CliError(1, input + ": " + status.ToString());
  SaveChecked(out, output);
  std::printf("wrote %s: %.2f MB (%s), the same model message as %s (%.2f MB)\n", output.c_str(), out.size() / 1e6,
              out.size() == in.size() && std::equal(in.begin(), in.end(), out.begin()) ? "unchanged"
              : level == 0 ? "raw payload" : "zstd", input.c_str(), in.size() / 1e6);
  return 0;
}

// --from glove-json|word2vec|model2vec: the words, table, tokenizer and normalize flag into *contents
// (Model2Vec's facts about itself into *m2v); returns how many entries the source listed.
uint64_t ReadVectors(const std::string& format, const std::string& input, CjkMode cjk, size_t top, bool normalize,
                     ModelContents* contents, formats::Model2VecModel* m2v) {
  if (format == "model2vec") {
    *m2v = formats::ReadModel2Vec(input);
    if (m2v->words.empty()) throw CliError(1, input + ": no usable tokens");
    contents->words = std::move(m2v->words);
    contents->dims = m2v->dims;
    contents->vectors = std::move(m2v->vectors);
    contents->tokenizer = m2v->tokenizer;
    contents->normalize = m2v->normalize && normalize;
    return m2v->tokens;
  }
  contents->tokenizer.cjk = cjk;
  formats::WordFilter keep = SingleWordFilter(contents->tokenizer);
  formats::WordVectors source =
      format == "glove-json" ? formats::ReadGloveJson(input, keep, top) : formats::ReadWord2VecText(input, keep, top);
  if (source.words.empty()) throw CliError(1, input + ": no usable words");
  contents->words = std::move(source.words);
  contents->dims = source.dims;
  contents->vectors = std::move(source.vectors);
  contents->normalize = normalize;
  return source.entries;
}

// What the converted model says of itself: --name, --description, --teacher and --corpus, else what is
// known of the source; the command that made it; the source file's facts.
void Describe(const util::ParsedArgs& parsed, const std::string& format, const std::string& input,
              const std::string& output, size_t top, CjkMode cjk, DType dtype, const formats::Model2VecModel& m2v,
              uint64_t entries, ModelContents* contents) {
  Provenance& p = contents->provenance;
  p.name = parsed.get("name", Stem(output));
  p.description = parsed.get("description", "Word vectors converted from " + BaseName(input) + " by swe convert");
  const bool m2v_format = format == "model2vec";
  p.teacher = parsed.get("teacher", m2v_format ? "Model2Vec distillation of " +
                                                     (m2v.base_model.empty() ? std::string("an unknown model") : m2v.base_model)
                                               : "none: static word vectors, not distilled from a Sentence Transformer");
  p.corpus = parsed.get("corpus", m2v_format ? "none: Model2Vec embeds the tokenizer's vocabulary without a corpus"
                                             : "unknown: converted from " + BaseName(input) + " (" + format + ")");
  p.recipe = "swe convert --from " + format + (top ? " --top " + std::to_string(top) : std::string()) +
             " --dtype " + dtype_name(dtype) +
             (parsed.has("cjk") ? std::string(" --cjk ") + cjk_mode_name(cjk) : std::string()) +
             (contents->normalize ? "" : " --no-normalize");
  p.created_by = std::string("swe convert ") + swe_version();
  p.placeholder = parsed.has("placeholder");
  p.extra = {{"source_file", BaseName(input)},
             {"source_format", format},
             {"source_entries", std::to_string(entries)}};
  if (m2v_format) {
    p.extra.push_back({"source_dtype", m2v.table_dtype});
    p.extra.push_back({"normalize_from", m2v.normalize_source});
  }
}

}  // namespace

int RunConvert(const Args& args) {
  const std::string command = "swe convert";
  util::ParsedArgs parsed = util::ParseArgs(args,
                                {{"from", 0, true},
                                 {"output", 'o', true},
                                 {"top", 0, true},
                                 {"dtype", 0, true},
                                 {"cjk", 0, true},
                                 {"name", 0, true},
                                 {"description", 0, true},
                                 {"teacher", 0, true},
                                 {"corpus", 0, true},
                                 {"placeholder", 0, false},
                                 {"no-normalize", 0, false},
                                 {"zstd", 0, true},
                                 {"weights", 0, true}},
                                command);
  if (parsed.help) {
    std::fputs(kConvertUsage, stdout);
    return 0;
  }
  if (parsed.positional.size() != 1) throw util::UsageError("expected one input file", command);
  if (!parsed.has("output")) throw util::UsageError("-o OUT.swe is required", command);
  const std::string format = parsed.get("from");
  if (format == "swe") return Reseal(parsed, command);
  if (parsed.has("zstd")) throw util::UsageError("--zstd applies to --from swe only", command);
  if (parsed.has("weights")) throw util::UsageError("--weights applies to --from swe only", command);
  if (format != "glove-json" && format != "word2vec" && format != "model2vec") {
    throw util::UsageError(parsed.has("from") ? "--from must be glove-json, word2vec, model2vec or swe, not '" + format + "'"
                                        : "--from glove-json|word2vec|model2vec|swe is required",
                     command);
  }
  if (format == "model2vec" && parsed.has("top")) throw util::UsageError("--top does not apply to model2vec", command);
  if (format == "model2vec" && parsed.has("cjk")) throw util::UsageError("--cjk does not apply to model2vec", command);
  CjkMode cjk = CjkMode::kCharacters;
  if (parsed.has("cjk") && (!ParseCjkMode(parsed.get("cjk"), &cjk) || cjk == CjkMode::kSubwords)) {
    throw util::UsageError("--cjk must be characters, none, bigrams or longest, not '" + parsed.get("cjk") + "'",
                           command);
  }
  const size_t top = parsed.has("top") ? util::ParseCount(parsed.get("top"), "--top", 1, 100'000'000) : 0;
  WriteOptions options;
  options.dtype = ParseDtype(parsed.get("dtype", "f32"), command);
  const std::string input = parsed.positional[0];
  const std::string output = parsed.get("output");

  auto start = std::chrono::steady_clock::now();
  ModelContents contents;
  formats::Model2VecModel m2v;
  const uint64_t entries = ReadVectors(format, input, cjk, top, !parsed.has("no-normalize"), &contents, &m2v);
  Describe(parsed, format, input, output, top, cjk, options.dtype, m2v, entries, &contents);
  const std::vector<uint8_t> bytes = WriteChecked(contents, options, output);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wrote %s: %zu words x %u dims, %s, %.2f MB (%llu source entries, %.1f s)\n", output.c_str(),
              contents.words.size(), contents.dims, dtype_name(options.dtype), bytes.size() / 1e6,
              static_cast<unsigned long long>(entries), seconds);
  return 0;
}

}  // namespace swe::cli
