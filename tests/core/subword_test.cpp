// The teacher's subword tokenizer (swe/subword.h): WordPiece and SentencePiece-style unigram.
#include "swe/subword.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace swe {
namespace {

constexpr uint32_t kUnk = std::numeric_limits<uint32_t>::max();
const std::string kWordStart = "\xE2\x96\x81";  // U+2581

SubwordTokenizer Make(const SubwordVocab& vocab) {
  SubwordTokenizer t;
  Status s = SubwordTokenizer::Create(vocab, &t);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return t;
}

SubwordVocab WordPiece(std::vector<std::string> pieces) {
  SubwordVocab v;
  v.kind = SubwordKind::kWordPiece;
  v.pieces = std::move(pieces);
  return v;
}

// The pieces of `word` as strings ("" when Split fails), from the ends it reports.
std::vector<std::string> Pieces(const SubwordTokenizer& t, const std::string& word) {
  std::vector<uint32_t> ends;
  if (!t.Split(word, &ends)) return {};
  std::vector<std::string> out;
  uint32_t begin = 0;
  for (uint32_t end : ends) {
    out.push_back(word.substr(begin, end - begin));
    begin = end;
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(SubwordCreate, DisabledByDefault) {
  SubwordTokenizer t;
  EXPECT_FALSE(t.enabled());
  std::vector<uint32_t> ends;
  EXPECT_FALSE(t.Split("word", &ends));
  std::string out;
  t.Normalize("AbC", &out);
  EXPECT_EQ(out, "AbC");
  SubwordTokenizer none = Make(SubwordVocab());
  EXPECT_FALSE(none.enabled());
}

TEST(SubwordCreate, RejectsBadVocabularies) {
  SubwordTokenizer t;
  EXPECT_FALSE(SubwordTokenizer::Create(WordPiece({"a", "b", "a"}), &t).ok());       // duplicate
  EXPECT_FALSE(SubwordTokenizer::Create(WordPiece({"a", "##b", "##b"}), &t).ok());   // duplicate
  EXPECT_FALSE(SubwordTokenizer::Create(WordPiece({"a", ""}), &t).ok());             // empty
  EXPECT_FALSE(SubwordTokenizer::Create(WordPiece({"a", "\xC3"}), &t).ok());         // invalid UTF-8
  EXPECT_FALSE(SubwordTokenizer::Create(WordPiece({}), &t).ok());                    // no pieces
  SubwordVocab wp = WordPiece({"a", "b"});
  wp.scores = {1};
  EXPECT_FALSE(SubwordTokenizer::Create(wp, &t).ok());  // scores that do not match
  SubwordVocab uni;
  uni.kind = SubwordKind::kUnigram;
  uni.pieces = {"a", "b"};
  EXPECT_FALSE(SubwordTokenizer::Create(uni, &t).ok());  // unigram needs scores
  uni.scores = {-1, std::nanf("")};
  EXPECT_FALSE(SubwordTokenizer::Create(uni, &t).ok());
  uni.scores = {-1, -std::numeric_limits<float>::infinity()};
  EXPECT_FALSE(SubwordTokenizer::Create(uni, &t).ok());
  SubwordVocab none;
  none.pieces = {"a"};
  EXPECT_FALSE(SubwordTokenizer::Create(none, &t).ok());  // kind none with pieces
  EXPECT_FALSE(SubwordTokenizer::Create(WordPiece({"a"}), nullptr).ok());
  EXPECT_FALSE(t.enabled());  // failures leave it untouched
  uni.scores = {-1, -2};
  EXPECT_TRUE(SubwordTokenizer::Create(uni, &t).ok());
  EXPECT_TRUE(t.enabled());
}

TEST(SubwordCreate, MoveTransfersTheTables) {
  SubwordTokenizer a = Make(WordPiece({"ab", "##c"}));
  SubwordTokenizer b(std::move(a));
  EXPECT_TRUE(b.enabled());
  EXPECT_EQ(Pieces(b, "abc"), (Strings{"ab", "c"}));
  SubwordTokenizer c;
  c = std::move(b);
  EXPECT_EQ(Pieces(c, "abc"), (Strings{"ab", "c"}));
}

TEST(SubwordNormalize, FoldsAndStripsPerVocabulary) {
  SubwordVocab v = WordPiece({"a"});
  std::string out;
  Make(v).Normalize("Caf\xC3\xA9 Stra\xC3\x9F" "e", &out);
  EXPECT_EQ(out, "Caf\xC3\xA9 Stra\xC3\x9F" "e");  // neither: unchanged
  v.lowercase = true;
  Make(v).Normalize("Caf\xC3\xA9 Stra\xC3\x9F" "e \xCE\xA3", &out);
  EXPECT_EQ(out, "caf\xC3\xA9 strasse \xCF\x83");  // full case folding: ß -> ss, Σ -> σ
  v.strip_accents = true;
  Make(v).Normalize("Caf\xC3\xA9 NA\xC3\x8FVE \xC4\xB0stanbul", &out);
  EXPECT_EQ(out, "cafe naive istanbul");  // İ folds to i + U+0307, which stripping drops
  v.lowercase = false;
  Make(v).Normalize("Caf\xC3\xA9", &out);
  EXPECT_EQ(out, "Cafe");
  Make(v).Normalize("a\xFF" "b", &out);
  EXPECT_EQ(out, "a\xEF\xBF\xBD" "b");  // invalid bytes become U+FFFD
}

TEST(WordPiece, GreedyLongestMatchFirst) {
  SubwordTokenizer t = Make(WordPiece({"a", "ab", "abc", "##d", "##cd", "un", "##aff", "##able", "##a"}));
  // Greedy: "abc" then "##d", although "ab" + "##cd" also covers the word.
  EXPECT_EQ(Pieces(t, "abcd"), (Strings{"abc", "d"}));
  EXPECT_EQ(Pieces(t, "unaffable"), (Strings{"un", "aff", "able"}));
  EXPECT_EQ(Pieces(t, "aa"), (Strings{"a", "a"}));
  EXPECT_EQ(Pieces(t, "ab"), (Strings{"ab"}));
  std::vector<uint32_t> ends, ids;
  ASSERT_TRUE(t.Split("unaffable", &ends, &ids));
  EXPECT_EQ(ends, (std::vector<uint32_t>{2, 5, 9}));
  EXPECT_EQ(ids, (std::vector<uint32_t>{5, 6, 7}));
}

TEST(WordPiece, UncoverableWordFailsAndAppendsNothing) {
  SubwordTokenizer t = Make(WordPiece({"a", "##b"}));
  std::vector<uint32_t> ends = {42}, ids = {43};
  EXPECT_FALSE(t.Split("abx", &ends, &ids));  // "x" matches nothing: BERT's [UNK]
  EXPECT_EQ(ends, std::vector<uint32_t>{42});
  EXPECT_EQ(ids, std::vector<uint32_t>{43});
  EXPECT_FALSE(t.Split("ba", &ends));   // "b" only exists as a continuation
  EXPECT_FALSE(t.Split("", &ends));     // empty word
  EXPECT_TRUE(t.Split("abb", &ends));
  EXPECT_EQ(ends, (std::vector<uint32_t>{42, 1, 2, 3}));  // appends
}

TEST(WordPiece, MaxPieceBytesLimitsCandidates) {
  SubwordVocab v = WordPiece({"a", "ab", "abc", "##d", "##cd"});
  v.max_piece_bytes = 2;
  SubwordTokenizer t = Make(v);
  EXPECT_EQ(Pieces(t, "abcd"), (Strings{"ab", "cd"}));
  v.max_piece_bytes = 1;
  EXPECT_EQ(Pieces(Make(v), "abcd"), Strings{});  // "c" alone is not a piece
}

TEST(WordPiece, MatchesWholeCodePointsOnly) {
  // "é" is C3 A9; pieces never end inside a character.
  SubwordTokenizer t = Make(WordPiece({"caf", "##\xC3\xA9", "\xE6\x97\xA5", "##\xE6\x9C\xAC"}));
  std::vector<uint32_t> ends;
  ASSERT_TRUE(t.Split("caf\xC3\xA9", &ends));
  EXPECT_EQ(ends, (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(Pieces(t, "\xE6\x97\xA5\xE6\x9C\xAC"), (Strings{"\xE6\x97\xA5", "\xE6\x9C\xAC"}));
}

TEST(WordPiece, EmptyContinuationPrefix) {
  SubwordVocab v = WordPiece({"ab", "c"});
  v.continuation_prefix = "";
  EXPECT_EQ(Pieces(Make(v), "abcab"), (Strings{"ab", "c", "ab"}));
}

SubwordVocab Unigram(std::vector<std::pair<std::string, float>> scored) {
  SubwordVocab v;
  v.kind = SubwordKind::kUnigram;
  for (auto& [piece, score] : scored) {
    v.pieces.push_back(piece);
    v.scores.push_back(score);
  }
  return v;
}

TEST(Unigram, ViterbiPicksTheBestSegmentation) {
  SubwordVocab v = Unigram({{kWordStart, -1}, {kWordStart + "he", -2}, {"llo", -2}, {kWordStart + "hell", -3},
                            {"o", -2}, {"h", -5}, {"e", -5}, {"l", -5}});
  SubwordTokenizer t = Make(v);
  // ▁he|llo = -4 beats ▁hell|o = -5 and ▁|h|e|llo = -13.
  std::vector<uint32_t> ends, ids;
  ASSERT_TRUE(t.Split("hello", &ends, &ids));
  EXPECT_EQ(ends, (std::vector<uint32_t>{2, 5}));  // offsets in the word, without the U+2581 prefix
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2}));
  // "ell": ▁ + e + l + l = -16; that is the only way (no "▁e"), so the bare ▁ piece ends at 0.
  ends.clear(), ids.clear();
  ASSERT_TRUE(t.Split("ell", &ends, &ids));
  EXPECT_EQ(ends, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 6, 7, 7}));
}

TEST(Unigram, UnknownCharactersArePenalisedSingleCharacterPieces) {
  SubwordVocab v = Unigram({{kWordStart + "he", -2}, {"z", -1}, {"e", -4}, {kWordStart + "h", -4}});
  SubwordTokenizer t = Make(v);
  std::vector<uint32_t> ends, ids;
  // "hex": x is unknown, scored min (-4) - 10 = -14: ▁he|x.
  ASSERT_TRUE(t.Split("hex", &ends, &ids));
  EXPECT_EQ(ends, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, kUnk}));
  // A multi-byte unknown character is one piece; "▁h|é" (-4 - 14) vs no "▁hé": ends 1, 3.
  ends.clear(), ids.clear();
  ASSERT_TRUE(t.Split("h\xC3\xA9", &ends, &ids));
  EXPECT_EQ(ends, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, kUnk}));
  // Unknown pieces only where no single-character piece exists: "ze" uses z and e, after an unknown ▁.
  ends.clear(), ids.clear();
  ASSERT_TRUE(t.Split("ze", &ends, &ids));
  EXPECT_EQ(ends, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(ids, (std::vector<uint32_t>{kUnk, 1, 2}));
}

TEST(Unigram, LongWordIsLinear) {
  SubwordVocab v = Unigram({{kWordStart, -1}, {"ab", -2}, {"a", -3}, {"b", -3}, {"abab", -3}});
  SubwordTokenizer t = Make(v);
  const std::string word(1 << 20, 'a');  // 1 MiB: "a" pieces only
  std::vector<uint32_t> ends;
  ASSERT_TRUE(t.Split(word, &ends));
  EXPECT_EQ(ends.size(), word.size() + 1);
  std::string abab;
  for (int i = 0; i < 1000; ++i) abab += "ab";
  ends.clear();
  ASSERT_TRUE(t.Split(abab, &ends));
  EXPECT_EQ(ends.size(), 501u);  // ▁ then 500 x "abab" (-3 each) rather than 1000 x "ab" (-2 each)
}

TEST(WordPiece, LongWordIsLinear) {
  SubwordTokenizer t = Make(WordPiece({"a", "##a", "##aaaa"}));
  const std::string word(1 << 20, 'a');
  std::vector<uint32_t> ends;
  ASSERT_TRUE(t.Split(word, &ends));
  EXPECT_EQ(ends.size(), 1u + (word.size() - 1) / 4 + (word.size() - 1) % 4);
}

// The splits against plain reference implementations (a map of pieces, every substring tried) on
// random vocabularies over a small alphabet with multi-byte characters, and random words that
// include invalid UTF-8 (stray continuation bytes, 0xFF): the piece trie must find exactly the
// pieces a string compare finds.
namespace reference {

bool IsCharEnd(const std::string& s, size_t end) {
  return end == s.size() || (static_cast<uint8_t>(s[end]) & 0xC0) != 0x80;
}

// SplitUnigram's rule, spelled out: relax every piece that starts at a reachable boundary, in order
// of start then end, first best wins; a character that starts no piece is an unknown piece.
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> Unigram(const SubwordVocab& v, const std::string& word) {
  std::map<std::string, uint32_t> ids;
  float min_score = v.scores[0];
  for (size_t i = 0; i < v.pieces.size(); ++i) ids[v.pieces[i]] = static_cast<uint32_t>(i), min_score = std::min(min_score, v.scores[i]);
  const std::string text = v.word_prefix + word;
  const size_t n = text.size();
  std::vector<float> score(n + 1, -INFINITY);
  std::vector<uint32_t> start(n + 1, kUnk), id(n + 1, kUnk);
  score[0] = 0;
  auto relax = [&](size_t s, size_t e, float sc, uint32_t piece) {
    if (start[e] == kUnk || sc > score[e]) score[e] = sc, start[e] = static_cast<uint32_t>(s), id[e] = piece;
  };
  for (size_t s = 0; s < n; ++s) {
    if (start[s] == kUnk && s != 0) continue;
    size_t char_end = s + 1;
    while (!IsCharEnd(text, char_end)) ++char_end;
    bool single = false;
    for (size_t e = s + 1; e <= n; ++e) {
      auto it = ids.find(text.substr(s, e - s));
      if (it == ids.end() || !IsCharEnd(text, e)) continue;
      single |= e == char_end;
      relax(s, e, score[s] + v.scores[it->second], it->second);
    }
    if (!single) relax(s, char_end, score[s] + (min_score - 10.0f), kUnk);
  }
  std::vector<uint32_t> path;
  for (size_t e = n; e > 0; e = start[e]) path.push_back(static_cast<uint32_t>(e));
  std::pair<std::vector<uint32_t>, std::vector<uint32_t>> out;
  for (size_t k = path.size(); k-- > 0;) {
    out.first.push_back(path[k] > v.word_prefix.size() ? static_cast<uint32_t>(path[k] - v.word_prefix.size()) : 0);
    out.second.push_back(id[path[k]]);
  }
  return out;
}

// BERT's greedy longest match first; empty when some position has no piece.
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> WordPiece(const SubwordVocab& v, const std::string& word) {
  std::map<std::string, uint32_t> ids;
  for (size_t i = 0; i < v.pieces.size(); ++i) ids[v.pieces[i]] = static_cast<uint32_t>(i);
  std::pair<std::vector<uint32_t>, std::vector<uint32_t>> out;
  for (size_t s = 0; s < word.size();) {
    size_t best = 0;
    for (size_t e = s + 1; e <= word.size(); ++e) {
      if (!IsCharEnd(word, e)) continue;
      auto it = ids.find((s == 0 ? "" : v.continuation_prefix) + word.substr(s, e - s));
      if (it != ids.end()) best = e, out.second.resize(out.first.size()), out.second.push_back(it->second);
    }
    if (best == 0) return {};
    out.first.push_back(static_cast<uint32_t>(best));
    s = best;
  }
  return out;
}

}  // namespace reference

TEST(Subword, SplitsMatchAReferenceOnRandomVocabularies) {
  // Bytes to draw from: ASCII, é (C3 A9), 日 (E6 97 A5), a stray continuation byte and 0xFF (invalid).
  const std::vector<std::string> chars = {"a", "b", "c", "d", "\xC3\xA9", "\xE6\x97\xA5"};
  const std::vector<std::string> invalid = {"\xA9", "\xFF", "\x97"};
  std::mt19937 rng(12345);
  auto draw = [&](size_t max_chars, bool allow_invalid) {
    std::string s;
    const size_t len = 1 + rng() % max_chars;
    for (size_t i = 0; i < len; ++i) {
      s += allow_invalid && rng() % 8 == 0 ? invalid[rng() % invalid.size()] : chars[rng() % chars.size()];
    }
    return s;
  };
  for (int round = 0; round < 200; ++round) {
    const bool unigram = round % 2 == 0;
    SubwordVocab v;
    v.kind = unigram ? SubwordKind::kUnigram : SubwordKind::kWordPiece;
    if (unigram) v.word_prefix = round % 4 == 0 ? kWordStart : "";
    std::map<std::string, int> seen;
    const size_t count = 1 + rng() % 40;
    while (v.pieces.size() < count) {
      std::string piece = draw(5, false);
      if (!unigram && rng() % 2 == 0) piece = "##" + piece;
      if (unigram && rng() % 4 == 0) piece = kWordStart + piece;
      if (!seen.emplace(piece, 0).second) continue;
      v.pieces.push_back(piece);
      if (unigram) v.scores.push_back(-static_cast<float>(rng() % 1000) / 100.0f);
    }
    SubwordTokenizer t = Make(v);
    for (int w = 0; w < 50; ++w) {
      const std::string word = draw(12, true);
      std::vector<uint32_t> ends, ids;
      const bool ok = t.Split(word, &ends, &ids);
      const auto want = unigram ? reference::Unigram(v, word) : reference::WordPiece(v, word);
      EXPECT_EQ(ok, !want.first.empty()) << "round " << round << " word " << word;
      EXPECT_EQ(ends, want.first) << "round " << round << " word " << word;
      EXPECT_EQ(ids, want.second) << "round " << round << " word " << word;
    }
  }
}

// BERT's WordPiece over the real all-MiniLM-L6-v2 vocabulary (uncased: lowercase + strip accents).
// Expected pieces worked out by hand from vocab.txt (e.g. "##aff" is not in it, so "unaffable" is
// una ##ffa ##ble here, not the textbook un ##aff ##able).
class MiniLmVocab : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = std::string(swe::test::SharedData()) + "/tokenizers/all-MiniLM-L6-v2/vocab.txt";
    std::ifstream in(path);
    ASSERT_TRUE(in) << "missing " << path;
    SubwordVocab v;
    v.kind = SubwordKind::kWordPiece;
    std::string line;
    while (std::getline(in, line)) v.pieces.push_back(line);
    ASSERT_EQ(v.pieces.size(), 30522u);
    v.lowercase = true;
    v.strip_accents = true;
    pieces_ = v.pieces;
    Status s = SubwordTokenizer::Create(v, &tokenizer_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // BERT's pieces, written with their ## prefixes, or {} for [UNK].
  Strings Bert(const std::string& word) {
    std::string normalized;
    tokenizer_.Normalize(word, &normalized);
    std::vector<uint32_t> ends, ids;
    if (!tokenizer_.Split(normalized, &ends, &ids)) return {};
    EXPECT_EQ(ends.size(), ids.size());
    Strings out;
    uint32_t begin = 0;
    for (size_t i = 0; i < ends.size(); ++i) {
      const std::string text = normalized.substr(begin, ends[i] - begin);
      out.push_back(pieces_[ids[i]]);
      EXPECT_EQ(pieces_[ids[i]], (i == 0 ? "" : "##") + text);  // ids and ends agree
      begin = ends[i];
    }
    return out;
  }

  SubwordTokenizer tokenizer_;
  std::vector<std::string> pieces_;
};

TEST_F(MiniLmVocab, SplitsLikeBert) {
  EXPECT_EQ(Bert("unaffable"), (Strings{"una", "##ffa", "##ble"}));
  EXPECT_EQ(Bert("Unaffable"), (Strings{"una", "##ffa", "##ble"}));
  EXPECT_EQ(Bert("tokenization"), (Strings{"token", "##ization"}));
  EXPECT_EQ(Bert("strawberries"), (Strings{"straw", "##berries"}));
  EXPECT_EQ(Bert("embeddings"), (Strings{"em", "##bed", "##ding", "##s"}));
  EXPECT_EQ(Bert("playing"), (Strings{"playing"}));
  EXPECT_EQ(Bert("xyzzyq"), (Strings{"x", "##y", "##zzy", "##q"}));
  EXPECT_EQ(Bert("antidisestablishmentarianism"),
            (Strings{"anti", "##dis", "##est", "##ab", "##lish", "##ment", "##arian", "##ism"}));
  EXPECT_EQ(Bert("Caf\xC3\xA9"), (Strings{"cafe"}));
  EXPECT_EQ(Bert("na\xC3\xAFve"), (Strings{"naive"}));
  EXPECT_EQ(Bert("\xC3\x9C" "berraschung"), (Strings{"uber", "##ras", "##chu", "##ng"}));
  EXPECT_EQ(Bert("se\xC3\xB1or"), (Strings{"sen", "##or"}));
  EXPECT_EQ(Bert("\xE6\x9D\xB1\xE4\xBA\xAC"), (Strings{"\xE6\x9D\xB1", "##\xE4\xBA\xAC"}));  // 東京 as one word
  EXPECT_EQ(Bert("\xC7\x85ungla"), Strings{});  // ǅ -> ǆ, which is in no piece: [UNK]
}

}  // namespace
}  // namespace swe
