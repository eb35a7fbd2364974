#include "swe/subword.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "bytes.h"
#include "swe/unicode.h"

namespace swe {
namespace {

constexpr uint32_t kNoId = std::numeric_limits<uint32_t>::max();
// Like sentencepiece's kUnkPenalty: an unknown character costs this much below the lowest score.
constexpr float kUnknownPenalty = 10.0f;
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

inline uint64_t HashStep(uint64_t h, char c) { return (h ^ static_cast<uint8_t>(c)) * kFnvPrime; }
inline bool IsCharEnd(std::string_view s, size_t end) {
  return end == s.size() || (static_cast<uint8_t>(s[end]) & 0xC0) != 0x80;
}

// Open-addressing set of byte strings -> piece id. Keys are the vocabulary's pieces, less the first
// `skip` bytes (the continuation table's prefix); hashes are FNV-1a so callers can hash incrementally.
// A slot holds the key's first 8 bytes and length (bytes.h): most pieces are compared in the slot.
// A bit set over the hashes of every key's prefixes lets a caller stop extending a candidate as soon
// as it is no piece's prefix (a false positive only costs a probe), instead of trying every length.
class PieceTable {
 public:
  void Init(const std::vector<std::string>* pieces, size_t skip, size_t count) {
    size_t cap = 16;
    while (cap < count * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    pieces_ = pieces;
    skip_ = skip;
    mask_ = cap - 1;
    prefixes_.assign(kPrefixBits / 64, 0);
  }
  // Returns false when the key is already present.
  bool Insert(std::string_view key, uint32_t id) {
    uint64_t h = kFnvOffset;
    for (char c : key) {
      h = HashStep(h, c);
      const uint64_t bit = PrefixBit(h);
      prefixes_[bit / 64] |= uint64_t{1} << (bit % 64);
    }
    if (Find(h, key) != kNoId) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id == kNoId) {
        s = Slot{LoadPartial(key.data(), key.size()), KeyTag(static_cast<uint32_t>(h >> 32), key.size()), id};
        if (key.size() > max_len_) max_len_ = key.size();
        return true;
      }
    }
  }
  uint32_t Find(uint64_t h, std::string_view key) const {
    const uint64_t head = LoadPartial(key.data(), key.size());
    const uint32_t tag = KeyTag(static_cast<uint32_t>(h >> 32), key.size());
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id == kNoId) return kNoId;
      if (s.tag == tag && s.head == head && (key.size() <= 8 || std::string_view((*pieces_)[s.id]).substr(skip_ + 8) == key.substr(8))) {
        return s.id;
      }
    }
  }
  size_t max_len() const { return max_len_; }
  // False when no key starts with the bytes whose hash is h.
  bool MayPrefix(uint64_t h) const {
    const uint64_t bit = PrefixBit(h);
    return (prefixes_[bit / 64] >> (bit % 64)) & 1;
  }

 private:
  static constexpr uint64_t kPrefixBits = uint64_t{1} << 18;  // 32 KB
  static uint64_t PrefixBit(uint64_t h) { return (h >> 24) & (kPrefixBits - 1); }
  std::vector<uint64_t> prefixes_;
  struct Slot {
    uint64_t head = 0;
    uint32_t tag = 0;
    uint32_t id = kNoId;
  };
  std::vector<Slot> slots_;
  const std::vector<std::string>* pieces_ = nullptr;  // the keys, by piece id, after skip_ bytes
  size_t skip_ = 0;
  size_t mask_ = 0;
  size_t max_len_ = 0;
};

// Per-thread scratch for the Viterbi lattice: Split is const and may run on many threads at once.
struct Lattice {
  std::string text;
  std::vector<float> score;
  std::vector<uint32_t> start, id;
  std::vector<uint32_t> path;
};

}  // namespace

struct SubwordTokenizer::Impl {
  std::unique_ptr<SubwordVocab> owned;  // Create's copy; CreateInPlace's caller owns the vocabulary
  const SubwordVocab* vocab = nullptr;  // the piece strings the tables point into
  PieceTable initial, continuation;
  size_t max_initial = 0, max_continuation = 0;  // longest piece considered, in bytes
  float unknown_score = 0;

  bool SplitWordPiece(std::string_view word, std::vector<uint32_t>* ends, std::vector<uint32_t>* ids) const;
  bool SplitUnigram(std::string_view word, std::vector<uint32_t>* ends, std::vector<uint32_t>* ids) const;
};

SubwordTokenizer::SubwordTokenizer() = default;
SubwordTokenizer::~SubwordTokenizer() { delete impl_; }
SubwordTokenizer::SubwordTokenizer(SubwordTokenizer&& other) noexcept : impl_(std::exchange(other.impl_, nullptr)) {}
SubwordTokenizer& SubwordTokenizer::operator=(SubwordTokenizer&& other) noexcept {
  if (this != &other) {
    delete impl_;
    impl_ = std::exchange(other.impl_, nullptr);
  }
  return *this;
}

Status SubwordTokenizer::Create(const SubwordVocab& vocab, SubwordTokenizer* out) {
  if (out == nullptr) return InvalidArgument("SubwordTokenizer::Create: null output");
  auto copy = std::make_unique<SubwordVocab>(vocab);
  SWE_RETURN_IF_ERROR(CreateInPlace(*copy, out));
  if (out->impl_ != nullptr) out->impl_->owned = std::move(copy);
  return Status::Ok();
}

Status SubwordTokenizer::CreateInPlace(const SubwordVocab& vocab, SubwordTokenizer* out) {
  if (out == nullptr) return InvalidArgument("SubwordTokenizer::Create: null output");
  if (vocab.kind == SubwordKind::kNone) {
    if (!vocab.pieces.empty() || !vocab.scores.empty()) {
      return InvalidArgument("subword vocabulary of kind none has pieces or scores");
    }
    *out = SubwordTokenizer();
    return Status::Ok();
  }
  if (vocab.kind != SubwordKind::kWordPiece && vocab.kind != SubwordKind::kUnigram) {
    return InvalidArgument("unknown subword vocabulary kind");
  }
  if (vocab.pieces.empty()) return InvalidArgument("subword vocabulary has no pieces");
  if (vocab.pieces.size() >= kNoId) return InvalidArgument("subword vocabulary too large");
  const bool unigram = vocab.kind == SubwordKind::kUnigram;
  if (unigram ? vocab.scores.size() != vocab.pieces.size()
              : !vocab.scores.empty() && vocab.scores.size() != vocab.pieces.size()) {
    return InvalidArgument("subword vocabulary has " + std::to_string(vocab.scores.size()) + " scores for " +
                           std::to_string(vocab.pieces.size()) + " pieces");
  }
  if (!unicode::IsValidUtf8(vocab.continuation_prefix) || !unicode::IsValidUtf8(vocab.word_prefix)) {
    return InvalidArgument("subword prefix is not valid UTF-8");
  }

  auto impl = std::make_unique<Impl>();
  impl->vocab = &vocab;
  const SubwordVocab& v = vocab;
  const std::string_view cont = v.continuation_prefix;
  const bool split_continuation = !unigram && !cont.empty();
  const auto is_continuation = [&](std::string_view piece) {
    return split_continuation && piece.size() > cont.size() && piece.substr(0, cont.size()) == cont;
  };
  const size_t continuations = std::count_if(v.pieces.begin(), v.pieces.end(), is_continuation);
  impl->initial.Init(&v.pieces, 0, v.pieces.size() - continuations);
  if (split_continuation) impl->continuation.Init(&v.pieces, cont.size(), continuations);
  float min_score = 0;
  for (size_t i = 0; i < v.pieces.size(); ++i) {
    const std::string_view piece = v.pieces[i];
    if (piece.empty() || !unicode::IsValidUtf8(piece)) {
      return InvalidArgument("subword piece " + std::to_string(i) + " is empty or not valid UTF-8");
    }
    if (!v.scores.empty()) {
      if (!std::isfinite(v.scores[i])) return InvalidArgument("subword piece " + std::to_string(i) + " has a non-finite score");
      if (i == 0 || v.scores[i] < min_score) min_score = v.scores[i];
    }
    bool fresh;
    if (is_continuation(piece)) {
      fresh = impl->continuation.Insert(piece.substr(cont.size()), static_cast<uint32_t>(i));
    } else {
      fresh = impl->initial.Insert(piece, static_cast<uint32_t>(i));
    }
    if (!fresh) return InvalidArgument("duplicate subword piece '" + std::string(piece) + "'");
  }
  const PieceTable& cont_table = split_continuation ? impl->continuation : impl->initial;
  impl->max_initial = impl->initial.max_len();
  impl->max_continuation = cont_table.max_len();
  if (v.max_piece_bytes > 0 && !unigram) {
    impl->max_initial = std::min<size_t>(impl->max_initial, v.max_piece_bytes);
    impl->max_continuation = std::min<size_t>(impl->max_continuation, v.max_piece_bytes);
  }
  impl->unknown_score = min_score - kUnknownPenalty;
  delete out->impl_;
  out->impl_ = impl.release();
  return Status::Ok();
}

bool SubwordTokenizer::enabled() const { return impl_ != nullptr; }

void SubwordTokenizer::Normalize(std::string_view word, std::string* out) const {
  out->clear();
  const bool lower = impl_ != nullptr && impl_->vocab->lowercase;
  const bool strip = impl_ != nullptr && impl_->vocab->strip_accents;
  std::string folded;
  size_t pos = 0;
  while (pos < word.size()) {
    const auto byte = static_cast<uint8_t>(word[pos]);
    if (byte < 0x80) {
      out->push_back(static_cast<char>(lower && byte >= 'A' && byte <= 'Z' ? byte + 32 : byte));
      ++pos;
      continue;
    }
    const char32_t c = unicode::DecodeNext(word, &pos);
    if (!lower && !strip) {
      unicode::AppendUtf8(c, out);
      continue;
    }
    if (!strip) {
      unicode::AppendFolded(c, out);
      continue;
    }
    folded.clear();
    if (lower) {
      unicode::AppendFolded(c, &folded);
    } else {
      unicode::AppendUtf8(c, &folded);
    }
    for (size_t p = 0; p < folded.size();) {
      const char32_t s = unicode::StripAccent(unicode::DecodeNext(folded, &p));
      if (s != 0) unicode::AppendUtf8(s, out);
    }
  }
}

bool SubwordTokenizer::Split(std::string_view word, std::vector<uint32_t>* ends, std::vector<uint32_t>* ids) const {
  if (impl_ == nullptr || word.empty() || word.size() >= kNoId) return false;
  return impl_->vocab->kind == SubwordKind::kWordPiece ? impl_->SplitWordPiece(word, ends, ids)
                                                      : impl_->SplitUnigram(word, ends, ids);
}

// Greedy longest-match-first (BERT's WordpieceTokenizer): from each position take the longest piece
// that matches (continuation pieces after the first); fail when some position has none.
bool SubwordTokenizer::Impl::SplitWordPiece(std::string_view word, std::vector<uint32_t>* ends,
                                            std::vector<uint32_t>* ids) const {
  const size_t ends_size = ends->size(), ids_size = ids ? ids->size() : 0;
  const PieceTable& cont = vocab->continuation_prefix.empty() ? initial : continuation;
  size_t start = 0;
  while (start < word.size()) {
    const PieceTable& table = start == 0 ? initial : cont;
    const size_t limit = std::min(word.size(), start + (start == 0 ? max_initial : max_continuation));
    size_t best_end = 0;
    uint32_t best_id = kNoId;
    uint64_t h = kFnvOffset;
    for (size_t end = start + 1; end <= limit; ++end) {
      h = HashStep(h, word[end - 1]);
      if (!table.MayPrefix(h)) break;
      if (!IsCharEnd(word, end)) continue;
      const uint32_t id = table.Find(h, word.substr(start, end - start));
      if (id != kNoId) best_end = end, best_id = id;
    }
    if (best_id == kNoId) {
      ends->resize(ends_size);
      if (ids) ids->resize(ids_size);
      return false;
    }
    ends->push_back(static_cast<uint32_t>(best_end));
    if (ids) ids->push_back(best_id);
    start = best_end;
  }
  return true;
}

// SentencePiece unigram: the best-scoring segmentation of word_prefix + word (Viterbi), where a
// character that starts no piece of its own is an unknown piece scored min_score - 10.
bool SubwordTokenizer::Impl::SplitUnigram(std::string_view word, std::vector<uint32_t>* ends,
                                          std::vector<uint32_t>* ids) const {
  thread_local Lattice lattice;
  Lattice& l = lattice;
  l.text.assign(vocab->word_prefix);
  const size_t prefix = l.text.size();
  l.text.append(word);
  const std::string_view text = l.text;
  const size_t n = text.size();
  l.score.assign(n + 1, -std::numeric_limits<float>::infinity());
  l.start.assign(n + 1, kNoId);
  l.id.assign(n + 1, kNoId);
  l.score[0] = 0;
  for (size_t s = 0; s < n; ++s) {
    if (l.start[s] == kNoId && s != 0) continue;  // not a reachable character boundary
    const float base = l.score[s];
    size_t char_end = s + 1;
    while (!IsCharEnd(text, char_end)) ++char_end;
    bool single = false;
    const size_t limit = std::min(n, s + max_initial);
    uint64_t h = kFnvOffset;
    for (size_t e = s + 1; e <= limit; ++e) {
      h = HashStep(h, text[e - 1]);
      if (!initial.MayPrefix(h)) break;
      if (!IsCharEnd(text, e)) continue;
      const uint32_t id = initial.Find(h, text.substr(s, e - s));
      if (id == kNoId) continue;
      if (e == char_end) single = true;
      const float score = base + vocab->scores[id];
      if (l.start[e] == kNoId || score > l.score[e]) l.score[e] = score, l.start[e] = static_cast<uint32_t>(s), l.id[e] = id;
    }
    if (!single) {
      const float score = base + unknown_score;
      if (l.start[char_end] == kNoId || score > l.score[char_end]) {
        l.score[char_end] = score, l.start[char_end] = static_cast<uint32_t>(s), l.id[char_end] = kNoId;
      }
    }
  }
  l.path.clear();
  for (size_t e = n; e > 0; e = l.start[e]) l.path.push_back(static_cast<uint32_t>(e));
  for (size_t k = l.path.size(); k-- > 0;) {
    const uint32_t e = l.path[k];
    ends->push_back(static_cast<uint32_t>(e > prefix ? e - prefix : 0));
    if (ids) ids->push_back(l.id[e]);
  }
  return true;
}

}  // namespace swe
