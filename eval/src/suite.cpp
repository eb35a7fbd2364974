#include "swe/eval/suite.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "swe/eval/datasets.h"
#include "swe/eval/metrics.h"
#include "swe/eval/retrieval.h"

namespace swe::eval {
namespace {

struct TaskInfo {
  const char* name;
  const char* group;
};

constexpr TaskInfo kTasks[] = {
    {"stsb", "sts"},   {"sts12", "sts"},  {"sts13", "sts"}, {"sts14", "sts"},  {"sts15", "sts"},
    {"sick", "sick"},  {"sts17", "sts17"}, {"sts17-es-en", "sts17-es-en"}, {"tatoeba", "tatoeba"},
    {"flores-de", "flores"}, {"flores-ja", "flores"}, {"flores-zh", "flores"}, {"scifact", "beir"},
    {"sst2", "sst2"},  {"sst5", "sst5"},  {"subj", "subj"},  {"mpqa", "mpqa"},   {"trec", "trec"},
};

constexpr const char* kBeirPrefix = "beir:";    // "beir:DIR": any BEIR directory's test split
constexpr const char* kPairsPrefix = "pairs:";  // "pairs:FILE": translation retrieval on any "en TAB xx" file
constexpr size_t kPairsCandidates = 1000;       // the first 1,000 pairs of a file, as Tatoeba's 1,000

// The named translation-retrieval tasks: held-out FLORES-200 devtest pairs (never in training).
struct PairsTask {
  const char* name;
  const char* file;  // under DATA/
};
constexpr PairsTask kPairsTasks[] = {
    {"flores-de", "train/parallel/en-de.flores_devtest.tsv"},
    {"flores-ja", "train/parallel/en-ja.flores_devtest.tsv"},
    {"flores-zh", "train/parallel/en-zh.flores_devtest.tsv"},
};

bool HasPrefix(const std::string& name, const char* prefix) {
  return name.rfind(prefix, 0) == 0 && name.size() > std::strlen(prefix);
}

std::string Path(const SuiteOptions& o, const std::string& rel) { return o.data_dir + "/eval/" + rel; }

// Cosines of each pair's two sentences.
Status PairCosines(const Embedder& e, const std::vector<StsPair>& pairs, std::vector<double>* cos) {
  std::vector<std::string> a, b;
  for (const StsPair& p : pairs) a.push_back(p.a), b.push_back(p.b);
  Features fa, fb;
  SWE_RETURN_IF_ERROR(Embed(e, a, &fa));
  SWE_RETURN_IF_ERROR(Embed(e, b, &fb));
  cos->resize(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    double dot = 0, na = 0, nb = 0;
    for (uint32_t j = 0; j < fa.d; ++j) {
      dot += double{fa.row(i)[j]} * fb.row(i)[j];
      na += double{fa.row(i)[j]} * fa.row(i)[j];
      nb += double{fb.row(i)[j]} * fb.row(i)[j];
    }
    (*cos)[i] = na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0;
  }
  return Status::Ok();
}

std::vector<double> Gold(const std::vector<StsPair>& pairs) {
  std::vector<double> g;
  for (const StsPair& p : pairs) g.push_back(p.score);
  return g;
}

// Scores `sets` pooled (main score) and each set on its own (details "spearman/NAME").
Status ScoreSts(const Embedder& e, const std::vector<StsSet>& sets, bool per_set, TaskResult* out) {
  std::vector<StsPair> pooled;
  for (const StsSet& s : sets) pooled.insert(pooled.end(), s.pairs.begin(), s.pairs.end());
  if (pooled.empty()) return NotFound(out->task + ": no scored pairs");
  std::vector<double> cos;
  SWE_RETURN_IF_ERROR(PairCosines(e, pooled, &cos));
  const std::vector<double> gold = Gold(pooled);
  out->metric = "spearman";
  out->score = 100 * Spearman(cos, gold);
  out->n = pooled.size();
  out->details.push_back({"pearson", 100 * Pearson(cos, gold)});
  if (!per_set) return Status::Ok();
  size_t start = 0;
  for (const StsSet& s : sets) {
    const std::vector<double> c(cos.begin() + start, cos.begin() + start + s.pairs.size());
    const std::vector<double> g(gold.begin() + start, gold.begin() + start + s.pairs.size());
    out->details.push_back({"spearman/" + s.name, 100 * Spearman(c, g)});
    start += s.pairs.size();
  }
  return Status::Ok();
}

Status RunSts(const std::string& task, const Embedder& e, const SuiteOptions& o, TaskResult* out) {
  if (task == "stsb") {
    StsSet dev, train;
    dev.name = "dev", train.name = "train";
    SWE_RETURN_IF_ERROR(ReadStsbCsv(Path(o, "sts/stsbenchmark/sts-dev.csv"), o.limit, &dev));
    SWE_RETURN_IF_ERROR(ReadStsbCsv(Path(o, "sts/stsbenchmark/sts-train.csv"), o.limit, &train));
    SWE_RETURN_IF_ERROR(ScoreSts(e, {dev}, false, out));  // the main score: dev
    TaskResult t;
    t.task = task;
    SWE_RETURN_IF_ERROR(ScoreSts(e, {train}, false, &t));
    out->details.push_back({"spearman/train", t.score});
    return Status::Ok();
  }
  if (task == "sick") {
    StsSet train, trial;
    train.name = "train", trial.name = "trial";
    SWE_RETURN_IF_ERROR(ReadSick(Path(o, "sts/sick2014/SICK_train.txt"), o.limit, &train));
    SWE_RETURN_IF_ERROR(ReadSick(Path(o, "sts/sick2014/SICK_trial.txt"), o.limit, &trial));
    return ScoreSts(e, {train, trial}, true, out);
  }
  if (task == "sts17-es-en") {
    // Cross-lingual control: track 4a (SNLI captions, the es-en set MTEB scores) is the main score,
    // track 4b (WMT news, SemEval's machine-translation "surprise" track) a detail.
    std::vector<StsSet> tracks;
    SWE_RETURN_IF_ERROR(ReadSemEvalYear(Path(o, "sts/STS17"), o.limit, &tracks));
    auto track = [&tracks](const std::string& name) {
      return std::find_if(tracks.begin(), tracks.end(), [&name](const StsSet& s) { return s.name == name; });
    };
    const auto a = track("track4a.es-en"), b = track("track4b.es-en");
    if (a == tracks.end() || b == tracks.end()) return NotFound("sts17-es-en: no track4a.es-en or track4b.es-en");
    SWE_RETURN_IF_ERROR(ScoreSts(e, {*a}, false, out));
    TaskResult t;
    t.task = task;
    SWE_RETURN_IF_ERROR(ScoreSts(e, {*b}, false, &t));
    out->details.push_back({"spearman/track4b.es-en", t.score});
    return Status::Ok();
  }
  if (task == "sts17") {
    // The English track is the main score; the cross-lingual tracks are details.
    std::vector<StsSet> tracks;
    SWE_RETURN_IF_ERROR(ReadSemEvalYear(Path(o, "sts/STS17"), o.limit, &tracks));
    auto en = std::find_if(tracks.begin(), tracks.end(), [](const StsSet& s) { return s.name == "track5.en-en"; });
    if (en == tracks.end()) return NotFound("sts17: no track5.en-en");
    SWE_RETURN_IF_ERROR(ScoreSts(e, {*en}, false, out));
    for (const StsSet& s : tracks) {
      if (s.name == en->name) continue;
      TaskResult t;
      t.task = task;
      SWE_RETURN_IF_ERROR(ScoreSts(e, {s}, false, &t));
      out->details.push_back({"spearman/" + s.name, t.score});
    }
    return Status::Ok();
  }
  // sts12..sts15: all subsets pooled (as MTEB scores these years), and each subset.
  std::vector<StsSet> sets;
  SWE_RETURN_IF_ERROR(ReadSemEvalYear(Path(o, "sts/STS" + task.substr(3)), o.limit, &sets));
  return ScoreSts(e, sets, true, out);
}

// Translation retrieval over pairs (a[i], b[i]): nearest neighbour both ways and their mean, repeated
// sentences counted as one candidate (TatoebaAccuracy). Details "accuracy/A->B" and "accuracy/B->A".
Status ScoreTranslations(const Embedder& e, const std::vector<std::string>& a, const std::vector<std::string>& b,
                         const std::string& lang_a, const std::string& lang_b, TaskResult* out) {
  if (a.empty()) return NotFound(out->task + ": no pairs");
  Features fa, fb;
  SWE_RETURN_IF_ERROR(Embed(e, a, &fa));
  SWE_RETURN_IF_ERROR(Embed(e, b, &fb));
  const TatoebaResult r = TatoebaAccuracy(fa, fb, a, b);
  out->metric = "accuracy";
  out->score = 100 * r.accuracy;
  out->n = a.size();
  out->details = {{"accuracy/" + lang_a + "->" + lang_b, 100 * r.a_to_b},
                  {"accuracy/" + lang_b + "->" + lang_a, 100 * r.b_to_a}};
  return Status::Ok();
}

Status RunTatoeba(const Embedder& e, const SuiteOptions& o, TaskResult* out) {
  std::vector<std::string> deu, eng;
  SWE_RETURN_IF_ERROR(ReadParallel(Path(o, "retrieval/tatoeba/tatoeba.deu-eng.deu"),
                                   Path(o, "retrieval/tatoeba/tatoeba.deu-eng.eng"), o.limit, &deu, &eng));
  return ScoreTranslations(e, deu, eng, "deu", "eng", out);
}

// The first 1,000 pairs (fewer with --limit) of an "en TAB xx" file. The language code comes from a
// file name "en-XX.*" (en-ja.flores_devtest.tsv: "ja"), else "xx".
Status RunPairs(const std::string& path, const Embedder& e, const SuiteOptions& o, TaskResult* out) {
  std::vector<std::string> en, xx;
  const size_t limit = o.limit != 0 ? std::min(o.limit, kPairsCandidates) : kPairsCandidates;
  SWE_RETURN_IF_ERROR(ReadParallelTsv(path, limit, &en, &xx));
  const std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  const size_t dot = base.find('.');
  std::string lang = "xx";
  if (base.rfind("en-", 0) == 0 && dot != std::string::npos && dot > 3) lang = base.substr(3, dot - 3);
  return ScoreTranslations(e, en, xx, "en", lang, out);
}

// A BEIR directory's test split: documents and judged queries embedded, then exact cosine search.
Status RunBeir(const std::string& dir, const Embedder& e, const SuiteOptions& o, TaskResult* out) {
  BeirSet set;
  SWE_RETURN_IF_ERROR(ReadBeir(dir, "test", o.limit, &set));
  Features fq, fd;
  SWE_RETURN_IF_ERROR(Embed(e, set.queries, &fq));
  SWE_RETURN_IF_ERROR(Embed(e, set.docs, &fd));
  const RankingResult r = RankByCosine(fq, fd, set.qrels);
  out->metric = "ndcg@10";
  out->score = 100 * r.ndcg_at_10;
  out->n = r.queries;
  out->details = {{"recall@100", 100 * r.recall_at_100}};
  return Status::Ok();
}

int Classes(const LabeledSet& s) { return static_cast<int>(s.classes.size()); }

void ClassifyDetails(const ClassifyResult& r, TaskResult* out) {
  out->metric = "accuracy";
  out->score = 100 * r.accuracy;
  out->details.push_back({"dev_accuracy", 100 * r.dev_accuracy});
  double log_l2 = 0;
  for (double l2 : r.chosen_l2) log_l2 += std::log10(l2);
  out->details.push_back({"log10_l2", r.chosen_l2.empty() ? 0 : log_l2 / r.chosen_l2.size()});
}

Status RunClassification(const std::string& task, const Embedder& e, const SuiteOptions& o, TaskResult* out) {
  const std::string dir = Path(o, "classification/");
  ClassifyResult r;
  if (task == "sst2" || task == "sst5") {
    const std::string sub = task == "sst2" ? "SST/binary/sentiment-" : "SST/fine/sentiment-";
    auto read = task == "sst2" ? ReadSstBinary : ReadSstFine;
    LabeledSet train, dev, test;
    SWE_RETURN_IF_ERROR(read(dir + sub + "train", o.limit, &train));
    SWE_RETURN_IF_ERROR(read(dir + sub + "dev", o.limit, &dev));
    SWE_RETURN_IF_ERROR(read(dir + sub + "test", o.limit, &test));
    Features ftrain, fdev, ftest;
    SWE_RETURN_IF_ERROR(Embed(e, train.texts, &ftrain));
    SWE_RETURN_IF_ERROR(Embed(e, dev.texts, &fdev));
    SWE_RETURN_IF_ERROR(Embed(e, test.texts, &ftest));
    SWE_RETURN_IF_ERROR(TrainDevTest(ftrain, train.labels, fdev, dev.labels, ftest, test.labels, Classes(train),
                                     o.classify, &r));
    out->n = test.texts.size();
  } else if (task == "trec") {
    LabeledSet train, test;
    SWE_RETURN_IF_ERROR(ReadTrec(dir + "TREC/train_5500.label", o.limit, {}, &train));
    SWE_RETURN_IF_ERROR(ReadTrec(dir + "TREC/TREC_10.label", o.limit, train.classes, &test));
    Features ftrain, ftest;
    SWE_RETURN_IF_ERROR(Embed(e, train.texts, &ftrain));
    SWE_RETURN_IF_ERROR(Embed(e, test.texts, &ftest));
    SWE_RETURN_IF_ERROR(TrainTest(ftrain, train.labels, ftest, test.labels, Classes(train), o.classify, &r));
    out->n = test.texts.size();
  } else {
    LabeledSet set;
    if (task == "subj") {
      SWE_RETURN_IF_ERROR(ReadTwoFiles(dir + "SUBJ/subj.subjective", dir + "SUBJ/subj.objective", "subjective",
                                       "objective", o.limit, &set));
    } else {
      SWE_RETURN_IF_ERROR(ReadTwoFiles(dir + "MPQA/mpqa.pos", dir + "MPQA/mpqa.neg", "positive", "negative", o.limit, &set));
    }
    Features f;
    SWE_RETURN_IF_ERROR(Embed(e, set.texts, &f));
    SWE_RETURN_IF_ERROR(CrossValidate(f, set.labels, Classes(set), o.classify, &r));
    out->n = set.texts.size();
  }
  ClassifyDetails(r, out);
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& TaskNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const TaskInfo& t : kTasks) v.push_back(t.name);
    return v;
  }();
  return names;
}

Status ExpandTasks(const std::string& list, std::vector<std::string>* tasks) {
  std::vector<bool> chosen(std::size(kTasks), false);
  std::vector<std::string> beir;  // "beir:DIR" and "pairs:FILE" tasks, in the given order after the named ones
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    if (HasPrefix(name, kBeirPrefix) || HasPrefix(name, kPairsPrefix)) {
      if (std::find(beir.begin(), beir.end(), name) == beir.end()) beir.push_back(name);
      continue;
    }
    bool known = false;
    for (size_t i = 0; i < std::size(kTasks); ++i) {
      if (name == "all" || name == kTasks[i].name || name == kTasks[i].group) chosen[i] = known = true;
    }
    if (!known) {
      std::string all;
      for (const TaskInfo& t : kTasks) all += std::string(all.empty() ? "" : ",") + t.name;
      return InvalidArgument("unknown task '" + name + "' (known: all,sts,beir,flores," + all +
                             ", beir:DIR, pairs:FILE)");
    }
  }
  tasks->clear();
  for (size_t i = 0; i < std::size(kTasks); ++i) {
    if (chosen[i]) tasks->push_back(kTasks[i].name);
  }
  tasks->insert(tasks->end(), beir.begin(), beir.end());
  if (tasks->empty()) return InvalidArgument("no tasks given");
  return Status::Ok();
}

Status Embed(const Embedder& embedder, const std::vector<std::string>& texts, Features* out) {
  if (embedder.dims == 0 || !embedder.embed) return InvalidArgument("the embedder has no dims or no callback");
  constexpr size_t kBatch = 8192;
  out->n = texts.size();
  out->d = embedder.dims;
  out->x.assign(texts.size() * size_t{embedder.dims}, 0.0f);
  for (size_t start = 0; start < texts.size(); start += kBatch) {
    const size_t n = std::min(kBatch, texts.size() - start);
    const std::vector<std::string> batch(texts.begin() + start, texts.begin() + start + n);
    SWE_RETURN_IF_ERROR(embedder.embed(batch, out->x.data() + start * embedder.dims));
  }
  for (float v : out->x) {
    if (!std::isfinite(v)) return Internal(embedder.name + ": the encoder returned a non-finite value");
  }
  return Status::Ok();
}

Status RunTask(const std::string& task, const Embedder& embedder, const SuiteOptions& options, TaskResult* out) {
  *out = TaskResult();
  out->task = task;
  const auto start = std::chrono::steady_clock::now();
  Status s;
  if (task == "tatoeba") {
    s = RunTatoeba(embedder, options, out);
  } else if (task == "scifact") {
    s = RunBeir(Path(options, "retrieval/scifact"), embedder, options, out);
  } else if (HasPrefix(task, kBeirPrefix)) {
    s = RunBeir(task.substr(std::strlen(kBeirPrefix)), embedder, options, out);
  } else if (HasPrefix(task, kPairsPrefix)) {
    s = RunPairs(task.substr(std::strlen(kPairsPrefix)), embedder, options, out);
  } else if (const auto* p = std::find_if(std::begin(kPairsTasks), std::end(kPairsTasks),
                                          [&task](const PairsTask& t) { return task == t.name; });
             p != std::end(kPairsTasks)) {
    s = RunPairs(options.data_dir + "/" + p->file, embedder, options, out);
  } else if (task == "sst2" || task == "sst5" || task == "subj" || task == "mpqa" || task == "trec") {
    s = RunClassification(task, embedder, options, out);
  } else if (task == "stsb" || task == "sick" || task == "sts17" || task == "sts17-es-en" || task == "sts12" ||
             task == "sts13" || task == "sts14" || task == "sts15") {
    s = RunSts(task, embedder, options, out);
  } else {
    return InvalidArgument("unknown task '" + task + "'");
  }
  out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

}  // namespace swe::eval
