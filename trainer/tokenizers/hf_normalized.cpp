#include "hf_normalized.h"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "swe/unicode.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

size_t Utf8Length(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

std::vector<char32_t> Decode(std::string_view s) {
  std::vector<char32_t> chars;
  for (size_t pos = 0; pos < s.size();) chars.push_back(unicode::DecodeNext(s, &pos));
  return chars;
}

// Extended grapheme cluster boundaries of valid UTF-8 `s` (byte offsets, 0 and s.size() included), as
// the unicode-segmentation crate gives them to HF's Precompiled normalizer; every character boundary
// when ICU cannot segment.
std::vector<size_t> GraphemeBoundaries(const std::string& s) {
  std::vector<size_t> cuts;
  UErrorCode err = U_ZERO_ERROR;
  thread_local std::unique_ptr<UBreakIterator, void (*)(UBreakIterator*)> iterator(
      ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &err), ubrk_close);
  UBreakIterator* it = iterator.get();
  UText* text = utext_openUTF8(nullptr, s.data(), static_cast<int64_t>(s.size()), &err);
  if (it) ubrk_setUText(it, text, &err);
  if (it && U_SUCCESS(err)) {
    for (int32_t b = ubrk_first(it); b != UBRK_DONE; b = ubrk_next(it)) cuts.push_back(static_cast<size_t>(b));
  } else {
    for (size_t pos = 0; pos < s.size(); unicode::DecodeNext(s, &pos)) cuts.push_back(pos);
    cuts.push_back(s.size());
  }
  utext_close(text);
  if (cuts.empty() || cuts.front() != 0) cuts.insert(cuts.begin(), 0);
  if (cuts.back() != s.size()) cuts.push_back(s.size());
  return cuts;
}

// HF's precompiled.rs `replace`: the new characters, the last ones marked inserted when the
// replacement is longer, the last transformation absorbing the removed ones when it is shorter.
void PushReplacement(std::vector<std::pair<char32_t, int>>* dest, std::string_view old_part, std::string_view new_part) {
  int old_count = static_cast<int>(unicode::CountCodePoints(old_part));
  std::vector<char32_t> chars = Decode(new_part);
  for (char32_t c : chars) dest->push_back({c, 0});
  int diff = static_cast<int>(chars.size()) - old_count;
  if (diff > 0) {
    for (int i = 0; i < diff; ++i) (*dest)[dest->size() - 1 - i].second = 1;
  } else if (diff < 0 && !dest->empty()) {
    dest->back().second += diff;
  }
}

}  // namespace

bool HfIsWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

HfText HfText::FromOriginal(std::string_view original, uint32_t begin, uint32_t end) {
  HfText t;
  t.original_begin = begin;
  std::string_view part = original.substr(begin, end - begin);
  for (size_t pos = 0; pos < part.size();) {
    size_t start = pos;
    char32_t c = unicode::DecodeNext(part, &pos);
    unicode::AppendUtf8(c, &t.text);
    t.align.resize(t.text.size(), {begin + static_cast<uint32_t>(start), begin + static_cast<uint32_t>(pos)});
  }
  return t;
}

HfText HfText::Slice(size_t begin, size_t end) const {
  HfText s;
  s.text = text.substr(begin, end - begin);
  s.align.assign(align.begin() + begin, align.begin() + end);
  s.original_begin = begin < end ? align[begin].first : original_begin;
  return s;
}

ByteRange HfText::Original(size_t begin, size_t end) const {
  if (begin >= end || end > align.size()) return {original_begin, original_begin};
  return {align[begin].first, align[end - 1].second};
}

void HfTransform(HfText* t, size_t begin, size_t end, const std::vector<std::pair<char32_t, int>>& dest,
                 size_t initial_offset) {
  std::vector<char32_t> old = Decode(std::string_view(t->text).substr(begin, end - begin));
  size_t next = 0, offset = begin;
  for (; next < initial_offset && next < old.size(); ++next) offset += Utf8Length(old[next]);
  std::string text;
  std::vector<ByteRange> align;
  const ByteRange none{0, 0};
  auto at = [&](size_t i) { return t->align.empty() ? none : t->align[std::min(i, t->align.size() - 1)]; };
  for (auto [c, change] : dest) {
    ByteRange a = change > 0 ? (offset < 1 ? none : at(offset - 1)) : at(offset);
    if (change <= 0 && next < old.size()) offset += Utf8Length(old[next++]);
    for (int k = 0; k < -change && next < old.size(); ++k) offset += Utf8Length(old[next++]);
    size_t before = text.size();
    unicode::AppendUtf8(c, &text);
    align.resize(align.size() + (text.size() - before), a);
  }
  t->text.replace(begin, end - begin, text);
  t->align.erase(t->align.begin() + begin, t->align.begin() + end);
  t->align.insert(t->align.begin() + begin, align.begin(), align.end());
}

static void ReplaceRanges(const std::vector<ByteRange>& ranges, const std::string& content, HfText* t) {
  // HF's NormalizedString::replace: transform_range(match, content as inserted characters, the
  // match's characters removed first), so every new character takes the alignment of the match's last
  // byte. One pass (ranges sorted, disjoint) instead of one transform per match.
  if (ranges.empty()) return;
  HfText out;
  out.original_begin = t->original_begin;
  size_t done = 0;
  for (const ByteRange& r : ranges) {
    out.text.append(t->text, done, r.first - done);
    out.align.insert(out.align.end(), t->align.begin() + done, t->align.begin() + r.first);
    out.text += content;
    out.align.resize(out.text.size(), t->align[r.second - 1]);
    done = r.second;
  }
  out.text.append(t->text, done, std::string::npos);
  out.align.insert(out.align.end(), t->align.begin() + done, t->align.end());
  *t = std::move(out);
}

// ---- normalizers ----

// A regex that repeats one ASCII character: `c`, `c+`, `c{n}`, `c{n,}`, `c{n,m}` with n >= 1 (a regex
// that can match the empty string inserts its content everywhere in HF: not supported); `c` may be
// escaped (`\.`). Real T5 / mT5 / XLM-R files use " {2,}".
Status HfNormalizer::ParseRepeat(const std::string& pattern, Step* step) {
  auto unsupported = [&] { return Unsupported("Replace normalizer: regex '" + pattern + "' (only one repeated ASCII character)"); };
  size_t at = 0;
  if (pattern.size() >= 2 && pattern[0] == '\\') at = 1;
  if (pattern.empty() || static_cast<unsigned char>(pattern[at]) >= 0x80) return unsupported();
  char c = pattern[at];
  if (at == 0 && std::string_view(".[](){}*+?|^$\\").find(c) != std::string_view::npos) return unsupported();
  if (at == 1 && std::isalnum(static_cast<unsigned char>(c))) return unsupported();  // \s, \d, ...: classes
  step->repeat = c;
  std::string q = pattern.substr(at + 1);
  size_t lo = 1, hi = 1;
  if (q == "+") {
    hi = SIZE_MAX;
  } else if (!q.empty()) {
    unsigned long a = 0, b = 0;
    int used = 0;
    if (std::sscanf(q.c_str(), "{%lu,%lu}%n", &a, &b, &used) == 2 && used == static_cast<int>(q.size()) && a <= b) {
      lo = a, hi = b;
    } else if (std::sscanf(q.c_str(), "{%lu,}%n", &a, &used) == 1 && used == static_cast<int>(q.size())) {
      lo = a, hi = SIZE_MAX;
    } else if (std::sscanf(q.c_str(), "{%lu}%n", &a, &used) == 1 && used == static_cast<int>(q.size())) {
      lo = hi = a;
    } else {
      return unsupported();
    }
  }
  if (lo == 0) return unsupported();
  step->regex = true;
  step->min_run = lo;
  step->max_run = hi;
  return Status::Ok();
}

Status HfNormalizer::FromJson(const json& j, HfNormalizer* out) {
  out->steps_.clear();
  if (j.is_null()) return Status::Ok();
  return ParseStep(j, &out->steps_);
}

Status HfNormalizer::ParseStep(const json& j, std::vector<Step>* out) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return Corrupt("a normalizer has no type");
  const std::string type = j["type"].get<std::string>();
  Step step;
  if (type == "Sequence") {
    if (!j.contains("normalizers") || !j["normalizers"].is_array()) return Corrupt("Sequence normalizer without a list");
    for (const json& n : j["normalizers"]) SWE_RETURN_IF_ERROR(ParseStep(n, out));
    return Status::Ok();
  } else if (type == "Precompiled") {
    if (!j.contains("precompiled_charsmap") || !j["precompiled_charsmap"].is_string()) {
      return Corrupt("Precompiled normalizer without a precompiled_charsmap string");
    }
    auto map = std::make_shared<PrecompiledCharsmap>();
    SWE_RETURN_IF_ERROR(PrecompiledCharsmap::FromBase64(j["precompiled_charsmap"].get<std::string>(), map.get()));
    step.kind = Step::kPrecompiled;
    step.charsmap = std::move(map);
  } else if (type == "Replace") {
    step.kind = Step::kReplace;
    const json& p = j.value("pattern", json());
    if (!j.contains("content") || !j["content"].is_string() || !p.is_object()) {
      return Corrupt("Replace normalizer needs a pattern and a content string");
    }
    step.content = j["content"].get<std::string>();
    if (p.contains("String") && p["String"].is_string()) {
      step.pattern = p["String"].get<std::string>();
      if (step.pattern.empty()) return Corrupt("Replace normalizer with an empty pattern");
    } else if (p.contains("Regex") && p["Regex"].is_string()) {
      step.pattern = p["Regex"].get<std::string>();
      SWE_RETURN_IF_ERROR(ParseRepeat(step.pattern, &step));
    } else {
      return Corrupt("Replace normalizer: pattern is neither String nor Regex");
    }
  } else if (type == "Strip") {
    step.kind = Step::kStrip;
    step.left = j.value("strip_left", j.value("left", false));
    step.right = j.value("strip_right", j.value("right", false));
  } else {
    return Unsupported("normalizer type '" + type + "' (supported: Sequence, Precompiled, Replace, Strip)");
  }
  out->push_back(std::move(step));
  return Status::Ok();
}

void HfNormalizer::Precompiled(const PrecompiledCharsmap& map, HfText* t) {
  // HF's precompiled.rs: a grapheme shorter than 6 bytes is looked up whole; otherwise, or when that
  // fails, each of its characters is.
  std::vector<std::pair<char32_t, int>> dest;
  bool modified = false;
  const std::string& s = t->text;
  std::vector<size_t> cuts = GraphemeBoundaries(s);
  for (size_t g = 0; g + 1 < cuts.size(); ++g) {
    std::string_view grapheme(s.data() + cuts[g], cuts[g + 1] - cuts[g]);
    if (grapheme.size() < 6) {
      if (auto norm = map.Transform(grapheme)) {
        modified = true;
        PushReplacement(&dest, grapheme, *norm);
        continue;
      }
    }
    for (size_t pos = 0; pos < grapheme.size();) {
      size_t start = pos;
      char32_t c = unicode::DecodeNext(grapheme, &pos);
      std::string_view part = grapheme.substr(start, pos - start);
      if (auto norm = map.Transform(part)) {
        modified = true;
        PushReplacement(&dest, part, *norm);
      } else {
        dest.push_back({c, 0});
      }
    }
  }
  if (modified) HfTransform(t, 0, t->text.size(), dest, 0);
}

void HfNormalizer::Replace(const Step& step, HfText* t) {
  std::vector<ByteRange> matches;
  if (step.regex) {
    const std::string& x = t->text;
    for (size_t at = 0; at < x.size();) {
      if (x[at] != step.repeat) {
        ++at;
        continue;
      }
      size_t run = 0;
      while (at + run < x.size() && x[at + run] == step.repeat && run < step.max_run) ++run;
      if (run >= step.min_run) matches.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(at + run)});
      at += run;
    }
  } else {
    for (size_t at = t->text.find(step.pattern); at != std::string::npos; at = t->text.find(step.pattern, at + step.pattern.size())) {
      matches.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(at + step.pattern.size())});
    }
  }
  ReplaceRanges(matches, step.content, t);
}

void HfNormalizer::Apply(HfText* t) const {
  for (const Step& step : steps_) {
    if (step.kind == Step::kPrecompiled) {
      Precompiled(*step.charsmap, t);
    } else if (step.kind == Step::kReplace) {
      Replace(step, t);
    } else {
      std::vector<char32_t> chars = Decode(t->text);
      size_t lead = 0, trail = 0, lead_bytes = 0, trail_bytes = 0;
      while (step.left && lead < chars.size() && HfIsWhitespace(chars[lead])) lead_bytes += Utf8Length(chars[lead++]);
      while (step.right && lead + trail < chars.size() && HfIsWhitespace(chars[chars.size() - 1 - trail])) {
        trail_bytes += Utf8Length(chars[chars.size() - 1 - trail++]);
      }
      HfText kept = t->Slice(lead_bytes, t->text.size() - trail_bytes);
      kept.original_begin = t->original_begin;
      *t = std::move(kept);
    }
  }
}

// ---- pre-tokenizers ----

Status HfPreTokenizer::FromJson(const json& j, HfPreTokenizer* out) {
  out->steps_.clear();
  if (j.is_null()) return Status::Ok();
  return ParseStep(j, &out->steps_);
}

Status HfPreTokenizer::ParseStep(const json& j, std::vector<Step>* out) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return Corrupt("a pre_tokenizer has no type");
  const std::string type = j["type"].get<std::string>();
  Step step;
  if (type == "Sequence") {
    if (!j.contains("pretokenizers") || !j["pretokenizers"].is_array()) return Corrupt("Sequence pre_tokenizer without a list");
    for (const json& p : j["pretokenizers"]) SWE_RETURN_IF_ERROR(ParseStep(p, out));
    return Status::Ok();
  } else if (type == "WhitespaceSplit") {
    step.kind = Step::kWhitespaceSplit;
  } else if (type == "Metaspace") {
    step.kind = Step::kMetaspace;
    std::string rep = j.value("replacement", std::string("\xE2\x96\x81"));
    size_t pos = 0;
    step.replacement = unicode::DecodeNext(rep, &pos);
    if (rep.empty() || pos != rep.size() || !unicode::IsValidUtf8(rep)) {
      return Corrupt("Metaspace replacement '" + rep + "' is not one character");
    }
    if (j.contains("prepend_scheme") && j["prepend_scheme"].is_string()) {
      std::string scheme = j["prepend_scheme"].get<std::string>();
      if (scheme == "always") step.prepend = Prepend::kAlways;
      else if (scheme == "first") step.prepend = Prepend::kFirst;
      else if (scheme == "never") step.prepend = Prepend::kNever;
      else return Unsupported("Metaspace prepend_scheme '" + scheme + "'");
    } else {
      step.prepend = j.value("add_prefix_space", true) ? Prepend::kAlways : Prepend::kNever;
    }
    step.split = j.value("split", true);
  } else {
    return Unsupported("pre_tokenizer type '" + type + "' (supported: Sequence, Metaspace, WhitespaceSplit)");
  }
  out->push_back(step);
  return Status::Ok();
}

void HfPreTokenizer::Metaspace(const Step& step, HfText t, std::vector<HfText>* out) {
  std::string rep;
  unicode::AppendUtf8(step.replacement, &rep);
  std::vector<ByteRange> spaces;
  for (size_t at = t.text.find(' '); at != std::string::npos; at = t.text.find(' ', at + 1)) {
    spaces.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(at + 1)});
  }
  ReplaceRanges(spaces, rep, &t);
  bool starts = t.text.compare(0, rep.size(), rep) == 0;
  bool prepend = step.prepend == Prepend::kAlways || (step.prepend == Prepend::kFirst && t.original_begin == 0);
  if (prepend && !starts && !t.text.empty()) {  // the new first character takes the old first's place
    t.text.insert(0, rep);
    t.align.insert(t.align.begin(), rep.size(), t.align.front());
  }
  if (!step.split) {
    if (!t.text.empty()) out->push_back(std::move(t));
    return;
  }
  // MergedWithNext: each replacement character starts a piece.
  size_t start = 0;
  for (size_t at = t.text.find(rep, 1); at != std::string::npos; at = t.text.find(rep, at + rep.size())) {
    out->push_back(t.Slice(start, at));
    start = at;
  }
  if (start < t.text.size()) out->push_back(t.Slice(start, t.text.size()));
}

void HfPreTokenizer::Apply(HfText t, std::vector<HfText>* pieces) const {
  pieces->clear();
  if (t.text.empty()) return;
  pieces->push_back(std::move(t));
  std::vector<HfText> next;
  for (const Step& step : steps_) {
    next.clear();
    for (HfText& p : *pieces) {
      if (step.kind == Step::kMetaspace) {
        Metaspace(step, std::move(p), &next);
        continue;
      }
      size_t start = 0;  // WhitespaceSplit: whitespace removed, the rest split at it
      for (size_t pos = 0; pos < p.text.size();) {
        size_t at = pos;
        char32_t c = unicode::DecodeNext(p.text, &pos);
        if (!HfIsWhitespace(c)) continue;
        if (start < at) next.push_back(p.Slice(start, at));
        start = pos;
      }
      if (start < p.text.size()) next.push_back(p.Slice(start, p.text.size()));
    }
    pieces->swap(next);
  }
}

}  // namespace swe::trainer
