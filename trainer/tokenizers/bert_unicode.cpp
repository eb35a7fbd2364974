#include "bert_unicode.h"

#include <algorithm>
#include <cstdint>

namespace swe::trainer::bert_unicode {
namespace {
#include "bert_unicode_data.inc"

constexpr uint32_t kOther = 1, kMn = 2, kPunct = 4, kSpace = 8;

uint32_t Flags(char32_t c) {
  const auto* end = kCategoryRanges + kCategoryRangeCount;
  const auto* it = std::upper_bound(kCategoryRanges, end, static_cast<uint32_t>(c),
                                    [](uint32_t v, const uint32_t(&r)[3]) { return v < r[0]; });
  if (it == kCategoryRanges) return 0;
  --it;
  return c <= (*it)[1] ? (*it)[2] : 0;
}

// Hangul syllable decomposition (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kVCount = 21, kTCount = 28, kSCount = 19 * 21 * 28;
}  // namespace

bool IsWhitespace(char32_t c) { return c == '\t' || c == '\n' || c == '\r' || (Flags(c) & kSpace); }

bool IsControl(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  return Flags(c) & kOther;
}

bool IsPunctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return Flags(c) & kPunct;
}

bool IsChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool IsNonspacingMark(char32_t c) { return Flags(c) & kMn; }

void AppendNfd(char32_t c, std::u32string* out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    uint32_t s = c - kSBase;
    out->push_back(kLBase + s / (kVCount * kTCount));
    out->push_back(kVBase + (s % (kVCount * kTCount)) / kTCount);
    if (s % kTCount) out->push_back(kTBase + s % kTCount);
    return;
  }
  const auto* end = kDecompIndex + kDecompCount;
  const auto* it = std::lower_bound(kDecompIndex, end, static_cast<uint32_t>(c),
                                    [](const uint32_t(&r)[3], uint32_t v) { return r[0] < v; });
  if (it == end || (*it)[0] != c) {
    out->push_back(c);
    return;
  }
  out->append(reinterpret_cast<const char32_t*>(kDecompData + (*it)[1]), (*it)[2]);
}

void AppendLower(char32_t c, std::u32string* out) {
  if (c < 0x80) {
    out->push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return;
  }
  if (c == 0x130) {  // SpecialCasing: İ -> i + combining dot above
    out->push_back('i');
    out->push_back(0x307);
    return;
  }
  const auto* end = kLower + kLowerCount;
  const auto* it = std::lower_bound(kLower, end, static_cast<uint32_t>(c),
                                    [](const uint32_t(&r)[2], uint32_t v) { return r[0] < v; });
  out->push_back(it != end && (*it)[0] == c ? static_cast<char32_t>((*it)[1]) : c);
}

}  // namespace swe::trainer::bert_unicode
