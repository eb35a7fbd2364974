# The .swe file schema: the single source of truth for every reader and writer.
# A .swe file is a fixed 40-byte header followed by one zstd frame that holds one Cap'n Proto message
# (see docs/FORMAT.md). Large arrays are Data blobs, little-endian, so a reader uses them in place.
# Compatibility: fields are only ever added (with new ordinals); a reader rejects a header version it
# does not know.
@0xd3e1c9a2b7f40561;

$import "/capnp/c++.capnp".namespace("swe::schema");

enum DType {
  f32 @0;   # 4 bytes per value
  f16 @1;   # IEEE 754 binary16
  int8 @2;  # signed, value = q * scale[row]; scales are f32, one per row
}

struct Table {
  dtype @0 :DType;
  rows @1 :UInt32;
  dims @2 :UInt32;
  data @3 :Data;    # rows * dims values, row-major, little-endian
  scales @4 :Data;  # int8 only: rows f32 values
}

# Strings stored as one UTF-8 blob plus rows+1 little-endian u32 offsets (first 0, last = blob size).
struct StringList {
  count @0 :UInt32;
  bytes @1 :Data;
  offsets @2 :Data;
}

enum CjkMode {
  none @0;        # CJK characters are ordinary word characters
  characters @1;  # every Han/Kana character is its own token
  subwords @2;    # runs of Han/Kana are segmented by the subword tokenizer
  bigrams @3;     # every character of a run and every overlapping pair of characters
  longest @4;     # runs are segmented by forward maximum matching over the vocabulary
  # Values are only appended; a reader rejects a value it does not know ("unknown CJK mode").
}

enum SubwordKind {
  none @0;
  wordPiece @1;   # greedy longest match; continuation pieces start with continuationPrefix
  unigram @2;     # SentencePiece unigram: Viterbi over scores; word starts marked by wordPrefix
}

struct Subword {
  kind @0 :SubwordKind;
  pieces @1 :StringList;
  scores @2 :Data;                  # unigram: one f32 log-probability per piece
  continuationPrefix @3 :Text;      # wordPiece, usually "##"
  wordPrefix @4 :Text;              # unigram, usually U+2581
  lowercase @5 :Bool;               # the teacher folds case before subword tokenization
  stripAccents @6 :Bool;            # the teacher strips accents before subword tokenization
  maxPieceBytes @7 :UInt32;         # wordPiece: longest piece considered (0 = no limit)
}

enum TokenUnits {
  words @0;          # the paper's rule: whole words are rows (subword pieces only as a prefix fallback)
  subwordPieces @1;  # every word is split into subword pieces and each piece is a row (Model2Vec models);
                     # such files set header flag 1, so readers that predate this mode reject them
}

struct Tokenizer {
  foldCase @0 :Bool = true;         # look up the case-folded word when the exact word is unknown
  stripAccents @1 :Bool = false;    # also try the accent-stripped, folded word
  cjk @2 :CjkMode = characters;
  maxTokens @3 :UInt32 = 0;         # words considered per text; 0 = no limit
  subword @4 :Subword;              # out-of-vocabulary fallback and CJK segmentation
  units @5 :TokenUnits = words;     # what a vocabulary row stands for (docs/TOKENIZER.md)
}

struct KeyValue {
  key @0 :Text;
  value @1 :Text;
}

struct Score {
  task @0 :Text;
  metric @1 :Text;
  value @2 :Float64;
}

struct Provenance {
  name @0 :Text;
  description @1 :Text;
  teacher @2 :Text;
  corpus @3 :Text;
  corpusHash @4 :Text;
  recipe @5 :Text;                  # the recipe as JSON text
  createdBy @6 :Text;               # program and version that wrote the file
  placeholder @7 :Bool;             # not a distilled model (e.g. converted GloVe)
  scores @8 :List(Score);
  extra @9 :List(KeyValue);
}

struct Model {
  vocabulary @0 :StringList;        # row i of the table is the vector of word i
  table @1 :Table;
  weights @2 :Data;                 # optional: one f32 weight per word for the weighted mean
  normalize @3 :Bool = true;        # L2-normalise sentence vectors
  tokenizer @4 :Tokenizer;
  provenance @5 :Provenance;
}

struct Index {
  dims @0 :UInt32;
  ids @1 :Data;                     # count little-endian u64 ids
  vectors @2 :Table;                # count rows, L2-normalised; f32 or int8
  modelName @3 :Text;               # the model that produced the vectors (informative)
  modelChecksum @4 :UInt32;         # header checksum of that model, 0 if unknown
  docs @5 :IndexDocs;               # optional (header flag bit 1): string ids, texts, metadata
}

# Documents of an index's entries, kept beside the vectors (the search scan never reads them).
struct IndexDocs {
  entries @0 :Data;                 # count little-endian u64: the index id each document belongs to
  ids @1 :List(Text);               # count string ids: unique, non-empty
  texts @2 :List(Text);             # count texts, or empty when no text is stored
  metadata @3 :List(Text);          # count JSON texts ("" = none), or empty when none is stored
}

# One save's changes to an index, a record of the change log after its base (docs/FORMAT.md, "Index
# change log"): steps applied in order.
struct IndexChange {
  steps @0 :List(IndexStep);
}

# One change: removals, then puts (each a new or a replaced entry).
struct IndexStep {
  removed @0 :Data;                 # little-endian u64 entry ids removed, in order (each present)
  entries @1 :Data;                 # little-endian u64 entry ids put, in order
  vectors @2 :Table;                # their rows exactly as the index stores them (its dtype and dims)
  docIds @3 :List(Text);            # empty (each put keeps its entry's document) or one per put: it sets the document
  texts @4 :List(Text);             # with docIds: empty (no texts) or one per put
  metadata @5 :List(Text);          # with docIds: empty (no metadata) or one per put ("" = none)
}
