#include "swe/unicode.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

namespace swe::unicode {
namespace {

struct FoldRun {
  uint32_t first;
  uint16_t count;
  uint8_t stride;
  int32_t delta;
};
struct FoldMulti {
  uint32_t cp;
  uint32_t to[3];  // 0-terminated when shorter
};
struct StripRun {
  uint32_t first, last, base;
};

#include "unicode_data.inc"

constexpr uint8_t kClassMask = 7;
constexpr uint8_t kNonspacing = 8;  // general category Mn (from the generated runs)
constexpr uint8_t kFolds = 16;      // has a C or F case folding (derived below, BMP table only)
constexpr uint8_t kStrips = 32;     // is in kStripRuns (derived below, BMP table only)

uint8_t RunValue(char32_t c) {
  const uint32_t key = (static_cast<uint32_t>(c) << 8) | 0xFF;
  const uint32_t* it = std::upper_bound(std::begin(kClassRuns), std::end(kClassRuns), key);
  return static_cast<uint8_t>(it[-1] & 0xFF);  // kClassRuns[0] starts at U+0000
}

const FoldRun* FindFoldRun(char32_t c) {
  const FoldRun* it = std::upper_bound(std::begin(kFoldRuns), std::end(kFoldRuns), c,
                                       [](char32_t v, const FoldRun& r) { return v < r.first; });
  if (it == std::begin(kFoldRuns)) return nullptr;
  const FoldRun& r = it[-1];
  const uint32_t offset = c - r.first;
  if (offset % r.stride != 0 || offset / r.stride >= r.count) return nullptr;
  return &r;
}

const FoldMulti* FindFoldMulti(char32_t c) {
  const FoldMulti* it = std::lower_bound(std::begin(kFoldMulti), std::end(kFoldMulti), c,
                                         [](const FoldMulti& m, char32_t v) { return m.cp < v; });
  return it != std::end(kFoldMulti) && it->cp == c ? it : nullptr;
}

const StripRun* FindStripRun(char32_t c) {
  const StripRun* it = std::upper_bound(std::begin(kStripRuns), std::end(kStripRuns), c,
                                        [](char32_t v, const StripRun& r) { return v < r.first; });
  if (it == std::begin(kStripRuns) || c > it[-1].last) return nullptr;
  return &it[-1];
}

// Property bytes for the whole BMP (64 KiB), built once from the generated tables, so that the
// common case costs one load instead of binary searches.
using BmpTable = std::array<uint8_t, 0x10000>;

std::unique_ptr<BmpTable> BuildBmpTable() {
  auto table = std::make_unique<BmpTable>();
  size_t run = 0;
  const size_t runs = std::size(kClassRuns);
  for (uint32_t c = 0; c < 0x10000; ++c) {
    while (run + 1 < runs && (kClassRuns[run + 1] >> 8) <= c) ++run;
    (*table)[c] = static_cast<uint8_t>(kClassRuns[run] & 0xFF);
  }
  for (const FoldRun& r : kFoldRuns) {
    for (uint32_t i = 0; i < r.count; ++i) {
      const uint32_t c = r.first + i * r.stride;
      if (c < 0x10000) (*table)[c] |= kFolds;
    }
  }
  for (const FoldMulti& m : kFoldMulti) {
    if (m.cp < 0x10000) (*table)[m.cp] |= kFolds;
  }
  for (const StripRun& r : kStripRuns) {
    for (uint32_t c = r.first; c <= r.last && c < 0x10000; ++c) (*table)[c] |= kStrips;
  }
  return table;
}

const BmpTable& Bmp() {
  static const std::unique_ptr<BmpTable> table = BuildBmpTable();
  return *table;
}

// Properties of c; outside the BMP the kFolds/kStrips bits are set conservatively (always).
uint8_t Properties(char32_t c) {
  if (c < 0x10000) return Bmp()[c];
  return static_cast<uint8_t>(RunValue(c) | kFolds | kStrips);
}

}  // namespace

std::string ToValidUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t pos = 0; pos < s.size();) AppendUtf8(DecodeNext(s, &pos), &out);
  return out;
}

char32_t DecodeNext(std::string_view s, size_t* pos) {
  const size_t i = *pos;
  const size_t n = s.size();
  const auto b0 = static_cast<uint8_t>(s[i]);
  if (b0 < 0x80) {
    *pos = i + 1;
    return b0;
  }
  // Unicode Table 3-7 (well-formed UTF-8): the lead byte fixes the length and the range allowed
  // for the second byte, which rules out overlongs, surrogates and values above U+10FFFF.
  size_t len = 0;
  uint8_t lo = 0x80, hi = 0xBF;
  char32_t c = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, c = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, c = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, c = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  }
  if (len == 0 || n - i < len) {
    *pos = i + 1;
    return kReplacement;
  }
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<uint8_t>(s[i + k]);
    if (b < lo || b > hi) {
      *pos = i + 1;
      return kReplacement;
    }
    lo = 0x80, hi = 0xBF;
    c = (c << 6) | (b & 0x3F);
  }
  *pos = i + len;
  return c;
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = kReplacement;
  char buf[4];
  size_t len;
  if (c < 0x80) {
    buf[0] = static_cast<char>(c), len = 1;
  } else if (c < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (c >> 6));
    buf[1] = static_cast<char>(0x80 | (c & 0x3F)), len = 2;
  } else if (c < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (c >> 12));
    buf[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (c & 0x3F)), len = 3;
  } else {
    buf[0] = static_cast<char>(0xF0 | (c >> 18));
    buf[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (c & 0x3F)), len = 4;
  }
  out->append(buf, len);
}

bool IsValidUtf8(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    uint64_t eight;  // ASCII eight bytes at a time, then a byte at a time: most text is ASCII
    if (pos + 8 <= s.size() && (std::memcpy(&eight, s.data() + pos, 8), (eight & 0x8080808080808080ull) == 0)) {
      pos += 8;
      continue;
    }
    if (static_cast<uint8_t>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const size_t start = pos;
    if (DecodeNext(s, &pos) == kReplacement && pos - start == 1 && static_cast<uint8_t>(s[start]) >= 0x80) {
      return false;
    }
  }
  return true;
}

CharClass Classify(char32_t c) {
  if (c > 0x10FFFF) return CharClass::kSymbol;  // not a code point: treated like U+FFFD
  return static_cast<CharClass>(Properties(c) & kClassMask);
}

void AppendFolded(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    return;
  }
  if (c <= 0x10FFFF && (Properties(c) & kFolds)) {
    if (const FoldRun* r = FindFoldRun(c)) {
      AppendUtf8(static_cast<char32_t>(static_cast<int32_t>(c) + r->delta), out);
      return;
    }
    if (const FoldMulti* m = FindFoldMulti(c)) {
      for (char32_t to : m->to) {
        if (to != 0) AppendUtf8(to, out);
      }
      return;
    }
  }
  AppendUtf8(c, out);
}

char32_t StripAccent(char32_t c) {
  if (c < 0x80 || c > 0x10FFFF) return c;
  const uint8_t props = Properties(c);
  if (props & kNonspacing) return 0;
  if (props & kStrips) {
    if (const StripRun* r = FindStripRun(c)) return r->base;
  }
  return c;
}

}  // namespace swe::unicode
