#include "wordpiece.h"

#include <nlohmann/json.hpp>

#include "bert_unicode.h"
#include "swe/unicode.h"

namespace swe::trainer {
namespace bu = bert_unicode;
using nlohmann::json;

namespace {

bool GetBool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

// The id of a special token named in a post_processor, or -1.
int32_t SpecialId(const json& post, const std::string& role, const BertTokenizer& tok) {
  if (!post.is_object()) return -1;
  std::string type = post.value("type", "");
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    auto it = post.find(role == "cls" ? "cls" : "sep");
    if (it != post.end() && it->is_array() && it->size() == 2 && (*it)[1].is_number_integer()) {
      return (*it)[1].get<int32_t>();
    }
  }
  if (type == "TemplateProcessing") {
    auto single = post.find("single");
    auto specials = post.find("special_tokens");
    if (single == post.end() || !single->is_array() || single->empty()) return -1;
    const json& item = role == "cls" ? single->front() : single->back();
    if (!item.contains("SpecialToken")) return -1;
    std::string name = item["SpecialToken"].value("id", "");
    if (specials != post.end() && specials->contains(name)) {
      const json& ids = (*specials)[name]["ids"];
      if (ids.is_array() && ids.size() == 1 && ids[0].is_number_integer()) return ids[0].get<int32_t>();
    }
    return tok.Find(name);
  }
  return -1;
}

}  // namespace

Status BertTokenizer::Load(const std::string& path, BertTokenizer* out) {
  return LoadTokenizerFile(path, [out](std::string_view text) { return FromJson(text, out); });
}

Status BertTokenizer::FromJson(std::string_view text, BertTokenizer* out) {
  return ReadTokenizerJson(text, [out](const json& j) { return FromJsonObject(j, out); });
}

Status BertTokenizer::FromJsonObject(const json& j, BertTokenizer* out) {
  BertTokenizer t;
  const json& model = j.contains("model") ? j["model"] : json();
  if (!model.is_object() || model.value("type", "") != "WordPiece") {
    return Unsupported("tokenizer.json: only WordPiece models are supported");
  }
  const json& vocab = model.contains("vocab") ? model["vocab"] : json();
  if (!vocab.is_object() || vocab.empty()) return Corrupt("tokenizer.json: model.vocab missing or empty");
  t.pieces_.assign(vocab.size(), std::string());
  t.max_id_ = static_cast<int32_t>(vocab.size()) - 1;
  std::vector<bool> used(vocab.size(), false);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<uint64_t>() >= vocab.size()) {
      return Corrupt("tokenizer.json: vocabulary ids must be 0..size-1");
    }
    auto id = it.value().get<uint32_t>();
    if (used[id]) return Corrupt("tokenizer.json: duplicate vocabulary id " + std::to_string(id));
    if (it.key().empty() || !unicode::IsValidUtf8(it.key())) return Corrupt("tokenizer.json: bad vocabulary piece");
    used[id] = true;
    t.pieces_[id] = it.key();
    t.ids_.emplace(it.key(), static_cast<int32_t>(id));
  }
  t.config_.continuation_prefix = model.value("continuing_subword_prefix", std::string("##"));
  t.config_.max_input_chars_per_word = model.value("max_input_chars_per_word", 100u);
  t.unk_ = t.Find(model.value("unk_token", std::string("[UNK]")));
  if (t.unk_ < 0) return Corrupt("tokenizer.json: the unk_token is not in the vocabulary");

  const json& norm = j.contains("normalizer") ? j["normalizer"] : json();
  if (norm.is_null()) {
    t.config_.clean_text = t.config_.handle_chinese_chars = t.config_.strip_accents = t.config_.lowercase = false;
  } else if (norm.is_object() && norm.value("type", "") == "BertNormalizer") {
    t.config_.clean_text = GetBool(norm, "clean_text", true);
    t.config_.handle_chinese_chars = GetBool(norm, "handle_chinese_chars", true);
    t.config_.lowercase = GetBool(norm, "lowercase", true);
    t.config_.strip_accents = GetBool(norm, "strip_accents", t.config_.lowercase);
  } else {
    return Unsupported("tokenizer.json: only the BertNormalizer (or none) is supported");
  }
  const json& pre = j.contains("pre_tokenizer") ? j["pre_tokenizer"] : json();
  if (!pre.is_object() || pre.value("type", "") != "BertPreTokenizer") {
    return Unsupported("tokenizer.json: only the BertPreTokenizer is supported");
  }
  const json& post = j.contains("post_processor") ? j["post_processor"] : json();
  t.cls_ = SpecialId(post, "cls", t);
  t.sep_ = SpecialId(post, "sep", t);
  if (t.cls_ < 0) t.cls_ = t.Find("[CLS]");
  if (t.sep_ < 0) t.sep_ = t.Find("[SEP]");
  if (t.cls_ < 0 || t.sep_ < 0 || t.cls_ >= static_cast<int32_t>(t.pieces_.size()) ||
      t.sep_ >= static_cast<int32_t>(t.pieces_.size())) {
    return Corrupt("tokenizer.json: cannot find the [CLS] and [SEP] tokens");
  }
  t.pad_ = t.Find("[PAD]");
  if (j.contains("padding") && j["padding"].is_object() && j["padding"].contains("pad_id") &&
      j["padding"]["pad_id"].is_number_integer()) {
    t.pad_ = j["padding"]["pad_id"].get<int32_t>();
  }
  if (t.pad_ < 0 || t.pad_ >= static_cast<int32_t>(t.pieces_.size())) t.pad_ = 0;
  const json& added = j.contains("added_tokens") ? j["added_tokens"] : json();
  if (!added.is_null() && !added.is_array()) return Corrupt("tokenizer.json: added_tokens is not an array");
  for (const json& a : added.is_array() ? added : json::array()) {
    if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id") ||
        !a["id"].is_number_unsigned() || a["id"].get<uint64_t>() > 0x7fffffffu) {
      return Corrupt("tokenizer.json: bad added_tokens entry");
    }
    std::string content = a["content"].get<std::string>();
    if (!unicode::IsValidUtf8(content)) return Corrupt("tokenizer.json: bad added token");
    Added token{{}, a["id"].get<int32_t>(), GetBool(a, "single_word", false), GetBool(a, "lstrip", false),
                GetBool(a, "rstrip", false)};
    bool normalized = GetBool(a, "normalized", !GetBool(a, "special", false));
    if (normalized) {
      std::vector<NormChar> chars;
      t.NormalizeChars(content, 0, &chars);
      for (const NormChar& c : chars) token.content.push_back(c.c);
    } else {
      for (size_t pos = 0; pos < content.size();) token.content.push_back(unicode::DecodeNext(content, &pos));
    }
    if (token.content.empty()) continue;  // Hugging Face ignores empty added tokens
    t.max_id_ = std::max(t.max_id_, token.id);
    (normalized ? t.added_normalized_ : t.added_raw_)[token.content[0]].push_back(std::move(token));
  }
  *out = std::move(t);
  return Status::Ok();
}

void BertTokenizer::NormalizeChars(std::string_view text, uint32_t base, std::vector<NormChar>* out) const {
  out->clear();
  std::u32string tmp, low;
  size_t pos = 0;
  while (pos < text.size()) {
    uint32_t begin = base + static_cast<uint32_t>(pos);
    char32_t c = unicode::DecodeNext(text, &pos);
    uint32_t end = base + static_cast<uint32_t>(pos);
    if (config_.clean_text) {
      if (c == 0 || c == 0xFFFD || bu::IsControl(c)) continue;
      if (bu::IsWhitespace(c)) c = ' ';
    }
    bool chinese = config_.handle_chinese_chars && bu::IsChineseChar(c);
    if (chinese) out->push_back({' ', begin, end});
    tmp.clear();
    if (config_.strip_accents) {
      bu::AppendNfd(c, &tmp);
    } else {
      tmp.push_back(c);
    }
    for (char32_t d : tmp) {
      if (config_.strip_accents && bu::IsNonspacingMark(d)) continue;
      if (config_.lowercase) {
        low.clear();
        bu::AppendLower(d, &low);
        for (char32_t l : low) out->push_back({l, begin, end});
      } else {
        out->push_back({d, begin, end});
      }
    }
    if (chinese) out->push_back({' ', begin, end});
  }
}

std::string BertTokenizer::Normalize(std::string_view text) const {
  std::vector<NormChar> chars;
  NormalizeChars(text, 0, &chars);
  std::string s;
  for (const NormChar& c : chars) unicode::AppendUtf8(c.c, &s);
  return s;
}

void BertTokenizer::WordPiece(const NormChar* chars, size_t n, std::vector<TeacherToken>* out) const {
  if (n == 0) return;
  if (n > config_.max_input_chars_per_word) {
    out->push_back({unk_, chars[0].begin, chars[n - 1].end});
    return;
  }
  // Byte offset of each char in the UTF-8 form of the word.
  std::string word;
  std::vector<size_t> at(n + 1);
  for (size_t i = 0; i < n; ++i) {
    at[i] = word.size();
    unicode::AppendUtf8(chars[i].c, &word);
  }
  at[n] = word.size();
  size_t first = out->size();
  std::string piece;
  for (size_t start = 0; start < n;) {
    size_t end = n;
    int32_t found = -1;
    for (; end > start; --end) {
      piece.assign(start > 0 ? config_.continuation_prefix : std::string());
      piece.append(word, at[start], at[end] - at[start]);
      auto it = ids_.find(piece);
      if (it != ids_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      out->resize(first);
      out->push_back({unk_, chars[0].begin, chars[n - 1].end});
      return;
    }
    out->push_back({found, chars[start].begin, chars[end - 1].end});
    start = end;
  }
}

void BertTokenizer::PreTokenize(const NormChar* chars, size_t n, std::vector<TeacherToken>* out) const {
  size_t start = 0;
  for (size_t i = 0; i <= n; ++i) {
    bool at_end = i == n;
    bool space = !at_end && bu::IsWhitespace(chars[i].c);
    bool punct = !at_end && !space && bu::IsPunctuation(chars[i].c);
    if (at_end || space || punct) {
      WordPiece(chars + start, i - start, out);
      if (punct) WordPiece(chars + i, 1, out);
      start = i + 1;
    }
  }
}

namespace {
// Rust's char::is_alphanumeric() or '_' (single_word's word characters), approximated with the BERT
// tables: ASCII letters, digits and '_', and any non-ASCII character that is not whitespace,
// punctuation or a control/format character.
bool IsWordChar(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return !bu::IsWhitespace(c) && !bu::IsPunctuation(c) && !bu::IsControl(c);
}
}  // namespace

void BertTokenizer::SplitAdded(const AddedSet& set, const NormChar* chars, size_t n, std::vector<Split>* out) {
  out->clear();
  size_t done = 0;  // end of the last match
  for (size_t i = 0; i < n;) {
    const Added* best = nullptr;
    auto it = set.find(chars[i].c);
    if (it != set.end()) {
      for (const Added& a : it->second) {
        size_t len = a.content.size();
        if ((best && len <= best->content.size()) || len > n - i) continue;
        size_t k = 1;
        while (k < len && chars[i + k].c == a.content[k]) ++k;
        if (k == len) best = &a;
      }
    }
    if (!best) {
      ++i;
      continue;
    }
    size_t start = i, stop = i + best->content.size();
    i = stop;  // matches do not overlap, a discarded one included (Aho-Corasick's iteration)
    if (best->single_word && ((start > 0 && IsWordChar(chars[start - 1].c)) || (stop < n && IsWordChar(chars[stop].c)))) {
      continue;
    }
    if (best->lstrip) {
      while (start > done && bu::IsWhitespace(chars[start - 1].c)) --start;
    }
    if (best->rstrip) {
      while (stop < n && bu::IsWhitespace(chars[stop].c)) ++stop;
      i = stop;
    }
    if (done < start) out->push_back({done, start, -1});
    out->push_back({start, stop, best->id});
    done = stop;
  }
  if (done < n) out->push_back({done, n, -1});
}

void BertTokenizer::Tokenize(std::string_view text, std::vector<TeacherToken>* out) const {
  out->clear();
  std::vector<NormChar> chars;
  if (added_raw_.empty() && added_normalized_.empty()) {
    NormalizeChars(text, 0, &chars);
    PreTokenize(chars.data(), chars.size(), out);
    return;
  }
  // 1. Added tokens matched on the original text (normalized = false), 2. on the normalised text of
  // what lies between them (normalized = true), 3. pre-tokenizer and WordPiece on the rest.
  std::vector<NormChar> raw;
  for (size_t pos = 0; pos < text.size();) {
    auto begin = static_cast<uint32_t>(pos);
    char32_t c = unicode::DecodeNext(text, &pos);
    raw.push_back({c, begin, static_cast<uint32_t>(pos)});
  }
  std::vector<Split> outer, inner;
  SplitAdded(added_raw_, raw.data(), raw.size(), &outer);
  for (const Split& s : outer) {
    if (s.id >= 0) {
      out->push_back({s.id, raw[s.begin].begin, raw[s.end - 1].end});
      continue;
    }
    uint32_t begin = raw[s.begin].begin, end = raw[s.end - 1].end;
    NormalizeChars(text.substr(begin, end - begin), begin, &chars);
    SplitAdded(added_normalized_, chars.data(), chars.size(), &inner);
    for (const Split& p : inner) {
      if (p.id >= 0) {
        out->push_back({p.id, chars[p.begin].begin, chars[p.end - 1].end});
      } else {
        PreTokenize(chars.data() + p.begin, p.end - p.begin, out);
      }
    }
  }
}

SubwordVocab BertTokenizer::ToSubwordVocab() const {
  SubwordVocab v;
  v.kind = SubwordKind::kWordPiece;
  v.pieces = pieces_;
  v.continuation_prefix = config_.continuation_prefix;
  v.lowercase = config_.lowercase;
  v.strip_accents = config_.strip_accents;
  return v;
}

}  // namespace swe::trainer
