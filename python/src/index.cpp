// swe._swe.Index: a flat cosine index over the C API (swe_index_*), the same files as the CLI and npm
// package write. Searching, changing and saving to a file run without the GIL: the library locks the
// index (swe.h, "Thread safety"), so Python threads may use one index at once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "extension.h"

namespace swe_python {
namespace {

struct Index {
  swe_index* index = nullptr;
  Index() = default;
  Index(const Index&) = delete;
  Index& operator=(const Index&) = delete;
  ~Index() { swe_index_free(index); }
  uint32_t dims() const { return swe_index_get_dims(index); }
};

std::unique_ptr<Index> Create(uint32_t dims, const std::string& dtype) {
  int32_t code;
  if (dtype == "f32") {
    code = SWE_DTYPE_F32;
  } else if (dtype == "int8") {
    code = SWE_DTYPE_INT8;
  } else {
    throw py::value_error("dtype must be 'f32' or 'int8', got '" + dtype + "'");
  }
  auto out = std::make_unique<Index>();
  Check(swe_index_create(dims, code, &out->index));
  return out;
}

std::unique_ptr<Index> LoadFile(const std::string& path) {
  auto out = std::make_unique<Index>();
  CheckWithoutGil([&] { return swe_index_load_from_file(path.c_str(), nullptr, &out->index); });
  return out;
}

std::unique_ptr<Index> LoadBytes(py::buffer data) {
  const std::pair<const uint8_t*, size_t> bytes = Bytes(data);
  auto out = std::make_unique<Index>();
  CheckWithoutGil([&] { return swe_index_load_from_bytes(bytes.first, bytes.second, nullptr, &out->index); });
  return out;
}

py::bytes SaveBytes(const Index& self) {
  uint8_t* data = nullptr;
  size_t size = 0;
  Check(swe_index_save_to_bytes(self.index, &data, &size));
  py::bytes out(reinterpret_cast<const char*>(data), size);
  swe_free_bytes(data);
  return out;
}

void SaveFile(Index& self, const std::string& path) {
  CheckWithoutGil([&] { return swe_index_save_to_file(self.index, path.c_str()); });
}

void Add(Index& self, py::handle ids_object, py::handle vectors_object) {
  FloatArray vectors = Matrix(vectors_object, "add", self.dims());
  auto ids = py::array_t<uint64_t, py::array::c_style>::ensure(ids_object);
  if (!ids || ids.ndim() != 1) {
    PyErr_Clear();
    throw py::type_error("add: ids must be a sequence of non-negative integers");
  }
  if (ids.shape(0) != vectors.shape(0)) {
    throw py::value_error("add: " + std::to_string(ids.shape(0)) + " ids for " + std::to_string(vectors.shape(0)) +
                          " vectors");
  }
  CheckWithoutGil([&] { return swe_index_add(self.index, ids.data(), vectors.data(), static_cast<size_t>(ids.shape(0))); });
}

void AddDocs(Index& self, py::handle ids, py::handle texts, py::handle metadata, py::handle vectors_object) {
  FloatArray vectors = Matrix(vectors_object, "add", self.dims());
  Texts id_list(ids, "add: ids");
  Texts text_list(texts, "add: texts");
  Texts metadata_list(metadata, "add: metadata");
  const size_t n = id_list.size();
  if (text_list.size() != n || metadata_list.size() != n || static_cast<size_t>(vectors.shape(0)) != n) {
    throw py::value_error("add: as many ids, texts, metadata and vectors are needed");
  }
  std::vector<swe_doc> docs(n);
  for (size_t i = 0; i < n; ++i) {
    docs[i] = swe_doc{id_list.records()[i], text_list.records()[i], metadata_list.records()[i]};
  }
  CheckWithoutGil([&] { return swe_index_add_docs(self.index, docs.data(), vectors.data(), n); });
}

// (ids (n, k) uint64, scores (n, k) float32, counts (n,) int64): query q's hits are the first counts[q]
// (the slots after them hold 0).
py::tuple SearchBatch(const Index& self, py::handle queries_object, int64_t k, float min_score, int64_t candidates) {
  if (k < 0) throw py::value_error("k must be a non-negative integer");
  if (candidates < 0) throw py::value_error("candidates must be a non-negative integer");
  if (std::isnan(min_score)) throw py::value_error("min_score must be a number, not NaN");
  FloatArray queries = Matrix(queries_object, "search", self.dims());
  const size_t n = static_cast<size_t>(queries.shape(0));
  const size_t kk = std::min<size_t>(static_cast<size_t>(k), swe_index_get_size(self.index));
  py::array_t<uint64_t> ids({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(kk)});
  FloatArray scores({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(kk)});
  py::array_t<int64_t> counts(static_cast<py::ssize_t>(n));
  int64_t* count_data = counts.mutable_data();
  std::fill(ids.mutable_data(), ids.mutable_data() + n * kk, uint64_t{0});  // slots past a query's hits
  std::fill(scores.mutable_data(), scores.mutable_data() + n * kk, 0.0f);
  if (kk == 0) {
    std::fill(count_data, count_data + n, 0);
    return py::make_tuple(ids, scores, counts);
  }
  swe_search_params params = swe_search_default_params();
  params.candidates = static_cast<size_t>(candidates);
  std::vector<size_t> found(n);
  const float* query_data = queries.data();
  uint64_t* id_data = ids.mutable_data();
  float* score_data = scores.mutable_data();
  CheckWithoutGil([&] {
    return swe_index_search_batch(self.index, query_data, n, self.dims(), kk, min_score, &params, id_data, score_data,
                                  found.data());
  });
  for (size_t q = 0; q < n; ++q) count_data[q] = static_cast<int64_t>(found[q]);
  return py::make_tuple(ids, scores, counts);
}

py::array_t<uint64_t> Ids(const Index& self) {
  size_t n = 0;
  Check(swe_index_get_ids(self.index, nullptr, 0, &n));
  std::vector<uint64_t> ids(n);
  swe_status status;
  // Another thread may add entries between the two calls: the second then says how many to make room for.
  while ((status = swe_index_get_ids(self.index, ids.data(), ids.size(), &n)) == SWE_ERR_INVALID_ARGUMENT &&
         n > ids.size()) {
    ids.resize(n);
  }
  Check(status);
  py::array_t<uint64_t> out(static_cast<py::ssize_t>(n));
  std::copy(ids.begin(), ids.begin() + n, out.mutable_data());
  return out;
}

// The entry of the document with string id `id`, or None.
py::object FindDoc(const Index& self, py::handle id) {
  std::deque<std::string> owned;
  const swe_text text = Texts::One(id, "document id", owned);
  uint64_t entry = 0;
  const swe_status status = swe_index_find_doc(self.index, text.data, text.size, &entry);
  if (status == SWE_ERR_NOT_FOUND) return py::none();
  Check(status);
  return py::int_(entry);
}

// (id, text, metadata JSON) of entry `entry`, or None when it has no document.
py::object GetDoc(const Index& self, uint64_t entry) {
  swe_doc doc{};
  const swe_status status = swe_index_get_doc(self.index, entry, &doc);
  if (status == SWE_ERR_NOT_FOUND) return py::none();
  Check(status);
  auto str = [](const swe_text& t) { return py::str(t.data, t.size); };
  return py::make_tuple(str(doc.id), str(doc.text), str(doc.metadata));
}

bool Remove(Index& self, uint64_t entry) {
  swe_status status;
  {
    py::gil_scoped_release release;
    status = swe_index_remove(self.index, entry);
  }
  if (status == SWE_ERR_NOT_FOUND) return false;
  Check(status);
  return true;
}

}  // namespace

void DefineIndex(py::module_& m) {
  py::class_<Index>(m, "Index", "A flat cosine index (use swe.Index).")
      .def_static("create", &Create, py::arg("dims"), py::arg("dtype"))
      .def_static("load_file", &LoadFile, py::arg("path"))
      .def_static("load_bytes", &LoadBytes, py::arg("data"))
      .def("save_bytes", &SaveBytes)
      .def("save_file", &SaveFile, py::arg("path"))
      .def_property_readonly("size", [](const Index& self) { return swe_index_get_size(self.index); })
      .def_property_readonly("dims", &Index::dims)
      .def_property_readonly("dtype", [](const Index& self) { return swe_dtype_name(swe_index_get_dtype(self.index)); })
      .def_property_readonly("doc_count", [](const Index& self) { return swe_index_get_doc_count(self.index); })
      .def("add", &Add, py::arg("ids"), py::arg("vectors"))
      .def("add_docs", &AddDocs, py::arg("ids"), py::arg("texts"), py::arg("metadata"), py::arg("vectors"))
      .def("search_batch", &SearchBatch, py::arg("queries"), py::arg("k"), py::arg("min_score"), py::arg("candidates"))
      .def("ids", &Ids)
      .def("find_doc", &FindDoc, py::arg("id"))
      .def("get_doc", &GetDoc, py::arg("entry"))
      .def("remove", &Remove, py::arg("entry"))
      .def("contains", [](const Index& self, uint64_t entry) { return swe_index_contains(self.index, entry) == 1; })
      .def("set_model", [](Index& self, py::handle model) { Check(swe_index_set_model(self.index, ModelHandle(model))); })
      .def("check_model", [](const Index& self, py::handle model) {
        Check(swe_index_check_model(self.index, ModelHandle(model)));
      });
}

}  // namespace swe_python
