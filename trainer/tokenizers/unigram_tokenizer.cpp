#include "unigram_tokenizer.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "swe/unicode.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

constexpr double kUnkPenalty = 10.0;  // HF's K_UNK_PENALTY (SentencePiece's kUnkPenalty)

size_t CharLength(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

// The character that ends at s[end - 1] (valid UTF-8), and where it starts.
char32_t PreviousChar(const std::string& s, size_t end, size_t* start) {
  size_t at = end - 1;
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  if (start) *start = at;
  size_t pos = at;
  return unicode::DecodeNext(s, &pos);
}

bool IsWordChar(char32_t c) {
  unicode::CharClass k = unicode::Classify(c);
  return c == '_' || k == unicode::CharClass::kWord || k == unicode::CharClass::kCjk;
}

// The ids of a post-processor's special tokens before and after the sequence.
Status ParsePostProcessor(const json& post, const UnigramTokenizer& tok, std::vector<int32_t>* prefix,
                          std::vector<int32_t>* suffix) {
  prefix->clear();
  suffix->clear();
  if (post.is_null()) return Status::Ok();
  std::string type = post.is_object() ? post.value("type", "") : "";
  auto by_name = [&](const json& pair, std::vector<int32_t>* out) -> Status {
    if (!pair.is_array() || pair.size() != 2 || !pair[1].is_number_integer()) return Corrupt(type + ": bad special token");
    out->push_back(pair[1].get<int32_t>());
    return Status::Ok();
  };
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    SWE_RETURN_IF_ERROR(by_name(post.value("cls", json()), prefix));
    return by_name(post.value("sep", json()), suffix);
  }
  if (type != "TemplateProcessing") {
    return Unsupported("post_processor type '" + type + "' (supported: TemplateProcessing, RobertaProcessing, BertProcessing)");
  }
  const json& single = post.value("single", json());
  if (!single.is_array()) return Corrupt("TemplateProcessing without a 'single' template");
  bool seen_sequence = false;
  for (const json& item : single) {
    if (item.contains("Sequence")) {
      if (seen_sequence) return Corrupt("TemplateProcessing: the single template names the sequence twice");
      seen_sequence = true;
      continue;
    }
    if (!item.contains("SpecialToken") || !item["SpecialToken"].contains("id")) {
      return Corrupt("TemplateProcessing: an item is neither Sequence nor SpecialToken");
    }
    std::string name = item["SpecialToken"]["id"].get<std::string>();
    const json& specials = post.value("special_tokens", json::object());
    std::vector<int32_t>* out = seen_sequence ? suffix : prefix;
    if (specials.contains(name) && specials[name].contains("ids") && specials[name]["ids"].is_array()) {
      for (const json& id : specials[name]["ids"]) out->push_back(id.get<int32_t>());
    } else if (tok.Find(name) >= 0) {
      out->push_back(tok.Find(name));
    } else {
      return Corrupt("TemplateProcessing: special token '" + name + "' has no id");
    }
  }
  if (!seen_sequence) return Corrupt("TemplateProcessing: the single template has no $A");
  return Status::Ok();
}

}  // namespace

Status UnigramTokenizer::Load(const std::string& path, UnigramTokenizer* out) {
  return LoadTokenizerFile(path, [out](std::string_view text) { return FromJson(text, out); });
}

Status UnigramTokenizer::FromJson(std::string_view text, UnigramTokenizer* out) {
  return ReadTokenizerJson(text, [out](const json& j) { return FromJsonObject(j, out); });
}

Status UnigramTokenizer::FromJsonObject(const json& j, UnigramTokenizer* out) {
  UnigramTokenizer t;
  const json& model = j.value("model", json());
  std::string type = model.is_object() ? model.value("type", "") : "";
  if (type != "Unigram") return Unsupported("tokenizer.json: model type '" + type + "' (only Unigram is supported)");
  if (model.value("byte_fallback", false)) return Unsupported("tokenizer.json: Unigram byte_fallback is not supported");
  const json& vocab = model.value("vocab", json());
  if (!vocab.is_array() || vocab.empty() || vocab.size() > (1u << 24)) {
    return Corrupt("tokenizer.json: model.vocab missing, empty or too large");
  }
  t.trie_value_.push_back(-1);
  t.min_score_ = INFINITY;
  for (size_t i = 0; i < vocab.size(); ++i) {
    const json& e = vocab[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
      return Corrupt("tokenizer.json: vocab entry " + std::to_string(i) + " is not [piece, score]");
    }
    std::string piece = e[0].get<std::string>();
    double score = e[1].get<double>();
    if (piece.empty() || !unicode::IsValidUtf8(piece) || !std::isfinite(score)) {
      return Corrupt("tokenizer.json: vocab entry " + std::to_string(i) + " has an empty or invalid piece or score");
    }
    auto id = static_cast<int32_t>(i);
    t.pieces_.push_back(piece);
    t.scores_.push_back(score);
    t.ids_[piece] = id;
    t.min_score_ = std::min(t.min_score_, score);
    int32_t node = 0;
    for (unsigned char c : piece) {
      auto [it, added] = t.trie_.emplace((static_cast<uint64_t>(node) << 8) | c, static_cast<int32_t>(t.trie_value_.size()));
      if (added) t.trie_value_.push_back(-1);
      node = it->second;
    }
    t.trie_value_[node] = id;
  }
  t.max_id_ = static_cast<int32_t>(vocab.size()) - 1;
  const json& unk = model.value("unk_id", json());
  if (!unk.is_number_unsigned() || unk.get<uint64_t>() >= vocab.size()) {
    return Corrupt("tokenizer.json: the Unigram model needs an unk_id inside its vocab");
  }
  t.unk_ = unk.get<int32_t>();
  t.pad_ = std::max(0, t.Find("<pad>"));

  SWE_RETURN_IF_ERROR(HfNormalizer::FromJson(j.value("normalizer", json()), &t.normalizer_));
  SWE_RETURN_IF_ERROR(HfPreTokenizer::FromJson(j.value("pre_tokenizer", json()), &t.pre_tokenizer_));
  SWE_RETURN_IF_ERROR(ParsePostProcessor(j.value("post_processor", json()), t, &t.prefix_, &t.suffix_));
  for (int32_t id : t.prefix_) t.max_id_ = std::max(t.max_id_, id);
  for (int32_t id : t.suffix_) t.max_id_ = std::max(t.max_id_, id);

  const json& added = j.value("added_tokens", json::array());
  if (!added.is_array()) return Corrupt("tokenizer.json: added_tokens is not a list");
  for (const json& a : added) {
    if (!a.is_object() || !a.contains("id") || !a["id"].is_number_unsigned() || !a.contains("content") ||
        !a["content"].is_string() || a["content"].get<std::string>().empty()) {
      return Corrupt("tokenizer.json: an added token needs an id and a non-empty content");
    }
    Added token{a["content"].get<std::string>(), a["id"].get<int32_t>(), a.value("single_word", false),
                a.value("lstrip", false), a.value("rstrip", false)};
    if (!unicode::IsValidUtf8(token.content)) return Corrupt("tokenizer.json: an added token is not valid UTF-8");
    t.max_id_ = std::max(t.max_id_, token.id);
    AddedSet* set = &t.added_raw_;
    if (a.value("normalized", !a.value("special", false))) {
      HfText content = HfText::FromOriginal(token.content, 0, static_cast<uint32_t>(token.content.size()));
      t.normalizer_.Apply(&content);
      if (content.text.empty()) continue;  // HF cannot match an empty pattern either
      token.content = content.text;
      set = &t.added_normalized_;
    }
    set->first_byte[static_cast<unsigned char>(token.content[0])] = true;
    set->tokens.push_back(std::move(token));
  }
  *out = std::move(t);
  return Status::Ok();
}

void UnigramTokenizer::SplitAdded(const AddedSet& set, const HfText& t, std::vector<Piece>* out) {
  out->clear();
  const std::string& s = t.text;
  size_t done = 0;  // end of the last match
  for (size_t i = 0; i < s.size();) {
    const Added* best = nullptr;
    if (set.first_byte[static_cast<unsigned char>(s[i])]) {
      for (const Added& a : set.tokens) {
        if ((!best || a.content.size() > best->content.size()) && s.compare(i, a.content.size(), a.content) == 0) best = &a;
      }
    }
    if (!best) {
      i += CharLength(static_cast<unsigned char>(s[i]));
      continue;
    }
    size_t start = i, stop = i + best->content.size();
    i = stop;  // matches do not overlap, a discarded one included (Aho-Corasick's iteration)
    if (best->single_word) {
      size_t pos = stop;
      bool word_before = start > 0 && IsWordChar(PreviousChar(s, start, nullptr));
      bool word_after = stop < s.size() && IsWordChar(unicode::DecodeNext(s, &pos));
      if (word_before || word_after) continue;
    }
    if (best->lstrip) {
      size_t before = 0;
      while (start > done && HfIsWhitespace(PreviousChar(s, start, &before))) start = std::max(before, done);
    }
    if (best->rstrip) {
      for (size_t pos = stop; pos < s.size() && HfIsWhitespace(unicode::DecodeNext(s, &pos));) stop = pos;
    }
    if (done < start) out->push_back({t.Slice(done, start), -1});
    out->push_back({t.Slice(start, stop), best->id});
    done = stop;
  }
  if (done < s.size() || s.empty()) out->push_back({t.Slice(done, s.size()), -1});
}

void UnigramTokenizer::PrefixMatches(std::string_view s, size_t at, std::vector<std::pair<int32_t, size_t>>* out) const {
  out->clear();
  int32_t node = 0;
  for (size_t i = at; i < s.size(); ++i) {
    auto it = trie_.find((static_cast<uint64_t>(node) << 8) | static_cast<unsigned char>(s[i]));
    if (it == trie_.end()) return;
    node = it->second;
    if (trie_value_[node] >= 0) out->push_back({trie_value_[node], i + 1 - at});
  }
}

void UnigramTokenizer::Model(const HfText& piece, std::vector<TeacherToken>* out) const {
  // HF's Unigram::encode_optimized (SentencePiece's EncodeOptimized).
  const std::string& s = piece.text;
  struct Node {
    int32_t id = -1;
    double score = 0;
    int64_t start = -1;
  };
  std::vector<Node> best(s.size() + 1);
  std::vector<std::pair<int32_t, size_t>> matches;
  const double unk_score = min_score_ - kUnkPenalty;
  for (size_t at = 0; at < s.size();) {
    const double here = best[at].score;
    const size_t len = CharLength(static_cast<unsigned char>(s[at]));
    bool single = false;
    PrefixMatches(s, at, &matches);
    auto offer = [&](size_t end, int32_t id, double score) {
      Node& n = best[end];
      if (n.start < 0 || score + here > n.score) n = {id, score + here, static_cast<int64_t>(at)};
    };
    for (auto [id, bytes] : matches) {
      offer(at + bytes, id, scores_[id]);
      single = single || bytes == len;
    }
    if (!single) offer(std::min(at + len, s.size()), unk_, unk_score);
    at += len;
  }
  // Backtrack; consecutive <unk> nodes become one token. Ids by the piece's text, as HF looks them up.
  std::vector<std::pair<size_t, size_t>> spans;
  size_t end = s.size(), unk_end = 0;
  bool in_unk = false;
  while (end > 0) {
    const Node& n = best[end];
    size_t start = static_cast<size_t>(n.start);
    if (n.id == unk_) {
      if (!in_unk) unk_end = end;
      in_unk = true;
    } else {
      if (in_unk) spans.push_back({end, unk_end});
      in_unk = false;
      spans.push_back({start, end});
    }
    end = start;
  }
  if (in_unk) spans.push_back({0, unk_end});
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    int32_t id = Find(std::string_view(s).substr(it->first, it->second - it->first));
    ByteRange r = piece.Original(it->first, it->second);
    out->push_back({id < 0 ? unk_ : id, r.first, r.second});
  }
}

void UnigramTokenizer::Tokenize(std::string_view text, std::vector<TeacherToken>* out) const {
  out->clear();
  HfText raw = HfText::FromOriginal(text, 0, static_cast<uint32_t>(text.size()));
  std::vector<Piece> outer, inner;
  std::vector<HfText> pieces;
  SplitAdded(added_raw_, raw, &outer);
  for (Piece& p : outer) {
    if (p.id >= 0) {
      ByteRange r = p.text.Original(0, p.text.text.size());
      out->push_back({p.id, r.first, r.second});
      continue;
    }
    normalizer_.Apply(&p.text);
    SplitAdded(added_normalized_, p.text, &inner);
    for (Piece& q : inner) {
      if (q.id >= 0) {
        ByteRange r = q.text.Original(0, q.text.text.size());
        out->push_back({q.id, r.first, r.second});
        continue;
      }
      pre_tokenizer_.Apply(std::move(q.text), &pieces);
      for (const HfText& piece : pieces) Model(piece, out);
    }
  }
}

void UnigramTokenizer::Encode(std::string_view text, uint32_t max_tokens, std::vector<TeacherToken>* out) const {
  std::vector<TeacherToken> tokens;
  Tokenize(text, &tokens);
  const size_t specials = prefix_.size() + suffix_.size();
  if (max_tokens > 0 && tokens.size() + specials > max_tokens) {
    tokens.resize(max_tokens > specials ? max_tokens - specials : 0);
  }
  out->clear();
  for (int32_t id : prefix_) out->push_back({id, 0, 0});
  out->insert(out->end(), tokens.begin(), tokens.end());
  for (int32_t id : suffix_) out->push_back({id, 0, 0});
}

std::string UnigramTokenizer::Normalize(std::string_view text) const {
  HfText t = HfText::FromOriginal(text, 0, static_cast<uint32_t>(text.size()));
  normalizer_.Apply(&t);
  return t.text;
}

SubwordVocab UnigramTokenizer::ToSubwordVocab() const {
  std::unordered_set<int32_t> special;
  for (const AddedSet* set : {&added_raw_, &added_normalized_}) {
    for (const Added& a : set->tokens) special.insert(a.id);
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    auto id = static_cast<int32_t>(i);
    if (special.count(id) || id == unk_ || Find(pieces_[i]) != id) continue;  // a duplicate: its last id only
    kept.push_back(i);
  }
  return SentencePieceSubwordVocab(pieces_, scores_, kept);
}

}  // namespace swe::trainer
