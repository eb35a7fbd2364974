// Readers for the evaluation sets in their original formats (see ../shared/data/README.md). Each takes
// `limit` (0 = all): the first `limit` items of each file, for quick runs. Failures (missing file,
// malformed line, mismatched line counts) return a status naming the file and line.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "swe/status.h"

namespace swe::eval {

struct StsPair {
  std::string a, b;
  double score = 0;
};

// One scored set of sentence pairs, e.g. one SemEval subset ("MSRpar") or STS-B dev.
struct StsSet {
  std::string name;
  std::vector<StsPair> pairs;
};

// STS Benchmark csv (sts-train.csv, sts-dev.csv): tab-separated genre, file, year, id, score, s1, s2
// (some lines carry extra trailing fields: ignored), no quote handling.
Status ReadStsbCsv(const std::string& path, size_t limit, StsSet* out);

// One SemEval subset: STS.input.X.txt (s1 TAB s2 per line) with STS.gs.X.txt (one score per line;
// an empty line means the pair was not scored and is skipped). The files must have the same line count.
Status ReadSemEvalSubset(const std::string& input_path, const std::string& gs_path, size_t limit, StsSet* out);

// Every subset of a SemEval year directory (STS.input.X.txt that has an STS.gs.X.txt), sorted by X.
Status ReadSemEvalYear(const std::string& dir, size_t limit, std::vector<StsSet>* out);

// SICK (SICK_train.txt, SICK_trial.txt): a header line, then tab-separated columns; the columns
// sentence_A, sentence_B and relatedness_score are found by name.
Status ReadSick(const std::string& path, size_t limit, StsSet* out);

// Two files whose line i are translations of each other (Tatoeba); the line counts must match.
Status ReadParallel(const std::string& path_a, const std::string& path_b, size_t limit,
                    std::vector<std::string>* a, std::vector<std::string>* b);

// A parallel file of one pair "en TAB xx" per line (the layout of ../shared/data/train/parallel): the
// two sides of a line are translations. Empty lines are skipped; a line that is not two non-empty
// tab-separated sides is an error naming the file and line. `limit`: the first `limit` pairs.
Status ReadParallelTsv(const std::string& path, size_t limit, std::vector<std::string>* a,
                       std::vector<std::string>* b);

// Labelled texts for classification; labels are 0 .. classes.size() - 1.
struct LabeledSet {
  std::vector<std::string> texts;
  std::vector<int> labels;
  std::vector<std::string> classes;  // name of each label
};

// SentEval SST binary: "text TAB label" (label 0/1).
Status ReadSstBinary(const std::string& path, size_t limit, LabeledSet* out);
// SentEval SST fine: "label text" (label 0..4).
Status ReadSstFine(const std::string& path, size_t limit, LabeledSet* out);
// One text per line in two files (SUBJ, MPQA): label 1 for `pos_path`, 0 for `neg_path`. Empty lines
// are kept (as SentEval does: they count as examples), so the sizes match the published ones.
Status ReadTwoFiles(const std::string& pos_path, const std::string& neg_path, const std::string& pos_name,
                    const std::string& neg_name, size_t limit, LabeledSet* out);
// TREC: "COARSE:fine text" per line, labelled by the coarse class (6 classes, as in SentEval). The
// files are ISO-8859-1 (train_5500.label has a few bytes >= 0x80): they are converted to UTF-8.
// `classes` fixes the label order (pass the training set's classes when reading the test set; empty
// = sorted class names of this file).
Status ReadTrec(const std::string& path, size_t limit, const std::vector<std::string>& classes, LabeledSet* out);

// A BEIR retrieval set (Thakur et al., 2021) in its directory: corpus.jsonl ({"_id", "title", "text"}
// per line; title optional), queries.jsonl ({"_id", "text"}) and qrels/SPLIT.tsv (a header line
// "query-id TAB corpus-id TAB score", then one judgement per line; score > 0 = relevant, and the gain
// in nDCG). Only the queries judged in the split are kept, in qrels order. Ids are JSON strings (or
// integers). Every id in the qrels must exist; duplicate ids, bad JSON and bad rows are errors naming
// file and line. `limit` keeps the first `limit` judged queries and the first `limit` documents plus
// every document those queries judge (so a quick subset still has its relevant documents).
struct BeirSet {
  std::vector<std::string> doc_ids, docs;  // docs: title + " " + text (text alone without a title), as BEIR and MTEB embed them
  std::vector<std::string> query_ids, queries;
  std::vector<std::vector<std::pair<size_t, double>>> qrels;  // per query: (document row, score)
};
Status ReadBeir(const std::string& dir, const std::string& split, size_t limit, BeirSet* out);

// Helpers shared with tests: the lines of a file without line ends ("\n" or "\r\n").
Status ReadLines(const std::string& path, std::vector<std::string>* lines);

}  // namespace swe::eval
