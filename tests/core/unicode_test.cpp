// Unicode tables and UTF-8 handling (core/include/swe/unicode.h), and the generated table's freshness.
#include "swe/unicode.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace swe::unicode {
namespace {

std::vector<char32_t> DecodeAll(std::string_view s) {
  std::vector<char32_t> out;
  size_t pos = 0;
  while (pos < s.size()) out.push_back(DecodeNext(s, &pos));
  return out;
}

std::string Folded(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) AppendFolded(c, &out);
  return out;
}

std::string Utf8(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) AppendUtf8(c, &out);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr char32_t R = kReplacement;

TEST(Utf8, DecodesValidSequences) {
  EXPECT_EQ(DecodeAll("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), (std::vector<char32_t>{'a', 0xE9, 0x20AC, 0x1F600}));
  EXPECT_EQ(DecodeAll("\xF4\x8F\xBF\xBF"), std::vector<char32_t>{0x10FFFF});
  EXPECT_EQ(DecodeAll("\xEF\xBF\xBD"), std::vector<char32_t>{R});  // a real U+FFFD is 3 bytes
  EXPECT_EQ(DecodeAll(std::string("\0x", 2)), (std::vector<char32_t>{0, 'x'}));
}

TEST(Utf8, InvalidBytesBecomeOneReplacementEach) {
  EXPECT_EQ(DecodeAll("\xFF"), std::vector<char32_t>{R});
  EXPECT_EQ(DecodeAll("\x80" "a"), (std::vector<char32_t>{R, 'a'}));             // lone continuation
  EXPECT_EQ(DecodeAll("\xE2\x82" "a"), (std::vector<char32_t>{R, R, 'a'}));       // truncated 3-byte
  EXPECT_EQ(DecodeAll("\xF0\x9F\x98"), (std::vector<char32_t>{R, R, R}));         // truncated at the end
  EXPECT_EQ(DecodeAll("\xC0\xAF"), (std::vector<char32_t>{R, R}));                // overlong '/'
  EXPECT_EQ(DecodeAll("\xC1\xBF"), (std::vector<char32_t>{R, R}));                // overlong
  EXPECT_EQ(DecodeAll("\xE0\x80\xAF"), (std::vector<char32_t>{R, R, R}));         // overlong 3-byte
  EXPECT_EQ(DecodeAll("\xF0\x80\x80\xAF"), (std::vector<char32_t>{R, R, R, R}));  // overlong 4-byte
  EXPECT_EQ(DecodeAll("\xED\xA0\x80"), (std::vector<char32_t>{R, R, R}));         // surrogate U+D800
  EXPECT_EQ(DecodeAll("\xED\xBF\xBF"), (std::vector<char32_t>{R, R, R}));         // surrogate U+DFFF
  EXPECT_EQ(DecodeAll("\xF4\x90\x80\x80"), (std::vector<char32_t>{R, R, R, R}));  // U+110000
  EXPECT_EQ(DecodeAll("\xF5\x80\x80\x80"), (std::vector<char32_t>{R, R, R, R}));
  EXPECT_EQ(DecodeAll("\xC3" "\xC3\xA9"), (std::vector<char32_t>{R, 0xE9}));     // resynchronises
}

TEST(Utf8, EncodeDecodeRoundTripsEveryScalarValue) {
  std::string s;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    s.clear();
    AppendUtf8(c, &s);
    size_t pos = 0;
    ASSERT_EQ(DecodeNext(s, &pos), c) << std::hex << static_cast<uint32_t>(c);
    ASSERT_EQ(pos, s.size());
    ASSERT_TRUE(IsValidUtf8(s));
  }
  s.clear();
  AppendUtf8(0xD800, &s);  // not encodable: written as U+FFFD
  EXPECT_EQ(s, "\xEF\xBF\xBD");
}

TEST(Utf8, IsValidUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xEF\xBF\xBD"));
  EXPECT_FALSE(IsValidUtf8("caf\xC3"));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC0\x80"));
  EXPECT_FALSE(IsValidUtf8("a\xFF" "b"));
}

TEST(Classify, Ascii) {
  for (char c = 'a'; c <= 'z'; ++c) EXPECT_EQ(Classify(c), CharClass::kWord) << c;
  for (char c = 'A'; c <= 'Z'; ++c) EXPECT_EQ(Classify(c), CharClass::kWord) << c;
  for (char c = '0'; c <= '9'; ++c) EXPECT_EQ(Classify(c), CharClass::kWord) << c;
  for (char c : std::string(" \t\n\r\v\f")) EXPECT_EQ(Classify(c), CharClass::kSpace) << int(c);
  EXPECT_EQ(Classify(0), CharClass::kSpace);
  EXPECT_EQ(Classify(0x7F), CharClass::kSpace);
  // Every printable ASCII character that is not a letter or digit is punctuation (as in BERT),
  // including the ones Unicode calls symbols.
  for (char c : std::string("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")) EXPECT_EQ(Classify(c), CharClass::kPunct) << c;
}

TEST(Classify, SpacesAndFormatCharacters) {
  for (char32_t c : {0x85, 0xA0, 0x1680, 0x2000, 0x2003, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}) {
    EXPECT_EQ(Classify(c), CharClass::kSpace) << std::hex << static_cast<uint32_t>(c);  // White_Space
  }
  // Format characters (Cf): zero-width space/joiners, BOM, soft hyphen, bidi marks, tags.
  for (char32_t c : {0xAD, 0x200B, 0x200C, 0x200D, 0x200E, 0x2060, 0xFEFF, 0xE0001, 0xE0041}) {
    EXPECT_EQ(Classify(c), CharClass::kSpace) << std::hex << static_cast<uint32_t>(c);
  }
  // Variation selectors (emoji / text presentation, ideographic variation sequences).
  for (char32_t c : {0xFE00, 0xFE0E, 0xFE0F, 0xE0100, 0xE01EF}) {
    EXPECT_EQ(Classify(c), CharClass::kSpace) << std::hex << static_cast<uint32_t>(c);
  }
  EXPECT_EQ(Classify(0x180B), CharClass::kWord);  // Mongolian free variation selector: inside words
}

TEST(Classify, PunctuationSymbolsAndWords) {
  for (char32_t c : {0xA1, 0xAB, 0xBF, 0x2010, 0x2014, 0x2019, 0x201C, 0x2026, 0x3001, 0x3002, 0x300C, 0xFF0C, 0xFF01,
                     0x055D, 0x061F, 0x0964}) {
    EXPECT_EQ(Classify(c), CharClass::kPunct) << std::hex << static_cast<uint32_t>(c);
  }
  for (char32_t c : {0xA2, 0xA9, 0xB0, 0xD7, 0x20AC, 0x2211, 0x2192, 0x2764, 0x1F600, 0x1F44D, 0x1F3FB, 0xFFFD,
                     0x2E80, 0x2F00}) {
    EXPECT_EQ(Classify(c), CharClass::kSymbol) << std::hex << static_cast<uint32_t>(c);
  }
  for (char32_t c : {0xC0, 0xDF, 0xE9, 0x0131, 0x03A3, 0x0416, 0x05D0, 0x0627, 0x0661, 0x0915, 0x0E01, 0xAC00, 0x0301,
                     0x0308, 0x3099, 0x00B2, 0x2160, 0xE000, 0x10400, 0x0378}) {
    EXPECT_EQ(Classify(c), CharClass::kWord) << std::hex << static_cast<uint32_t>(c);
  }
}

TEST(Classify, CjkIdeographsAndKana) {
  for (char32_t c : {0x4E00, 0x4E2D, 0x65E5, 0x9FFF, 0x3400, 0x4DBF, 0x20000, 0x2A6DF, 0x2B740, 0x30000, 0x31350,
                     0xF900, 0xFA6D, 0x2F800, 0x3005, 0x3006, 0x3007}) {
    EXPECT_EQ(Classify(c), CharClass::kCjk) << std::hex << static_cast<uint32_t>(c);  // Han
  }
  for (char32_t c : {0x3041, 0x3042, 0x3093, 0x309F, 0x30A1, 0x30A2, 0x30F3, 0x31F0, 0xFF71, 0xFF9D,
                     0x30FC, 0xFF70, 0x309D, 0x30FD}) {
    EXPECT_EQ(Classify(c), CharClass::kCjk) << std::hex << static_cast<uint32_t>(c);  // kana and their marks
  }
  EXPECT_EQ(Classify(0x3002), CharClass::kPunct);  // 。
  EXPECT_EQ(Classify(0x30FB), CharClass::kPunct);  // ・ katakana middle dot
  EXPECT_EQ(Classify(0x3131), CharClass::kWord);   // Hangul is not CJK here: Korean uses spaces
}

TEST(Classify, OutOfRangeIsASymbol) { EXPECT_EQ(Classify(0x110000), CharClass::kSymbol); }

TEST(Fold, FullCaseFolding) {
  EXPECT_EQ(Folded(U"Hello WORLD"), "hello world");
  EXPECT_EQ(Folded(U"Stra\u00DFe"), "strasse");             // ß -> ss (status F)
  EXPECT_EQ(Folded(U"\u1E9E"), "ss");                       // capital sharp s
  EXPECT_EQ(Folded(U"\u03A3\u03C3\u03C2"), Utf8(U"\u03C3\u03C3\u03C3"));  // Σ σ ς all fold to σ
  EXPECT_EQ(Folded(U"\u039F\u0394\u039F\u03A3"), Folded(U"\u03BF\u03B4\u03BF\u03C2"));  // ΟΔΟΣ ~ οδος
  EXPECT_EQ(Folded(U"\u0416\u0401"), Utf8(U"\u0436\u0451"));  // Ж Ё
  EXPECT_EQ(Folded(U"\u00C9"), Utf8(U"\u00E9"));              // É
  // Turkish: CaseFolding's default (C+F), not its T lines: I -> i, İ -> i + combining dot, ı stays.
  EXPECT_EQ(Folded(U"I"), "i");
  EXPECT_EQ(Folded(U"\u0130"), Utf8(U"i\u0307"));
  EXPECT_EQ(Folded(U"\u0131"), Utf8(U"\u0131"));
  EXPECT_EQ(Folded(U"\uFB01"), "fi");                        // ligature
  EXPECT_EQ(Folded(U"\u0390"), Utf8(U"\u03B9\u0308\u0301"));  // three code points
  EXPECT_EQ(Folded(U"\u212A"), "k");                         // Kelvin sign
  EXPECT_EQ(Folded(U"\u00B5"), Utf8(U"\u03BC"));              // micro sign -> mu
  EXPECT_EQ(Folded(U"\u01C4\u01C5"), Utf8(U"\u01C6\u01C6"));  // DŽ Dž -> dž
  EXPECT_EQ(Folded(U"\U00010400"), Utf8(U"\U00010428"));      // Deseret, outside the BMP
  EXPECT_EQ(Folded(U"\uAB70"), Utf8(U"\u13A0"));              // Cherokee folds to the capitals
  EXPECT_EQ(Folded(U"\u65E5\u3042\U0001F600"), Utf8(U"\u65E5\u3042\U0001F600"));
}

// Every line of CaseFolding.txt with status C or F, and nothing else, changes a code point.
TEST(Fold, MatchesCaseFoldingTxt) {
  std::ifstream in("/usr/share/unicode/CaseFolding.txt");
  ASSERT_TRUE(in) << "/usr/share/unicode/CaseFolding.txt is missing (Debian: apt-get install unicode-data)";
  std::map<char32_t, std::u32string> expected;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    char32_t cp = std::stoul(line.substr(0, line.find(';')), nullptr, 16);
    const size_t s1 = line.find(';'), s2 = line.find(';', s1 + 1), s3 = line.find(';', s2 + 1);
    const std::string status = line.substr(s1 + 2, s2 - s1 - 2);
    if (status != "C" && status != "F") continue;
    std::istringstream mapping(line.substr(s2 + 1, s3 - s2 - 1));
    std::u32string to;
    std::string hex;
    while (mapping >> hex) to.push_back(std::stoul(hex, nullptr, 16));
    expected[cp] = to;
  }
  ASSERT_GT(expected.size(), 1400u);
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    auto it = expected.find(c);
    const std::u32string want = it == expected.end() ? std::u32string(1, c) : it->second;
    std::string got;
    AppendFolded(c, &got);
    ASSERT_EQ(got, Utf8(want)) << std::hex << static_cast<uint32_t>(c);
  }
}

TEST(StripAccent, CanonicalDecompositionMinusNonspacingMarks) {
  EXPECT_EQ(StripAccent(U'\u00E9'), U'e');
  EXPECT_EQ(StripAccent(U'\u00C5'), U'A');
  EXPECT_EQ(StripAccent(U'\u01D6'), U'u');       // ǖ: u + diaeresis + macron, recursively
  EXPECT_EQ(StripAccent(U'\u1EC7'), U'e');       // ệ (Vietnamese, two marks)
  EXPECT_EQ(StripAccent(U'\u212B'), U'A');       // Angstrom sign -> Å -> A
  EXPECT_EQ(StripAccent(U'\u1F71'), U'\u03B1');  // Greek alpha with oxia
  EXPECT_EQ(StripAccent(U'\u0439'), U'\u0438');  // й -> и (breve is a nonspacing mark)
  EXPECT_EQ(StripAccent(U'\u304C'), U'\u304B');  // が -> か (the voiced mark is nonspacing)
  EXPECT_EQ(StripAccent(U'\uF900'), U'\u8C48');  // compatibility ideograph -> unified (singleton)
  EXPECT_EQ(StripAccent(U'\u0301'), 0u);         // a nonspacing mark itself is dropped
  EXPECT_EQ(StripAccent(U'\u3099'), 0u);
  for (char32_t c : {U'a', U'Z', U'\u00F8', U'\u0142', U'\u00DF', U'\u0131', U'\uAC00', U'\u65E5', U'\U0001F600'}) {
    EXPECT_EQ(StripAccent(c), c) << std::hex << static_cast<uint32_t>(c);  // no canonical decomposition
  }
  EXPECT_EQ(StripAccent(U'\u0958'), U'\u0915');  // Devanagari qa = ka + nukta (Mn)
  EXPECT_EQ(StripAccent(U'\u09CB'), U'\u09CB');  // Bengali o = e + aa (a spacing mark): kept
}

// The committed generated table is what the generator makes from the installed UCD.
TEST(UnicodeTables, CommittedIncMatchesGenerator) {
  const std::string ucd = "/usr/share/unicode";
  ASSERT_TRUE(std::ifstream(ucd + "/UnicodeData.txt").good())
      << ucd << "/UnicodeData.txt is missing: install the Unicode Character Database (Debian: apt-get install "
      << "unicode-data) to check core/src/unicode_data.inc";
  ASSERT_EQ(std::system("python3 --version > /dev/null 2>&1"), 0)
      << "python3 is missing: it runs scripts/gen_unicode_tables.py to check core/src/unicode_data.inc";
  const std::string source = swe::test::SourceDir();
  char tmpl[] = "/tmp/swe_unicode_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string out = std::string(tmpl) + "/unicode_data.inc";
  const std::string cmd = "python3 '" + source + "/scripts/gen_unicode_tables.py' --ucd '" + ucd + "' --out '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the generator failed: " << cmd;
  const std::string generated = ReadFile(out);
  const std::string committed = ReadFile(source + "/core/src/unicode_data.inc");
  std::remove(out.c_str());
  std::remove(tmpl);
  ASSERT_FALSE(generated.empty());
  EXPECT_TRUE(generated == committed)
      << "core/src/unicode_data.inc is stale or was edited by hand (or the installed UCD is another version): "
      << "regenerate it with `python3 scripts/gen_unicode_tables.py` and review the diff";
}

TEST(Unicode, ToValidUtf8ReplacesEachInvalidByte) {
  EXPECT_EQ(ToValidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(ToValidUtf8("a\xFF\xFE b"), "a\xEF\xBF\xBD\xEF\xBF\xBD b");
  EXPECT_EQ(ToValidUtf8("\xC3\x28"), "\xEF\xBF\xBD(");
  EXPECT_TRUE(IsValidUtf8(ToValidUtf8("\xF0\x9F\x98")));
}
}  // namespace
}  // namespace swe::unicode
