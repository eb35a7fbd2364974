#include "refine/objectives.h"

#include <torch/torch.h>

#include <functional>
#include <sstream>

#include "data/corpus.h"
#include "refine/refine_internal.h"

namespace swe::trainer {
namespace {
namespace F = torch::nn::functional;

// mapped: the teacher's vectors in the student's space (t_i W).
torch::Tensor DistanceLossTensor(const torch::Tensor& mapped, const torch::Tensor& student, double euclidean,
                                 double cosine) {
  torch::Tensor squared = (student - mapped).pow(2).sum(1).mean();
  torch::Tensor cos = (Normalize(student) * Normalize(mapped)).sum(1);
  return euclidean * squared + cosine * (1 - cos).mean();
}

// The first `cols` columns of m (all when cols < 0; an undefined m stays undefined).
torch::Tensor First(const torch::Tensor& m, int64_t cols) {
  return cols < 0 || !m.defined() ? m : m.narrow(1, 0, cols);
}

// L_M (objectives.h): loss(-1) on all dims plus each prefix's weight times loss(its dims). Cutting the
// sentence vectors equals cutting the table (a sentence vector is the mean of its rows).
torch::Tensor WithPrefixes(const std::vector<PrefixLoss>& prefixes, const std::function<torch::Tensor(int64_t)>& loss) {
  torch::Tensor total = loss(-1);
  for (const PrefixLoss& p : prefixes) total = total + p.weight * loss(p.dims);
  return total;
}

torch::Tensor ContrastivePrefixes(const torch::Tensor& anchor, const torch::Tensor& positive,
                                  const torch::Tensor& negative, const ObjectiveSpec& spec) {
  return WithPrefixes(spec.matryoshka, [&](int64_t c) {
    return ContrastiveLossTensor(First(anchor, c), First(positive, c), First(negative, c), spec.tau, spec.symmetric);
  });
}

torch::Tensor DistancePrefixes(const torch::Tensor& mapped, const torch::Tensor& student, const ObjectiveSpec& spec) {
  return WithPrefixes(spec.matryoshka, [&](int64_t c) {
    return DistanceLossTensor(First(mapped, c), First(student, c), spec.euclidean, spec.cosine);
  });
}

// The polar factor U Vᵀ of m (the nearest matrix with orthonormal columns or rows).
torch::Tensor Polar(const torch::Tensor& m) {
  auto [u, s, vh] = torch::linalg_svd(m, /*full_matrices=*/false);
  return torch::matmul(u, vh);
}

torch::Tensor Double(const float* p, uint32_t rows, uint32_t cols) {
  return torch::from_blob(const_cast<float*>(p), {rows, cols}, torch::kFloat32).to(torch::kFloat64);
}

// The objectives' settings and data, for the checkpoint's key (refine.h, RefineOptions::checkpoint_key).
std::string ObjectivesDigest(const std::vector<Objective>& objectives) {
  uint64_t h = Fnv1a64("objectives");
  auto bytes = [&h](const void* data, size_t n) { h = Fnv1a64(std::string_view(static_cast<const char*>(data), n), h); };
  auto sentences = [&bytes](const std::vector<std::vector<uint32_t>>& all) {
    for (const std::vector<uint32_t>& rows : all) {
      const uint64_t n = rows.size();
      bytes(&n, sizeof n);
      bytes(rows.data(), n * sizeof(uint32_t));
    }
  };
  for (const Objective& o : objectives) {
    const ObjectiveSpec& spec = o.spec;
    std::ostringstream text;
    text.precision(17);
    text << ObjectiveName(spec.kind) << " " << spec.weight << " " << spec.tau << " " << spec.triples << spec.symmetric
         << spec.hard_negatives << " " << spec.euclidean << " " << spec.cosine << " " << spec.orthogonal_map;
    for (const PrefixLoss& p : spec.matryoshka) text << " " << p.dims << ":" << p.weight;
    text << "\n";
    h = Fnv1a64(text.str(), h);
    if (spec.kind == ObjectiveKind::kContrastive && o.tuples != nullptr) {
      sentences(o.tuples->anchor);
      sentences(o.tuples->positive);
      sentences(o.tuples->negative);
    } else if (o.sentences != nullptr) {
      sentences(o.sentences->sentences);
      bytes(o.sentences->teacher.data.data(), o.sentences->teacher.data.size() * sizeof(float));
    }
  }
  return HexU64(h);
}

Status CheckObjective(const Objective& o, const RefineOptions& options, uint64_t rows, uint64_t dims, size_t* n) {
  const char* name = ObjectiveName(o.spec.kind);
  if (!(o.spec.weight >= 0)) return InvalidArgument(std::string("refine: objective ") + name + ": weight must be >= 0");
  for (const PrefixLoss& p : o.spec.matryoshka) {
    if (p.dims == 0 || p.dims >= dims) {
      return InvalidArgument("refine: matryoshka dims must be in 1.." + std::to_string(dims - 1) + " (the table has " +
                             std::to_string(dims) + "; got " + std::to_string(p.dims) + ")");
    }
    if (!(p.weight >= 0)) return InvalidArgument("refine: matryoshka weights must be >= 0");
  }
  if (o.spec.kind == ObjectiveKind::kContrastive) {
    if (!o.tuples) return InvalidArgument("refine: contrastive objective without data");
    const TupleData& t = *o.tuples;
    *n = t.anchor.size();
    if (t.positive.size() != *n || (!t.negative.empty() && t.negative.size() != *n)) {
      return InvalidArgument("refine: contrastive data: one positive (and negative) per anchor is needed");
    }
    SWE_RETURN_IF_ERROR(CheckCommon(*n, "contrastive examples", options));
    for (const auto* side : {&t.anchor, &t.positive, &t.negative}) SWE_RETURN_IF_ERROR(CheckSentences(*side, rows));
    return Status::Ok();
  }
  if (!o.sentences) return InvalidArgument(std::string("refine: objective ") + name + " without sentences");
  *n = o.sentences->sentences.size();
  if (o.sentences->teacher.rows != *n) return InvalidArgument("refine: one teacher vector per sentence is needed");
  SWE_RETURN_IF_ERROR(CheckCommon(*n, "sentences", options));
  return CheckSentences(o.sentences->sentences, rows);
}

// The distance objective's map, Procrustes-initialised on (up to 20k of) the sentences; `train`
// says whether it is a trained parameter.
torch::Tensor InitialMap(const Objective& o, const torch::Tensor& teacher, const torch::Tensor& table, bool* train) {
  const int64_t dt = teacher.size(1), ds = table.size(1);
  *train = o.spec.orthogonal_map;
  if (!o.spec.orthogonal_map) return torch::eye(dt, ds, teacher.options());
  torch::NoGradGuard guard;
  std::vector<size_t> all(std::min<size_t>(o.sentences->sentences.size(), 20000));
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  torch::Tensor s = StudentVectors(StudentTable{table, false, torch::Tensor()}, o.sentences->sentences, all, 0, all.size());
  torch::Tensor t = teacher.narrow(0, 0, static_cast<int64_t>(all.size()));
  return Polar(torch::matmul(t.t(), s)).contiguous();
}

}  // namespace

const char* ObjectiveName(ObjectiveKind kind) {
  switch (kind) {
    case ObjectiveKind::kKd: return "kd";
    case ObjectiveKind::kContrastive: return "contrastive";
    case ObjectiveKind::kDistance: return "distance";
  }
  return "?";
}

// The spec of a loss computed outside training (the tests' entry points below).
static ObjectiveSpec LossSpec(const std::vector<PrefixLoss>& matryoshka) {
  ObjectiveSpec spec;
  spec.matryoshka = matryoshka;
  return spec;
}

double SupervisedContrastiveLoss(const float* anchor, const float* positive, const float* negative, uint32_t n,
                                 uint32_t d, double tau, bool symmetric, const std::vector<PrefixLoss>& matryoshka) {
  torch::NoGradGuard guard;
  ObjectiveSpec spec = LossSpec(matryoshka);
  spec.tau = tau;
  spec.symmetric = symmetric;
  torch::Tensor neg = negative ? Double(negative, n, d) : torch::Tensor();
  return ContrastivePrefixes(Double(anchor, n, d), Double(positive, n, d), neg, spec).item<double>();
}

double DistanceLoss(const float* teacher, const float* student, const float* map, uint32_t n, uint32_t dt,
                    uint32_t ds, double euclidean, double cosine, const std::vector<PrefixLoss>& matryoshka) {
  torch::NoGradGuard guard;
  ObjectiveSpec spec = LossSpec(matryoshka);
  spec.euclidean = euclidean;
  spec.cosine = cosine;
  return DistancePrefixes(torch::matmul(Double(teacher, n, dt), Double(map, dt, ds)), Double(student, n, ds), spec)
      .item<double>();
}

Status ProcrustesMap(const Matrix& teacher, const Matrix& student, Matrix* map) {
  if (teacher.rows != student.rows || teacher.rows == 0) return InvalidArgument("procrustes: rows differ or are none");
  try {
    torch::Tensor w = Polar(torch::matmul(ToTensor(teacher, torch::kCPU).t(), ToTensor(student, torch::kCPU)))
                          .contiguous();
    map->rows = teacher.cols;
    map->cols = student.cols;
    map->data.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
  } catch (const std::exception& e) {
    return Internal(std::string("procrustes failed: ") + e.what());
  }
  return Status::Ok();
}

namespace {

// The loss of objective `o` on a batch of its examples, for a student that starts from `start` (the
// table, on `device`). A distance objective's trained orthogonal map is appended to extra->tensors
// and *maps.
Status ObjectiveLoss(const Objective& o, const torch::Tensor& start, const torch::Device& device, ExtraParams* extra,
                     std::vector<torch::Tensor>* maps, BatchLoss* loss) {
  const ObjectiveSpec spec = o.spec;
  const uint64_t table_cols = static_cast<uint64_t>(start.size(1));
  if (spec.kind == ObjectiveKind::kContrastive) {
    const TupleData& t = *o.tuples;
    const bool hard = spec.hard_negatives && !t.negative.empty();
    *loss = [&t, spec, hard](const StudentTable& w, const std::vector<size_t>& idx, size_t begin, size_t end) {
      torch::Tensor neg = hard ? StudentVectors(w, t.negative, idx, begin, end) : torch::Tensor();
      return ContrastivePrefixes(StudentVectors(w, t.anchor, idx, begin, end),
                                 StudentVectors(w, t.positive, idx, begin, end), neg, spec);
    };
    return Status::Ok();
  }
  const RefineData& data = *o.sentences;
  torch::Tensor teacher = ToTensor(data.teacher, device);
  if (spec.kind == ObjectiveKind::kKd) {
    *loss = [&data, teacher, spec, device](const StudentTable& w, const std::vector<size_t>& idx, size_t begin,
                                           size_t end) {
      torch::Tensor t = teacher.index_select(0, Rows(idx, begin, end, device));
      torch::Tensor s = StudentVectors(w, data.sentences, idx, begin, end);
      return WithPrefixes(spec.matryoshka, [&](int64_t c) { return KdLossTensor(t, First(s, c), spec.tau); });
    };
    return Status::Ok();
  }
  if (!spec.orthogonal_map && data.teacher.cols != table_cols) {
    return InvalidArgument("refine: distance with map 'identity' needs the teacher's dims (" +
                           std::to_string(data.teacher.cols) + ") to equal the table's (" +
                           std::to_string(table_cols) + ")");
  }
  bool train_map = false;
  torch::Tensor map = InitialMap(o, teacher, start, &train_map);
  if (train_map) {
    map.requires_grad_(true);
    extra->tensors.push_back(map);
    maps->push_back(map);
  }
  *loss = [&data, teacher, map, spec, device](const StudentTable& w, const std::vector<size_t>& idx, size_t begin,
                                              size_t end) {
    return DistancePrefixes(torch::matmul(teacher.index_select(0, Rows(idx, begin, end, device)), map),
                            StudentVectors(w, data.sentences, idx, begin, end), spec);
  };
  return Status::Ok();
}

}  // namespace

Status RefineObjectives(const std::vector<Objective>& objectives, const RefineOptions& options, Matrix* table,
                        RefineReport* report) {
  if (objectives.empty()) return InvalidArgument("refine: no objective");
  if (options.word_weights && options.frozen_rows > 0) {
    return InvalidArgument("refine: word weights train every row's scale: not with frozen rows (train_rows new)");
  }
  std::vector<size_t> sizes(objectives.size());
  for (size_t i = 0; i < objectives.size(); ++i) {
    SWE_RETURN_IF_ERROR(CheckObjective(objectives[i], options, table->rows, table->cols, &sizes[i]));
  }
  try {
    torch::Device device(options.device);
    std::vector<LossTerm> terms;
    ExtraParams extra;
    std::vector<torch::Tensor> maps;
    const torch::Tensor start = ToTensor(*table, device);
    for (size_t i = 0; i < objectives.size(); ++i) {
      BatchLoss loss;
      SWE_RETURN_IF_ERROR(ObjectiveLoss(objectives[i], start, device, &extra, &maps, &loss));
      terms.push_back({sizes[i], loss, objectives[i].spec.weight});
    }
    if (!maps.empty()) {
      extra.after_step = [maps]() {
        torch::NoGradGuard guard;
        for (const torch::Tensor& m : maps) m.copy_(Polar(m));
      };
    }
    torch::Tensor scale;  // word weights: trained with the table; Train leaves the best epoch's values
    if (options.word_weights) {
      scale = torch::ones({start.size(0)}, start.options()).requires_grad_(true);
      extra.tensors.push_back(scale);
      for (LossTerm& term : terms) {
        term.loss = [loss = term.loss, scale](const StudentTable& w, const std::vector<size_t>& idx, size_t begin,
                                              size_t end) {
          StudentTable scaled = w;
          scaled.row_scale = scale;
          return loss(scaled, idx, begin, end);
        };
      }
    }
    RefineOptions keyed = options;  // a checkpoint is for this data only
    if (!keyed.checkpoint.empty()) keyed.checkpoint_key += " " + ObjectivesDigest(objectives);
    Train(terms, keyed, extra, table, report);
    if (options.word_weights) {  // fold the scales into the rows: the model the losses saw
      const torch::Tensor best_scale = scale.detach().to(torch::kCPU).contiguous();
      const float* s = best_scale.data_ptr<float>();
      for (uint64_t r = 0; r < table->rows; ++r) {
        for (uint64_t c = 0; c < table->cols; ++c) table->row(r)[c] *= s[r];
      }
    }
  } catch (const std::exception& e) {
    return Internal(std::string("refine failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
