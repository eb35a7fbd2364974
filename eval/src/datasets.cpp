#include "swe/eval/datasets.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "swe/util/file.h"
#include "swe/util/json.h"
#include "swe/util/strings.h"

namespace swe::eval {
namespace {

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

// The sets' fields are trimmed of spaces and tabs only.
std::string Trim(const std::string& s) { return std::string(util::Trim(s, " \t")); }

bool ParseDouble(const std::string& text, double* out) {
  const std::string t = Trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno != 0 || !std::isfinite(v)) return false;  // inf would make NaN scores
  *out = v;
  return true;
}

Status LineError(const std::string& path, size_t line, const std::string& what) {
  return Corrupt(path + ":" + std::to_string(line) + ": " + what);
}

// ISO-8859-1 bytes to UTF-8 (every byte is one code point).
std::string Latin1ToUtf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto b = static_cast<uint8_t>(ch);
    if (b < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (b >> 6)));
      out.push_back(static_cast<char>(0x80 | (b & 0x3F)));
    }
  }
  return out;
}


// One JSON Lines record of a BEIR file: its "_id" (a string or an integer) and the string fields
// `fields` (a missing or null field reads as "").
Status ReadJsonRecord(const std::string& path, size_t line_no, const std::string& line,
                      std::initializer_list<const char*> fields, std::string* id, std::vector<std::string>* values) {
  if (!util::JsonDepthWithin(line)) return LineError(path, line_no, util::JsonTooDeepMessage());
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return LineError(path, line_no, "not a JSON object");
  const auto found = j.find("_id");
  if (found == j.end()) return LineError(path, line_no, "no \"_id\"");
  if (found->is_string()) {
    *id = found->get<std::string>();
  } else if (found->is_number_integer()) {
    *id = std::to_string(found->get<int64_t>());
  } else {
    return LineError(path, line_no, "\"_id\" is neither a string nor an integer");
  }
  values->clear();
  for (const char* name : fields) {
    const auto f = j.find(name);
    if (f != j.end() && !f->is_null() && !f->is_string()) {
      return LineError(path, line_no, std::string("\"") + name + "\" is not a string");
    }
    values->push_back(f == j.end() || f->is_null() ? std::string() : f->get<std::string>());
  }
  return Status::Ok();
}

}  // namespace

Status ReadLines(const std::string& path, std::vector<std::string>* lines) {
  std::string error;
  return util::ReadLines(path, lines, &error) ? Status::Ok() : IoError(error);
}

Status ReadStsbCsv(const std::string& path, size_t limit, StsSet* out) {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(path, &lines));
  out->pairs.clear();
  for (size_t i = 0; i < lines.size() && (limit == 0 || out->pairs.size() < limit); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> f = SplitTabs(lines[i]);
    if (f.size() < 7) return LineError(path, i + 1, "expected 7 tab-separated fields");
    StsPair p;
    if (!ParseDouble(f[4], &p.score)) return LineError(path, i + 1, "bad score '" + f[4] + "'");
    p.a = f[5];
    p.b = f[6];
    out->pairs.push_back(std::move(p));
  }
  return Status::Ok();
}

Status ReadSemEvalSubset(const std::string& input_path, const std::string& gs_path, size_t limit, StsSet* out) {
  std::vector<std::string> inputs, scores;
  SWE_RETURN_IF_ERROR(ReadLines(input_path, &inputs));
  SWE_RETURN_IF_ERROR(ReadLines(gs_path, &scores));
  if (inputs.size() != scores.size()) {
    return Corrupt(gs_path + ": " + std::to_string(scores.size()) + " lines, but " + input_path + " has " +
                   std::to_string(inputs.size()));
  }
  out->pairs.clear();
  for (size_t i = 0; i < inputs.size() && (limit == 0 || out->pairs.size() < limit); ++i) {
    if (Trim(scores[i]).empty()) continue;  // not scored
    StsPair p;
    if (!ParseDouble(scores[i], &p.score)) return LineError(gs_path, i + 1, "bad score '" + scores[i] + "'");
    std::vector<std::string> f = SplitTabs(inputs[i]);
    if (f.size() < 2) return LineError(input_path, i + 1, "expected two tab-separated sentences");
    p.a = f[0];
    p.b = f[1];
    out->pairs.push_back(std::move(p));
  }
  return Status::Ok();
}

Status ReadSemEvalYear(const std::string& dir, size_t limit, std::vector<StsSet>* out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return IoError(dir + ": cannot open directory");
  std::vector<std::string> names;
  const std::string prefix = "STS.input.", suffix = ".txt";
  while (dirent* e = readdir(d)) {
    const std::string file = e->d_name;
    if (file.size() > prefix.size() + suffix.size() && util::StartsWith(file, prefix) && util::EndsWith(file, suffix)) {
      names.push_back(file.substr(prefix.size(), file.size() - prefix.size() - suffix.size()));
    }
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  out->clear();
  for (const std::string& name : names) {
    const std::string gs = dir + "/STS.gs." + name + ".txt";
    if (!std::ifstream(gs)) continue;  // an input without scores (none in the shipped years)
    StsSet set;
    set.name = name;
    SWE_RETURN_IF_ERROR(ReadSemEvalSubset(dir + "/STS.input." + name + ".txt", gs, limit, &set));
    out->push_back(std::move(set));
  }
  if (out->empty()) return NotFound(dir + ": no STS.input.X.txt with STS.gs.X.txt");
  return Status::Ok();
}

Status ReadSick(const std::string& path, size_t limit, StsSet* out) {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(path, &lines));
  if (lines.empty()) return Corrupt(path + ": empty");
  std::vector<std::string> header = SplitTabs(lines[0]);
  auto column = [&header](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  const int ca = column("sentence_A"), cb = column("sentence_B"), cs = column("relatedness_score");
  if (ca < 0 || cb < 0 || cs < 0) return Corrupt(path + ": header lacks sentence_A, sentence_B or relatedness_score");
  const size_t need = static_cast<size_t>(std::max({ca, cb, cs})) + 1;
  out->pairs.clear();
  for (size_t i = 1; i < lines.size() && (limit == 0 || out->pairs.size() < limit); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> f = SplitTabs(lines[i]);
    if (f.size() < need) return LineError(path, i + 1, "too few fields");
    StsPair p;
    if (!ParseDouble(f[cs], &p.score)) return LineError(path, i + 1, "bad relatedness_score '" + f[cs] + "'");
    p.a = f[ca];
    p.b = f[cb];
    out->pairs.push_back(std::move(p));
  }
  return Status::Ok();
}

Status ReadParallel(const std::string& path_a, const std::string& path_b, size_t limit,
                    std::vector<std::string>* a, std::vector<std::string>* b) {
  SWE_RETURN_IF_ERROR(ReadLines(path_a, a));
  SWE_RETURN_IF_ERROR(ReadLines(path_b, b));
  if (a->size() != b->size()) {
    return Corrupt(path_b + ": " + std::to_string(b->size()) + " lines, but " + path_a + " has " +
                   std::to_string(a->size()));
  }
  if (limit != 0 && a->size() > limit) a->resize(limit), b->resize(limit);
  return Status::Ok();
}

Status ReadParallelTsv(const std::string& path, size_t limit, std::vector<std::string>* a,
                       std::vector<std::string>* b) {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(path, &lines));
  a->clear(), b->clear();
  for (size_t i = 0; i < lines.size() && (limit == 0 || a->size() < limit); ++i) {
    if (lines[i].empty()) continue;
    const std::vector<std::string> f = SplitTabs(lines[i]);
    if (f.size() != 2) {
      return LineError(path, i + 1, "expected 'en TAB translation' (2 tab-separated fields, found " +
                                        std::to_string(f.size()) + ")");
    }
    if (Trim(f[0]).empty() || Trim(f[1]).empty()) return LineError(path, i + 1, "a side of the pair is empty");
    a->push_back(f[0]);
    b->push_back(f[1]);
  }
  return Status::Ok();
}

Status ReadSstBinary(const std::string& path, size_t limit, LabeledSet* out) {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(path, &lines));
  *out = LabeledSet();
  out->classes = {"negative", "positive"};
  for (size_t i = 0; i < lines.size() && (limit == 0 || out->texts.size() < limit); ++i) {
    if (lines[i].empty()) continue;
    const size_t tab = lines[i].rfind('\t');
    const std::string label = tab == std::string::npos ? "" : Trim(lines[i].substr(tab + 1));
    if (label != "0" && label != "1") return LineError(path, i + 1, "expected 'text TAB 0|1'");
    out->texts.push_back(Trim(lines[i].substr(0, tab)));
    out->labels.push_back(label[0] - '0');
  }
  return Status::Ok();
}

Status ReadSstFine(const std::string& path, size_t limit, LabeledSet* out) {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(path, &lines));
  *out = LabeledSet();
  out->classes = {"0", "1", "2", "3", "4"};
  for (size_t i = 0; i < lines.size() && (limit == 0 || out->texts.size() < limit); ++i) {
    if (lines[i].empty()) continue;
    const std::string& l = lines[i];
    if (l.size() < 2 || l[0] < '0' || l[0] > '4' || l[1] != ' ') return LineError(path, i + 1, "expected 'LABEL text'");
    out->texts.push_back(Trim(l.substr(2)));
    out->labels.push_back(l[0] - '0');
  }
  return Status::Ok();
}

Status ReadTwoFiles(const std::string& pos_path, const std::string& neg_path, const std::string& pos_name,
                    const std::string& neg_name, size_t limit, LabeledSet* out) {
  *out = LabeledSet();
  out->classes = {neg_name, pos_name};
  for (int label : {1, 0}) {
    std::vector<std::string> lines;
    SWE_RETURN_IF_ERROR(ReadLines(label == 1 ? pos_path : neg_path, &lines));
    if (limit != 0 && lines.size() > limit) lines.resize(limit);
    for (std::string& line : lines) {
      out->texts.push_back(Trim(line));
      out->labels.push_back(label);
    }
  }
  return Status::Ok();
}

Status ReadTrec(const std::string& path, size_t limit, const std::vector<std::string>& classes, LabeledSet* out) {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(path, &lines));
  std::vector<std::string> coarse;
  std::vector<std::string> texts;
  for (size_t i = 0; i < lines.size() && (limit == 0 || texts.size() < limit); ++i) {
    if (lines[i].empty()) continue;
    const size_t colon = lines[i].find(':'), space = lines[i].find(' ');
    if (colon == std::string::npos || space == std::string::npos || colon > space || colon == 0) {
      return LineError(path, i + 1, "expected 'COARSE:fine text'");
    }
    coarse.push_back(lines[i].substr(0, colon));
    texts.push_back(Trim(Latin1ToUtf8(lines[i].substr(space + 1))));
  }
  *out = LabeledSet();
  out->classes = classes;
  if (out->classes.empty()) {
    out->classes = coarse;
    std::sort(out->classes.begin(), out->classes.end());
    out->classes.erase(std::unique(out->classes.begin(), out->classes.end()), out->classes.end());
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    auto it = std::find(out->classes.begin(), out->classes.end(), coarse[i]);
    if (it == out->classes.end()) return Corrupt(path + ": class '" + coarse[i] + "' is not a training class");
    out->texts.push_back(std::move(texts[i]));
    out->labels.push_back(static_cast<int>(it - out->classes.begin()));
  }
  return Status::Ok();
}

Status ReadBeir(const std::string& dir, const std::string& split, size_t limit, BeirSet* out) {
  *out = BeirSet();
  // Queries: id -> text.
  const std::string qpath = dir + "/queries.jsonl";
  std::vector<std::string> lines, values;
  SWE_RETURN_IF_ERROR(ReadLines(qpath, &lines));
  std::unordered_map<std::string, std::string> query_text;
  std::string id;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    SWE_RETURN_IF_ERROR(ReadJsonRecord(qpath, i + 1, lines[i], {"text"}, &id, &values));
    if (!query_text.emplace(id, Trim(values[0])).second) return LineError(qpath, i + 1, "duplicate _id '" + id + "'");
  }
  // Judgements, grouped by query in order of first appearance; the first `limit` queries kept.
  const std::string rpath = dir + "/qrels/" + split + ".tsv";
  SWE_RETURN_IF_ERROR(ReadLines(rpath, &lines));
  if (lines.empty() || SplitTabs(lines[0]).size() != 3 || SplitTabs(lines[0])[0] != "query-id") {
    return LineError(rpath, 1, "expected the header 'query-id TAB corpus-id TAB score'");
  }
  std::unordered_map<std::string, size_t> query_row;
  std::vector<std::vector<std::pair<std::string, double>>> judged;  // per kept query: (doc id, score)
  for (size_t i = 1; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    const std::vector<std::string> f = SplitTabs(lines[i]);
    double score = 0;
    if (f.size() != 3) return LineError(rpath, i + 1, "expected 3 tab-separated fields");
    if (!ParseDouble(f[2], &score)) return LineError(rpath, i + 1, "bad score '" + f[2] + "'");
    auto text = query_text.find(f[0]);
    if (text == query_text.end()) return LineError(rpath, i + 1, "query id '" + f[0] + "' is not in " + qpath);
    auto row = query_row.find(f[0]);
    if (row == query_row.end()) {
      if (limit != 0 && out->queries.size() == limit) continue;
      row = query_row.emplace(f[0], out->queries.size()).first;
      out->query_ids.push_back(f[0]);
      out->queries.push_back(text->second);
      judged.emplace_back();
    }
    for (const auto& [doc, s] : judged[row->second]) {
      if (doc == f[1]) return LineError(rpath, i + 1, "query '" + f[0] + "' judges '" + doc + "' twice");
    }
    judged[row->second].push_back({f[1], score});
  }
  if (out->queries.empty()) return Corrupt(rpath + ": no judgements");
  // Documents: the first `limit` and every judged one.
  std::unordered_map<std::string, size_t> doc_row;
  for (const auto& q : judged) {
    for (const auto& j : q) doc_row.emplace(j.first, SIZE_MAX);
  }
  const std::string cpath = dir + "/corpus.jsonl";
  SWE_RETURN_IF_ERROR(ReadLines(cpath, &lines));
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    SWE_RETURN_IF_ERROR(ReadJsonRecord(cpath, i + 1, lines[i], {"title", "text"}, &id, &values));
    if (!seen.emplace(id, i + 1).second) return LineError(cpath, i + 1, "duplicate _id '" + id + "'");
    auto judged_doc = doc_row.find(id);
    if (limit != 0 && out->docs.size() >= limit && judged_doc == doc_row.end()) continue;
    if (judged_doc != doc_row.end()) judged_doc->second = out->docs.size();
    out->doc_ids.push_back(id);
    out->docs.push_back(Trim(values[0].empty() ? values[1] : values[0] + " " + values[1]));
  }
  for (size_t q = 0; q < judged.size(); ++q) {
    out->qrels.emplace_back();
    for (const auto& [doc, score] : judged[q]) {
      const size_t row = doc_row.at(doc);
      if (row == SIZE_MAX) return Corrupt(rpath + ": corpus id '" + doc + "' is not in " + cpath);
      out->qrels.back().push_back({row, score});
    }
  }
  return Status::Ok();
}

}  // namespace swe::eval
