// The Unicode predicates and mappings of Hugging Face's BertNormalizer / BertPreTokenizer
// (tokenizers/src/normalizers/bert.rs, pre_tokenizers/bert.rs), from generated UCD tables.
#pragma once

#include <string>

namespace swe::trainer::bert_unicode {

// Rust char::is_whitespace plus \t \n \r (White_Space).
bool IsWhitespace(char32_t c);
// BERT's is_control: general category C* (Cc Cf Cs Co Cn), except \t \n \r.
bool IsControl(char32_t c);
// ASCII punctuation or general category P*.
bool IsPunctuation(char32_t c);
// The CJK ideograph blocks BERT surrounds with spaces (handle_chinese_chars).
bool IsChineseChar(char32_t c);
// General category Mn (what strip_accents removes after NFD).
bool IsNonspacingMark(char32_t c);
// Appends the full canonical decomposition (NFD, without reordering of combining marks).
void AppendNfd(char32_t c, std::u32string* out);
// Appends Rust's char::to_lowercase(c).
void AppendLower(char32_t c, std::u32string* out);

}  // namespace swe::trainer::bert_unicode
