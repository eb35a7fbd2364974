#include "use_lite_tokenizer.h"

#include <unicode/unorm2.h>
#include <unicode/utf16.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "swe/unicode.h"
#include "teacher_token.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

constexpr char32_t kWordStart = 0x2581;  // ▁

const UNormalizer2* Nfkc() {
  static const UNormalizer2* nfkc = [] {
    UErrorCode err = U_ZERO_ERROR;
    const UNormalizer2* n = unorm2_getNFKCInstance(&err);
    return U_FAILURE(err) ? nullptr : n;
  }();
  return nfkc;
}

uint32_t Utf16Length(const std::string& s) {
  uint32_t n = 0;
  size_t pos = 0;
  while (pos < s.size()) n += unicode::DecodeNext(s, &pos) > 0xFFFF ? 2 : 1;
  return n;
}

}  // namespace

Status UseLiteTokenizer::FromJson(std::string_view text, UseLiteTokenizer* out) {
  if (!Nfkc()) return Internal("ICU's NFKC normaliser is not available");
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) return Corrupt("vocab.json is not a JSON array");
  if (j.size() <= static_cast<size_t>(kReserved) || j.size() > (1u << 20)) {
    return Corrupt("vocab.json has " + std::to_string(j.size()) + " pieces");
  }
  UseLiteTokenizer t;
  t.nodes_.emplace_back();
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !(e[1].is_number() || e[1].is_null())) {
      return Corrupt("vocab.json: entry " + std::to_string(i) + " is not [piece, score]");
    }
    std::string piece = e[0].get<std::string>();
    double score = e[1].is_null() ? 0.0 : e[1].get<double>();  // JS: null + x == x
    if (piece.empty() || !unicode::IsValidUtf8(piece) || !std::isfinite(score)) {
      return Corrupt("vocab.json: entry " + std::to_string(i) + " has an empty or invalid piece or score");
    }
    t.pieces_.push_back(piece);
    t.scores_.push_back(score);
    t.utf16_length_.push_back(Utf16Length(piece));
    if (static_cast<int32_t>(i) < kReserved) continue;
    int32_t node = 0;
    size_t pos = 0;
    while (pos < piece.size()) {
      char32_t c = unicode::DecodeNext(piece, &pos);
      uint64_t key = (static_cast<uint64_t>(node) << 21) | c;
      auto it = t.children_.find(key);
      if (it == t.children_.end()) {
        it = t.children_.emplace(key, static_cast<int32_t>(t.nodes_.size())).first;
        t.nodes_.emplace_back();
      }
      node = it->second;
    }
    t.nodes_[node] = {true, score, static_cast<int32_t>(i)};  // a duplicate keeps the last id
  }
  *out = std::move(t);
  return Status::Ok();
}

Status UseLiteTokenizer::Load(const std::string& path, UseLiteTokenizer* out) {
  return LoadTokenizerFile(path, [out](std::string_view text) { return FromJson(text, out); });
}

int32_t UseLiteTokenizer::Child(int32_t node, char32_t c) const {
  auto it = children_.find((static_cast<uint64_t>(node) << 21) | c);
  return it == children_.end() ? -1 : it->second;
}

void UseLiteTokenizer::NormalizeChars(std::string_view text, std::vector<Char>* out) const {
  out->clear();
  std::vector<Char> in;
  for (size_t pos = 0; pos < text.size();) {
    uint32_t begin = static_cast<uint32_t>(pos);
    char32_t c = unicode::DecodeNext(text, &pos);
    in.push_back({c, begin, static_cast<uint32_t>(pos)});
  }
  // NFKC one normalisation segment at a time (a segment starts at each character with a boundary
  // before it), so that every output character knows the bytes it came from.
  const UNormalizer2* nfkc = Nfkc();
  std::vector<UChar> src, dst;
  for (size_t i = 0; i < in.size();) {
    size_t j = i + 1;
    while (j < in.size() && !unorm2_hasBoundaryBefore(nfkc, static_cast<UChar32>(in[j].c))) ++j;
    const uint32_t begin = in[i].begin, end = in[j - 1].end;
    if (j == i + 1 && in[i].c < 0x80) {  // ASCII is NFKC-inert
      out->push_back(in[i]);
      i = j;
      continue;
    }
    src.clear();
    for (size_t k = i; k < j; ++k) {
      if (in[k].c > 0xFFFF) {
        src.push_back(static_cast<UChar>(U16_LEAD(in[k].c)));
        src.push_back(static_cast<UChar>(U16_TRAIL(in[k].c)));
      } else {
        src.push_back(static_cast<UChar>(in[k].c));
      }
    }
    dst.resize(src.size() * 18 + 16);  // NFKC expands a character to at most 18 UTF-16 units
    UErrorCode err = U_ZERO_ERROR;
    int32_t n = unorm2_normalize(nfkc, src.data(), static_cast<int32_t>(src.size()), dst.data(),
                                 static_cast<int32_t>(dst.size()), &err);
    if (U_FAILURE(err)) {  // cannot happen with the capacity above; keep the text as it is
      for (size_t k = i; k < j; ++k) out->push_back(in[k]);
    } else {
      for (int32_t k = 0; k < n;) {
        UChar32 c;
        U16_NEXT(dst.data(), k, n, c);
        out->push_back({static_cast<char32_t>(c), begin, end});
      }
    }
    i = j;
  }
  if (out->empty()) return;
  for (Char& c : *out) {
    if (c.c == U' ') c.c = kWordStart;
  }
  out->insert(out->begin(), Char{kWordStart, (*out)[0].begin, (*out)[0].begin});
}

std::string UseLiteTokenizer::Normalize(std::string_view text) const {
  std::vector<Char> chars;
  NormalizeChars(text, &chars);
  std::string s;
  for (const Char& c : chars) unicode::AppendUtf8(c.c, &s);
  return s;
}

void UseLiteTokenizer::Tokenize(std::string_view text, std::vector<UseLiteToken>* out) const {
  out->clear();
  std::vector<Char> sym;
  NormalizeChars(text, &sym);
  const size_t n = sym.size();
  // Lattice edges by end position, each list in increasing start order (as the JS builds it).
  struct Edge {
    uint32_t start;
    int32_t id;
    double score;
  };
  std::vector<std::vector<Edge>> ending(n + 1);
  for (size_t i = 0; i < n; ++i) {
    bool any = false;
    int32_t node = 0;
    for (size_t k = i; k < n; ++k) {
      node = Child(node, sym[k].c);
      if (node < 0) break;
      if (nodes_[node].end) {
        ending[k + 1].push_back({static_cast<uint32_t>(i), nodes_[node].id, nodes_[node].score});
        any = true;
      }
    }
    if (!any) ending[i + 1].push_back({static_cast<uint32_t>(i), 0, 0.0});
  }
  std::vector<double> best(n + 1, 0.0);
  std::vector<int32_t> words(n + 1, 0);
  for (size_t end = 0; end <= n; ++end) {
    for (const Edge& e : ending[end]) {
      double score = e.score + best[e.start];
      if (best[end] == 0 || score >= best[end]) {
        best[end] = score;
        words[end] = e.id;
      }
    }
  }
  // Backtrack; a token covers the original bytes of its characters.
  std::vector<UseLiteToken> reversed;
  for (int64_t iter = static_cast<int64_t>(n); iter > 0;) {
    int32_t id = words[iter];
    int64_t start = std::max<int64_t>(0, iter - static_cast<int64_t>(utf16_length_[id]));
    UseLiteToken t{id, 0, 0};
    bool covered = false;
    for (int64_t k = start; k < iter; ++k) {
      if (sym[k].begin == sym[k].end) continue;
      if (!covered) t.begin = sym[k].begin;
      t.end = sym[k].end;
      covered = true;
    }
    if (!covered) t.begin = t.end = sym[start].begin;
    if (id == 0 && !reversed.empty() && reversed.back().id == 0) {
      UseLiteToken& kept = reversed.back();  // merged: the kept token covers both
      if (covered) {
        kept.begin = kept.begin == kept.end ? t.begin : std::min(kept.begin, t.begin);
        kept.end = std::max(kept.end, t.end);
      }
    } else {
      reversed.push_back(t);
    }
    iter -= utf16_length_[id];
  }
  out->assign(reversed.rbegin(), reversed.rend());
}

std::vector<int32_t> UseLiteTokenizer::Encode(std::string_view text) const {
  std::vector<UseLiteToken> tokens;
  Tokenize(text, &tokens);
  std::vector<int32_t> ids;
  for (const UseLiteToken& t : tokens) ids.push_back(t.id);
  return ids;
}

SubwordVocab UseLiteTokenizer::ToSubwordVocab() const {
  // The pieces the trie holds: not the reserved ones, and of a duplicated piece only its last entry.
  std::unordered_map<std::string, size_t> last;
  for (size_t i = kReserved; i < pieces_.size(); ++i) last[pieces_[i]] = i;
  std::vector<size_t> kept;
  for (size_t i = kReserved; i < pieces_.size(); ++i) {
    if (last[pieces_[i]] == i) kept.push_back(i);
  }
  return SentencePieceSubwordVocab(pieces_, scores_, kept);
}

}  // namespace swe::trainer
