// The word tokenizer: docs/TOKENIZER.md states the rule this file (steps 2 and 3) and word_splitter.h
// (step 1) implement; keep them in sync.
#include "swe/tokenizer.h"

#include <algorithm>
#include <array>
#include <memory>

#include "swe/subword.h"
#include "swe/unicode.h"
#include "unknown_cache.h"
#include "word_index.h"
#include "word_splitter.h"

namespace swe {
namespace {

using words::Kind;
using words::Span;
using words::Splitter;

// Words longer than this many code points skip the subword fallback (step 3) and are unknown,
// like BERT's max_input_chars_per_word: it keeps a huge "word" linear and teachers give up too.
constexpr size_t kMaxFallbackChars = 100;
constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

// The word of a span: its bytes, or U+FFFD for an invalid byte.
std::string_view SpanWord(std::string_view text, const Span& span) {
  return span.kind == Kind::kInvalid ? kReplacementUtf8 : std::string_view(text.data() + span.begin, span.end - span.begin);
}

// Whether step 2 looks an ASCII word up in lower case first: it has a capital and no vocabulary word
// does, so it cannot be found as written.
bool FoldsFirst(bool ascii, bool upper, const TokenizerConfig& config, const Model& model) {
  return ascii && upper && config.fold_case && !model.has_ascii_upper_words();
}

// Appends an ASCII word folded to lower case.
void AppendAsciiLower(std::string_view word, std::string* out) {
  const size_t at = out->size();
  out->append(word);
  for (size_t i = at; i < out->size(); ++i) {
    char& ch = (*out)[i];
    ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
  }
}

}  // namespace

struct Tokenizer::Impl {
  Impl(const Model& m, uint32_t max_tokens_asked)
      : model(m),
        config(m.tokenizer_config()),
        max_tokens(max_tokens_asked != 0 ? max_tokens_asked : config.max_tokens),
        subword(m.subword()),
        known([this](std::string_view word) {
          Match match;
          return Lookup(word, false, false, &match) >= 0;
        }),
        splitter(config.cjk, &m.subword(), config.units == TokenUnits::kSubwordPieces, &known) {}

  template <class Sink>
  void Run(const std::string_view* texts, size_t n, Sink&& sink);
  template <class Sink>
  bool Pieces(std::string_view text, const Span& span, Sink& sink, uint32_t* count);
  int64_t Resolve(std::string_view word, const Span& span, Match* match);
  int64_t Lookup(std::string_view word, bool ascii, bool upper, Match* match, bool first_missed = false);
  int64_t Prefix(std::string_view word);

  const Model& model;
  const TokenizerConfig& config;
  const uint32_t max_tokens;  // words considered per text (0: all): the model's, or the caller's
  const SubwordTokenizer& subword;
  KnownWord known;  // CjkMode::kLongest's lexicon: the model's vocabulary, looked up with step 2
  Splitter splitter;
  // A word split, not yet looked up (Run), with the form that step 2 looks up first: the word, or
  // when FoldsFirst, its lower-case form. A folded word of over 8 bytes is kept in `lowered` (folded
  // once); a shorter one is all in its head.
  struct Pending {
    Span span;
    size_t text;          // which of Run's texts
    uint64_t hash;        // of the first form
    uint64_t head;        // its first 8 bytes (WordIndex::Find's)
    uint32_t slot;        // its word-index slot
    uint32_t lowered_at;  // where the first form starts in `lowered`, or kAsWritten, or kFoldedShort
  };
  static constexpr uint32_t kAsWritten = UINT32_MAX, kFoldedShort = UINT32_MAX - 1;
  static constexpr size_t kBatch = 32;  // words split ahead of their lookups
  std::array<Pending, kBatch> pending;  // in place: tokenizers made for one call are common
  size_t pending_count = 0;
  uint32_t slots_read = 0;  // what flush read of its slots without prefetch (kept: the loads stay)
  std::string folded, stripped, normalized, normalized_char, lowered;
  std::vector<uint32_t> ends, piece_ids, source_end;
};

// Calls sink(text index, span, id, match) for each word of texts[0..n), in order.
template <class Sink>
void Tokenizer::Impl::Run(const std::string_view* texts, size_t n, Sink&& sink) {
  if (config.units == TokenUnits::kSubwordPieces) {
    for (size_t t = 0; t < n; ++t) {
      uint32_t count = 0;
      auto text_sink = [&](const Span& span, int64_t id, Match match) { sink(t, span, id, match); };
      splitter.Run(texts[t], [&](const Span& span) { return Pieces(texts[t], span, text_sink, &count); });
    }
    return;
  }
  // Words are split a batch ahead of their lookups, each word hashed and its slot prefetched as it is
  // split: a lookup is a cache miss into a table of megabytes, and overlapping the misses of a batch
  // (instead of paying them one after another) is most of the tokenizer's speed. A batch runs on
  // across texts, so that short texts overlap their misses as one long text does. Most words are
  // found by their first lookup, here; the others go through Resolve (the rest of steps 2 and 3).
  const WordIndex& index = model.word_index();
  pending_count = 0;
  lowered.clear();
  auto flush = [&] {
    if constexpr (!kHasPrefetch) {  // wasm: the batch's slots read in one short loop, their misses overlapping
      uint32_t read = 0;
      for (size_t k = 0; k < pending_count; ++k) read |= index.Touch(pending[k].slot);
      slots_read = read;
    }
    for (size_t k = 0; k < pending_count; ++k) {
      const Pending& p = pending[k];
      const std::string_view word = SpanWord(texts[p.text], p.span);
      Match match = p.lowered_at == kAsWritten ? Match::kExact : Match::kFolded;
      // Find reads a first form's bytes past its head only: a short folded word passes the word as
      // written, for its size.
      const std::string_view first =
          p.lowered_at >= kFoldedShort ? word : std::string_view(lowered).substr(p.lowered_at, word.size());
      int64_t id = index.Find(first, p.hash, p.slot, p.head);
      if (id < 0) {
        match = Match::kUnknown;
        id = Resolve(word, p.span, &match);
      }
      sink(p.text, p.span, id, match);
    }
    pending_count = 0;
    lowered.clear();
  };
  for (size_t t = 0; t < n; ++t) {
    uint32_t count = 0;
    splitter.Run(texts[t], [&](const Span& span) SWE_INLINE_IN_WASM {
      const std::string_view word = SpanWord(texts[t], span);
      const size_t size = word.size();  // never 0
      // The head in one load when 8 bytes of the text follow the word's start (U+FFFD's literal is short).
      uint64_t head = LoadHead(word.data(), size, span.kind == Kind::kInvalid ? 0 : texts[t].size() - span.begin);
      uint32_t lowered_at = kAsWritten;
      uint64_t hash;
      if (FoldsFirst(span.ascii, span.upper, config, model)) {
        // An ASCII word is letters and digits, and each one's lower case has bit 5 set ('0'-'9' are 0x30-0x39).
        head |= 0x2020202020202020ull & LowBytesMask(size);
        if (size <= 8) {
          lowered_at = kFoldedShort;
          hash = index.HashShort(size, head);
        } else {
          lowered_at = static_cast<uint32_t>(lowered.size());
          AppendAsciiLower(word, &lowered);
          hash = index.Hash(std::string_view(lowered).substr(lowered_at));
        }
      } else {  // the hash chosen in each branch: one choice after them took 31 instructions a word more
        hash = size <= 8 ? index.HashShort(size, head) : index.Hash(word);
      }
      const uint32_t slot = index.SlotOf(hash);
      index.Prefetch(slot);
      pending[pending_count++] = {span, t, hash, head, slot, lowered_at};
      if (pending_count == kBatch) flush();
      return max_tokens == 0 || ++count < max_tokens;
    });
  }
  flush();
}

// The rest of steps 2 and 3 for a span's word (SpanWord) whose first lookup (Run's) found nothing.
int64_t Tokenizer::Impl::Resolve(std::string_view word, const Span& span, Match* match) {
  const int64_t id = Lookup(word, span.ascii, span.upper, match, /*first_missed=*/true);
  if (id >= 0 || span.kind == Kind::kPiece || !subword.enabled()) return id;
  int64_t prefix;
  UnknownCache& unknown = UnknownCache::ThisThread();
  if (!unknown.Find(model, word, &prefix)) {
    prefix = Prefix(word);
    unknown.Put(model, word, prefix);
  }
  if (prefix >= 0) *match = Match::kPrefix;
  return prefix;
}

// TokenUnits::kSubwordPieces: the span normalised the teacher's way (character by character,
// remembering which original character each normalised byte came from), split into pieces; each piece
// is the row of the piece's own text (continuation prefix included), looked up exactly. A span that
// cannot be split (WordPiece's [UNK], or a WordPiece word over 100 code points) and unknown unigram
// characters are unknown. max_tokens counts the known pieces. Returns false to stop.
template <class Sink>
bool Tokenizer::Impl::Pieces(std::string_view text, const Span& span, Sink& sink, uint32_t* count) {
  if (span.kind == Kind::kInvalid) {  // BERT's clean_text drops U+FFFD: never a piece
    sink(span, -1, Match::kUnknown);
    return true;
  }
  normalized.clear();
  source_end.clear();
  size_t chars = 0;
  for (size_t p = span.begin; p < span.end; ++chars) {
    size_t next = p;
    unicode::DecodeNext(text, &next);
    subword.Normalize(text.substr(p, next - p), &normalized_char);
    normalized += normalized_char;
    source_end.resize(normalized.size(), static_cast<uint32_t>(next));
    p = next;
  }
  ends.clear();
  piece_ids.clear();
  const bool too_long = config.subword.kind == SubwordKind::kWordPiece && chars > kMaxFallbackChars;
  if (too_long || normalized.empty() || !subword.Split(normalized, &ends, &piece_ids)) {
    sink(span, -1, Match::kUnknown);
    return true;
  }
  uint32_t begin = span.begin;
  for (size_t j = 0; j < ends.size(); ++j) {
    const uint32_t end = ends[j] == 0 ? begin : std::max(begin, source_end[ends[j] - 1]);
    const uint32_t piece = piece_ids[j];
    const int64_t row = piece < config.subword.pieces.size() ? model.find(config.subword.pieces[piece]) : -1;
    sink(Span{begin, end, Kind::kPiece, false, false}, row, row >= 0 ? Match::kExact : Match::kUnknown);
    begin = end;
    if (row >= 0 && max_tokens != 0 && ++*count >= max_tokens) return false;
  }
  return true;
}

// Step 2: the word as written, then case-folded, then folded and accent-stripped. An ASCII word
// with a capital is not looked up as written when no vocabulary word has one (it cannot be found).
// first_missed: the first form (the word, or its lower-case form when FoldsFirst) is known not to be
// found, so it is not looked up again.
int64_t Tokenizer::Impl::Lookup(std::string_view word, bool ascii, bool upper, Match* match, bool first_missed) {
  const WordIndex& index = model.word_index();
  const bool folds_first = FoldsFirst(ascii, upper, config, model);
  if (folds_first && first_missed) return -1;  // its lower-case form was all step 2 had (ASCII: no accents)
  int64_t id = -1;
  if (!folds_first && !first_missed) {
    id = index.Find(word);
    if (id >= 0) {
      *match = Match::kExact;
      return id;
    }
  }
  std::string_view base = word;
  if (config.fold_case && (upper || !ascii)) {
    folded.clear();
    if (ascii) {
      AppendAsciiLower(word, &folded);
    } else {
      for (size_t p = 0; p < word.size();) {
        const auto b = static_cast<uint8_t>(word[p]);
        if (b < 0x80) {
          folded.push_back(static_cast<char>(b >= 'A' && b <= 'Z' ? b + 32 : b));
          ++p;
        } else {
          unicode::AppendFolded(unicode::DecodeNext(word, &p), &folded);
        }
      }
    }
    if (folded != word) {
      id = index.Find(folded);
      if (id >= 0) {
        *match = Match::kFolded;
        return id;
      }
    }
    base = folded;
  }
  if (config.strip_accents && !ascii) {
    stripped.clear();
    for (size_t p = 0; p < base.size();) {
      const auto b = static_cast<uint8_t>(base[p]);
      if (b < 0x80) {
        stripped.push_back(static_cast<char>(b));
        ++p;
        continue;
      }
      const char32_t c = unicode::StripAccent(unicode::DecodeNext(base, &p));
      if (c != 0) unicode::AppendUtf8(c, &stripped);
    }
    if (!stripped.empty() && stripped != base) {
      id = model.find(stripped);
      if (id >= 0) {
        *match = Match::kStripped;
        return id;
      }
    }
  }
  return -1;
}

// Step 3: split the teacher-normalised word into subword pieces and take the longest proper prefix
// (whole pieces) that step 2 finds.
int64_t Tokenizer::Impl::Prefix(std::string_view word) {
  if (word.size() > 4 * kMaxFallbackChars) return -1;
  if (word.size() > kMaxFallbackChars && unicode::CountCodePoints(word) > kMaxFallbackChars) return -1;
  subword.Normalize(word, &normalized);
  ends.clear();
  if (!subword.Split(normalized, &ends)) return -1;
  // A prefix [0, end) is ASCII when end <= first_non_ascii, and has a capital when first_upper < end.
  // One pass without early exits: the words are short, and where a search stops is a coin toss.
  size_t first_non_ascii = normalized.size(), first_upper = normalized.size();
  for (size_t i = normalized.size(); i-- > 0;) {
    const auto ch = static_cast<uint8_t>(normalized[i]);
    first_non_ascii = ch >= 0x80 ? i : first_non_ascii;
    first_upper = static_cast<uint8_t>(ch - 'A') < 26 ? i : first_upper;
  }
  for (size_t j = ends.size(); j-- > 1;) {
    const uint32_t end = ends[j - 1];
    if (end == 0 || end >= normalized.size()) continue;
    Match match;
    const int64_t id = Lookup(std::string_view(normalized).substr(0, end), end <= first_non_ascii, first_upper < end, &match);
    if (id >= 0) return id;
  }
  return -1;
}

Tokenizer::Tokenizer(const Model& model, uint32_t max_tokens) : impl_(new Impl(model, max_tokens)) {}
void Tokenizer::ForgetUnknownWords() { UnknownCache::ThisThread().Clear(); }
Tokenizer::~Tokenizer() { delete impl_; }

void Tokenizer::Encode(std::string_view text, std::vector<uint32_t>* ids) {
  impl_->Run(&text, 1, [ids](size_t, const Span&, int64_t id, Match) {
    if (id >= 0) ids->push_back(static_cast<uint32_t>(id));
  });
}

void Tokenizer::EncodeBatch(const std::string_view* texts, size_t n, std::vector<uint32_t>* ids,
                            std::vector<size_t>* offsets) {
  ids->clear();
  offsets->assign(1, 0);
  offsets->reserve(n + 1);
  impl_->Run(texts, n, [ids, offsets](size_t text, const Span&, int64_t id, Match) {
    while (offsets->size() <= text) offsets->push_back(ids->size());  // the texts before `text` are done
    if (id >= 0) ids->push_back(static_cast<uint32_t>(id));
  });
  offsets->resize(n + 1, ids->size());
}

void Tokenizer::Analyze(std::string_view text, std::vector<Token>* tokens) {
  impl_->Run(&text, 1, [tokens](size_t, const Span& span, int64_t id, Match match) {
    Token token;
    token.begin = span.begin;
    token.end = span.end;
    token.id = static_cast<int32_t>(id);
    token.match = match;
    tokens->push_back(token);
  });
}

namespace {

// Step 1 with the config's max_tokens: emit(span) for each word.
template <class Emit>
void SplitSpans(std::string_view text, const TokenizerConfig& config, const SubwordTokenizer* subword,
                const KnownWord& known, Emit&& emit) {
  Splitter splitter(config.cjk, subword, config.units == TokenUnits::kSubwordPieces, &known);
  const uint32_t max_tokens = config.max_tokens;
  uint32_t count = 0;
  splitter.Run(text, [&](const Span& span) {
    emit(span);
    return max_tokens == 0 || ++count < max_tokens;
  });
}

}  // namespace

void SplitWords(std::string_view text, const TokenizerConfig& config, const SubwordTokenizer* subword,
                std::vector<std::string>* words, const KnownWord& known) {
  SplitSpans(text, config, subword, known, [&](const Span& span) {
    if (span.kind == Kind::kInvalid) {
      words->emplace_back(kReplacementUtf8);
    } else {
      words->emplace_back(text.substr(span.begin, span.end - span.begin));
    }
  });
}

void SplitWordRanges(std::string_view text, const TokenizerConfig& config, const SubwordTokenizer* subword,
                     std::vector<WordRange>* ranges, const KnownWord& known) {
  SplitSpans(text, config, subword, known, [&](const Span& span) { ranges->push_back({span.begin, span.end}); });
}

}  // namespace swe
