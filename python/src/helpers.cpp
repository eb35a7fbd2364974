// The C API's swe_vectors_* over NumPy arrays (swe.h, "vectors"): ranking, near-duplicate groups and
// k-means, computed by the library for every binding, without the GIL. The library's argument errors
// (k out of range, a non-finite value) are ValueErrors, as Python's own checks raise.
#include <cmath>
#include <string>

#include "extension.h"

namespace swe_python {
namespace {

// Runs `call` without the GIL; a refused argument is a ValueError, any other failure swe.Error.
template <class Call>
void Run(Call&& call) {
  swe_status status;
  {
    py::gil_scoped_release release;
    status = call();
  }
  if (status == SWE_ERR_INVALID_ARGUMENT) throw py::value_error(swe_last_error());
  Check(status);
}

uint32_t Dims(const FloatArray& rows) { return static_cast<uint32_t>(rows.shape(1)); }

// (rows int64, scores float32): the up to k rows of `vectors` most similar to `query`, best first.
py::tuple Rank(py::handle query_object, py::handle vectors_object, int64_t k, float min_score) {
  if (k < 0) throw py::value_error("k must be non-negative, got " + std::to_string(k));
  if (std::isnan(min_score)) throw py::value_error("min_score must be a number, not NaN");
  FloatArray vectors = Matrix(vectors_object, "rank");
  FloatArray query = Matrix(query_object, "rank: query", vectors.shape(1));
  if (query.shape(0) != 1) throw py::value_error("rank: one query vector is expected");
  const size_t n = static_cast<size_t>(vectors.shape(0));
  const size_t kk = std::min<size_t>(static_cast<size_t>(k), n);
  std::vector<size_t> rows(kk);
  std::vector<float> scores(kk);
  swe_rank_params params = swe_rank_default_params();
  params.min_score = min_score;
  size_t found = 0;
  Run([&] {
    return swe_vectors_rank(query.data(), vectors.data(), n, Dims(vectors), kk, &params, rows.data(), scores.data(),
                            &found);
  });
  py::array_t<int64_t> out_rows(static_cast<py::ssize_t>(found));
  FloatArray out_scores(static_cast<py::ssize_t>(found));
  std::copy(rows.begin(), rows.begin() + found, out_rows.mutable_data());
  std::copy(scores.begin(), scores.begin() + found, out_scores.mutable_data());
  return py::make_tuple(out_rows, out_scores);
}

py::list NearDuplicateGroups(py::handle vectors_object, double threshold) {
  FloatArray vectors = Matrix(vectors_object, "near_duplicate_groups");
  const size_t n = static_cast<size_t>(vectors.shape(0));
  std::vector<size_t> group_of(n);
  size_t n_groups = 0;
  Run([&] {
    return swe_vectors_near_duplicates(vectors.data(), n, Dims(vectors), threshold, group_of.data(), nullptr, &n_groups);
  });
  std::vector<py::list> groups(n_groups);
  for (size_t i = 0; i < n; ++i) groups[group_of[i]].append(py::int_(i));
  py::list out;
  for (py::list& group : groups) out.append(std::move(group));
  return out;
}

// (labels int32, centroids float32 (k, dims), inertia, iterations)
py::tuple KMeans(py::handle vectors_object, int64_t k, uint32_t seed, int64_t restarts, int64_t iterations) {
  FloatArray vectors = Matrix(vectors_object, "kmeans");
  if (k < 1 || k > UINT32_MAX) throw py::value_error("k must be a positive integer, got " + std::to_string(k));
  if (restarts < 1 || restarts > 1000) throw py::value_error("restarts must be in 1..1000, got " + std::to_string(restarts));
  if (iterations < 1 || iterations > UINT32_MAX) throw py::value_error("iterations must be a positive integer");
  const size_t n = static_cast<size_t>(vectors.shape(0));
  swe_kmeans_params params = swe_kmeans_default_params();
  params.seed = seed;
  params.restarts = static_cast<uint32_t>(restarts);
  params.max_iterations = static_cast<uint32_t>(iterations);
  py::array_t<int32_t> labels(static_cast<py::ssize_t>(n));
  FloatArray centroids({static_cast<py::ssize_t>(k), vectors.shape(1)});
  int32_t* label_data = labels.mutable_data();
  float* centroid_data = centroids.mutable_data();
  double inertia = 0;
  uint32_t rounds = 0;
  Run([&] {
    return swe_vectors_kmeans(vectors.data(), n, Dims(vectors), static_cast<uint32_t>(k), &params, label_data,
                              centroid_data, &inertia, &rounds);
  });
  return py::make_tuple(labels, centroids, inertia, rounds);
}

}  // namespace

void DefineHelpers(py::module_& m) {
  m.def("rank", &Rank, py::arg("query"), py::arg("vectors"), py::arg("k"), py::arg("min_score"));
  m.def("near_duplicate_groups", &NearDuplicateGroups, py::arg("vectors"), py::arg("threshold"));
  m.def("kmeans", &KMeans, py::arg("vectors"), py::arg("k"), py::arg("seed"), py::arg("restarts"),
        py::arg("iterations"));
}

}  // namespace swe_python
