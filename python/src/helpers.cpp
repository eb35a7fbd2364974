// Near-duplicate groups and k-means over vectors: the CLI's own code (cli/vector_helpers.h), so that
// dedupe and cluster give the CLI's (and JS's) results for the same vectors and seed.
#include <string>

#include "extension.h"
#include "vector_helpers.h"

namespace swe_python {
namespace {

py::list NearDuplicateGroups(py::handle vectors, double threshold) {
  if (!(threshold >= -1 && threshold <= 1)) throw py::value_error("threshold must be a number in [-1, 1]");
  FloatArray rows = Matrix(vectors, "near_duplicate_groups");
  std::vector<std::vector<size_t>> groups;
  {
    py::gil_scoped_release release;
    groups = swe::cli::NearDuplicateGroups(rows.data(), static_cast<size_t>(rows.shape(0)),
                                           static_cast<uint32_t>(rows.shape(1)), threshold);
  }
  py::list out;
  for (const auto& group : groups) {
    py::list members;
    for (size_t row : group) members.append(py::int_(row));
    out.append(members);
  }
  return out;
}

py::tuple KMeans(py::handle vectors, int64_t k, uint32_t seed, int restarts, int iterations) {
  FloatArray rows = Matrix(vectors, "kmeans");
  const size_t n = static_cast<size_t>(rows.shape(0));
  if (k < 1 || static_cast<uint64_t>(k) > n) {
    throw py::value_error("k must be in 1.." + std::to_string(n) + " (the number of vectors), got " + std::to_string(k));
  }
  if (restarts < 1 || restarts > 1000) throw py::value_error("restarts must be in 1..1000");
  if (iterations < 1) throw py::value_error("iterations must be positive");
  if (rows.shape(1) < 1) throw py::value_error("kmeans: vectors of 0 dimensions");
  swe::cli::KMeansResult result;
  {
    py::gil_scoped_release release;
    result = swe::cli::KMeans(rows.data(), n, static_cast<uint32_t>(rows.shape(1)), static_cast<uint32_t>(k), seed,
                              restarts, iterations);
  }
  py::array_t<int32_t> labels(static_cast<py::ssize_t>(n));
  std::copy(result.labels.begin(), result.labels.end(), labels.mutable_data());
  FloatArray centroids({static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(rows.shape(1))});
  std::copy(result.centroids.begin(), result.centroids.end(), centroids.mutable_data());
  return py::make_tuple(labels, centroids, result.inertia, result.iterations);
}

}  // namespace

void DefineHelpers(py::module_& m) {
  m.def("near_duplicate_groups", &NearDuplicateGroups, py::arg("vectors"), py::arg("threshold"));
  m.def("kmeans", &KMeans, py::arg("vectors"), py::arg("k"), py::arg("seed"), py::arg("restarts"),
        py::arg("iterations"));
}

}  // namespace swe_python
