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

// The pieces as a byte trie kept in one open-addressing table: a node per distinct byte prefix of a
// piece, under one of two roots (WordPiece's continuation pieces, less their prefix, hang from the
// second). A node's slot holds exactly (parent node, last byte) as its key, and it is found by the
// FNV-1a hash of the prefix's bytes, which callers extend byte by byte: splitting steps from a start
// position one byte and one probe at a time until the bytes are no piece's prefix. No strings are
// compared, and a step costs the same for any piece length (docs/BENCHMARKS.md, "Encode").
class PieceTrie {
 public:
  static constexpr uint32_t kNone = kNoId;
  // Nodes are slot indices below kRoots; the two roots are kInitial and kContinuation.
  static constexpr uint32_t kRoots = (1u << 24) - 2, kInitial = kRoots, kContinuation = kRoots + 1;

  static uint64_t Seed(uint32_t root) { return root == kInitial ? kFnvOffset : kFnvOffset ^ 0x5bd1e995u; }
  // The child of `node` by `byte`, whose prefix hash is h (HashStep of the node's hash), or kNone.
  uint32_t Step(uint32_t node, uint8_t byte, uint64_t h) const {
    const uint32_t i = Probe(node << 8 | byte, h);
    return slots_[i].key == kEmpty ? kNone : i;  // (a query key may equal kEmpty: root, 0xFF; absent too)
  }
  // The piece that ends at `node`, or kNoId (a prefix of pieces only).
  uint32_t id(uint32_t node) const { return slots_[node].id; }

  // Builds the trie of `count` keys: key(i) = {root, bytes} for i < count; the piece id of key i is i.
  // Fails on a duplicate key (named by name(i)) or a trie too large.
  template <class Key, class Name>
  Status Build(size_t count, Key key, Name name) {
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += key(i).second.size();
    // About 2.3 nodes a piece in real vocabularies; load <= 1/2, growing (rebuilt) if more.
    uint64_t cap = std::max<uint64_t>(16, std::min<uint64_t>(2 * bytes, 5 * uint64_t{count}) + 1);
    for (;;) {
      if (cap > kRoots) return InvalidArgument("subword vocabulary has too many distinct prefixes to index");
      cap_ = static_cast<uint32_t>(cap);
      slots_.assign(cap_, Slot{});
      size_t nodes = 0;
      bool full = false;
      for (size_t i = 0; i < count && !full; ++i) {
        const auto [root, piece] = key(i);
        uint32_t node = root;
        uint64_t h = Seed(root);
        for (char c : piece) {
          h = HashStep(h, c);
          const uint32_t key_here = node << 8 | static_cast<uint8_t>(c);
          const uint32_t slot = Probe(key_here, h);
          if (slots_[slot].key == kEmpty) {
            if (2 * ++nodes > cap_) {
              full = true;
              break;
            }
            slots_[slot].key = key_here;
          }
          node = slot;
        }
        if (full) break;
        if (slots_[node].id != kNoId) return InvalidArgument("duplicate subword piece '" + name(i) + "'");
        slots_[node].id = static_cast<uint32_t>(i);
      }
      if (!full) return Status::Ok();
      cap = 2 * cap;
    }
  }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    uint32_t key = kEmpty;  // parent << 8 | last byte
    uint32_t id = kNoId;    // the piece that ends here
  };
  // The slot that holds `key` (parent << 8 | byte, its prefix hashing to h), else the empty slot where
  // it would go (load <= 1/2: there is one).
  uint32_t Probe(uint32_t key, uint64_t h) const {
    uint32_t i = static_cast<uint32_t>(((h * 0x9E3779B97F4A7C15ull) >> 32) * cap_ >> 32);
    while (slots_[i].key != kEmpty && slots_[i].key != key) i = i + 1 == cap_ ? 0 : i + 1;
    return i;
  }
  std::vector<Slot> slots_;
  uint32_t cap_ = 0;
};

// Per-thread scratch for the Viterbi lattice: Split is const and may run on many threads at once.
// node[e]: the best segmentation of text[0, e) so far, its score and last piece (start, id).
struct Lattice {
  struct Node {
    float score;
    uint32_t start, id;
  };
  std::string text;
  std::vector<Node> node;
};

}  // namespace

struct SubwordTokenizer::Impl {
  std::unique_ptr<SubwordVocab> owned;  // Create's copy; CreateInPlace's caller owns the vocabulary
  const SubwordVocab* vocab = nullptr;  // the piece strings the tables point into
  PieceTrie pieces;
  uint32_t continuation_root = PieceTrie::kInitial;  // where WordPiece's pieces after the first start
  size_t max_piece = 0;                               // WordPiece's longest piece considered, in bytes (0: any)
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
  }
  if (split_continuation) impl->continuation_root = PieceTrie::kContinuation;
  SWE_RETURN_IF_ERROR(impl->pieces.Build(
      v.pieces.size(),
      [&](size_t i) {
        const std::string_view piece = v.pieces[i];
        return is_continuation(piece) ? std::make_pair(PieceTrie::kContinuation, piece.substr(cont.size()))
                                      : std::make_pair(PieceTrie::kInitial, piece);
      },
      [&](size_t i) { return v.pieces[i]; }));
  if (v.max_piece_bytes > 0 && !unigram) impl->max_piece = v.max_piece_bytes;
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
  if (std::all_of(word.begin(), word.end(), [](char c) { return static_cast<uint8_t>(c) < 0x80; })) {
    out->assign(word);  // ASCII: at most lower-cased, byte for byte (the loop below does the same)
    if (lower) {
      for (char& c : *out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    return;
  }
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
  size_t start = 0;
  while (start < word.size()) {
    const uint32_t root = start == 0 ? PieceTrie::kInitial : continuation_root;
    const size_t limit = max_piece == 0 ? word.size() : std::min(word.size(), start + max_piece);
    size_t best_end = 0;
    uint32_t best_id = kNoId;
    uint32_t node = root;
    uint64_t h = PieceTrie::Seed(root);
    for (size_t end = start + 1; end <= limit; ++end) {
      h = HashStep(h, word[end - 1]);
      node = pieces.Step(node, static_cast<uint8_t>(word[end - 1]), h);
      if (node == PieceTrie::kNone) break;
      const uint32_t id = pieces.id(node);
      if (id != kNoId && IsCharEnd(word, end)) best_end = end, best_id = id;
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
  l.node.assign(n + 1, {-std::numeric_limits<float>::infinity(), kNoId, kNoId});
  Lattice::Node* node = l.node.data();
  node[0].score = 0;
  const float* scores = vocab->scores.data();
  const auto relax = [node](size_t s, size_t e, float score, uint32_t id) {
    if (node[e].start == kNoId || score > node[e].score) node[e] = {score, static_cast<uint32_t>(s), id};
  };
  for (size_t s = 0; s < n; ++s) {
    if (node[s].start == kNoId && s != 0) continue;  // not a reachable character boundary
    const float base = node[s].score;
    size_t char_end = s + 1;
    while (!IsCharEnd(text, char_end)) ++char_end;
    bool single = false;
    uint32_t at = PieceTrie::kInitial;
    uint64_t h = PieceTrie::Seed(at);
    for (size_t e = s + 1; e <= n; ++e) {
      h = HashStep(h, text[e - 1]);
      at = pieces.Step(at, static_cast<uint8_t>(text[e - 1]), h);
      if (at == PieceTrie::kNone) break;
      const uint32_t id = pieces.id(at);
      if (id == kNoId || !IsCharEnd(text, e)) continue;
      if (e == char_end) single = true;
      relax(s, e, base + scores[id], id);
    }
    if (!single) relax(s, char_end, base + unknown_score, kNoId);
  }
  // The best path, walked back from the end twice: to count its pieces, then to write them in place.
  size_t count = 0;
  for (size_t e = n; e > 0; e = node[e].start) ++count;
  const size_t ends_at = ends->size(), ids_at = ids ? ids->size() : 0;
  ends->resize(ends_at + count);
  if (ids) ids->resize(ids_at + count);
  for (size_t e = n, k = count; e > 0; e = node[e].start) {
    --k;
    (*ends)[ends_at + k] = static_cast<uint32_t>(e > prefix ? e - prefix : 0);
    if (ids) (*ids)[ids_at + k] = node[e].id;
  }
  return true;
}

}  // namespace swe
