// Step 1 of the word tokenizer (docs/TOKENIZER.md): text -> spans of words, ASCII words a block at
// a time (the kernels' ascii_alnum_run), CJK runs per CjkMode. tokenizer.cpp looks the words up.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"
#include "simd/kernels.h"
#include "swe/subword.h"
#include "swe/tokenizer.h"
#include "swe/unicode.h"

namespace swe {
namespace words {

using unicode::CharClass;

// ASCII byte classes: the low bits are a CharClass; kNonAscii marks bytes >= 0x80.
constexpr uint8_t kNonAscii = 0x20;
constexpr bool IsAsciiAlnum(uint8_t b) {
  return static_cast<uint8_t>(b - '0') < 10 || static_cast<uint8_t>((b | 0x20) - 'a') < 26;
}
constexpr std::array<uint8_t, 256> MakeByteTable() {
  std::array<uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    uint8_t v = 0;
    if (b >= 0x80) {
      v = kNonAscii;
    } else if (IsAsciiAlnum(static_cast<uint8_t>(b))) {
      v = static_cast<uint8_t>(CharClass::kWord);
    } else if (b <= 0x20 || b == 0x7F) {
      v = static_cast<uint8_t>(CharClass::kSpace);  // controls and space
    } else {
      v = static_cast<uint8_t>(CharClass::kPunct);  // every other printable ASCII character
    }
    t[b] = v;
  }
  return t;
}
constexpr std::array<uint8_t, 256> kBytes = MakeByteTable();

enum class Kind : uint8_t {
  kWord,     // a run of word characters: steps 2 and 3
  kSingle,   // one symbol or CJK character: steps 2 and 3
  kInvalid,  // one invalid byte, read as U+FFFD: steps 2 and 3
  kPiece,    // part of a CJK run (a subword piece, a bigram, a longest-match word): step 2 only
  kPunct,    // one punctuation character (kept only with TokenUnits::kSubwordPieces)
};

struct Span {
  uint32_t begin, end;
  Kind kind;
  bool ascii;  // every byte < 0x80
  bool upper;  // some byte in A-Z
};

// Step 1: splits text into spans of the original bytes. Scratch buffers are reused across calls.
class Splitter {
 public:
  // `keep_punct`: punctuation characters are tokens of their own instead of separators (as BERT's
  // pre-tokenizer does; TokenUnits::kSubwordPieces). `known`: CjkMode::kLongest's lexicon (may be
  // null or empty: no word known); it must outlive the splitter.
  Splitter(CjkMode cjk, const SubwordTokenizer* subword, bool keep_punct = false, const KnownWord* known = nullptr)
      : cjk_(cjk),
        subword_(subword != nullptr && subword->enabled() ? subword : nullptr),
        known_(known != nullptr && *known ? known : nullptr),
        keep_punct_(keep_punct),
        ascii_alnum_run_(simd::Active().ascii_alnum_run) {}

  // Calls emit(const Span&) for each word in text order until it returns false.
  template <class Emit>
  void Run(std::string_view text, Emit&& emit) {
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
      const uint8_t byte = kBytes[static_cast<uint8_t>(text[i])];
      if (byte == static_cast<uint8_t>(CharClass::kSpace) || byte == static_cast<uint8_t>(CharClass::kPunct)) {
        if (keep_punct_ && byte == static_cast<uint8_t>(CharClass::kPunct) &&
            !emit(Span{U32(i), U32(i + 1), Kind::kPunct, true, false})) {
          return;
        }
        ++i;
        continue;
      }
      if (!(byte & kNonAscii)) {
        if (!emit(ScanWord(text, &i))) return;
        continue;
      }
      size_t next = i;
      const char32_t c = unicode::DecodeNext(text, &next);
      if (next == i + 1) {  // an invalid byte
        if (!emit(Span{U32(i), U32(i + 1), Kind::kInvalid, false, false})) return;
        i = next;
        continue;
      }
      switch (unicode::Classify(c)) {
        case CharClass::kSpace:
          i = next;
          break;
        case CharClass::kPunct:
          if (keep_punct_ && !emit(Span{U32(i), U32(next), Kind::kPunct, false, false})) return;
          i = next;
          break;
        case CharClass::kSymbol:
          if (!emit(Span{U32(i), U32(next), Kind::kSingle, false, false})) return;
          i = next;
          break;
        case CharClass::kCjk:
          if (cjk_ == CjkMode::kNone) {
            if (!emit(ScanWord(text, &i))) return;
          } else if (cjk_ == CjkMode::kSubwords && subword_ != nullptr) {
            if (!CjkRun(text, &i, emit)) return;
          } else if (cjk_ == CjkMode::kBigrams) {
            if (!CjkBigrams(text, &i, emit)) return;
          } else if (cjk_ == CjkMode::kLongest) {
            if (!CjkLongest(text, &i, emit)) return;
          } else {
            if (!emit(Span{U32(i), U32(next), Kind::kSingle, false, false})) return;
            i = next;
          }
          break;
        case CharClass::kWord:
          if (!emit(ScanWord(text, &i))) return;
          break;
      }
    }
  }

 private:
  static uint32_t U32(size_t v) { return static_cast<uint32_t>(v); }

  // The maximal run of word characters (and CJK characters in CjkMode::kNone) at *pos: ASCII letters
  // and digits a block at a time, other characters one by one.
  SWE_INLINE_IN_WASM Span ScanWord(std::string_view text, size_t* pos) const {
    const size_t n = text.size(), begin = *pos;
    size_t i = begin;
    bool ascii = true, upper = false;
    for (;;) {
      i += ascii_alnum_run_(text.data() + i, n - i, &upper);
      if (i == n || static_cast<uint8_t>(text[i]) < 0x80) break;  // the end, ASCII space or punctuation
      size_t next = i;
      const char32_t c = unicode::DecodeNext(text, &next);
      if (next == i + 1) break;  // invalid byte: a token of its own
      const CharClass cls = unicode::Classify(c);
      if (cls != CharClass::kWord && !(cls == CharClass::kCjk && cjk_ == CjkMode::kNone)) break;
      ascii = false;
      i = next;
    }
    *pos = i;
    return Span{U32(begin), U32(i), Kind::kWord, ascii, upper};
  }

  // CjkMode::kSubwords: the maximal run of CJK characters at *pos, normalised the teacher's way and
  // split into pieces, each mapped back to a range of whole original characters. A run the subword
  // tokenizer cannot split falls back to one token per character.
  template <class Emit>
  bool CjkRun(std::string_view text, size_t* pos, Emit& emit) {
    const size_t begin = *pos;
    size_t i = begin;
    normalized_.clear();
    source_end_.clear();
    while (i < text.size()) {
      size_t next = i;
      const char32_t c = unicode::DecodeNext(text, &next);
      if (next == i + 1 || unicode::Classify(c) != CharClass::kCjk) break;
      subword_->Normalize(text.substr(i, next - i), &char_);
      normalized_ += char_;
      source_end_.resize(normalized_.size(), U32(next));  // original end of the char each byte came from
      i = next;
    }
    *pos = i;
    ends_.clear();
    if (normalized_.empty() || !subword_->Split(normalized_, &ends_)) {
      for (size_t p = begin; p < i;) {
        const size_t char_begin = p;
        unicode::DecodeNext(text, &p);
        if (!emit(Span{U32(char_begin), U32(p), Kind::kSingle, false, false})) return false;
      }
      return true;
    }
    uint32_t piece_begin = U32(begin);
    for (uint32_t end : ends_) {
      if (end == 0) continue;  // a bare word prefix (U+2581) covers no character
      const uint32_t piece_end = source_end_[end - 1];
      if (piece_end <= piece_begin) continue;  // inside a character already covered
      if (!emit(Span{piece_begin, piece_end, Kind::kPiece, false, false})) return false;
      piece_begin = piece_end;
    }
    return true;
  }

  // The end of the CJK character that starts at `pos`, or `pos` when none does (another class, an
  // invalid byte, the end of the text): a CJK run ends there.
  static size_t CjkEnd(std::string_view text, size_t pos) {
    if (pos >= text.size() || static_cast<uint8_t>(text[pos]) < 0x80) return pos;
    size_t next = pos;
    const char32_t c = unicode::DecodeNext(text, &next);
    return next == pos + 1 || unicode::Classify(c) != CharClass::kCjk ? pos : next;
  }

  // CjkMode::kBigrams: every character of the CJK run at *pos, each (from the second on) preceded by
  // the pair it ends: c1, c1c2, c2, c2c3, c3. Characters are looked up as in kCharacters; pairs get
  // step 2 only (a pair's subword prefix would count its first character twice).
  template <class Emit>
  bool CjkBigrams(std::string_view text, size_t* pos, Emit& emit) {
    size_t begin = *pos, prev = *pos;  // the current and the previous character's start
    for (size_t end; (end = CjkEnd(text, begin)) != begin; prev = begin, begin = end) {
      if (prev != begin && !emit(Span{U32(prev), U32(end), Kind::kPiece, false, false})) return false;
      if (!emit(Span{U32(begin), U32(end), Kind::kSingle, false, false})) return false;
    }
    *pos = begin;
    return true;
  }

  // CjkMode::kLongest: forward maximum matching over the CJK run at *pos. From the run's start, the
  // token is the longest known word of 2 to kMaxLongestChars characters starting there, else the one
  // character (looked up as in kCharacters); the next token starts after it.
  template <class Emit>
  bool CjkLongest(std::string_view text, size_t* pos, Emit& emit) {
    size_t begin = *pos;
    std::array<size_t, kMaxLongestChars> ends;  // ends of the next characters of the run
    for (;;) {
      size_t count = 0;
      for (size_t p = begin; count < kMaxLongestChars; ++count) {
        const size_t end = CjkEnd(text, p);
        if (end == p) break;
        ends[count] = p = end;
      }
      if (count == 0) break;
      size_t take = 1;
      for (size_t k = count; k >= 2 && known_ != nullptr; --k) {
        if ((*known_)(text.substr(begin, ends[k - 1] - begin))) {
          take = k;
          break;
        }
      }
      const Kind kind = take == 1 ? Kind::kSingle : Kind::kPiece;
      if (!emit(Span{U32(begin), U32(ends[take - 1]), kind, false, false})) return false;
      begin = ends[take - 1];
    }
    *pos = begin;
    return true;
  }

  CjkMode cjk_;
  const SubwordTokenizer* subword_;
  const KnownWord* known_;
  bool keep_punct_;
  size_t (*ascii_alnum_run_)(const char* p, size_t n, bool* upper);  // looked up once, called per word
  std::string normalized_, char_;
  std::vector<uint32_t> source_end_, ends_;
};


}  // namespace words
}  // namespace swe
