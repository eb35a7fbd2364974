// The parts of Hugging Face `tokenizers` that a SentencePiece-converted tokenizer.json (T5, mT5,
// XLM-R, ...) runs before its model, reproduced with HF's own offset bookkeeping so that every token
// keeps the byte range of the original text it came from, quirks included:
//   HfText        NormalizedString: the current text and, per byte of it, the original byte range;
//   normalizers   Sequence of Precompiled (SentencePiece charsmap, applied per grapheme as HF does),
//                 Replace (a string, or a regex that repeats one character, e.g. " {2,}" or " +": the
//                 form these files use), Strip; any other type or regex is rejected by name;
//   pre-tokenizers Sequence of Metaspace (replacement, prepend_scheme always/first/never or the legacy
//                 add_prefix_space, split) and WhitespaceSplit; any other type is rejected by name.
// Torch-free; ICU gives the grapheme clusters.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "precompiled_charsmap.h"
#include "swe/status.h"

namespace swe::trainer {

using ByteRange = std::pair<uint32_t, uint32_t>;

struct HfText {
  std::string text;              // valid UTF-8
  std::vector<ByteRange> align;  // one per byte of text: its original bytes (absolute)
  uint32_t original_begin = 0;   // HF's original_shift: where this piece's original text starts

  // original[begin, end) as text; an invalid UTF-8 byte becomes U+FFFD (aligned to that byte).
  static HfText FromOriginal(std::string_view original, uint32_t begin, uint32_t end);
  // text[begin, end) with its alignments (both on character boundaries).
  HfText Slice(size_t begin, size_t end) const;
  // The original range of text[begin, end) (HF's convert_offsets): first byte's start, last byte's end.
  ByteRange Original(size_t begin, size_t end) const;
};

// HF's NormalizedString::transform_range over text[begin, end): `dest` lists the new characters, each
// with its change (0: replaces the next old character, n > 0: inserted, n < 0: replaces the next one
// and removes -n more); `initial_offset` old characters are removed first.
void HfTransform(HfText* t, size_t begin, size_t end, const std::vector<std::pair<char32_t, int>>& dest,
                 size_t initial_offset);

// Rust's char::is_whitespace (Unicode White_Space).
bool HfIsWhitespace(char32_t c);

class HfNormalizer {
 public:
  // Parses tokenizer.json's "normalizer" (null: none).
  static Status FromJson(const nlohmann::json& j, HfNormalizer* out);
  void Apply(HfText* t) const;
  bool empty() const { return steps_.empty(); }

 private:
  struct Step {
    enum Kind { kPrecompiled, kReplace, kStrip } kind = kStrip;
    std::shared_ptr<const PrecompiledCharsmap> charsmap;
    std::string pattern, content;  // kReplace: a literal pattern, or `repeat` when `regex`
    bool regex = false;
    char repeat = 0;                   // the regex: `repeat` min_run..max_run times, greedy
    size_t min_run = 1, max_run = SIZE_MAX;
    bool left = false, right = false;  // kStrip
  };
  static Status ParseStep(const nlohmann::json& j, std::vector<Step>* out);
  static Status ParseRepeat(const std::string& pattern, Step* step);
  static void Precompiled(const PrecompiledCharsmap& map, HfText* t);
  static void Replace(const Step& step, HfText* t);
  std::vector<Step> steps_;
};

class HfPreTokenizer {
 public:
  // Parses tokenizer.json's "pre_tokenizer" (null: none, the whole text is one piece).
  static Status FromJson(const nlohmann::json& j, HfPreTokenizer* out);
  // Splits `t` into the pieces the model sees, empty pieces dropped.
  void Apply(HfText t, std::vector<HfText>* pieces) const;

 private:
  enum class Prepend { kAlways, kFirst, kNever };
  struct Step {
    enum Kind { kMetaspace, kWhitespaceSplit } kind = kWhitespaceSplit;
    char32_t replacement = 0x2581;
    Prepend prepend = Prepend::kAlways;
    bool split = true;
  };
  static Status ParseStep(const nlohmann::json& j, std::vector<Step>* out);
  static void Metaspace(const Step& step, HfText t, std::vector<HfText>* out);
  std::vector<Step> steps_;
};

}  // namespace swe::trainer
